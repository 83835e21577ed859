#!/bin/sh
# Pane tier: render every tests/viz/*.snap through the text dump backend and
# cmp it against tests/viz/*.result, then drive the real curses pane in tmux
# (tmux-pane.sh; failed without tmux).
# usage: tests/viz/run.sh [objdir]      UPDATE=1 rewrites the .result files
set -u
O=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
fail=0

# The tools are test-only; build them if `make tests` has not.
if [ ! -x "$O/tests/viz-dump" ] || [ ! -x "$O/tests/pane-demo" ]; then
	${MAKE:-make} --no-print-directory -s O="$O" \
	    "$O/tests/viz-dump" "$O/tests/pane-demo" >/dev/null ||
		{ echo "  FAIL: cannot build the viz test tools"; exit 1; }
fi

mkdir -p "$O/tests/viz"
n=0
for snap in tests/viz/*.snap; do
	[ -f "$snap" ] || continue
	name=$(basename "$snap" .snap)
	got=$O/tests/viz/$name.got
	want=tests/viz/$name.result
	n=$((n + 1))
	if ! LC_ALL=C "$O/tests/viz-dump" "$snap" >"$got" 2>"$got.err"; then
		echo "  FAIL $name: viz-dump failed"; sed 's/^/  /' "$got.err"
		fail=1
		continue
	fi
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$got" "$want"
		echo "  updated $want"
	elif [ ! -f "$want" ]; then
		echo "  FAIL $name: no $want (UPDATE=1 creates it)"
		fail=1
	elif cmp -s "$got" "$want"; then
		echo "  ok   $name"
	else
		echo "  FAIL $name: screen differs from $want"
		diff -u "$want" "$got" | head -40 | sed 's/^/  /'
		fail=1
	fi
done
if [ "$n" = 0 ]; then
	echo "  FAIL: no tests/viz/*.snap"
	fail=1
fi

sh tests/viz/tmux-pane.sh "$O" || fail=1
exit $fail
