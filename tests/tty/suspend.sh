#!/bin/sh
# tests/tty/suspend.sh [objdir]: Ctrl-Z at the prompt and fg, as in a
# shell.  While colldb is stopped its shell gets the terminal as it was
# before colldb (cooked, echoing: what is typed shows); after fg the
# prompt and the half-typed line are drawn again and editing goes on.
# The same from the watch pane.  (They were not: the stopped colldb left
# the terminal raw without echo, and after fg there was no prompt and
# every typed key showed twice.)
name=suspend
. "$(dirname "$0")/lib.sh"

tty_start
# colldb alone on its line: in a list ("colldb; echo") Ctrl-Z would
# stop colldb and the shell would go on with the rest of the list
type_ "stty -g >$tmp/stty.before"; keys Enter
wait_for last_is 'tty$' "stty ran"
type_ "./colldb -n 2"
keys Enter
wait_for last_is '(colldb)' "prompt after start" || exit 1
run 'alloc sig [2,1] i32' '(colldb) alloc sig'

# suspend-1: Ctrl-Z with a half-typed line; the shell's terminal is sane
keys C-l
type_ '@0 notify 1 sig'
wait_for last_is '(colldb) @0 notify 1 sig' "half-typed line"
keys C-z
wait_for last_is 'tty$' "Ctrl-Z gives the shell back"
type_ "stty -g >$tmp/stty.stopped; echo typed-at-the-shell"
wait_for has 'tty$ stty -g' "the shell echoes what is typed while colldb is stopped"
keys Enter
wait_for has_line 'typed-at-the-shell' "the shell ran the line"
i=0
while [ ! -s "$tmp/stty.stopped" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
cmp -s "$tmp/stty.before" "$tmp/stty.stopped" && ok ||
	bad "terminal modes while stopped differ from before colldb"

# suspend-2: fg draws the prompt and the line again; editing goes on
# (no C-l at the shell: sh would take it as part of the command)
type_ 'fg'; keys Enter
wait_for last_is '(colldb) @0 notify 1 sig' "fg redraws the prompt and the half-typed line"
type_ '[0] 3'
wait_for last_is '(colldb) @0 notify 1 sig[0] 3' "typed keys show once"
keys Enter
prompt "the completed line"
run '@1 print sig' 'rank 1: 3 0'

# suspend-3: Ctrl-Z in the watch pane, fg: the pane is back, q leaves it
keys C-l
type_ 'watch'; keys Enter
wait_for has 'colldb watch' "the pane"
keys C-z
wait_for last_is 'tty$' "Ctrl-Z in the pane gives the shell back"
type_ 'fg'; keys Enter
wait_for has 'colldb watch' "fg brings the pane back"
keys q
prompt "q after fg"
run 'say after' 'after'

# the end: status 0, the terminal as before
type_ 'quit'; keys Enter
wait_for last_is 'tty$' "back at the shell"
type_ 'echo rc=$?'; keys Enter
wait_for has_line 'rc=0' "quit exits with status 0"
type_ "stty -g >$tmp/stty.after"; keys Enter
i=0
while [ ! -s "$tmp/stty.after" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
cmp -s "$tmp/stty.before" "$tmp/stty.after" && ok || bad "terminal modes changed"

tty_done
