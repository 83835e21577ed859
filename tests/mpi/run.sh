#!/bin/sh
# The mpi tier: the mpi transport on Open MPI and on MPICH.
#   tests/mpi/run.sh [objdir]          MPI_GOLDEN=all: every golden below
#
#   goldens   tests/golden transcripts under -t mpi on this host, with each
#             MPI, compared with their shm .out byte for byte (the set in
#             make check is a cross-section; MPI_GOLDEN=all runs every one
#             but those that cannot match, listed in SKIP with why)
#   hosts     tests/mpi/hosts.coll across two hosts (tests/mpi/hosts.sh:
#             two network namespaces): a handshake, a ring allreduce with
#             check, a stepped collective with where and watch dump, a put
#             to a rank stopped at a breakpoint on the other host within
#             1 s, a diagnosed hang; its .out is the shm transport's, only
#             the transport line differs; and hosts named only by the
#             launcher's words (a host file, --host)
#   death     kill -9 of a rank on the other host in the middle of a
#             collective (from outside), `kill` of one on this host, and
#             kill -9 of one on this host from outside (MPICH):
#             the shell names it, prints the diagnosis, ends the session
#             (status 1); nothing is left: processes, namespaces, the
#             launchers' files in /dev/shm and /tmp
#   stranger  connections to the control port with a wrong token, none,
#             garbage, or none at all are refused and logged; the session
#             starts anyway
#   user      tests/user transcripts of `colldb run` under -t mpi, and
#             tests/user/compute.c: a peer's put into a program that
#             computes between its calls completes (its progress thread)
set -u
O=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
. tests/need.sh
need timeout cmp diff python3 cc mpirun.openmpi mpirun.mpich unshare nsenter ip
[ -f libcolldb-mpi-openmpi.so ] && [ -f libcolldb-mpi-mpich.so ] || {
	echo "FAIL: mpi: the MPI plugins are not built (mpicc.openmpi, mpicc.mpich: make)"
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "  FAIL $1"; }
cenv() { env -i RV5DBG=1 PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C TERM=dumb "$@"; }

# The launchers' files of shells that have ended (named by the shell's pid).
left_files() {
	for d in /dev/shm/colldb-mpi-* /tmp/colldb-mpi-*; do
		[ -e "$d" ] || continue
		pid=$(basename "$d" | cut -d- -f3)
		kill -0 "$pid" 2>/dev/null || echo "$d"
	done
}
files_before=$(left_files)

# ---- goldens on this host -----------------------------------------------------
# Transcripts whose shm output a session of MPI ranks cannot print:
SKIP="alloc alloc-area bench-errors coll-refused invocation-n1 script-args world"	# the window area or the transport named
SKIP="$SKIP death death-coll expect-fail-dead interrupt kill"	# a rank dies: MPI ends the job
SKIP="$SKIP gdb"	# gdb @R is refused for an MPI job's rank
# a cross-section, split between the two (each MPI runs every collective)
CROSS_OMPI="collectives step-ring break-cells tag0-hang watch-dump bench domain"
CROSS_MPICH="collectives coll-interrupt record put-atomic repeat expect"
for mpi in mpirun.openmpi mpirun.mpich; do
	n=0
	case $mpi in *openmpi) cross=$CROSS_OMPI ;; *) cross=$CROSS_MPICH ;; esac
	[ "${MPI_GOLDEN:-}" = all ] &&
		cross=$(ls tests/golden/*.coll | sed 's|.*/||; s|\.coll$||')
	for name in $cross; do
		case " $SKIP " in *" $name "*) continue ;; esac
		t=tests/golden/$name.coll
		args=$(sed -n 's/^#! *args: *//p' "$t" | head -1)
		# explore's counterexamples start afresh (tests/golden/run.sh)
		rm -rf build/explore-golden
		# shellcheck disable=SC2086
		cenv timeout 180 ./colldb -t mpi --mpirun "$mpi" --batch --echo \
			--name "golden-$name" $args "$t" >"$tmp/got" 2>&1 </dev/null
		st=$?
		[ $st -ne 0 ] && echo "[exit $st]" >>"$tmp/got"
		if cmp -s "$tmp/got" "tests/golden/$name.out"; then
			ok
		else
			bad "golden $name under $mpi"
			diff -u "tests/golden/$name.out" "$tmp/got" | head -30
		fi
		n=$((n + 1))
	done
	echo "  goldens under $mpi: $n"
done

