#!/bin/sh
# peers.sh - `make bench`, side by side: colldb next to its peers in the
# same run, interleaved.  Figures, not tests.  bench/README says how to
# read the tables.
#
#   1. notify->wait round trip on 2 ranks: the C11 floors, colldb's shm
#      transport and rank executor (bench-wake -k), Open MPI's and
#      MPICH's passive-target RMA ping-pong (mpi-peer rma);
#   2. allreduce f32 on 2 and 4 ranks, SIZES bytes: colldb (mesh and
#      ring, `bench sweep ... time=TIME json`), MPI_Allreduce of Open MPI
#      and of MPICH (mpi-peer allreduce, measured the same way: every rank
#      times each call, calls back to back, a round is the slowest rank,
#      the median round), memcpy of the same size (memcpy-bw), and the
#      protocols' own floor (proto-floor: the same mesh and ring with bare
#      C11 atomics, no executor).
#
# Each peer runs REPS times; the order rotates from one repetition to the
# next (A B C D, B C D A, ...), so a change of load hits every peer alike.
# A figure is the median of the repetitions, [min..max] beside it; a ratio
# is colldb's best mode over the peer, the median of the per-repetition
# ratios.  4 ranks on fewer CPUs are oversubscribed: Open MPI needs
# --oversubscribe (and, as root, OMPI_ALLOW_RUN_AS_ROOT*).
#   bench/peers.sh [objdir]     BENCH_REPS=3 BENCH_TIME=0.2 BENCH_FACTOR=4
#                               in the environment (the sizes: 4 KiB times
#                               FACTOR^k up to 64 MiB)
set -u
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
colldb=$top/colldb
reps=${BENCH_REPS:-3}
btime=${BENCH_TIME:-0.2}
sizes_min=4k
sizes_max=64M
factor=${BENCH_FACTOR:-4}	# 128: 4k 512k 64M (bench/run.sh's smoke)
case $factor in
''|*[!0-9]*|0|1) echo "peers.sh: BENCH_FACTOR=$factor: an integer above 1" >&2; exit 2 ;;
esac
sizes=""
sz=4096
while [ $sz -le 67108864 ]; do
	sizes="$sizes $sz"
	sz=$((sz * factor))
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/colldb-peers.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

for tool in mpirun.openmpi mpirun.mpich python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "peers.sh: $tool not found (make deps installs openmpi-bin, mpich and python3)" >&2
		exit 1
	fi
done
for b in bench-wake memcpy-bw proto-floor mpi-peer-openmpi mpi-peer-mpich; do
	[ -x "$top/$O/bench/$b" ] || { echo "peers.sh: $O/bench/$b missing (make bench builds it)" >&2; exit 1; }
done

ompi() {	# ranks, args...
	n=$1; shift
	over=""
	[ "$n" -gt "$(nproc)" ] && over=--oversubscribe
	mpirun.openmpi $over -n "$n" "$top/$O/bench/mpi-peer-openmpi" "$@"
}
mpich() {
	n=$1; shift
	mpirun.mpich -n "$n" "$top/$O/bench/mpi-peer-mpich" "$@"
}

# rotate LIST by K: the order of repetition K
rotate() {
	k=$1; shift
	n=$#
	i=0
	while [ $i -lt $n ]; do
		j=$(( (i + k) % n + 1 ))
		eval "printf '%s ' \"\${$j}\""
		i=$((i + 1))
	done
}

# failed WHAT RC: a peer did not run to the end (make bench then fails)
failed() {
	echo "$1: exit $2" >>"$tmp/failed"
}

echo "== side by side: colldb and its peers, same run, interleaved ($reps repetitions, order rotated; load: $(cut -d' ' -f1-3 /proc/loadavg))"

# ---- 1. round trips ---------------------------------------------------
rep=0
while [ $rep -lt "$reps" ]; do
	for who in $(rotate $rep wake ompi mpich); do
		case $who in
		wake) "$top/$O/bench/bench-wake" -k >>"$tmp/rt.wake" ||
			failed "bench-wake -k" $? ;;
		ompi) ompi 2 rma -n 100000 >>"$tmp/rt.ompi" 2>>"$tmp/err" ||
			failed "Open MPI rma" $? ;;
		mpich) mpich 2 rma -n 100000 >>"$tmp/rt.mpich" 2>>"$tmp/err" ||
			failed "MPICH rma" $? ;;
		esac
	done
	rep=$((rep + 1))
