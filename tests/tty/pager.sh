#!/bin/sh
# tests/tty/pager.sh [objdir]: a `tree` longer than the terminal goes
# through a pager at the prompt, as git does ($PAGER, else less -FRX); a
# short one does not; a batch run never pages.
name=pager
. "$(dirname "$0")/lib.sh"
need less

tty_start
# a pager that marks what it shows
type_ "PAGER='sed s/^/PAGED:/' ./colldb -n 4; echo rc=\$?"
keys Enter
wait_for last_is '(colldb)' "prompt after start" || exit 1

# pager-1: $PAGER gets a long tree
run 'bench allreduce 64k rounds=2 warmup=0 spans=ops' 'busbw'
keys C-l
type_ 'tree'; keys Enter
wait_for has 'PAGED:`- epilogue' "a long tree goes through \$PAGER"
prompt "after the pager"
# pager-2: a tree that fits is printed as it is
run 'bench barrier rounds=2 warmup=0' 'BenchmarkStats'
keys C-l
run 'tree' 'barrier'
hasnt 'PAGED:' && ok || bad "a short tree went through the pager"
keys C-d
wait_for has 'rc=0' "Ctrl-D exits with status 0"

# pager-3: without $PAGER, less -FRX: the first screen, then q
wait_for last_is 'tty$' "back at the shell"
type_ "clear; ./colldb -n 4; echo rc=\$?"
keys Enter
wait_for last_is '(colldb)' "prompt after start (less)" || exit 1
run 'bench allreduce 64k rounds=2 warmup=0 spans=ops' 'busbw'
keys C-l
type_ 'tree'; keys Enter
wait_for last_is ':' "less shows the first screen and waits"
keys q
prompt "q leaves less"
keys C-d
wait_for has 'rc=0' "Ctrl-D exits with status 0 (less)"

# pager-4: batch never pages, at a terminal too
wait_for last_is 'tty$' "back at the shell (less)"
printf 'bench allreduce 64k rounds=2 warmup=0 spans=ops\ntree\n' >"$tmp/b.coll"
type_ "clear; PAGER='sed s/^/PAGED:/' ./colldb --batch -n 4 $tmp/b.coll | tail -n 1; echo batch-rc=\$?"
keys Enter
# (its own marker: an earlier rc=0 may still be on the screen)
wait_for has 'batch-rc=0' "the batch run ends"
hasnt 'PAGED:' && ok || bad "a batch run paged"
tty_done
