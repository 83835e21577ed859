#!/bin/sh
# tests/tty/habits.sh [objdir]: gdb's habits at the prompt: an empty line
# repeats the last step/continue/until/advance (and only those); quit with
# ranks stopped or blocked asks once (n stays, y or Ctrl-D quits), and so
# does Ctrl-D at the prompt.
name=habits
. "$(dirname "$0")/lib.sh"

tty_start
type_ "./colldb -n 2; echo rc=\$?"
keys Enter
wait_for last_is '(colldb)' "prompt after start" || exit 1
run 'alloc buf [64] f32' '(colldb) alloc buf'
run 'alloc ring [2,2] i32' '(colldb) alloc ring'
run 'alloc sig [2,1] i32' '(colldb) alloc sig'
run 'start allreduce buf ring mode=ring' 'step 1/'

# habits-1: an empty line repeats step (with its @ prefix)
keys C-l
run 'step' 'rank 1: stopped  allreduce(ring) step 2/'
keys Enter
wait_for has 'rank 1: stopped  allreduce(ring) step 3/' "an empty line repeats 'step'"
prompt "the repeated step"
keys Enter
wait_for has 'rank 1: stopped  allreduce(ring) step 4/' "and again"
prompt "the repeated step again"
run 'continue' 'allreduce(ring): done'
run 'start @0 notify 1 sig[0] 1' '[rank 0] stopped before notify 1 sig[0] 1'
keys C-l
run '@0 step' 'rank 0: idle'
keys Enter
sleep 0.5
hasnt 'rank 1: ' && ok || bad "the repeated '@0 step' ran on rank 1 too"
has 'error: no target rank is stopped' && ok || bad "the repeated '@0 step' did not run"
prompt "the repeated @0 step"
# habits-2: after another command an empty line does nothing
keys C-l
run 'where' 'rank 1: idle'
keys Enter
sleep 0.5
[ "$(screen | grep -c '^rank 0: ')" = 1 ] && ok || bad "an empty line after 'where' ran something"
prompt "empty line after where"

# habits-3: quit with ranks stopped or blocked asks once; n stays
run 'start @0 notify 1 sig[1] 1' '[rank 0] stopped before'
run '@1 wait sig[0] >= 5' '[rank 1] blocked'
keys C-l
type_ 'quit'; keys Enter
wait_for last_is '1 rank stopped and 1 blocked; quit anyway? (y or n)' "quit asks when ranks are stopped or blocked"
type_ 'n'; keys Enter
wait_for has 'not quitting' "n keeps the session"
prompt "after n"
run '@0 continue' 'rank 0: idle'
type_ 'q'; keys Enter
wait_for last_is '1 rank blocked; quit anyway? (y or n)' "q asks when a rank is blocked"
type_ 'y'; keys Enter
wait_for has 'rc=0' "y quits (status 0)"

# habits-4: Ctrl-D at the question quits too; idle ranks: no question
wait_for last_is 'tty$' "back at the shell"
type_ "clear; ./colldb -n 2; echo rc=\$?"
keys Enter
wait_for last_is '(colldb)' "prompt after the second start" || exit 1
run 'alloc sig [2,1] i32' '(colldb) alloc sig'
run '@1 wait sig[0] >= 1' '[rank 1] blocked'
# habits-4a: Ctrl-D at the prompt is quit: it asks too (it used to end
# the session, blocked ranks and all, without a word); n stays
keys C-l
keys C-d
wait_for last_is '1 rank blocked; quit anyway? (y or n)' "Ctrl-D at the prompt asks as quit does"
type_ 'n'; keys Enter
wait_for has 'not quitting' "n after Ctrl-D keeps the session"
prompt "after Ctrl-D and n"
type_ 'quit'; keys Enter
wait_for last_is '1 rank blocked; quit anyway? (y or n)' "quit asks"
keys C-d
wait_for has 'rc=0' "Ctrl-D at the question quits"
wait_for last_is 'tty$' "back at the shell again"
type_ "clear; ./colldb -n 2; echo rc=\$?"
keys Enter
wait_for last_is '(colldb)' "prompt after the third start" || exit 1
type_ 'quit'; keys Enter
wait_for has 'rc=0' "idle ranks: quit does not ask"
tty_done