done

# ---- 2. allreduce -------------------------------------------------------
# `check`: each size's result is compared with the reference (#wrong)
sweep_colldb() {	# ranks mode out
	printf 'set times on\nbench sweep allreduce %s %s factor=%s time=%s mode=%s check json\n' \
	    "$sizes_min" "$sizes_max" "$factor" "$btime" "$2" |
	    "$colldb" -n "$1" --batch >"$tmp/json" 2>>"$tmp/err" ||
	    { failed "colldb -n $1 bench sweep mode=$2" $?; return; }
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["sweep"]:
    if r["wrong"] != 0:
        print("colldb -n %d mode=%s: %s wrong at %d bytes" % (r["ranks"], r["mode"], r["wrong"], r["bytes"]), file=sys.stderr)
        sys.exit(1)
    print(r["bytes"], r["time_us"]["median"], r["waits"]["yields"], r["waits"]["sleeps"], r["rounds"] + r["warmup"])
' "$tmp/json" >>"$3" 2>>"$tmp/failed" || failed "colldb -n $1 mode=$2 json" $?
}
for n in 2 4; do
	rep=0
	while [ $rep -lt "$reps" ]; do
		for who in $(rotate $rep mesh ring ompi mpich memcpy floor); do
			case $who in
			mesh|ring) sweep_colldb $n $who "$tmp/ar.$n.$who" ;;
			ompi) ompi $n allreduce -b $sizes_min -e $sizes_max -f $factor \
			    -t "$btime" >>"$tmp/ar.$n.ompi" 2>>"$tmp/err" ||
				failed "Open MPI allreduce -n $n" $? ;;
			mpich) mpich $n allreduce -b $sizes_min -e $sizes_max -f $factor \
			    -t "$btime" >>"$tmp/ar.$n.mpich" 2>>"$tmp/err" ||
				failed "MPICH allreduce -n $n" $? ;;
			memcpy)
				for sz in $sizes; do
					echo "$sz $("$top/$O/bench/memcpy-bw" $sz || failed memcpy-bw $?)"
				done >>"$tmp/ar.$n.memcpy" ;;
			floor)
				for mode in mesh ring; do
					for sz in $sizes; do
						echo "$sz $("$top/$O/bench/proto-floor" $n $mode $sz "$btime" ||
						    failed "proto-floor $n $mode $sz" $?)"
					done >>"$tmp/ar.$n.floor-$mode"
				done ;;
			esac
		done
		rep=$((rep + 1))
	done
done

python3 - "$tmp" "$reps" <<'EOS'
import os, statistics, sys
tmp, reps = sys.argv[1], int(sys.argv[2])

def med(v):
    return statistics.median(v) if v else float("nan")

def cell(v, fmt="%.2f"):
    if not v:
        return "n/a"
    return (fmt % med(v)) + " [" + (fmt % min(v)) + ".." + (fmt % max(v)) + "]"

missing = []

def verdict(goal, x, unit, ok):
    """One verdict line: MET or OVER TARGET (a figure, not a failure)."""
    if x != x:
        missing.append(goal)
        print("  NO FIGURE: " + goal)
        return
    print("  %s: %s (%.2f%s)" % ("MET" if ok(x) else "OVER TARGET", goal, x, unit))

def lines(name):
    p = os.path.join(tmp, name)
    return [l.split() for l in open(p)] if os.path.exists(p) else []

# 1. round trips: per repetition, one line (or one number) per peer
wake = [list(map(float, l)) for l in lines("rt.wake") if len(l) == 4]
rt = {
    "C11, one line, stores (the hardware's floor)": [w[0] for w in wake],
    "C11, two cells, fetch_add (the protocol's floor)": [w[1] for w in wake],
    "colldb shm transport": [w[2] for w in wake],
    "colldb rank executor": [w[3] for w in wake],
    "Open MPI, RMA accumulate + flush / Win_sync poll": [float(l[0]) for l in lines("rt.ompi") if l],
    "MPICH, RMA accumulate + flush / Win_sync poll": [float(l[0]) for l in lines("rt.mpich") if l],
}
floor = rt["C11, two cells, fetch_add (the protocol's floor)"]
print("notify->wait round trip, 2 ranks (us; median [min..max] of %d repetitions; x = over the protocol's floor, per repetition)" % reps)
for k, v in rt.items():
    ratio = ""
    if v and floor and k != "C11, two cells, fetch_add (the protocol's floor)":
        rs = [a / b for a, b in zip(v, floor)]
        ratio = "%6.2fx" % med(rs)
    print("  %-50s %-24s %s" % (k, cell(v, "%.3f"), ratio))
