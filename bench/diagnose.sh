#!/bin/sh
# diagnose.sh - `make bench`: how long `diagnose` takes on 64 ranks in
# the middle of a mesh allreduce (the allreduce figures themselves are
# bench/peers.sh's).  Figures, not tests.
#   bench/diagnose.sh [objdir]
set -u
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
colldb=$top/colldb
tmp=$(mktemp -d "${TMPDIR:-/tmp}/colldb-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

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
rc=$?
verdict=$(grep -m1 -E '^(HANG|SLOW|OK)' "$tmp/d64.out")
ms=$(sed -n 's/^diagnosed in \([0-9.]*\) ms$/\1/p' "$tmp/d64.out" | sort -n |
    sed -n 3p)
echo "  ${verdict:-no verdict?}"
echo "  diagnose took ${ms:-?} ms (median of 5; 64 programs of 49085 micro-ops)"
if [ $rc -ne 0 ] || [ -z "$verdict" ] || [ -z "$ms" ]; then
	echo "diagnose.sh: colldb exit $rc:" >&2
	tail -5 "$tmp/d64.out" >&2
	exit 1
fi
