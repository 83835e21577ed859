#!/bin/sh
# tests/tty/event-wrap.sh [objdir]: an event arriving while the half-typed
# line is longer than the terminal is wide: every row of the wrapped line
# is erased before the event is printed, so the line shows once, below it.
name=event-wrap
. "$(dirname "$0")/lib.sh"

tty_start
type_ "./colldb -n 2; echo rc=\$?"
keys Enter
wait_for last_is '(colldb)' "prompt after start" || exit 1

# wrap-1: 130 characters on a 100-column screen, then rank 1 dies
long="say $(printf 'word%02d ' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18)"
type_ "$long"
wait_for has 'word18' "the long line is typed"
cdb=$(colldb_pid)
r1=$(rank_pid "$cdb" 1) && kill -TERM "$r1"
wait_for has '[rank 1] died: killed by SIGTERM' "the event is printed"
first_row() { [ "$(screen | grep -c '^(colldb) say word01')" = 1 ]; }
tries=20
wait_for first_row - "the wrapped line shows once, below the event"
tries=100
keys Enter
said() { screen | grep -q '^word01 word02 '; }
wait_for said - "the line still runs"
prompt "the long say"
keys C-d
wait_for has 'rc=0' "Ctrl-D exits with status 0"
tty_done