# A first command that does not settle sees the ranks as they are (idle),
# as on shm: the mirror said "starting" until the agents' hellos were read
for mpi in mpirun.openmpi mpirun.mpich; do
	printf 'where\n' | cenv timeout 60 ./colldb -t mpi --mpirun $mpi -n 2 --batch \
		>"$tmp/first" 2>&1
	if [ "$(cat "$tmp/first")" = "rank 0: idle
rank 1: idle" ]; then
		ok
	else
		bad "where as the first command under $mpi"
		cat "$tmp/first"
	fi
done

# gdb @R on a rank of the MPI job: refused (it ran gdb -p 0)
printf 'alloc s [2,1] i32\nbreak wait @1\n@1 wait s[0] >= 1\ngdb @1\n' |
    cenv timeout 60 ./colldb -t mpi -n 2 --batch >"$tmp/gdb" 2>&1
if grep -qxF "error: rank 1 is a rank of the MPI job, not a process colldb started here: attach gdb to it on its host (gdb -p)" "$tmp/gdb"; then
	ok
else
	bad "gdb @1 under -t mpi"
	cat "$tmp/gdb"
fi

# ---- two hosts ------------------------------------------------------------------
for mpi in mpirun.openmpi mpirun.mpich; do
	case $mpi in *openmpi) lib="Open MPI 4" ;; *) lib="MPICH 4" ;; esac
	sh tests/mpi/hosts.sh sh -c "env -i PATH=/usr/bin:/bin HOME=/nonexistent \
		LC_ALL=C TERM=dumb OMPI_MCA_plm_rsh_agent=\$RSH HYDRA_LAUNCHER=ssh \
		HYDRA_LAUNCHER_EXEC=\$RSH timeout 180 ./colldb -t mpi --mpirun $mpi \
		--hosts \$NODE1:2,\$NODE2:2 --net \$NET --batch --echo --name hosts \
		tests/mpi/hosts.coll" >"$tmp/hosts" 2>&1 </dev/null
	st=$?
	# the one line that differs: which transport, on how many hosts
	sed 's/^transport  mpi (\(Open MPI\|MPICH\) [0-9.]*, 2 hosts)$/transport  shm/' \
	    "$tmp/hosts" >"$tmp/hosts.cmp"
	if [ $st = 0 ] && grep -q "^transport  mpi ($lib.*, 2 hosts)$" "$tmp/hosts" &&
	    cmp -s "$tmp/hosts.cmp" tests/mpi/hosts.out; then
		ok
	else
		bad "hosts.coll across two hosts under $mpi (exit $st)"
		diff -u tests/mpi/hosts.out "$tmp/hosts" | head -40
	fi
done

# The hosts named only in the launcher's own words (a host file for
# MPICH, --host for Open MPI), without --hosts, --net or --listen: the
# shell listens where it reaches those hosts from (it took 127.0.0.1, and
# the ranks on node2 could not attach).
printf 'world\nalloc s [4,1] i32\n@0 notify 3 s[0] 1\n@3 wait s[0] >= 1\n@3 notify 0 s[1] 1\n@0 wait s[1] >= 1\n' >"$tmp/named.coll"
cat >"$tmp/named.sh" <<EOF
# node2 gets a /dev/shm of its own: what the jobs leave there is seen
p2=\$(sed -n 's/.*nsenter -t \\([0-9]*\\).*/\\1/p' \$RSH | head -1)
nsenter -t \$p2 -m sh -c 'mount --make-rprivate / && mount -t tmpfs shm /dev/shm' ||
	echo "left on node2: (no /dev/shm of its own)"
printf '# the hosts\n%s:2\n%s:2\n' \$NODE1 \$NODE2 >"$tmp/hostfile"
for mpirun in "mpirun.mpich -f $tmp/hostfile" "mpirun.openmpi --host \$NODE1:2,\$NODE2:2"; do
	env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C TERM=dumb \
	    OMPI_MCA_plm_rsh_agent=\$RSH HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC=\$RSH \
	    COLLDB_MPI_START_SECS=30 timeout 120 ./colldb -t mpi --mpirun "\$mpirun" -n 4 \
	    --batch "$tmp/named.coll" 2>&1
	echo "[exit \$?]"
done
# nothing of the jobs in node2's /dev/shm (Open MPI's daemon left the
# empty orte_tmpdir_base colldb gave it there)
nsenter -t \$p2 -m sh -c 'ls -A /dev/shm' | sed 's/^/left on node2: /'
EOF
sh tests/mpi/hosts.sh sh "$tmp/named.sh" >"$tmp/named.out" 2>&1 </dev/null
if [ "$(grep -c '^transport  mpi (\(MPICH\|Open MPI\) [0-9.]*, 2 hosts)$' "$tmp/named.out")" = 2 ] &&
    [ "$(grep -c '^\[rank 0\] wait s\[1\] >= 1 satisfied (value 1)$' "$tmp/named.out")" = 2 ] &&
    [ "$(grep -c '^\[exit 0\]$' "$tmp/named.out")" = 2 ] &&
    ! grep -q '^left on node2' "$tmp/named.out"; then
	ok
else
	bad "hosts named by the launcher's words (a host file, --host); nothing left on node2"
	cat "$tmp/named.out"
fi

# ---- death ----------------------------------------------------------------------
# A rank on node2 is killed from outside while every rank waits in a ring
# allreduce: rank 2, stopped at a breakpoint, the others blocked on it.
cat >"$tmp/death.coll" <<'EOF'
alloc buf [4096] f32
alloc sig [6,4] i32
fill buf rank
break wait @2
allreduce buf sig mode=ring
say READY
sleep 60
say not reached
EOF
cat >"$tmp/death.sh" <<EOF
cenv() { env -i RV5DBG=1 PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C TERM=dumb OMPI_MCA_plm_rsh_agent=\$RSH "\$@"; }
cenv timeout 120 ./colldb -t mpi --mpirun mpirun.openmpi --hosts \$NODE1:2,\$NODE2:2 \\
	--net \$NET --batch --echo "$tmp/death.coll" >"$tmp/death.out" 2>&1 &
