#!/bin/sh
# Run every test tier: unit (Check), golden transcripts, the REPL under tmux,
# pane dumps, scenarios.
# usage: tests/run.sh [objdir]
# VALGRIND=1 (make valgrind) runs the unit tier and the golden transcripts
# (the shell) under valgrind, and only those: the other tiers are make
# check's (and make asan's and make ubsan's, which instrument everything).
set -u
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

# The leak check at the end reads /dev/shm.  As root the run re-runs itself
# in a mount namespace of its own with a fresh tmpfs on /dev/shm: it sees
# only this run's segments (other runs on the machine come and go), and
# what it leaks goes with the namespace.  Otherwise (no root, no
# namespace) it reads the machine's, and says so.
if [ -z "${COLLDB_TEST_SHM:-}" ]; then
	prop=private
	unshare -m --propagation private true 2>/dev/null || prop=unchanged
	if [ "$(id -u)" = 0 ] && unshare -m --propagation $prop true 2>/dev/null &&
	    { [ $prop = private ] || ! grep -q ' shared:' /proc/self/mountinfo; }; then
		kb=$(df -k --output=size /dev/shm | tail -1 | tr -d ' ')
		COLLDB_TEST_SHM=private exec unshare -m --propagation $prop sh -c \
		    'mount -t tmpfs -o mode=1777,size="$1"k colldb-test-shm /dev/shm &&
		    shift && exec sh "$@"' sh "$kb" "$0" "$@"
	fi
	COLLDB_TEST_SHM=machine
fi
export COLLDB_TEST_SHM
fail=0
t0=$(date +%s)

# Every package the tests use is installed (make check's install step);
# a tier also fails by itself when a tool it runs is missing (tests/need.sh).
missing=$(sh mk/deps.sh --missing build test)
if [ -n "$missing" ]; then
	echo "FAIL: not installed: $missing (make check installs them, as root)"
	fail=1
fi

# The /dev/shm segments of dead colldb processes before the run (none in a
# private /dev/shm; on the machine's, other runs' may come and go).
shm_dead() {
	for s in $(ls /dev/shm 2>/dev/null | grep "^colldb-$(id -u)-"); do
		pid=$(echo "$s" | cut -d- -f3)
		kill -0 "$pid" 2>/dev/null || echo "$s"
	done
}
shm_before=$(shm_dead)

echo "== unit tests"
nunit=0
for t in "$O"/tests/check_*; do
	[ -x "$t" ] || continue
	nunit=$((nunit + 1))
	if [ "${VALGRIND:-}" = 1 ]; then
		CK_FORK=no valgrind -q --error-exitcode=9 --leak-check=full \
			--suppressions=tests/valgrind.supp "$t" >"$t.log" 2>&1
	else
		"$t" >"$t.log" 2>&1
	fi
	rc=$?
	sed -n 's/^\([0-9]*%: Checks.*\)/  '"$(basename "$t")"': \1/p' "$t.log"
	if [ $rc -ne 0 ]; then
		echo "FAIL: $t (exit $rc); log follows"; grep -v ':P:' "$t.log" | tail -40
		fail=1
	fi
done
[ $nunit -gt 0 ] || { echo "FAIL: no unit test programs in $O/tests (make tests)"; fail=1; }

tiers="tests/build.sh tests/golden/run.sh tests/tty/run.sh tests/viz/run.sh tests/user/run.sh tests/logs/run.sh tests/trace/run.sh tests/scripts.sh tests/record.sh tests/cli.sh tests/hostile.sh tests/diff/run.sh tests/mpi/run.sh tests/bench.sh tests/docs.sh"
[ "${VALGRIND:-}" = 1 ] && tiers=tests/golden/run.sh
for tier in $tiers; do
	[ -f "$tier" ] || { echo "FAIL: $tier is missing"; fail=1; continue; }
	echo "== $tier"
	sh "$tier" "$O" || fail=1
done

# The fuzzers' smoke run (make check builds them into COLLDB_FUZZ_O; set
# and empty: a sanitizer run, which has no fuzz tier)
if [ "${VALGRIND:-}" = 1 ]; then
	echo "== tests/fuzz/run.sh: not under valgrind (the fuzzers are sanitized builds of their own)"
elif [ -z "${COLLDB_FUZZ_O+set}" ] || [ -n "$COLLDB_FUZZ_O" ]; then
	echo "== tests/fuzz/run.sh"
	sh tests/fuzz/run.sh "${COLLDB_FUZZ_O:-build-fuzz}" "${COLLDB_FUZZ_SECS:-3}" || fail=1
else
	echo "== tests/fuzz/run.sh: not in sanitizer runs (the fuzzers are sanitized builds of their own)"
fi

# Nothing may leak: no new /dev/shm segment of a colldb that has ended.
leaks=$(shm_dead | grep -vxF "${shm_before:-none}" || true)
if [ "$COLLDB_TEST_SHM" = private ]; then
	echo "== /dev/shm: this run's own (a private tmpfs)"
else
	echo "== /dev/shm: the machine's (no private mount namespace: needs root); a parallel run's leak would count here"
fi
if [ -n "$leaks" ]; then
	echo "FAIL: /dev/shm segment(s) of ended colldb processes left behind:"; echo "$leaks"
	fail=1
fi
echo "== done in $(( $(date +%s) - t0 ))s: $( [ $fail = 0 ] && echo PASS || echo FAIL )"
exit $fail
