#!/bin/sh
# make bench: print the figures (not tests; nothing asserts a time).
# bench/README says what each part measures and how to read it.
#
# Each goal prints a verdict line, "MET: ..." or "OVER TARGET: ...";
# the verdicts are repeated at the end.  A goal missed is a figure, not a
# failure: the exit status is nonzero only when a part did not run
# correctly (a peer missing, a crash, a wrong result, no figure).
#
# BENCH_SMOKE=1 runs every part as briefly as it can run (one repetition,
# three sizes, short timings, small worlds): its figures mean nothing; it
# shows that every part still runs to the end (tests/bench.sh, in make
# check).
O=${1:-build}
mpi_args="" idle="32 10" spans="" scale="" blocked=5 pane=3 user=""
if [ "${BENCH_SMOKE:-}" = 1 ]; then
	export BENCH_REPS=1 BENCH_TIME=0.01 BENCH_FACTOR=128 SCALE_SECS=20
	mpi_args="200 1048576" idle="2 1" spans=20000 scale=8 blocked=0.5 pane=1
	user="200 3"
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/colldb-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
: >"$tmp/failed"

# part NAME CMD...: run CMD, its output shown as it comes and kept for
# the verdicts; a nonzero exit is noted as NAME's failure
part() {
	_name=$1
	shift
	{ "$@"; echo $? >"$tmp/rc"; } 2>&1 | tee -a "$tmp/out"
	_rc=$(cat "$tmp/rc")
	[ "$_rc" -eq 0 ] || echo "$_name: exit $_rc" >>"$tmp/failed"
}

echo "== colldb bench on $(nproc) CPUs, $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg)"
part peers.sh sh bench/peers.sh "$O"
echo "== a rank blocked in wait: what it costs"
part bench-wake "$O/bench/bench-wake" -c $blocked
echo "== data path: the reduce and convert kernels at each level (core/kern.h)"
part kern-bw "$O/bench/kern-bw"
echo "== spans: what recording costs"
part span-cost "$O/bench/span-cost"
echo "== programs: what coll_build costs"
part build-cost "$O/bench/build-cost"
echo "== watch pane: CPU of sampling and drawing 64 ranks x 256 cells at 10 Hz (80x24)"
part pane-cost "$O/bench/pane-cost" -s $pane
echo "== explore: executions and micro-ops per second; executions explored vs every interleaving"
part explore-bench "$O/bench/explore-bench"
part diagnose.sh sh bench/diagnose.sh "$O"
echo "== mpi transport: colldb's operations next to the same ones in MPI (same job, same window)"
part mpi.sh sh bench/mpi.sh "$O" $mpi_args
part user.sh sh bench/user.sh "$O" $user
echo "== mpi transport: CPU of ${idle% *} agents idle at the prompt for ${idle#* } s"
part mpi-idle.sh sh bench/mpi-idle.sh $idle
echo "== colldb stats / tree --mean on a generated 1M-span [STRACE] log"
part logs-scale.sh sh bench/logs-scale.sh $spans
part scale.sh sh bench/scale.sh "$O" $scale

echo "== verdicts (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
grep -E '^ *(MET|OVER TARGET|NO FIGURE):' "$tmp/out" | sed 's/^ */  /'
met=$(grep -cE '^ *MET:' "$tmp/out")
over=$(grep -cE '^ *(OVER TARGET|NO FIGURE):' "$tmp/out")
echo "  $met met, $over over target"
if [ -s "$tmp/failed" ]; then
	echo "make bench: FAILED (a part did not run correctly):"
	sed 's/^/  /' "$tmp/failed"
	exit 1
fi
echo "make bench: every part ran to the end"
exit 0
