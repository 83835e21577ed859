#!/bin/sh
# mpi.sh - `make bench`, mpi part: colldb's notify->wait round trip, 64 MiB
# put+notify bandwidth and ring allreduce busbw on the mpi transport, next
# to the same operations written directly against MPI in the same job and
# window (bench/mpi-ops.c: colldb and MPI alternate, medians of 3), for
# Open MPI and MPICH, on one host and across the two network namespaces of
# tests/mpi/hosts.sh (one rank each side).  "x" is colldb's time over
# MPI's (1.00: no overhead); the goal is x <= 1.2 for the round trip, the
# put and the builtin ring allreduce against MPI_Allreduce (a verdict line
# each: the builtin moves what MPI_Allreduce moves, one read of a whole
# segment a step; the composite, PyPTO's lowering with two barriers and a
# read per 16 KiB sub-chunk, is latency-bound across hosts by design and is
# a figure only).  Figures, not tests.
#
# Each of the four jobs (where x MPI) runs BENCH_REPS times (default 3;
# BENCH_SMOKE=1 sets 1), interleaved: a repetition runs every job once, in
# an order that rotates from one repetition to the next, so a change of
# load hits every job alike.  A figure is the median of the repetitions,
# [min..max] beside it; x is the median of the per-repetition ratios (the
# two figures of one repetition come from the same job, side by side), and
# the verdict is on that.
#   bench/mpi.sh [objdir [ITERS [BYTES]]]   (ITERS: round trips on one
#                    host, a fourth of them across namespaces; BYTES: of
#                    the put, 64 MiB)
set -u
O=${1:-build}
iters=${2:-4000}
bytes=${3:-67108864}
reps=${BENCH_REPS:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
ops=$top/$O/bench/mpi-ops
tmp=$(mktemp -d "${TMPDIR:-/tmp}/colldb-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

for need in mpirun.openmpi mpirun.mpich unshare python3; do
	command -v $need >/dev/null 2>&1 || {
		echo "mpi.sh: $need not found (make deps installs it)" >&2; exit 1; }
done
[ -f "$top/libcolldb-mpi-openmpi.so" ] && [ -f "$top/libcolldb-mpi-mpich.so" ] || {
	echo "mpi.sh: the MPI plugins are not built (make)" >&2; exit 1; }
case $reps in
''|*[!0-9]*|0) echo "mpi.sh: BENCH_REPS: expected a count of 1 or more, not '$reps'" >&2; exit 1 ;;
esac
status=0

# run JOB OUT: one job, "local-openmpi" ... "ns-mpich", rank 0's lines
# (and everything else it printed) in OUT
run() {
	mpi=mpirun.${1#*-}
	case $1 in
	local-*)
		(cd "$tmp" && "$top/colldb" run -t mpi --mpirun "$mpi" -n 2 --batch \
		    "$ops" "$iters" "$bytes" 3) >"$2" 2>&1 ;;
	*)
		sh "$top/tests/mpi/hosts.sh" sh -c "cd $tmp && $top/colldb run -t mpi \
		    --mpirun $mpi --hosts \$NODE1:1,\$NODE2:1 --net \$NET --batch \
		    $ops $((iters / 4)) $bytes 3" >"$2" 2>&1 ;;
	esac
}

# rotate K LIST: the order of repetition K
rotate() {
	_k=$1
	shift
	_i=0
	while [ $_i -lt $((_k % $#)) ]; do
		_f=$1
		shift
		set -- "$@" "$_f"
		_i=$((_i + 1))
	done
	echo "$@"
}

rep=0
while [ $rep -lt "$reps" ]; do
	for job in $(rotate $rep local-openmpi local-mpich ns-openmpi ns-mpich); do
		run $job "$tmp/$job.$rep"
	done
	rep=$((rep + 1))
done

[ "$reps" -eq 1 ] && r=repetition || r=repetitions
echo "  ($reps $r, order rotated; median [min..max]; x: the median of the per-repetition ratios)"
python3 - "$tmp" "$reps" "$bytes" <<'EOS' || status=1
import statistics, sys
tmp, reps, nbytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
put = ("%d MiB put GB/s" % (nbytes >> 20) if nbytes >= 1 << 20
       else "%d KiB put GB/s" % (nbytes >> 10))
rows = [("rtt", "notify->wait RTT us", False),
        ("putbw", put, True),
        ("allreduce", "allreduce busbw GB/s", True),
        ("allreduce-builtin", "builtin allr busbw GB/s", True)]
def fig(v):
    if len(v) == 1:
        return "%.2f" % v[0]
    return "%.2f [%.2f..%.2f]" % (statistics.median(v), min(v), max(v))
# the table is printed once every row is known: each column as wide as
# its widest cell (a long [min..max] bracket shifted the columns after it)
table = [("where", "mpi", "figure", "colldb", "MPI", "x")]
verdicts, failed = [], 0
for job, where in (("local", "one host"), ("ns", "two namespaces")):
    for mpi in ("openmpi", "mpich"):
        got = []   # per repetition: {figure: (colldb, MPI)}
        for rep in range(reps):
            lines = {}
            out = "%s/%s-%s.%d" % (tmp, job, mpi, rep)
            for l in open(out):
                if l.startswith("[rank 0] "):
                    f = l[9:].split()
                    if len(f) == 3:
                        lines[f[0]] = (float(f[1]), float(f[2]))
            if len(lines) != 4:
                sys.stdout.write("  mpi.sh: %s %s, repetition %d printed:\n" % (mpi, where, rep + 1))
                sys.stdout.write("".join("    " + l for l in open(out)))
                continue
            got.append(lines)
        if len(got) != reps:
            failed = 1
            verdicts.append("  NO FIGURE: mpi %s %s: colldb <= 1.2x MPI" % (mpi, where))
            continue
        for key, label, bw in rows:
            c = [g[key][0] for g in got]
            m = [g[key][1] for g in got]
            x = statistics.median([(b / a) if bw else (a / b) for a, b in zip(c, m)])
            table.append((where, mpi, label, fig(c), fig(m), "%.2f" % x))
            if key != "allreduce":  # the goal: colldb's overhead over MPI's own
                # (the composite ring is PyPTO's lowering: two barriers and a
                # read per 16 KiB, a network round trip each, by design)
                verdicts.append("  %s: mpi %s %s %s <= 1.2x MPI (%.2fx)" %
                                ("MET" if x <= 1.2 else "OVER TARGET", mpi, where, label, x))
width = [max(len(row[k]) for row in table) for k in range(len(table[0]))]
for row in table:
    cells = [c.ljust(w) for c, w in zip(row[:-1], width)] + [row[-1].rjust(width[-1])]
    print("  " + " ".join(cells))
print("\n".join(verdicts))
sys.exit(failed)
EOS
exit $status
