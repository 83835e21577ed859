#!/bin/sh
# tests/tty/repl.sh [objdir]: drive the interactive REPL in a detached tmux
# (its own server socket, a throw-away HOME) and check what a person sees:
# the prompt, Tab completion of commands, windows, domains and keywords, the
# continuation prompt, history (Up), Ctrl-C on a half-typed line and
# during a sleep, an event arriving while a line is half typed, Ctrl-D,
# the terminal modes afterwards, and nothing left behind.
# Fails when tmux is not installed (see lib.sh).
name=repl
. "$(dirname "$0")/lib.sh"

tty_start
type_ "stty -g >$tmp/stty.before; ./colldb -n 2; echo rc=\$?"
keys Enter

# repl-1: the prompt
wait_for last_is '(colldb)' "prompt after start" || exit 1

# repl-2: Tab completes a command name, then a window name, a keyword
type_ 'allo'; keys Tab
wait_for last_is '(colldb) alloc' "complete 'allo' to 'alloc '"
run 'sig [2,1] i32' '(colldb) alloc sig [2,1] i32'
type_ 'print s'; keys Tab
wait_for last_is '(colldb) print sig' "complete a window name"
keys C-u
type_ 'wait sig[0] ='; keys Tab
wait_for last_is '(colldb) wait sig[0] ==' "complete a keyword (==)"
keys C-u
type_ 'alloc x [1] bf'; keys Tab
wait_for last_is '(colldb) alloc x [1] bf16' "complete a dtype"
keys C-u
# a domain's name: after 'domain delete', and as domain=NAME
run 'domain dom1 @1' 'dom1  @1  1 rank: rank 1 = dom1:0'
type_ 'domain del'; keys Tab
wait_for last_is '(colldb) domain delete' "complete 'del' to 'delete'"
type_ 'do'; keys Tab
wait_for last_is '(colldb) domain delete dom1' "complete a domain name"
keys C-u
type_ 'alloc x [1] f32 domain='; keys Tab
wait_for last_is '(colldb) alloc x [1] f32 domain=dom1' "complete domain=NAME"
keys C-u
run 'domain delete dom1' '(colldb) domain delete dom1'
run 'domain' 'no domains (declare one: domain NAME @RANKS)'
# an ambiguous prefix lists the candidates and keeps the line
type_ 'w'; keys Tab
wait_for has 'world  windows  wait' "list of candidates for 'w'"
wait_for last_is '(colldb) w' "line kept after the list"
keys C-u

# repl-3: the continuation prompt
type_ 'alloc buf \'; keys Enter
wait_for last_is '...' "continuation prompt"
type_ '[4] f32'; keys Enter
prompt "a continued command"
run 'windows' 'buf   [4]    f32       16      32'

# repl-4: history: Up recalls the previous command
run '@1 set sig[1] 7' '(colldb) @1 set sig[1] 7'
run 'print sig' 'rank 1: 0 7'
keys Up
wait_for last_is '(colldb) print sig' "Up recalls 'print sig'"
keys Up
wait_for last_is '(colldb) @1 set sig[1] 7' "Up again recalls the one before"
keys Down
wait_for last_is '(colldb) print sig' "Down comes back"
keys Enter
two_prints() { [ "$(count 'rank 1: 0 7')" = 2 ]; }
wait_for two_prints - "recalled 'print sig' ran once more"
prompt "recalled print"

# repl-5: Ctrl-C discards a half-typed line; nothing runs
keys C-l
type_ 'alloc zz 16'
wait_for last_is '(colldb) alloc zz 16' "half-typed line shown"
keys C-c
wait_for last_is '(colldb)' "Ctrl-C gives a fresh prompt"
run 'windows' 'name  shape'
hasnt 'u8' && ok || bad "the discarded line was run"

# repl-6: Ctrl-C during a command stops it, and only it
keys C-l
type_ 'sleep 30'; keys Enter
sleep 0.5
keys C-c
wait_for has 'error: sleep interrupted' "Ctrl-C stops a sleep"
prompt "the interrupted sleep"
run 'say after the sleep' 'after the sleep'
hasnt '(colldb) ^C' && ok || bad "a stale Ctrl-C hit the next prompt"

