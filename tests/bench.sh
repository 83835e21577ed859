#!/bin/sh
# The bench tier: `make bench` still runs, every part of it, to the end.
#   tests/bench.sh [objdir]
#
#   smoke    bench/run.sh with BENCH_SMOKE=1 (every part as briefly as it
#            runs: one repetition, three sizes, small worlds): exit 0, its
#            last line says every part ran, every part's heading is there,
#            and the verdicts number what make bench prints (a part whose
#            output a script no longer reads loses its verdict lines, and
#            peers.sh fails on a figure missing).  Its figures mean
#            nothing and nothing here reads a time.
#   failing  a part that cannot run fails make bench: with no programs
#            (an empty objdir) bench/run.sh exits 1 and names the parts;
#            a peer's MPI missing fails peers.sh, and says which.
set -u
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. tests/need.sh
need python3 mpirun.openmpi mpirun.mpich unshare nsenter ip
tmp=$(mktemp -d "${TMPDIR:-/tmp}/colldb-test-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: bench: $*"; }

# ---- smoke ------------------------------------------------------------
BENCH_SMOKE=1 sh bench/run.sh "$O" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || bad "bench/run.sh exited $rc"
[ "$(tail -1 "$tmp/out")" = "make bench: every part ran to the end" ] && ok ||
	bad "last line: $(tail -1 "$tmp/out")"
for h in "== side by side" "notify->wait round trip" "allreduce f32 sum, 2 ranks" \
    "allreduce f32 sum, 4 ranks" "== a rank blocked in wait" "== data path" \
    "== spans" "== programs" "== watch pane" "== explore" "== diagnose on 64 ranks" \
    "== mpi transport: colldb's operations" "== user programs" "== mpi transport: CPU of" \
    "== colldb stats / tree --mean" "== many ranks" "== verdicts"; do
	grep -qF -- "$h" "$tmp/out" && ok || bad "no '$h' heading"
done
# every verdict make bench has: 2 round trip, 6 allreduce (2 of them against
# the protocols' floor), 2 spans, 12 mpi, 2 user programs, 2 idle, 2 logs,
# 5 many ranks
n=$(sed -n '/^== verdicts/,$p' "$tmp/out" | grep -cE '^  (MET|OVER TARGET):')
[ "$n" -eq 33 ] && ok || bad "$n verdicts, not 33"
grep -q 'NO FIGURE' "$tmp/out" && bad "a figure is missing" || ok
if [ $fail -ne 0 ]; then
	echo "  (bench/run.sh's output:)"
	sed 's/^/    /' "$tmp/out" | tail -60
fi

# ---- failing ----------------------------------------------------------
empty=$O/bench-test-empty	# an objdir with nothing built (relative, as objdirs are)
rm -rf "$empty" && mkdir -p "$empty"
BENCH_SMOKE=1 sh bench/run.sh "$empty" >"$tmp/out2" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || bad "with no programs bench/run.sh exited $rc, not 1"
grep -q '^make bench: FAILED (a part did not run correctly):' "$tmp/out2" && ok ||
	bad "with no programs: no FAILED line"
for p in peers.sh bench-wake kern-bw span-cost mpi.sh user.sh; do
	grep -q "^  $p: exit [1-9]" "$tmp/out2" && ok || bad "with no programs: $p not named"
done
rm -rf "$empty"
# every command of the PATH but mpirun.mpich
mkdir "$tmp/bin"
for d in $(echo "$PATH" | tr : ' '); do
	for f in "$d"/*; do
		b=$(basename "$f")
		[ "$b" = mpirun.mpich ] || [ -e "$tmp/bin/$b" ] || ln -s "$f" "$tmp/bin/$b"
	done
done
PATH="$tmp/bin" /bin/sh bench/peers.sh "$O" >"$tmp/out3" 2>&1
rc=$?
[ $rc -ne 0 ] && ok || bad "peers.sh without MPICH exited 0"
grep -q 'mpirun.mpich not found' "$tmp/out3" && ok || bad "peers.sh without MPICH: $(cat "$tmp/out3")"

echo "  bench: $pass checks passed, $fail failed"
[ $fail -eq 0 ]
