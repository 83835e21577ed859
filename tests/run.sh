#!/bin/sh
# Run every test tier: unit (Check), golden transcripts, the REPL under tmux,
# pane dumps, scenarios.
# usage: tests/run.sh [objdir]      VALGRIND=1 runs the unit tier under valgrind
set -u
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
fail=0
t0=$(date +%s)

echo "== unit tests"
for t in "$O"/tests/check_*; do
	[ -x "$t" ] || continue
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

for tier in tests/golden/run.sh tests/tty/run.sh tests/viz/run.sh tests/user/run.sh tests/logs/run.sh tests/trace/run.sh tests/scripts.sh tests/record.sh tests/cli.sh tests/hostile.sh tests/docs.sh; do
	[ -f "$tier" ] || continue
	echo "== $tier"
	sh "$tier" "$O" || fail=1
done

# Nothing may leak: no /dev/shm segment of ours, no stray rank process.
leaks=$(ls /dev/shm 2>/dev/null | grep -c '^colldb-' || true)
if [ "$leaks" -ne 0 ]; then
	echo "FAIL: $leaks /dev/shm/colldb-* segment(s) left behind"; ls /dev/shm | grep '^colldb-'
	fail=1
fi
echo "== done in $(( $(date +%s) - t0 ))s: $( [ $fail = 0 ] && echo PASS || echo FAIL )"
exit $fail
