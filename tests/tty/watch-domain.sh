#!/bin/sh
# tests/tty/watch-domain.sh: `colldb watch NAME` from a second terminal
# on a session stepping a collective on a comm domain: the observer
# rebuilds the members' programs only (it aborted on the non-member
# before), labels the members (d1:N), and draws '-' in the rows of the
# rank the domain's signal is not on.
name=watch-domain
. "$(dirname "$0")/lib.sh"
sess=ttywatchd-$$

tty_start
type_ "./colldb -n 4 --name $sess; echo rc=\$?"
keys Enter
prompt "start"
cdb=$(colldb_pid)
run 'domain d1 @0,2,3' 'rank 3 = d1:2'
run 'alloc buf [16] f32 domain=d1' '(colldb) alloc buf'
run 'alloc sig [3,1] i32 domain=d1' '(colldb) alloc sig'
run 'start allreduce buf sig' 'stopped before allreduce(mesh) step 1/14'
run 'step 3' 'step 4/14'

T new-window -t t: -n obs "env -i PATH=/usr/bin:/bin HOME=$tmp/home LC_ALL=C TERM=screen /bin/sh"
sleep 0.3
T send-keys -t t:obs "./colldb watch $sess; echo obs-rc=\$?" Enter
obs() { T capture-pane -p -t t:obs; }
# (until the pane is drawn or the watch ended: the typed line itself reads
# 'obs-rc=$?', so a bare 'obs-rc=' matched before the pane came up)
i=0; while [ $i -lt 100 ] && ! obs | grep -q 'obs-rc=[0-9]' &&
    ! { obs | grep -q '\[read-only\]' && obs | grep -q 'rank  0 '; }; do sleep 0.1; i=$((i + 1)); done
obs | grep -q '\[read-only\]' && ok || bad "the observer pane did not come up: $(obs | grep -v '^ *$' | tail -2)"
obs | grep -q 'stopped (d1:2) allreduce(mesh) step 4/14' && ok ||
	bad "the observer does not label rank 3 as d1:2"
obs | grep -qE '^ *1 I +- +- +-' && ok ||
	bad "rank 1's row of sig (not on it) is not drawn as '-'"
obs | grep -qE '^ *3 S +1<0 +1<2 +0' && ok ||
	bad "rank 3's row of sig does not show the members' owed credits"
T select-window -t t:0
run 'continue' 'allreduce(mesh): done'
type_ 'quit'; keys Enter
wait_for has 'rc=0' "colldb exits with status 0"
i=0; while [ $i -lt 300 ] && ! obs | grep -q 'obs-rc='; do sleep 0.1; i=$((i + 1)); done
obs | grep -q 'obs-rc=0' && ok || bad "the observer did not exit 0"
[ -n "$cdb" ] && [ -z "$(ls /dev/shm | grep "^colldb-$(id -u)-$cdb-")" ] && ok ||
	bad "a /dev/shm segment of colldb pid ${cdb:-?} was left"
tty_done