if wake:
    ex = [w[3] / w[2] for w in wake]
    print("  %-50s %-24s %6.2fx  (target <= 2x)" % ("colldb executor / transport", "", med(ex)))
    verdict("notify->wait: colldb's transport <= 1.2x the protocol's floor",
            med([w[2] / w[1] for w in wake]), "x", lambda x: x <= 1.2)
    verdict("notify->wait: colldb's executor <= 2x its transport", med(ex), "x", lambda x: x <= 2.0)

# 2. allreduce: busbw = 2(n-1)/n x bytes / median time
def by_size(name, n, col):
    # colldb's lines: BYTES MEDIAN_US ...; mpi-peer's: BYTES ROUNDS MEDIAN_US ...
    out = {}
    for l in lines(name):
        if len(l) <= col:
            continue
        b, us = int(l[0]), float(l[col])
        out.setdefault(b, []).append(2.0 * (n - 1) / n * b / us / 1e3)
    return out

def gbps(name):
    # lines: BYTES GB/S (memcpy-bw, proto-floor)
    out = {}
    for l in lines(name):
        if len(l) == 2:
            out.setdefault(int(l[0]), []).append(float(l[1]))
    return out

def memcpy(n):
    return gbps("ar.%d.memcpy" % n)

def colldb_waits(n, mode):
    out = {}
    for l in lines("ar.%d.%s" % (n, mode)):
        if len(l) >= 5:
            out.setdefault(int(l[0]), []).append((int(l[2]), int(l[3]), int(l[4])))
    return out