shell=\$!
i=0
while ! grep -q '^READY' "$tmp/death.out" 2>/dev/null && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
pid=\$(pgrep -x colldb-rank2)
[ -n "\$pid" ] && kill -9 \$pid
wait \$shell
echo "[exit \$?]" >>"$tmp/death.out"
# nothing of the job in this pid namespace (the rig's) once the shell is
# gone (the ranks on node2 end as they see it go: a moment)
i=0
while ps -e -o comm= | grep -qE '^(colldb-rank|mpirun|orte|mpiexec|hydra)' && [ \$i -lt 50 ]; do
	sleep 0.1
	i=\$((i + 1))
done
ps -e -o comm= | grep -E '^(colldb-rank|mpirun|orte|mpiexec|hydra)' >>"$tmp/death.left"
exit 0
EOF
sh tests/mpi/hosts.sh sh "$tmp/death.sh" >"$tmp/death.rig" 2>&1
has() { grep -qxF -- "$1" "$2"; }
if has "[exit 1]" "$tmp/death.out" &&
    grep -q '^\[rank 2\] died: killed by SIGKILL during allreduce(ring) step 4/105 ' "$tmp/death.out" &&
    grep -q '^likely cause: rank 2 died owing the notify' "$tmp/death.out" &&
    has "colldb: the session is over: rank 2 died, and MPI ends the whole job with it" "$tmp/death.out" &&
    ! grep -q "not reached" "$tmp/death.out" && [ ! -s "$tmp/death.left" ] &&
    [ ! -s "$tmp/death.rig" ]; then
	ok
else
	bad "kill -9 of rank 2 on node2 mid-collective"
	cat "$tmp/death.out" "$tmp/death.rig" | head -40
	[ -s "$tmp/death.left" ] && echo "left: $(cat "$tmp/death.left")"
fi
# `kill` of a rank on this host (MPICH): named with the signal
printf 'alloc buf [4096] f32\nalloc sig [6,4] i32\nbreak wait @1\nallreduce buf sig mode=ring\n@1 kill\nsay not reached\n' >"$tmp/kill.coll"
cenv timeout 120 ./colldb -t mpi --mpirun mpirun.mpich -n 4 --batch --echo "$tmp/kill.coll" \
	>"$tmp/kill.out" 2>&1 </dev/null
st=$?
if [ $st = 1 ] && grep -q '^\[rank 1\] died: killed by SIGKILL during allreduce(ring) step ' "$tmp/kill.out" &&
    has "colldb: the session is over: rank 1 died, and MPI ends the whole job with it" "$tmp/kill.out" &&
    has "allreduce(ring): not completed: @1 died; @0,2-3 ended with the MPI job" "$tmp/kill.out" &&
    ! grep -q "not reached" "$tmp/kill.out"; then
	ok
else
	bad "kill of rank 1 under MPICH (exit $st)"
	head -30 "$tmp/kill.out"
fi

# kill -9 of a rank on this host from outside (MPICH): the shell sees only
# its connection close; the launcher's banner says by what, and the
# shell's line names the signal, as for `kill`, before the banner.  Rank
# 0: the banner names the lowest rank that ended badly, and the others
# may end by the launcher's SIGKILL too.
printf 'alloc buf [4096] f32\nalloc sig [6,4] i32\nbreak wait @0\nallreduce buf sig mode=ring\nsay READY\nsleep 60\nsay not reached\n' >"$tmp/kill9.coll"
cenv timeout 120 ./colldb -t mpi --mpirun mpirun.mpich -n 4 --batch --echo "$tmp/kill9.coll" \
	>"$tmp/kill9.out" 2>&1 </dev/null &
