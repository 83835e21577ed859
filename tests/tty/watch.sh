#!/bin/sh
# tests/tty/watch.sh: the real `watch` pane of a real session, in tmux:
# it appears, refreshes, answers keys (Tab, ?, d, c), survives a resize,
# q returns to an intact prompt; `colldb watch NAME` from a second
# terminal shows the same session read-only and says when it ends; the
# terminal is restored every time.
name=watch
. "$(dirname "$0")/lib.sh"
# the registry is machine-wide: a name of this run only
sess=ttywatch-$$

tty_start
stty_before=$(T send-keys -t t: 'stty -g' Enter; sleep 0.3; screen | grep -E '^[0-9a-f]+(:[0-9a-f]+)+$' | tail -1)
type_ "./colldb -n 4 --name $sess; echo rc=\$?"
keys Enter
prompt "start"
cdb=$(colldb_pid)
run 'alloc sig [6,4] i32' '(colldb) alloc sig'
run 'alloc buf [64] f32' '(colldb) alloc buf'
run 'alloc s2 [4,1] i32' '(colldb) alloc s2'
run 'start allreduce buf sig mode=ring' 'stopped before allreduce(ring) step 1/105'
run 'step 3' 'step 4/105'
run '@0 continue' 'rank 0: blocked'

# watch-1: the pane shows the session
type_ 'watch'; keys Enter
wait_for has "colldb watch  $sess  4 ranks" "the pane appears"
wait_for has 'sig [6,4]  window 1/2' "the signal grid is shown"
wait_for has '0 blocked allreduce(ring) step 12/105' "rank 0 shown blocked"
# watch-2: keys: Tab to the next window and back, ? help, d diagnose
keys Tab
wait_for has 'window 2/2' "Tab switches window"
keys Tab
wait_for has 'window 1/2' "Tab again"
keys '?'
wait_for has 'quit' "help overlay"
keys Escape
keys d
wait_for has 'SLOW: 1 rank blocked' "d shows the diagnosis"
keys Escape
# watch-3: a resize redraws at the new size
T resize-window -t t: -x 80 -y 24
wait_for has "colldb watch  $sess" "pane redrawn after resize"
w=$(screen | head -1 | sed 's/ *$//' | awk '{ print length }')
[ "$w" -le 80 ] && ok || bad "the title is $w columns wide after resizing to 80"
T resize-window -t t: -x 100 -y 45
# watch-4: c continues every stopped rank; the values refresh
keys c
wait_for has '0 idle' "c ran the collective to the end (refresh)"
# watch-5: q back to the prompt; what happened meanwhile is printed
keys q
wait_for has 'allreduce(ring): done' "events held during the pane print after q"
prompt "q"
run 'where' 'rank 3: idle'

# watch-5b: Ctrl-C closes the pane too, and leaves one prompt
keys C-l
prompt "cleared"
type_ 'watch'; keys Enter
wait_for has "colldb watch  ttywatch" "the pane appears again"
keys C-c
prompt "Ctrl-C in the pane"
sleep 0.3
one_prompt() { [ "$(screen | grep -c '^(colldb) *$')" = 1 ]; }
wait_for one_prompt - "one prompt after Ctrl-C in the pane, not two"
run 'where' 'rank 3: idle'

# watch-6: colldb watch from another terminal, read-only
T new-window -t t: -n obs "env -i PATH=/usr/bin:/bin HOME=$tmp/home LC_ALL=C TERM=screen /bin/sh"
sleep 0.3
T send-keys -t t:obs "./colldb watch; ./colldb watch $sess; echo obs-rc=\$?" Enter
obs() { T capture-pane -p -t t:obs; }
# a failed check of the observer shows its screen and its process too
obs_bad() {
	bad "$1"
	obs | sed '/^ *$/d' | tail -n 12 | sed 's/^/    obs| /'
	for p in $(pgrep -f "colldb watch $sess"); do
		ps -o pid=,stat=,wchan:24=,etime=,args= -p "$p" | sed 's/^/    obs-process| /'
	done
}
i=0; while [ $i -lt 100 ] && ! obs | grep -q 'read-only'; do sleep 0.1; i=$((i + 1)); done
obs | grep -q "$sess" && ok || obs_bad "colldb watch does not list the session"
obs | grep -q '\[read-only\]' && ok || obs_bad "the observer pane is not read-only"
T select-window -t t:0
run '@1 wait sig[0] >= 1' '[rank 1] blocked'
i=0; while [ $i -lt 100 ] && ! obs | grep -q '1 blocked'; do sleep 0.1; i=$((i + 1)); done
obs | grep -q '1 blocked' && ok || obs_bad "the observer does not see rank 1 blocked"
run '@2 defer_wait s2[0] >= 1' 'deferred on @2'
i=0; while [ $i -lt 100 ] && ! obs | grep -q 'deferred: s2\[0\] >= 1'; do sleep 0.1; i=$((i + 1)); done
obs | grep -q '2 idle *deferred: s2\[0\] >= 1' && ok || obs_bad "the observer does not show rank 2's deferred condition"
# watch-7: a library in a rank writes garbage over the collective the
# observer rebuilds its programs from: it says so and keeps watching
run "@0 load $top/${1:-build}/examples/libhostile.so" 'loaded'
run '@0 call smash(sig, "coll", 0, 0x41) -> i32' '= 0'
i=0; while [ $i -lt 100 ] && ! obs | grep -q 'corrupted'; do sleep 0.1; i=$((i + 1)); done
obs | grep -q 'error: segment header corrupted (the collective in progress, id 99)' && ok ||
	obs_bad "the observer does not report the corrupt collective"
obs | grep -q '1 blocked' && ok || obs_bad "the observer stopped after the corruption"
# the session ends: the observer says so and exits 0 (rank 1 is still
# blocked, so quit asks first); it lingers 3 s on the end first: wait up
# to 30 s for it, a loaded machine is slow to tear 4 ranks down
type_ 'quit'; keys Enter
wait_for last_is '1 rank blocked; quit anyway? (y or n)' "quit asks with a rank blocked"
type_ 'y'; keys Enter
wait_for has 'rc=0' "colldb exits with status 0"
i=0; while [ $i -lt 300 ] && ! obs | grep -q 'obs-rc='; do sleep 0.1; i=$((i + 1)); done
obs | grep -q "session $sess ended" && ok || obs_bad "the observer does not say the session ended"
obs | grep -q 'obs-rc=0' && ok || obs_bad "the observer did not exit 0"

# the terminal is sane again
T send-keys -t t: 'stty -g' Enter
sleep 0.3
stty_after=$(screen | grep -E '^[0-9a-f]+(:[0-9a-f]+)+$' | tail -1)
[ -n "$stty_before" ] && [ "$stty_before" = "$stty_after" ] && ok ||
	bad "stty settings differ after watch ($stty_before / $stty_after)"
[ -n "$cdb" ] && [ -z "$(ls /dev/shm | grep "^colldb-$(id -u)-$cdb-")" ] && ok ||
	bad "a /dev/shm segment of colldb pid ${cdb:-?} was left"
tty_done
