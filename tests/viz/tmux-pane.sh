#!/bin/sh
# tmux-pane.sh - drive the real curses watch pane (pane-demo) in a detached
# tmux session: it appears, refreshes, Tab switches the window, ? shows the
# help, a resize redraws at the new size, q exits; after q, SIGTERM and
# SIGSEGV the terminal is restored (stty -g unchanged, icanon and echo on,
# a typed command echoes), and so after ^C, with and without a SIGINT handler
# of the caller's; a session that ends says so and exits.
# usage: tests/viz/tmux-pane.sh [objdir]      fails without tmux
set -u
O=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
demo=$top/$O/tests/pane-demo
. "$top/tests/need.sh"
need tmux stty cmp
if [ ! -x "$demo" ]; then
	echo "  FAIL tmux-pane: $demo is not built"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/colldb-tmux.XXXXXX") || exit 1
sock=$tmp/sock
fail=0
T() { tmux -S "$sock" "$@"; }
cleanup() { T kill-server >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

ok() { echo "  ok   tmux-pane: $1"; }
bad() {
	echo "  FAIL tmux-pane: $1"
	echo "  ---- screen:"; cap | sed 's/^/  | /'
	fail=1
}
cap() { T capture-pane -p -t t; }
# wait_for PATTERN [tenths]: poll the screen until grep -E matches.
wait_for() {
	n=${2:-50}
	while [ "$n" -gt 0 ]; do
		cap | grep -Eq -- "$1" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
gone() {
	n=${2:-50}
	while [ "$n" -gt 0 ]; do
		cap | grep -Eq -- "$1" || return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
# line_len N: length of screen line N (capture-pane trims trailing blanks).
line_len() { cap | awk -v n="$1" 'NR == n { print length($0) }'; }
tick() { cap | sed -n 's/^demo tick \([0-9]*\).*/\1/p' | tail -1; }
run() { T send-keys -t t "$1" Enter; }

# The terminal is sane: same stty settings as before the pane, canonical
# mode and echo on, and a typed command is echoed by the tty.
check_restored() {
	what=$1
	run "clear; stty -g > $tmp/after; cmp -s $tmp/before $tmp/after && echo STTY-SAME || echo STTY-DIFF"
	if wait_for '^STTY-(SAME|DIFF)$' && cap | grep -q '^STTY-SAME$'; then
		ok "$what: stty settings restored"
	else
		bad "$what: stty settings differ after the pane"
	fi
	run "clear; stty -a | grep -ow -e '-\{0,1\}icanon' -e '-\{0,1\}echo' | tr '\n' ,; echo"
	if wait_for '^-?icanon,-?echo,$' && cap | grep -q '^icanon,echo,$'; then
		ok "$what: icanon and echo on"
	else
		bad "$what: icanon/echo not restored"
	fi
	# The previous command cleared the screen: this is the only such line.
	run "echo typed-after"
	if wait_for '^typed-after$' && cap | grep -q '^tp\$ echo typed-after$'; then
		ok "$what: typed command echoes"
	else
		bad "$what: typed command did not echo"
	fi
}

T -f /dev/null new-session -d -x 100 -y 30 -s t "PS1='tp\$ ' ENV= /bin/sh" ||
	{ echo "  FAIL tmux-pane: cannot start tmux"; exit 1; }
T set-option -t t status off >/dev/null
wait_for '^tp\$' || bad "shell prompt did not appear"
run "stty -g > $tmp/before"

# ---- start, refresh, keys, resize, q
run "clear; $demo -p $tmp/pid; echo rc=\$?"
if wait_for '^ colldb watch  demo  4 ranks'; then
	ok "pane appears"
else
	bad "pane did not appear"
fi
t1=$(tick)
sleep 1
t2=$(tick)
# 10 Hz gives ~10 ticks; ask for 3 so a loaded machine does not flake.
if [ -n "$t1" ] && [ -n "$t2" ] && [ "$t2" -ge $((t1 + 3)) ]; then
	ok "values refresh (tick $t1 -> $t2 in 1 s)"
else
	bad "values did not refresh (tick '$t1' -> '$t2')"
fi
cap | grep -q '^ sig \[6,4\]  window 1/2' || bad "window sig not shown first"
T send-keys -t t Tab
if wait_for '^ flags \[16\]  window 2/2'; then
	ok "Tab switches to the next window"
else
	bad "Tab did not switch the window"
fi
T send-keys -t t '?'
if wait_for 'show / hide this help'; then
	ok "? shows the help"
else
	bad "? did not show the help"
fi
T send-keys -t t Escape
gone 'show / hide this help' || bad "Esc did not close the help"

T resize-window -t t -x 80 -y 24
# The status legend is right-aligned: it ends in the last column of the
# last row only if the pane redrew at the new size.  (Not the length
# alone: tmux cuts the old 100-column lines to 80 before the pane redraws,
# so a last line of 80 columns ending in "* awaite" came first.)
redrawn() { [ "$(line_len "$1")" = "$2" ] && cap | sed -n "$1p" | grep -q 'owed by rank R$'; }
n=30
while [ "$n" -gt 0 ] && ! redrawn 24 80; do sleep 0.1; n=$((n - 1)); done
if [ "$(cap | wc -l)" = 24 ] && [ "$(line_len 24)" = 80 ] &&
    cap | sed -n 24p | grep -q 'owed by rank R$' &&
    [ "$(line_len 1)" -le 80 ]; then
	ok "resize to 80x24 redraws at the new size"
else
	bad "no redraw at 80x24 (last line length $(line_len 24))"
fi
T resize-window -t t -x 120 -y 40
n=30
while [ "$n" -gt 0 ] && ! redrawn 40 120; do sleep 0.1; n=$((n - 1)); done
if [ "$(line_len 40)" = 120 ] && cap | sed -n 40p | grep -q 'owed by rank R$'; then
	ok "resize to 120x40 redraws at the new size"
else
	bad "no redraw at 120x40 (last line length $(line_len 40))"
fi

T send-keys -t t q
if wait_for '^rc=0$' && cap | grep -q '^pane-demo: quit after [0-9]* snapshots$'; then
	ok "q exits (status 0)"
else
	bad "q did not exit cleanly"
fi
check_restored "after q"

# ---- SIGTERM
rm -f "$tmp/pid"
run "clear; $demo -p $tmp/pid; echo rc=\$?"
wait_for '^ colldb watch' || bad "pane did not appear (SIGTERM run)"
if [ -s "$tmp/pid" ] && kill -TERM "$(cat "$tmp/pid")" && wait_for '^rc=143$'; then
	ok "SIGTERM kills the pane with the signal's status (143)"
else
	bad "SIGTERM run did not end with status 143"
fi
check_restored "after SIGTERM"

# ---- SIGSEGV (the demo dereferences NULL after 500 ms)
run "clear; ulimit -c 0; $demo -S 500; echo rc=\$?"
if wait_for '^rc=139$' 80; then
	ok "SIGSEGV dies with the signal's status (139)"
else
	bad "SIGSEGV run did not end with status 139"
fi
check_restored "after SIGSEGV"

# ---- ^C: without a handler of the caller's the pane dies of SIGINT; with
# one (as the shell has), that handler runs and watch_run() returns.
# An interactive sh drops the rest of a list whose job died of SIGINT, so
# a child sh reports the status; its trap is a command, not "" (ignored
# signals stay ignored across exec; caught ones are reset to default).
run "clear; sh -c 'trap : INT; $demo; echo rc=\$?'"
wait_for '^ colldb watch' || bad "pane did not appear (^C run)"
T send-keys -t t C-c
if wait_for '^rc=130$'; then
	ok "^C kills the pane with SIGINT's status (130)"
else
	bad "^C run did not end with status 130"
fi
check_restored "after ^C"
run "clear; $demo -I; echo rc=\$?"
wait_for '^ colldb watch' || bad "pane did not appear (^C -I run)"
T send-keys -t t C-c
if wait_for '^rc=4$' &&
    cap | grep -q '^pane-demo: interrupted (our SIGINT handler ran)$'; then
	ok "^C reaches the caller's SIGINT handler; watch_run returns"
else
	bad "^C with a caller's handler did not return WATCH_INTERRUPTED"
fi
check_restored "after ^C with a handler"

# ---- the session ends under the pane (the demo ends after 5 snapshots)
run "clear; $demo -e 5; echo rc=\$?"
if wait_for 'session demo ended; press any key' && wait_for '\[ended\]' 1; then
	ok "the end of the session is shown"
else
	bad "the end of the session was not shown"
fi
T send-keys -t t Space
if wait_for '^rc=3$' 20 && cap | grep -q '^pane-demo: session ended$'; then
	ok "a key leaves an ended session (status 3)"
else
	bad "ended session did not exit on a key"
fi
check_restored "after the session ended"

exit $fail