shell=$!
i=0
while ! grep -q '^READY' "$tmp/kill9.out" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
# rank 0 of this shell (other sessions on the machine have one too): the
# colldb-rank0 among the shell's descendants
pid=$(ps -e -o pid=,ppid=,comm= | awk -v top=$shell '
	{ par[$1] = $2; comm[$1] = $3 }
	END { for (p in comm) if (comm[p] == "colldb-rank0") {
		for (q = p; q in par && q != top && q > 1; q = par[q]) ;
		if (q == top) print p } }')
[ -n "$pid" ] && kill -9 $pid
wait $shell
st=$?
died=$(grep -n '^\[rank 0\] died: ' "$tmp/kill9.out" | head -1 | cut -d: -f1)
banner=$(grep -n '^\[mpirun\] .*BAD TERMINATION' "$tmp/kill9.out" | head -1 | cut -d: -f1)
if [ -n "$pid" ] && [ $st = 1 ] &&
    grep -q '^\[rank 0\] died: killed by SIGKILL during allreduce(ring) step [0-9]*/105 ' "$tmp/kill9.out" &&
    [ -n "$died" ] && [ -n "$banner" ] && [ "$died" -lt "$banner" ] &&
    grep -q '^  rank 0  dead  killed by SIGKILL during allreduce(ring) step [0-9]*/105 ' "$tmp/kill9.out" &&
    has "colldb: the session is over: rank 0 died, and MPI ends the whole job with it" "$tmp/kill9.out" &&
    ! grep -q "not reached" "$tmp/kill9.out"; then
	ok
else
	bad "kill -9 of rank 0 from outside under MPICH (pid ${pid:-not found}, exit $st)"
	head -40 "$tmp/kill9.out"
fi

# A program that never attaches (not a libcolldb program): the launcher's
# end stops the start at once, with what it said, not a wait in accept.
cenv timeout 60 ./colldb run -t mpi --mpirun mpirun.openmpi -n 2 --batch /bin/false \
	>"$tmp/false.out" 2>&1 </dev/null
st=$?
if [ $st = 1 ] && grep -q "^colldb run: cannot start 2 ranks: the MPI job ended before every rank attached (0 of 2 did): the launcher exited with status 1; it said:$" "$tmp/false.out"; then
	ok
else
	bad "a program that never attaches (exit $st)"
	head -10 "$tmp/false.out"
fi

# A rank on the other host that cannot join (its attach refused: a wrong
# token) while the other rank did, under MPICH: the rank ends the job as
# it exits (MPI_Abort), and the start fails at once (the rank's own
# words, "the shell refused this rank", come through MPICH's launcher
# about four times in five), not after the attach limit (MPICH kept the attached rank waiting in
# MPI_Win_allocate, and the shell in its start, for the whole 60 s).
cat >"$tmp/badrank" <<'EOS'
#!/bin/sh
# the launcher, with its program wrapped: rank 1 gets a wrong token
[ "$1" = --version ] && exec mpirun.mpich --version
n=$# i=0
for a in "$@"; do
	i=$((i + 1))
	[ $i = $((n - 1)) ] && set -- "$@" "$(dirname "$0")/rankwrap"
	set -- "$@" "$a"
done
shift $n
exec mpirun.mpich "$@"
EOS
cat >"$tmp/rankwrap" <<'EOS'
#!/bin/sh
[ "$PMI_RANK" = 1 ] && export COLLDB_TOKEN=00000000000000000000000000000000
exec "$@"
EOS
chmod +x "$tmp/badrank" "$tmp/rankwrap"
sh tests/mpi/hosts.sh sh -c "env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C \
	TERM=dumb HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC=\$RSH timeout 50 ./colldb -t mpi \
	--mpirun $tmp/badrank --hosts \$NODE1:1,\$NODE2:1 --net \$NET --batch /dev/null; \
	echo \"[exit \$?]\"" >"$tmp/badrank.out" 2>&1 </dev/null
if has "[exit 1]" "$tmp/badrank.out" &&
    grep -q '^colldb: refused a connection from 10\.213\.7\.2:[0-9]*: wrong token$' "$tmp/badrank.out" &&
    grep -q '^colldb: cannot start 2 ranks: ' "$tmp/badrank.out" &&
    ! grep -q 'did not attach within' "$tmp/badrank.out"; then
	ok
else
	bad "a rank on the other host that cannot join ends the job (MPICH)"
	head -20 "$tmp/badrank.out"
fi

# A launcher that fails with a page of advice after the cause (as
# Open MPI's "ssh: Could not resolve hostname" then "ORTE was unable to
# reliably start one or more daemons..."): the cause is kept, the middle
# of the page is left out, the end is kept.
cat >"$tmp/wordy-launcher" <<'EOS'
#!/bin/sh
[ "$1" = --version ] && exec mpirun.openmpi --version
echo "ssh: Could not resolve hostname nohost: Name or service not known" >&2
for i in 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do
	echo "advice line $i" >&2
done
exit 255
EOS
chmod +x "$tmp/wordy-launcher"
cenv timeout 60 ./colldb -t mpi --mpirun "$tmp/wordy-launcher" -n 2 \
	</dev/null >"$tmp/wordy.out" 2>&1
st=$?
if [ $st = 1 ] && [ "$(cat "$tmp/wordy.out")" = "colldb: cannot start 2 ranks: the MPI job ended before every rank attached (0 of 2 did): the launcher exited with status 255; it said:
ssh: Could not resolve hostname nohost: Name or service not known
advice line 2
advice line 3
advice line 4
advice line 5
advice line 6
[... 12 lines left out ...]
advice line 19
advice line 20
advice line 21
advice line 22
advice line 23
advice line 24" ]; then
	ok
else
	bad "a launcher's long failure keeps its first line (exit $st)"
	cat "$tmp/wordy.out"
fi

# A shell killed (SIGTERM) while it waits for the ranks to attach, with a
# launcher that never starts them (as one waits on an unreachable host):
# the launcher goes with the shell, not left running on its own.
cat >"$tmp/hang-launcher" <<'EOS'
#!/bin/sh
[ "$1" = --version ] && exec mpirun.mpich --version
echo "ssh: Could not resolve hostname nohost: Name or service not known" >&2
exec sleep 120
EOS
chmod +x "$tmp/hang-launcher"
# the attach time runs out: said with what the launcher said (why, often)
cenv COLLDB_MPI_START_SECS=1 timeout 60 ./colldb -t mpi --mpirun "$tmp/hang-launcher" -n 2 \
	</dev/null >"$tmp/slow.out" 2>&1
st=$?
if [ $st = 1 ] && [ "$(cat "$tmp/slow.out")" = "colldb: cannot start 2 ranks: the ranks did not attach within 1 s (0 of 2 did; COLLDB_MPI_START_SECS sets the limit); the launcher said:
ssh: Could not resolve hostname nohost: Name or service not known" ]; then
	ok
else
	bad "ranks that do not attach in time (exit $st)"
	head -5 "$tmp/slow.out"
fi
# Every rank attached but one never makes its window (rank 1's
# MPI_Win_allocate never returns: an LD_PRELOAD'd one), so rank 0 waits in
# the collective too: said as it is, not as ranks that "did not attach
# (2 of 2 did)".
cat >"$tmp/hangwin.c" <<'EOS'
#include <unistd.h>
int MPI_Win_allocate(void);
int
MPI_Win_allocate(void)
{
	for (;;)
		pause();
}
EOS
cc -shared -fPIC -o "$tmp/hangwin.so" "$tmp/hangwin.c"
sed 's|/rankwrap"|/nowinwrap"|' "$tmp/badrank" >"$tmp/nowin"
cat >"$tmp/nowinwrap" <<'EOS'
#!/bin/sh
[ "$PMI_RANK" = 1 ] && export LD_PRELOAD="$(dirname "$0")/hangwin.so"
exec "$@"
EOS
chmod +x "$tmp/nowin" "$tmp/nowinwrap"
cenv COLLDB_MPI_START_SECS=2 timeout 60 ./colldb -t mpi --mpirun "$tmp/nowin" -n 2 \
	--batch /dev/null </dev/null >"$tmp/nowin.out" 2>&1
st=$?
if [ $st = 1 ] && [ "$(cat "$tmp/nowin.out")" = "colldb: cannot start 2 ranks: every rank attached, but none made its window within 2 s (MPI_Win_allocate of 268435456 bytes a rank, which waits for every rank; COLLDB_MPI_START_SECS sets the limit)" ]; then
	ok
else
	bad "ranks that attach but never make their window (exit $st)"
	head -5 "$tmp/nowin.out"
fi
# (env, not the function cenv: $! is then colldb's pid)
env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C TERM=dumb ./colldb -t mpi \
	--mpirun "$tmp/hang-launcher" -n 2 </dev/null >"$tmp/hang.out" 2>&1 &
shell=$!
launcher=
for _ in $(seq 100); do
	launcher=$(pgrep -P "$shell" -x sleep) && break
	sleep 0.1
done
kill -TERM "$shell"
wait "$shell" 2>/dev/null
st=$?
gone=1
for _ in $(seq 50); do
	stat=$(ps -o stat= -p "${launcher:-0}" 2>/dev/null)
	case $stat in "" | Z*) gone=1; break ;; *) gone=0 ;; esac
	sleep 0.1
done
if [ -n "$launcher" ] && [ $st = 143 ] && [ $gone = 1 ]; then
	ok
else
	bad "a shell killed before the ranks attach leaves its launcher (pid ${launcher:-none}, exit $st)"
	[ -n "$launcher" ] && kill -9 "$launcher" 2>/dev/null
	head -5 "$tmp/hang.out"
fi

# The end of a session: every rank gets its QUIT and the job finalizes at
# once.  The relay stopped as soon as the session asked, and a QUIT not yet
# forwarded stayed behind: that rank idled, the others waited in
# MPI_Finalize, and the session ended only when the launcher was killed
# 5 s later (in about half of the sessions).  Six sessions, timed from
# their last command to their end; one slow one is the machine's load.
slow=0
for i in 1 2 3 4 5 6; do
	printf 'say END\n' | cenv timeout 60 ./colldb -t mpi --mpirun mpirun.openmpi -n 2 \
		--batch 2>&1 | {
		read -r line
		t0=$(date +%s%N)
		cat >/dev/null
		echo "$line $(( ($(date +%s%N) - t0) / 1000000 ))"
	} >"$tmp/end.$i"
	read -r word ms <"$tmp/end.$i"
	[ "$word" = END ] && [ "$ms" -lt 3000 ] || slow=$((slow + 1))
done
if [ $slow -le 1 ]; then
	ok
else
	bad "the end of a session: $slow of 6 took 3 s or more ($(cat "$tmp"/end.* | tr '\n' ' '))"
fi

# interrupt of a call that never returns (tests/user/stuck.coll's first
# part): the rank's main thread gets the signal that ends the call and
# the session goes on.  It was kill(pid 0, SIGUSR2) from the shell: an
# mpi rank has no pid there, so the shell's own process group got it and
# the shell died (exit 140).
cat >"$tmp/spin.coll" <<EOF
alloc buf [12] f32
alloc sig [3,1] i32
load $top/$O/examples/libhostile.so
set settle 1
@0 call spin()
interrupt @0
set settle 60
where
fill buf rank
allreduce buf sig
print buf
EOF
(cenv timeout 120 ./colldb -t mpi --mpirun mpirun.mpich -n 3 --batch "$tmp/spin.coll"; echo "[exit $?]") \
	>"$tmp/spin.out" 2>&1 </dev/null
if [ "$(cat "$tmp/spin.out")" = "loaded $top/$O/examples/libhostile.so as hostile on @all
[rank 0] still running: call spin()
rank 0: ending call spin() with SIGUSR2 (the function does not return)
[rank 0] spin() interrupted: the function did not return: ended by a signal (SIGUSR2); what it held is lost
rank 0: idle
rank 0: idle
rank 1: idle
rank 2: idle
allreduce(mesh): done
rank 0: 3 3 3 3 3 3 3 3 3 3 3 3
rank 1: 3 3 3 3 3 3 3 3 3 3 3 3
rank 2: 3 3 3 3 3 3 3 3 3 3 3 3
[exit 0]" ]; then
	ok
else
	bad "interrupt of a call that does not return"
	cat "$tmp/spin.out"
fi

# ---- strangers --------------------------------------------------------------------
rm -f "$tmp/stranger.log"
printf 'alloc s [2,1] i32\n@0 notify 1 s[0] 1\n@1 wait s[0] >= 1\n' |
    cenv STRANGER_LOG="$tmp/stranger.log" timeout 120 ./colldb -t mpi -n 2 --batch \
    --mpirun "python3 tests/mpi/stranger.py mpirun.openmpi" >"$tmp/str.out" 2>&1
st=$?
want="wrong-token refused
short-token refused
no-token refused
garbage refused
hangup refused"
if [ $st = 0 ] && [ "$(cat "$tmp/stranger.log" 2>/dev/null)" = "$want" ] &&
    grep -q '^\[rank 1\] wait s\[0\] >= 1 satisfied (value 1)$' "$tmp/str.out" &&
    [ "$(grep -c '^colldb: refused a connection from 127\.0\.0\.1:[0-9]*: wrong token$' "$tmp/str.out")" = 2 ] &&
    grep -q '^colldb: refused a connection from 127\.0\.0\.1:[0-9]*: no token$' "$tmp/str.out" &&
    grep -q '^colldb: refused a connection from 127\.0\.0\.1:[0-9]*: not a colldb rank (no attach message)$' "$tmp/str.out" &&
    grep -q '^colldb: refused a connection from 127\.0\.0\.1:[0-9]*: it closed before attaching$' "$tmp/str.out"; then
	ok
else
	bad "strangers at the control port (exit $st)"
	cat "$tmp/stranger.log" "$tmp/str.out" 2>/dev/null | head -20
fi

# ---- user programs -------------------------------------------------------------------
# (not run-behalf: its lint lines depend on which rank's call the shell
# hears of first within a user session's 1 s settle, which MPI stretches
# on a loaded machine)
ex=$top/$O/examples
for pair in "run-ring mpirun.openmpi" "run-break mpirun.mpich" "run-source-break mpirun.openmpi" "run-step mpirun.mpich"; do
	set -- $pair
	t=$top/tests/user/$1.coll
	run=$(sed -n 's/^#! *run: *//p' "$t" | head -1)
	# shellcheck disable=SC2086
	(cd "$ex" && cenv timeout 180 "$top/colldb" run -t mpi --mpirun "$2" --echo \
		--name "golden-$1" -x "$t" $run) >"$tmp/got" 2>&1 </dev/null
	st=$?
	[ $st -ne 0 ] && echo "[exit $st]" >>"$tmp/got"
	sed "s|$top/||g" "$tmp/got" >"$tmp/got2"
	if cmp -s "$tmp/got2" "tests/user/$1.out"; then
		ok
	else
		bad "colldb run -t mpi: $1 under $2"
		diff -u "tests/user/$1.out" "$tmp/got2" | head -30
	fi
done

# Ranks that end by themselves (exit 5, SIGSEGV, abort before
# cdb_finalize) say how before MPI ends the job (MSG_END) and wait for the
# others to settle: the report is the shm transport's, word for word.
# It said "its connection closed" for all but one, and the batch status
# was 1.  tests/user/run-exits.coll under Open MPI (all but the window
# area and the transport), and --batch under MPICH (the lines as shm's,
# which print in the order they come, and the worst rank's status).
t=$top/tests/user/run-exits.coll
(cd "$ex" && cenv timeout 120 "$top/colldb" run -t mpi --mpirun mpirun.openmpi --echo \
	--name golden-run-exits -x "$t" -n 4 ./exits ok 5 segv abort) >"$tmp/got" 2>&1 </dev/null
st=$?
sed '/^transport /d; /^windows /d' "$tmp/got" >"$tmp/got2"
sed '/^transport /d; /^windows /d' tests/user/run-exits.out >"$tmp/want"
if [ $st = 0 ] && cmp -s "$tmp/want" "$tmp/got2"; then
	ok
else
	bad "colldb run -t mpi: run-exits under mpirun.openmpi (exit $st)"
	diff -u "$tmp/want" "$tmp/got2" | head -30
fi
(cd "$ex" && cenv timeout 60 "$top/colldb" run -n 4 --batch ./exits ok 5 segv abort) 2>&1 |
	sort >"$tmp/want"
(cd "$ex" && cenv timeout 120 "$top/colldb" run -t mpi --mpirun mpirun.mpich -n 4 --batch \
	./exits ok 5 segv abort) >"$tmp/got" 2>&1 </dev/null
st=$?
if [ $st = 139 ] && sort "$tmp/got" | cmp -s "$tmp/want" -; then
	ok
else
	bad "colldb run -t mpi --batch: ranks that exit and crash, under mpirun.mpich (exit $st)"
	sort "$tmp/got" | diff -u "$tmp/want" - | head -30
fi

# A rank crashes while the others go on into their waits
# (tests/user/ring-crash.c): it waits for them to block before it goes, so
# the diagnosis is shm's (rank 2 owes rank 3 its notify), every time, and
# the status is a hang's, as after shm's watchdog.  Open MPI's own
# backtrace is never in it (a dying rank shipped it one time in two).
cat >"$tmp/ring-crash.want" <<'EOF'
[rank 2] died: killed by SIGSEGV in its own code after ring-crash.c:45
HANG: no rank can change sig[2,3] on rank 0
  rank 0  blocked  wait sig[2,3] >= 1 at ring-crash.c:45  now 0   writers: none pending: no remaining call sends it
  rank 3  blocked  wait sig[1,2] >= 1 at ring-crash.c:45  now 0   writers: none pending: no remaining call sends it
  rank 1  exited  exited with status 0
  rank 2  dead  killed by SIGSEGV in its own code after ring-crash.c:45
likely cause: rank 2 died owing the notify to sig[1,2] of rank 3 (killed by SIGSEGV in its own code after ring-crash.c:45)
colldb: the session is over: rank 2 died, and MPI ends the whole job with it
EOF
for mpi in mpirun.openmpi mpirun.mpich; do
	(cd "$ex" && cenv timeout 120 "$top/colldb" run -t mpi --mpirun $mpi -n 4 --batch \
		./ring-crash) >"$tmp/got" 2>&1 </dev/null
	st=$?
	if [ $st = 3 ] && grep -v '^\[mpirun\] ' "$tmp/got" | cmp -s "$tmp/ring-crash.want" -; then
		ok
	else
		bad "colldb run -t mpi --batch ./ring-crash under $mpi (exit $st)"
		cat "$tmp/got"
	fi
done

# A rank exits while another computes on (for 30 s): it waits 2 s for it,
# then goes; the diagnosis says it does not know, not OK.
(cd "$ex" && cenv timeout 120 "$top/colldb" run -t mpi --mpirun mpirun.openmpi -n 2 --batch \
	./exits spin 5) >"$tmp/got" 2>&1 </dev/null
st=$?
if [ $st = 5 ] && has "[rank 1] exited with status 5 without cdb_finalize, in its own code after exits.c:49" "$tmp/got" &&
    [ "$(grep -v '^\[' "$tmp/got")" = "no verdict: the MPI job ended while rank 0 still ran, before it blocked or finished
  rank 0  running  in its own code after exits.c:49
colldb: the session is over: rank 1 exited without cdb_finalize, and MPI ends the whole job with it" ]; then
	ok
else
	bad "colldb run -t mpi --batch: a rank exits while another computes (exit $st)"
	cat "$tmp/got"
fi

# kill -9 of rank 1 from outside (nobody hears of it first) while the
# others are blocked: their boards came unasked as they blocked, so the
# diagnosis has them blocked (under Open MPI, whose launcher names the
# rank it lost; MPICH's kills the others at once, and one of them may be
# seen to go first)
(cd "$ex" && cenv timeout 120 "$top/colldb" run -t mpi --mpirun mpirun.openmpi -n 3 --batch \
	./exits hang hang hang) >"$tmp/got" 2>&1 </dev/null &
shell=$!
# ranks: the exits processes of this job; attached: how many of them hold
# a connection to a colldb shell (ss).  Wait for all three, not a fixed
# time: MPI_Init alone took 5 s in a root without /etc/hosts (hwloc's X
# probe looked up 'localhost' by DNS), past the 1 and 3 s this waited.
ranks() {
	for p in $(pgrep -x exits); do
		q=$p
		while [ "${q:-1}" -gt 1 ] && [ "$q" != $shell ]; do
			q=$(ps -o ppid= -p "$q" | tr -d ' ')
		done
		[ "$q" = $shell ] && echo "$p"
	done
}
attached() {
	ss -Htnp state established 2>/dev/null | awk -v pids=" $(echo $1) " '
	/"colldb"/ { c[$3] = 1 }
	/"exits"/ { match($0, /pid=[0-9]+/)
		e[NR] = substr($0, RSTART + 4, RLENGTH - 4) " " $4 }
	END { for (k in e) { split(e[k], a, " ")
			if ((a[2] in c) && index(pids, " " a[1] " ")) n[a[1]] = 1 }
		m = 0; for (q in n) m++; print m }'
}
pid=
for _ in $(seq 600); do
	rs=$(ranks)
	for p in $rs; do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
			grep -qx OMPI_COMM_WORLD_RANK=1 && pid=$p
	done
	[ -n "$pid" ] && [ "$(attached "$rs")" = 3 ] && break
	sleep 0.1
done
# (then a moment to block: a wait's quiet polls, the control thread's tick)
sleep 1
[ -n "$pid" ] && kill -9 "$pid"
wait $shell
st=$?
if [ -n "$pid" ] && [ $st = 3 ] && [ "$(grep -v '^\[mpirun\] ' "$tmp/got")" = "[rank 1] died: killed by SIGKILL during exits.c:45: wait sig[1] >= 1 (now 0)
HANG: no rank can change sig[1] on rank 0
  rank 0  blocked  wait sig[1] >= 1 at exits.c:45  now 0   writers: none pending: no remaining call sends it
  rank 2  blocked  wait sig[1] >= 1 at exits.c:45  now 0   writers: none pending: no remaining call sends it
  rank 1  dead  killed by SIGKILL during exits.c:45: wait sig[1] >= 1 (now 0)
likely cause: nobody will write sig[1] of rank 0 again: a missing notify, or one sent to another rank or cell
colldb: the session is over: rank 1 died, and MPI ends the whole job with it" ]; then
	ok
else
	bad "kill -9 of a user rank from outside while the others wait (pid ${pid:-not found}, exit $st)"
	cat "$tmp/got"
fi

# A program that computes between its calls (tests/user/compute.c): its
# progress thread completes a peer's put and notify into it while it
# computes, across hosts with each MPI (Open MPI's osc pt2pt there makes
# no window under MPI_THREAD_MULTIPLE: the rank asks for SERIALIZED) and
# with MPICH on one host (whose one-sided writes need the target's calls
# there too).
cat >"$tmp/compute.sh" <<EOF
for mpi in mpirun.openmpi mpirun.mpich; do
	echo "== \$mpi across"
	env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C TERM=dumb \
	    OMPI_MCA_plm_rsh_agent=\$RSH HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC=\$RSH \
	    timeout 120 ./colldb run -t mpi --mpirun \$mpi --hosts \$NODE1:1,\$NODE2:1 \
	    --net \$NET --batch $O/examples/compute 2>&1
	echo "[exit \$?]"
done
EOF
sh tests/mpi/hosts.sh sh "$tmp/compute.sh" >"$tmp/compute.out" 2>&1 </dev/null
echo "== mpirun.mpich here" >>"$tmp/compute.out"
cenv timeout 120 ./colldb run -t mpi --mpirun mpirun.mpich -n 2 --batch \
	"$O/examples/compute" >>"$tmp/compute.out" 2>&1 </dev/null
echo "[exit $?]" >>"$tmp/compute.out"
if [ "$(grep -c '^\[rank 0\] rank 0: put and notify into a computing rank: done within 1.5 s$' "$tmp/compute.out")" = 3 ] &&
    [ "$(grep -c '^\[rank 1\] rank 1: 0 of 262144 elements wrong$' "$tmp/compute.out")" = 3 ] &&
    [ "$(grep -c '^\[exit 0\]$' "$tmp/compute.out")" = 3 ]; then
	ok
else
	bad "a program that computes between its calls (its progress thread)"
	cat "$tmp/compute.out"
fi

# A rank that crashes right after calls it only queued (its outbox is in
# its own memory under -t mpi: a fatal signal's handler has the control
# thread ship them first): the last two calls are still linted, with each
# MPI (tests/user/batch.c: 20 rounds, then notify, put, SIGSEGV).
for mpi in mpirun.openmpi mpirun.mpich; do
	(cd "$top/$O/examples" && cenv timeout 120 "$top/colldb" run -t mpi --mpirun $mpi \
		-n 2 --batch ./batch segv 20) >"$tmp/crash.out" 2>&1 </dev/null
	st=$?
	if [ $st -ne 0 ] && has "warning: batch.c:53: put after notify: rank 0 notified rank 1 (pp[0]) at batch.c:52 before this put; rank 1 may act on the notify before the data lands: put first, then notify" "$tmp/crash.out"; then
		ok
	else
		bad "a rank's last queued calls before its crash, under $mpi (exit $st)"
		head -20 "$tmp/crash.out"
	fi
done

# ---- nothing left ------------------------------------------------------------------------
left=$(left_files | grep -vxF "${files_before:-none}" || true)
if [ -n "$left" ]; then
	bad "the launchers' files of ended sessions left behind: $left"
else
	ok
fi
echo "  mpi: $pass passed, $fail failed"
[ $fail = 0 ]
