#!/bin/sh
# tests/tty/continuation.sh [objdir]: Ctrl-C at the '...' continuation
# prompt abandons the whole unfinished command, as in a shell: neither
# the first part of a backslash-continued command runs on its own, nor
# does the '...' prompt come back inside an unclosed quote.  The prompt
# says what is open (a quote or bracket) and where.
name=continuation
. "$(dirname "$0")/lib.sh"

tty_start
type_ "./colldb -n 2; echo rc=\$?"
keys Enter
wait_for last_is '(colldb)' "prompt after start" || exit 1

# cont-1: after a backslash continuation
type_ 'alloc buf \'; keys Enter
wait_for last_is '...' "continuation prompt"
type_ '[4] f3'
keys C-c
wait_for last_is '(colldb)' "Ctrl-C at '...' gives a fresh prompt"
hasnt 'error:' && ok || bad "the first part of the command ran"
run 'windows' 'no windows'

# cont-2: inside an unclosed quote
keys C-l
type_ 'print "unclosed'; keys Enter
wait_for last_is "... (inside '\"' from column 7; Ctrl-C drops the line)" "continuation prompt in a quote says what is open"
keys C-c
tries=30
if ! wait_for last_is '(colldb)' "Ctrl-C in an unclosed quote gives a fresh prompt"; then
	type_ '"'; keys Enter	# get out by closing the quote
fi
tries=100
prompt "leaving the quote"
type_ 'say ok'; keys Enter
wait_for has_line 'ok' "the next command runs"
prompt "say ok"

# cont-3: an unclosed bracket says at once what is open, and where; the
# lines after it (quit too) belong to the command until Ctrl-C
keys C-l
type_ 'alloc s [2'; keys Enter
wait_for last_is "... (inside '[' from column 9; Ctrl-C drops the line)" "the open bracket is named at the prompt"
type_ 'quit'; keys Enter
wait_for has "... (inside '[' from column 9; Ctrl-C drops the line) quit" "quit is part of the open command"
wait_for last_is "... (inside '[' from column 9; Ctrl-C drops the line)" "still inside the bracket"
keys C-c
wait_for last_is '(colldb)' "Ctrl-C drops the unfinished command"
run 'windows' 'no windows'
# Ctrl-D inside an open bracket drops the command too, and the session
# stays (the man page says so)
type_ 'alloc z [4'; keys Enter
wait_for last_is "... (inside '[' from column 9; Ctrl-C drops the line)" "inside the bracket again"
keys C-d
wait_for last_is '(colldb)' "Ctrl-D drops the unfinished command"
run 'windows' 'no windows'
# a backslash continuation keeps the plain prompt
type_ 'say a \'; keys Enter
wait_for last_is '...' "plain continuation prompt after a backslash"
type_ 'b'; keys Enter
wait_for has_line 'a b' "the continued say ran"
prompt "continued say"

# cont-3: a repeat block is typed at '...' and runs at its end
keys C-l
run 'alloc sig [2,1] i32' '(colldb)'
type_ 'repeat 2'; keys Enter
wait_for last_is '...' "repeat opens a block"
type_ '@0 notify 1 sig[0] 1'; keys Enter
wait_for last_is '...' "the body is collected, not run"
type_ 'end'; keys Enter
prompt "end runs the block"
run '@1 print sig' 'rank 1: 2 0'

# cont-4: Ctrl-C at '...' drops an open block
type_ 'repeat 5'; keys Enter
wait_for last_is '...' "repeat opens a block"
type_ '@0 notify 1 sig[0] 1'; keys Enter
keys C-c
wait_for last_is '(colldb)' "Ctrl-C at '...' drops the block"
type_ 'end'; keys Enter
wait_for has "'end' without a repeat" "the block is gone"
prompt "stray end"
run '@1 print sig' 'rank 1: 2 0'

# cont-5: Ctrl-C in a running block stops it and says the iteration once
keys C-l
type_ 'repeat 100000000'; keys Enter
wait_for last_is '...' "repeat opens a block"
type_ 'fill sig zero'; keys Enter
wait_for last_is '...' "the body is collected"
type_ 'end'; keys Enter
wait_for last_is '... end' "end is read"
sleep 1
keys C-c
prompt "Ctrl-C in a running block"
n=$(screen | grep -c 'iteration')
[ "$n" = 1 ] && ok || bad "the stopped block named its iteration $n times"

keys C-d
wait_for has 'rc=0' "Ctrl-D exits with status 0"
tty_done
