#!/bin/sh
# tests/tty/pause.sh [objdir]: Ctrl-D at a script's pause (a lesson's) is
# quit, as at the prompt: on a line of its own, and with a rank blocked it
# asks first; n goes back to the pause, y ends the session.  (It ended the
# session at once, without asking, and the shell's prompt came on the
# pause's line.)
name=pause
. "$(dirname "$0")/lib.sh"

printf '%s\n' 'alloc sig [2,1] i32' '@1 wait sig[0] >= 1' 'say first pause' \
	pause 'say second pause' pause 'say after the pauses' >"$tmp/pauses.coll"

tty_start
type_ "./colldb -n 2 -x $tmp/pauses.coll; echo rc=\$?"
keys Enter
wait_for last_is '-- Enter to continue, or a command --' "the first pause" || exit 1
has_line 'first pause' && ok || bad "the narration before the pause"

# pause-1: Ctrl-D with a rank blocked asks; n goes back to the pause
keys C-d
wait_for last_is '1 rank blocked; quit anyway? (y or n)' "Ctrl-D at a pause asks, as quit does"
type_ 'n'; keys Enter
wait_for has 'not quitting' "n keeps the session"
wait_for last_is '-- Enter to continue, or a command --' "back at the pause"
keys Enter
wait_for has_line 'second pause' "Enter goes on"
wait_for last_is '-- Enter to continue, or a command --' "the second pause"

# pause-2: Ctrl-D, y: the session ends, the shell's prompt on its own line
keys C-d
wait_for last_is '1 rank blocked; quit anyway? (y or n)' "Ctrl-D asks again"
type_ 'y'; keys Enter
wait_for has_line 'rc=0' "y quits (status 0)"
wait_for last_is 'tty$' "the shell's prompt on a line of its own"
hasnt 'after the pauses' && ok || bad "the script went on after quit"

tty_done