for n in (2, 4):
    mesh, ring = by_size("ar.%d.mesh" % n, n, 1), by_size("ar.%d.ring" % n, n, 1)
    om, mp, mc = by_size("ar.%d.ompi" % n, n, 2), by_size("ar.%d.mpich" % n, n, 2), memcpy(n)
    print()
    print("allreduce f32 sum, %d ranks%s: busbw GB/s, median [min..max] of %d repetitions" %
          (n, " (oversubscribed: %d CPUs)" % os.cpu_count() if n > os.cpu_count() else "", reps))
    print("  %9s  %-20s %-20s %-20s %-20s %-20s %8s %8s %8s" % ("size", "colldb mesh", "colldb ring",
          "Open MPI", "MPICH", "memcpy", "/OpenMPI", "/MPICH", "/memcpy"))
    vs_om, vs_mc = {}, {}
    for b in sorted(set(mesh) | set(ring) | set(om) | set(mp)):
        best = [max(x, y) for x, y in zip(mesh.get(b, []), ring.get(b, []))]
        for name, v in (("colldb", best), ("Open MPI", om.get(b)), ("MPICH", mp.get(b))):
            if len(v or []) < reps:
                missing.append("%s, %d ranks, %d bytes: %d of %d repetitions" % (name, n, b, len(v or []), reps))
        if best and om.get(b):
            vs_om[b] = med([x / y for x, y in zip(best, om[b])])
        if best and mc.get(b):
            vs_mc[b] = med([x / y for x, y in zip(best, mc[b])])
        def ratio(peer):
            v = peer.get(b, [])
            return "%7.2fx" % med([x / y for x, y in zip(best, v)]) if v and best else "     n/a"
        size = "%d KiB" % (b >> 10) if b < (1 << 20) else "%d MiB" % (b >> 20)
        print("  %9s  %-20s %-20s %-20s %-20s %-20s %8s %8s %8s" % (size, cell(mesh.get(b)), cell(ring.get(b)),
              cell(om.get(b)), cell(mp.get(b)), cell(mc.get(b)), ratio(om), ratio(mp), ratio(mc)))
    fm, fr = gbps("ar.%d.floor-mesh" % n), gbps("ar.%d.floor-ring" % n)
    print("  the protocols' own floor (proto-floor: the same barriers and data movement, bare C11")
    print("  atomics, no executor); colldb over it, and the better floor over Open MPI:")
    print("  %9s  %-20s %-20s %10s %10s %14s" % ("size", "floor mesh", "floor ring", "mesh/floor",
          "ring/floor", "floor/OpenMPI"))
    vs_floor, floor_om = {}, {}
    for b in sorted(set(fm) | set(fr)):
        for name, v in (("proto-floor mesh", fm.get(b)), ("proto-floor ring", fr.get(b))):
            if len(v or []) < reps:
                missing.append("%s, %d ranks, %d bytes: %d of %d repetitions" % (name, n, b, len(v or []), reps))
        def over(a, f):
            return [x / y for x, y in zip(a.get(b, []), f.get(b, [])) if y > 0]
        rm, rr = over(mesh, fm), over(ring, fr)
        fbest = [max(x, y) for x, y in zip(fm.get(b, []), fr.get(b, []))]
        fo = [x / y for x, y in zip(fbest, om.get(b, [])) if y > 0]
        if rm and rr:
            vs_floor[b] = min(med(rm), med(rr))
        if fo:
            floor_om[b] = med(fo)
        size = "%d KiB" % (b >> 10) if b < (1 << 20) else "%d MiB" % (b >> 20)
        print("  %9s  %-20s %-20s %9s %10s %13s" % (size, cell(fm.get(b)), cell(fr.get(b)),
              "%.2fx" % med(rm) if rm else "n/a", "%.2fx" % med(rr) if rr else "n/a",
              "%.2fx" % med(fo) if fo else "n/a"))
    w = colldb_waits(n, "mesh")
    if w:
        print("  colldb mesh, per call (median over repetitions): sched_yield / futex sleeps:",
              "  ".join("%s %.1f/%.2f" % ("%dK" % (b >> 10) if b < (1 << 20) else "%dM" % (b >> 20),
                                          med([y / r for y, s, r in v]), med([s / r for y, s, r in v]))
                        for b, v in sorted(w.items())))
    def worst(lo, hi):
        v = [(x, b) for b, x in vs_om.items() if lo <= b <= hi]
        return min(v) if v else (float("nan"), 0)
    def sz(b):
        return "%d KiB" % (b >> 10) if b < (1 << 20) else "%d MiB" % (b >> 20)
    if vs_floor:
        x, b = min((x, b) for b, x in vs_floor.items())
        verdict("allreduce %d ranks: colldb's mesh and ring >= 0.9x their protocol's floor (lowest at %s)"
                % (n, sz(b)), x, "x", lambda x: x >= 0.9)
    else:
        verdict("allreduce %d ranks: colldb's mesh and ring >= 0.9x their protocol's floor" % n,
                float("nan"), "x", lambda x: True)
    if n == 2:
        x, b = worst(64 << 10, 64 << 20)
        verdict("allreduce 2 ranks >= 2x Open MPI from 64 KiB to 64 MiB (lowest at %s)" % sz(b), x, "x",
                lambda x: x >= 2.0)
        verdict("allreduce 2 ranks >= 1x Open MPI at 4 KiB", vs_om.get(4 << 10, float("nan")), "x",
                lambda x: x >= 1.0)
        verdict("allreduce 2 ranks >= 0.60x memcpy at 64 MiB", vs_mc.get(64 << 20, float("nan")), "x",
                lambda x: x >= 0.60)
    else:
        x, b = worst(0, 1 << 40)
        verdict("allreduce %d ranks >= 1x Open MPI at every size (lowest at %s)" % (n, sz(b)), x, "x",
                lambda x: x >= 1.0)
if missing:
    print()
    print("peers.sh: figures missing (a peer did not run, or printed nothing):")
    for m in missing:
        print("  " + m)
    sys.exit(1)
EOS
rc=$?
if [ -s "$tmp/err" ]; then
	echo "  (peers' stderr:)"
	sed 's/^/    /' "$tmp/err" | head -20
fi
if [ -s "$tmp/failed" ]; then
	echo "peers.sh: FAILED:"
	sed 's/^/  /' "$tmp/failed"
	rc=1
fi
exit $rc
