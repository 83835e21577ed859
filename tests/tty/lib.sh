# tests/tty/lib.sh: helpers for the tty tier, sourced by each test after
# it sets "name".  Starts nothing; tty_start opens a detached tmux (its own
# server socket, a throw-away HOME) running /bin/sh with the prompt 'tty$'.
# Fails (exit 1) when tmux or pgrep is not installed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
. tests/need.sh
need tmux pgrep stty cmp
if [ ! -x ./colldb ]; then
	echo "FAIL: tty $name: ./colldb not built"
	exit 1
fi
tmp=$(mktemp -d /tmp/colldb-tty.XXXXXX) || exit 2
mkdir "$tmp/home"
pass=0 fail=0

# Targets name the session as "t:" (its current window): a bare "t" is
# first looked up as a window whose name starts with t, and a window gets
# the name of the command it runs ("new-window -t t" failed with "index 0
# in use" when window 0 ran one whose name starts with t).
T() { tmux -S "$tmp/sock" "$@"; }
cleanup() {
	T kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

screen() { T capture-pane -p -t t:; }
# The last non-empty line on the screen (trailing blanks are trimmed).
last() { screen | sed '/^ *$/d' | tail -n 1; }
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: tty $name: $1"
	screen | sed '/^ *$/d' | tail -n 12 | sed 's/^/    | /'
}
# wait_for CHECK ARG DESC: poll (up to $tries tenths of a second, 10 s by
# default) until CHECK ARG succeeds.
tries=100
wait_for() {
	i=0
	while [ $i -lt $tries ]; do
		"$1" "$2" && { ok; return 0; }
		sleep 0.1
		i=$((i + 1))
	done
	bad "$3 (waited for: $2)"
	return 1
}
has() { screen | grep -qF -- "$1"; }
has_line() { screen | grep -qxF -- "$1"; }
hasnt() { ! screen | grep -qF -- "$1"; }
last_is() { [ "$(last)" = "$1" ]; }
count() { screen | grep -cxF -- "$1"; }
keys() { T send-keys -t t: "$@"; }
# Type literal text (no key-name lookup).
type_() { T send-keys -t t: -l -- "$1"; }
# Keys typed while a command runs meet the terminal in cooked mode (a
# Ctrl-D there is lost), so every step waits for the prompt first.
prompt() { wait_for last_is '(colldb)' "prompt after: $1"; }
# run LINE TEXT: type LINE, Enter, wait until TEXT shows and the prompt
# is back.
run() {
	type_ "$1"
	keys Enter
	wait_for has "$2" "output of: $1"
	prompt "$1"
}

# colldb_pid: the colldb started from the pane's shell.
colldb_pid() {
	pgrep -P "$(T list-panes -t t: -F '#{pane_pid}')" -x colldb | head -n 1
}
# rank_pid CDB R: the process of rank R under colldb pid CDB.
rank_pid() {
	for p in $(pgrep -P "$1"); do
		case $(tr '\0' ' ' <"/proc/$p/cmdline") in
		*" --agent "*" $2 ") echo "$p"; return 0 ;;
		esac
	done
	return 1
}
tty_start() {
	T -f /dev/null new-session -d -x 100 -y 45 -s t \
	    "env -i ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} PATH=/usr/bin:/bin HOME=$tmp/home LC_ALL=C TERM=screen PS1='tty\$ ' /bin/sh"
	wait_for last_is 'tty$' "shell prompt"
}
tty_done() {
	echo "  tty $name: $pass checks passed, $fail failed"
	[ $fail -eq 0 ]
}
