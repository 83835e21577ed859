#!/bin/sh
# coll.sh - `make bench`, collectives part: allreduce mesh and ring of
# 64 MiB f32 on 2 and 4 ranks through the real `colldb --batch` and its
# `bench` (median of 10 rounds after 2 warmup rounds; busbw = 2(n-1)/n x
# bytes / time, nccl-tests' factor), next to the memcpy bandwidth of a
# 64 MiB buffer measured in the same run; then how long `diagnose` takes
# on 64 ranks in the middle of a mesh allreduce.  Figures, not tests.
#   bench/coll.sh [objdir]
set -u
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
colldb=$top/colldb
tmp=$(mktemp -d "${TMPDIR:-/tmp}/colldb-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

mc=$("$top/$O/bench/memcpy-bw" 64)
echo "  memcpy of 64 MiB: $mc GB/s (median of 11; the floor busbw is read against)"
printf '  %-5s %5s %12s %12s %12s %9s\n' mode ranks "time (ms)" "algbw GB/s" \
    "busbw GB/s" "/memcpy"
for n in 2 4; do
	for mode in mesh ring; do
		printf 'set times on\nbench allreduce 64M rounds=10 warmup=2 mode=%s json\n' \
		    "$mode" | "$colldb" -n "$n" --batch >"$tmp/out" 2>"$tmp/err"
		python3 - "$tmp/out" "$mode" "$n" "$mc" <<'EOS' || cat "$tmp/err"
import json, sys
d = json.loads(open(sys.argv[1]).read())
t = d["time_us"]["median"]
print("  %-5s %5s %12.2f %12.2f %12.2f %9.2f   (%d spans not kept)" % (
    sys.argv[2], sys.argv[3], t / 1000, d["algbw_GBps"], d["busbw_GBps"],
    d["busbw_GBps"] / float(sys.argv[4]), d["spans_not_kept"]))
EOS
	done
done

echo "== diagnose on 64 ranks in the middle of a mesh allreduce of 4 MiB"
cat >"$tmp/d64.coll" <<'EOS'
set times on
alloc buf [1048576] f32
alloc sig [64,1] i32
start allreduce buf sig
step 50
@0-62 continue
diagnose
diagnose
diagnose
diagnose
diagnose
EOS
"$colldb" -n 64 --batch "$tmp/d64.coll" >"$tmp/d64.out" 2>&1
verdict=$(grep -m1 -E '^(HANG|SLOW|OK)' "$tmp/d64.out")
ms=$(sed -n 's/^diagnosed in \([0-9.]*\) ms$/\1/p' "$tmp/d64.out" | sort -n |
    sed -n 3p)
echo "  ${verdict:-no verdict?}"
echo "  diagnose took ${ms:-?} ms (median of 5; 64 programs of 49085 micro-ops)"