# repl-7: an event arriving while a line is half typed is printed above
# it, and the line (and the cursor in it) survives.  The event: rank 1 is
# terminated from outside.
keys C-l
type_ 'say half typed'
keys Left Left Left Left Left
wait_for last_is '(colldb) say half typed' "half-typed line before the event"
cdb=$(colldb_pid)
r1=$(rank_pid "$cdb" 1)
if [ -n "$r1" ]; then
	kill -TERM "$r1"
	wait_for has '[rank 1] died: killed by SIGTERM after set sig[1] 7' "async event printed"
	wait_for last_is '(colldb) say half typed' "line redrawn after the event"
	type_ 'X'; keys End
	type_ ' done'; keys Enter
	wait_for has 'half Xtyped done' "cursor kept its place; line ran"
	prompt "the redrawn line"
else
	bad "could not find rank 1's process under colldb pid ${cdb:-?}"
fi

# repl-6b: the hang watchdog reports during a sleep, at the prompt too
keys C-l
run 'set timeout 1' '(colldb) set timeout 1'
run '@0 wait sig[0] >= 5' '[rank 0] blocked'
type_ 'sleep 20'; keys Enter
wait_for has 'watchdog: no progress for 1s; diagnosis:' "the watchdog fires during the sleep"
hasnt 'error: sleep interrupted' && ok || bad "the sleep ended before the watchdog report"
keys C-c
wait_for has 'error: sleep interrupted' "Ctrl-C ends the sleep"
prompt "the interrupted sleep"
run 'interrupt @0' 'interrupted'
run 'set timeout 10' '(colldb) set timeout 10'

# repl-8: Ctrl-D on an empty line ends the session; the terminal is sane,
# history was saved, nothing is left behind
keys C-d
wait_for has 'rc=0' "Ctrl-D exits with status 0"
wait_for last_is 'tty$' "back at the shell"
type_ "stty -g >$tmp/stty.after"; keys Enter
wait_for last_is 'tty$' "stty ran"
i=0
while [ ! -s "$tmp/stty.after" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
cmp -s "$tmp/stty.before" "$tmp/stty.after" && ok || bad "terminal modes changed"
# libedit stores lines strvis-encoded: a space is \040
grep -qx 'print\\040sig' "$tmp/home/.colldb_history" && ok ||
	bad "history file lacks 'print sig'"
if [ -n "$cdb" ]; then
	sleep 0.2
	kill -0 "$cdb" 2>/dev/null && bad "colldb pid $cdb still running" || ok
	[ -z "$(pgrep -P "$cdb")" ] && ok || bad "rank processes of $cdb left"
	ls /dev/shm 2>/dev/null | grep -q "^colldb-$(id -u)-$cdb-" &&
	    bad "/dev/shm segment of $cdb left" || ok
fi

# repl-9: colldb crashes (SIGSEGV) at the bare prompt: the terminal is
# restored (not left in -icanon -echo) and the registry entry removed
type_ "./colldb -n 1 --name ttysegv-\$\$; echo rc=\$?"; keys Enter
prompt "start for the crash"
cdb=$(colldb_pid)
reg=$(ls -d /tmp/colldb-$(id -u)/ttysegv-* 2>/dev/null | head -1)
[ -n "$cdb" ] && [ -n "$reg" ] && kill -SEGV "$cdb"
wait_for has 'rc=139' "SIGSEGV ends colldb with the signal's status"
wait_for last_is 'tty$' "back at the shell after the crash"
rm -f "$tmp/stty.after"
type_ "stty -g >$tmp/stty.after"; keys Enter
i=0
while [ ! -s "$tmp/stty.after" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
cmp -s "$tmp/stty.before" "$tmp/stty.after" && ok || bad "terminal modes changed by the crash"
[ -n "$reg" ] && [ ! -e "$reg" ] && ok || bad "registry entry '$reg' left by the crash"

tty_done
