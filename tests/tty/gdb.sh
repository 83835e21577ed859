#!/bin/sh
# tests/tty/gdb.sh: `gdb @R` on a user program's rank stopped at its gate:
# inside tmux gdb opens in a new window with the frame of the user's call
# selected (ring.c:76, where `print rank` answers), detach gives the rank
# back exactly where it was and the program then finishes right; outside
# tmux gdb runs in the foreground and the prompt comes back after it.
name=gdb
. "$(dirname "$0")/lib.sh"
need gdb
sess=ttygdb-$$

# colldb's window is t:0 (gdb's window becomes the current one)
screen() { T capture-pane -p -t t:0; }
keys() { T send-keys -t t:0 "$@"; }
type_() { T send-keys -t t:0 -l -- "$1"; }

tty_start
keys "cd $top/${1:-build}/examples" Enter
# gdb-1: in tmux (TMUX names this test's server): a new window
type_ "TMUX=$tmp/sock,0,0 $top/colldb run -n 4 --name $sess ./ring; echo rc=\$?"
keys Enter
prompt "start"
run 'break ring.c:76 @1' 'breakpoint 1: ring.c:76 @1'
run 'continue' 'rank 1: stopped  reduce-scatter > ring.c:76: wait sig[0,0] >= 1 (now 1)  [breakpoint 1]'
run 'gdb @2' 'error: rank 2 is blocked; gdb attaches to a rank stopped at its gate'
run 'gdb' 'error: gdb attaches to one rank (gdb @R)'
run 'gdb @1' "gdb attached to rank 1 in tmux window 'gdb-rank1'; 'detach' there gives it back"
gscreen() { T capture-pane -p -t gdb-rank1 2>/dev/null; }
ghas() { gscreen | grep -qF -- "$1"; }
gbad() { fail=$((fail + 1)); echo "FAIL: tty $name: $1"; gscreen | sed '/^ *$/d' | tail -n 12 | sed 's/^/    | /'; }
gwait() {
	i=0
	while [ $i -lt 200 ]; do
		ghas "$1" && { ok; return 0; }
		sleep 0.1
		i=$((i + 1))
	done
	gbad "$2 (waited for: $1)"
}
gwait 'colldb: rank 1, stopped at its gate: reduce-scatter > ring.c:76: wait sig[0,0] >= 1' "gdb says which rank and where"
gwait ' in main () at ' "gdb selected the user's frame"
gwait 'ring.c:76' "the frame is the call's line"
T send-keys -t gdb-rank1 -l 'print rank'; T send-keys -t gdb-rank1 Enter
gwait '$1 = 1' "the frame's locals are the rank's (print rank)"
# gdb-1b: held by gdb at its gate the rank is stopped, as it was: no
# watchdog HANG ("stopped by a signal"), diagnose still says SLOW
type_ 'set timeout 1'; keys Enter
sleep 3
hasnt 'watchdog:' && ok || bad "the watchdog fired while gdb held a rank at its gate"
run 'diagnose' 'SLOW: 3 ranks blocked, and every one can still be released'
hasnt 'stopped by a signal' && ok || bad "a rank under gdb is said to be stopped by a signal"
T send-keys -t gdb-rank1 -l 'detach'; T send-keys -t gdb-rank1 Enter
gwait 'Detaching from program' "gdb detaches"
T send-keys -t gdb-rank1 -l 'quit'; T send-keys -t gdb-rank1 Enter
# gdb-2: the rank is where it was, still colldb's; the ring then finishes
run 'where' 'rank 1: stopped  reduce-scatter > ring.c:76: wait sig[0,0] >= 1 (now 1)  [breakpoint 1]'
run 'delete' 'deleted 1 breakpoint'
type_ 'continue'; keys Enter
wait_for has 'rank 3: exited with status 0' "the ring finishes"
prompt continue
for r in 0 1 2 3; do
	has "[rank $r] rank $r: out[0] = 10, 0 wrong" && ok || bad "rank $r's result after gdb"
done
type_ 'quit'; keys Enter
wait_for has 'rc=0' "colldb exits 0"

# gdb-3: no tmux: gdb in the foreground, the prompt after it
type_ 'clear'; keys Enter
type_ "$top/colldb run -n 2 --name $sess-fg ./handshake; echo rc=\$?"
keys Enter
prompt "start"
run 'step' 'rank 0: stopped  handshake.c:43: put msg 1 msg'
type_ 'gdb @0'; keys Enter
wait_for has 'colldb: rank 0, stopped at its gate: handshake.c:43: put msg 1 msg' "foreground gdb says where"
wait_for has '(gdb)' "foreground gdb prompt"
type_ 'print rank'; keys Enter
wait_for has '$1 = 0' "print rank in the user's frame"
type_ 'detach'; keys Enter
wait_for has 'Detaching from program' "foreground gdb detaches"
type_ 'quit'; keys Enter
wait_for has 'gdb detached from rank 0' "the shell says gdb is done"
prompt "after gdb"
type_ 'continue'; keys Enter
wait_for has '[rank 1] rank 1: got 8 values, sum 36' "the handshake finishes after gdb"
prompt continue
type_ 'quit'; keys Enter
wait_for has 'rc=0' "colldb exits 0 after the foreground gdb"
tty_done
