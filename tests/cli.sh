#!/bin/sh
# Invocation tier: how colldb takes its commands from -x scripts, trailing
# FILEs and standard input, and what it does with input that is not a
# script at all.  (Transcripts of commands are tests/golden.)
set -u
# sanitizer builds (make asan/ubsan) pass their options through env -i
SAN_ENV="${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS}"
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. tests/need.sh
need timeout pgrep awk
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "  FAIL $1"; printf '%s\n' "$out" | head -10; }
# run WANT-STATUS CMD...: output in $out
run() {
	want=$1
	shift
	out=$(env -i $SAN_ENV PATH=/usr/bin:/bin HOME="$tmp" LC_ALL=C timeout 30 "$@" 2>&1)
	st=$?
}
has() { printf '%s\n' "$out" | grep -qxF -- "$1"; }

printf 'alloc pre [2] i32\n' >"$tmp/pre.coll"
printf 'windows\n' >"$tmp/post.coll"

# -x scripts run first, then the commands piped on stdin
run 0 sh -c "printf 'windows\n' | ./colldb -n 1 -x $tmp/pre.coll"
[ $st = 0 ] && has "pre   [2]    i32        8       0" && ok || bad "-x then piped stdin: stdin not run (exit $st)"
# a failing -x script stops the run before stdin
printf 'alloc pre [2] nosuchtype\n' >"$tmp/badpre.coll"
run 1 sh -c "printf 'say reached\n' | ./colldb -n 1 -x $tmp/badpre.coll"
[ $st = 1 ] && ! has "reached" && ok || bad "a failed -x script does not stop the run (exit $st)"
# trailing FILEs are all there is: stdin is not read
run 0 sh -c "printf 'say from-stdin\n' | ./colldb -n 1 $tmp/pre.coll $tmp/post.coll"
[ $st = 0 ] && ! has "from-stdin" && has "pre   [2]    i32        8       0" && ok ||
	bad "trailing FILEs: stdin read, or the files not run (exit $st)"

# a script that cannot be read: one error line saying why, exit 2
run 2 ./colldb -n 1 "$tmp/no-such.coll"
[ $st = 2 ] && [ "$out" = "error: cannot read script '$tmp/no-such.coll': No such file or directory (try 'colldb --help')" ] &&
	ok || bad "a missing script (exit $st)"

# --timeout out of range says the range, as 'set timeout' does
for v in -1 100000 x; do
	run 2 ./colldb -n 1 --timeout "$v" </dev/null
	[ $st = 2 ] && [ "$out" = "error: --timeout $v: expected seconds, 0..86400 (try 'colldb --help')" ] &&
		ok || bad "--timeout $v (exit $st)"
done

# a batch transcript is the same every run: the default session name
# (colldb-PID) shows as colldb-* in world and watch dump, as bench's
# figures are masked; set times on shows it, as does a name given
printf 'world\nwatch dump 60x8\n' >"$tmp/world.coll"
run 0 ./colldb -n 1 "$tmp/world.coll"
first=$out
run 0 ./colldb -n 1 "$tmp/world.coll"
[ $st = 0 ] && [ "$out" = "$first" ] && has "session    colldb-*" &&
	printf '%s\n' "$out" | grep -qF '| colldb watch  colldb-*  1 rank' && ok ||
	bad "world and watch dump differ from run to run, or show the pid (exit $st)"
run 0 sh -c "printf 'set times on\nworld\n' | ./colldb -n 1"
[ $st = 0 ] && printf '%s\n' "$out" | grep -q '^session    colldb-[0-9][0-9]*$' && ok ||
	bad "set times on does not show the session's name (exit $st)"
run 0 sh -c "printf 'world\n' | ./colldb -n 1 --name cli-named"
[ $st = 0 ] && has "session    cli-named" && ok || bad "--name is not shown as given (exit $st)"

# input that is not a script: one error, exit 1, no hang
run 1 sh -c "printf 'source /dev/zero\nsay after\n' | ./colldb -n 1"
[ $st = 1 ] && has "error: /dev/zero:1: a NUL byte (expected a text file of commands)" && ok ||
	bad "source /dev/zero (exit $st)"
head -c 70000 /dev/zero | tr '\0' 'x' >"$tmp/long.coll"
run 1 ./colldb -n 1 "$tmp/long.coll"
[ $st = 1 ] && has "error: $tmp/long.coll:1: line longer than 65536 bytes" && ok ||
	bad "a 70000-byte line (exit $st)"

# the hang watchdog fires during a sleep: the batch run stops with exit
# status 3 long before the sleep would end
printf 'alloc sig [2,1] i32\n@1 wait sig[0] >= 1\nsleep 60\nsay after the sleep\n' >"$tmp/sleep.coll"
t0=$(date +%s)
run 3 ./colldb --batch --timeout 1 -n 2 "$tmp/sleep.coll"
t1=$(date +%s)
[ $st = 3 ] && has "watchdog: no progress for 1s; diagnosis:" && ! has "after the sleep" &&
	[ $((t1 - t0)) -lt 30 ] && ok || bad "watchdog during sleep (exit $st, $((t1 - t0))s)"

# ... and not for SLOW: rank 1 waits for a notify rank 0 has, stopped
printf 'alloc sig [2,1] i32\n@1 wait sig[0] >= 1\nstart @0 notify 1 sig[0] 1\nsleep 3\ncontinue\n' >"$tmp/slow.coll"
run 0 ./colldb --batch --timeout 1 -n 2 "$tmp/slow.coll"
[ $st = 0 ] && ! has "watchdog: no progress for 1s; diagnosis:" && has "[rank 1] wait sig[0] >= 1 satisfied (value 1)" &&
	ok || bad "the watchdog fired for a SLOW verdict (exit $st)"

# --help names every way to start colldb (the subcommands too)
run 0 ./colldb --help
for sub in run learn watch 'tree|stats'; do
	printf "%s\n" "$out" | grep -qF -- "colldb $sub " && ok || bad "colldb --help does not name 'colldb $sub'"
done

# colldb help is the help, not a script named help (./help is one): the
# usage and the prompt's commands; colldb help CMD is the prompt's help CMD
printf 'say from the help script\n' >"$tmp/help"
run 0 sh -c "cd $tmp && $top/colldb help"
[ $st = 0 ] && has "       colldb help [CMD]                this, or a prompt command's usage" &&
	has "Commands at the prompt:" && has "  notify          write a signal cell in the peer's window (add is atomic +=)" &&
	! has "from the help script" && ok || bad "colldb help (exit $st)"
run 0 sh -c "cd $tmp && $top/colldb help bench"
[ $st = 0 ] && [ "$(printf '%s\n' "$out" | head -1 | cut -c1-22)" = "usage: bench COLL SIZE" ] &&
	has "  runs on all ranks (no @ prefix)" && ok || bad "colldb help bench (exit $st)"
run 0 sh -c "cd $tmp && $top/colldb -n 1 ./help"
[ $st = 0 ] && has "from the help script" && ok || bad "colldb ./help does not run the script (exit $st)"
run 2 ./colldb help nosuch
[ $st = 2 ] && [ "$out" = "error: colldb help: unknown command 'nosuch' (try 'colldb help')" ] && ok ||
	bad "colldb help nosuch (exit $st)"
run 2 ./colldb help ''
[ $st = 2 ] && [ "$out" = "error: colldb help: expected a command name, not an empty word" ] && ok ||
	bad "colldb help '' (exit $st): $out"
run 2 ./colldb help step s
[ $st = 2 ] && [ "$out" = "error: colldb help: unexpected 's' (expected at most one command, as in 'colldb help bench')" ] &&
	ok || bad "colldb help step s (exit $st)"

# sizes are range-checked before any arithmetic: an option, a script's
# '#! args:' line, or a total over the ranks that does not fit
run 2 sh -c "./colldb -n 8 --window-area 9223372036854775807 </dev/null"
[ $st = 2 ] && has "error: --window-area 9223372036854775807: too large (expected at most 64 TiB over all ranks) (try 'colldb --help')" &&
	ok || bad "--window-area 2^63-1 (exit $st)"
printf '#! args: -n 8 --window-area 9223372036854775807\nwindows\n' >"$tmp/area.coll"
run 2 ./colldb "$tmp/area.coll"
[ $st = 2 ] && has "error: $tmp/area.coll: --window-area 9223372036854775807: too large (expected at most 64 TiB over all ranks)" &&
	ok || bad "'#! args: --window-area 2^63-1' (exit $st)"
run 1 sh -c "./colldb -n 8 --window-area 16384G </dev/null"
[ $st = 1 ] && has "colldb: cannot start 8 ranks: window area of 17592186044416 bytes per rank out of range (1..8796093022208 for 8 ranks)" &&
	ok || bad "--window-area 16384G on 8 ranks (exit $st)"

# tree after a bench whose spans the trace could not keep says what to
# do: one size that fits (COLLDB_TRACE_KEEP lowers the limit)
printf 'bench sweep allreduce 4k 1M factor=16 rounds=4 warmup=1 spans=ops\ntree\n' >"$tmp/sweep.coll"
run 1 env COLLDB_TRACE_KEEP=1000 ./colldb --batch -n 2 "$tmp/sweep.coll"
[ $st = 1 ] && has "error: the last bench (allreduce 1M, the last size of the sweep) made 3890 spans, more than the 1000 the trace keeps, so its tree would be partial: tree shows one bench of one size; try 'bench allreduce 128k rounds=4 spans=ops', then 'tree'" &&
	ok || bad "tree after a sweep that did not fit (exit $st)"
printf 'bench allreduce 128k rounds=4 spans=ops\ntree\n' >"$tmp/fits.coll"
run 0 env COLLDB_TRACE_KEEP=1000 ./colldb --batch -n 2 "$tmp/fits.coll"
[ $st = 0 ] && has "\`- epilogue   *us" && ok || bad "the suggested bench does not fit (exit $st)"
run 0 env COLLDB_TRACE_KEEP=x ./colldb --batch -n 2 "$tmp/fits.coll"
[ $st = 0 ] && has "warning: COLLDB_TRACE_KEEP='x': expected 1000..1000000000 span records; the trace keeps 2000000" &&
	ok || bad "a bad COLLDB_TRACE_KEEP is not warned about (exit $st)"

# a bad option is one error line naming it, the usage not dumped after it
for a in --bogus -q -n --batch=1; do
	run 2 ./colldb $a
	case $a in
	-n) want="error: -n needs a value (try 'colldb --help')" ;;
	--batch=1) want="error: --batch takes no value (try 'colldb --help')" ;;
	*) want="error: unknown option '$a' (try 'colldb --help')" ;;
	esac
	[ $st = 2 ] && [ "$out" = "$want" ] && ok || bad "colldb $a (exit $st)"
done
for sub in watch learn; do
	run 2 ./colldb $sub --bogus
	[ $st = 2 ] && has "error: unknown option '--bogus' (usage: colldb $sub $([ $sub = watch ] && echo '[SESSION [@RANKS]]' || echo '[LESSON]'))" &&
		ok || bad "colldb $sub --bogus (exit $st)"
done

# a lesson that is not one, or not just one, is a usage error: one
# error: line, naming the word and (when several match) the lessons
run 2 ./colldb learn nosuchlesson
[ $st = 2 ] && [ "$out" = "error: no lesson matches 'nosuchlesson' (expected a lesson's number or a word of its name; 'colldb learn' lists them)" ] &&
	ok || bad "colldb learn nosuchlesson (exit $st)"
run 2 ./colldb learn ring
[ $st = 2 ] && [ "$out" = "error: 'ring' matches 2 lessons (03-ring-allreduce, 11-ring-allreduce-4): name one" ] &&
	ok || bad "colldb learn ring (two lessons match; exit $st)"
# a number is the lesson's number, as 'colldb learn' lists them (1 was
# every lesson with a 1 in its name: 01, 10 to 14)
run 0 sh -c "./colldb learn 1 </dev/null"
[ $st = 0 ] && has "Lesson 1: the notify/wait handshake between two ranks." && ok ||
	bad "colldb learn 1 does not run lesson 1 (exit $st)"
run 0 sh -c "./colldb learn 03 </dev/null"
[ $st = 0 ] && has "(colldb) start allreduce buf sig mode=ring check" && ok ||
	bad "colldb learn 03 does not run lesson 3 (exit $st)"
run 2 ./colldb learn 99
[ $st = 2 ] && [ "$out" = "error: no lesson matches '99' (expected a lesson's number or a word of its name; 'colldb learn' lists them)" ] &&
	ok || bad "colldb learn 99 (exit $st)"

# colldb watch of a session that is not running, or of ranks it does not
# have: one error: line naming the word
run 1 ./colldb watch "cli-nosuch-$$"
[ $st = 1 ] && [ "$out" = "error: no running session named 'cli-nosuch-$$' (colldb watch lists them)" ] &&
	ok || bad "colldb watch of no such session (exit $st)"
mkfifo "$tmp/wfifo"
./colldb --batch -n 2 --name "cli-w-$$" <"$tmp/wfifo" >/dev/null 2>&1 &
wpid=$!
exec 9>"$tmp/wfifo"
for _ in $(seq 100); do
	./colldb watch 2>/dev/null | grep -q "^cli-w-$$ " && break
	sleep 0.1
done
for a in @9 @x; do
	run 2 ./colldb watch "cli-w-$$" $a
	case $a in
	@9) want="error: @9: rank 9 out of range (world has 2 ranks) (usage: colldb watch [SESSION [@RANKS]])" ;;
	*) want="error: @x: bad rank 'x' (expected a number) (usage: colldb watch [SESSION [@RANKS]])" ;;
	esac
	[ $st = 2 ] && [ "$out" = "$want" ] && ok || bad "colldb watch SESSION $a (exit $st)"
done
# no terminal to draw on: one error: line, as the shell's watch says it
run 1 sh -c "./colldb watch cli-w-$$ </dev/null"
[ $st = 1 ] && [ "$out" = "error: watch: the watch pane needs a terminal" ] &&
	ok || bad "colldb watch SESSION without a terminal (exit $st)"
exec 9>&-
wait "$wpid"

# the subcommands' file errors are one error: line too
mkdir "$tmp/nolessons"
run 1 env COLLDB_LESSONS="$tmp/nolessons" ./colldb learn
[ $st = 1 ] && [ "$out" = "error: no lessons in $tmp/nolessons" ] &&
	ok || bad "colldb learn with no lessons (exit $st)"
for sub in tree stats; do
	run 1 ./colldb $sub "$tmp/nosuch.log"
	[ $st = 1 ] && [ "$out" = "error: cannot read '$tmp/nosuch.log': No such file or directory" ] &&
		ok || bad "colldb $sub of no such file (exit $st)"
	run 1 ./colldb $sub "$tmp"
	[ $st = 1 ] && [ "$out" = "error: cannot read '$tmp': Is a directory" ] &&
		ok || bad "colldb $sub of a directory (exit $st)"
done

# a rank that dies while a batch shell waits for its next line is known
# dead before the next command looks: no rank is sent a collective it
# cannot finish, and the session goes on
cat >"$tmp/die.sh" <<'EOS'
name=cli-die-$$
( printf 'alloc buf [64] f32\nalloc sig [4,1] i32\n'; sleep 1
  cdb=$(pgrep -x colldb -a | awk -v n="$name" '$0 ~ n { print $1; exit }')
  for p in $(pgrep -P "$cdb"); do
	case $(tr '\0' ' ' <"/proc/$p/cmdline") in *" --agent "*" 2 ") kill -9 "$p" ;; esac
  done
  sleep 0.5
  printf 'ranks\nexpect error\nallreduce buf sig\n@0,1,3 fill buf 1\n@0 put buf 1 buf\nwhere\n' ) |
	./colldb -n 4 --name "$name"
EOS
run 0 sh "$tmp/die.sh"
[ $st = 0 ] && has "rank 2: dead  killed by SIGKILL while idle" &&
	has "error: collectives need every rank; rank 2 is dead" &&
	has "rank 0: idle" && has "rank 3: idle" && ! has "rank 2: idle" && ok ||
	bad "a rank killed between two lines of a batch script (exit $st)"

# a rank stopped by SIGSTOP from outside counts as stuck: --timeout ends
# the batch run with status 3, and the diagnosis says why
cat >"$tmp/stop.sh" <<'EOS'
name=cli-stop-$$
( printf 'alloc buf [64] f32\nalloc sig [4,1] i32\n'; sleep 1
  cdb=$(pgrep -x colldb -a | awk -v n="$name" '$0 ~ n { print $1; exit }')
  for p in $(pgrep -P "$cdb"); do
	case $(tr '\0' ' ' <"/proc/$p/cmdline") in *" --agent "*" 1 ") kill -STOP "$p" ;; esac
  done
  printf 'allreduce buf sig\n'
  for i in $(seq 40); do sleep 0.5; printf '\n' 2>/dev/null || exit 0; done ) |
	./colldb -n 4 --timeout 2 --name "$name"
EOS
run 3 sh "$tmp/stop.sh"
[ $st = 3 ] && printf '%s\n' "$out" | grep -q '^  rank 1  [a-z]*  stopped by a signal (SIGCONT resumes it)$' && ok ||
	bad "a rank stopped by SIGSTOP: no watchdog (exit $st)"

# A command the rank has not taken up when the settle time runs out (a
# busy machine; here the rank is stopped by SIGSTOP) is said to be not
# started, with why, and runs once the rank goes on
cat >"$tmp/unstarted.sh" <<'EOS'
name=cli-unstarted-$$
( printf 'alloc buf [64] f32\nset settle 0.05\n'; sleep 1
  cdb=$(pgrep -x colldb -a | awk -v n="$name" '$0 ~ n { print $1; exit }')
  for p in $(pgrep -P "$cdb"); do
	case $(tr '\0' ' ' <"/proc/$p/cmdline") in *" --agent "*" 1 ") stopped=$p; kill -STOP "$p" ;; esac
  done
  printf '@1 fill buf 1\nranks\n'; sleep 1
  kill -CONT "$stopped"
  printf 'sleep 0.5\nranks\n@1 print buf[0]\n' ) |
	./colldb -n 2 --batch --name "$name"
EOS
run 0 sh "$tmp/unstarted.sh"
[ $st = 0 ] && has "[rank 1] not started yet: fill buf 1 (the rank is stopped by a signal, SIGCONT resumes it)" &&
	has "rank 1: idle  fill buf 1 (not taken up yet: the rank is stopped by a signal, SIGCONT resumes it)" &&
	has "[rank 1] fill buf 1 done" && has "rank 1: 1" && ok ||
	bad "a command not taken up in the settle time: not said as it is (exit $st)"

# Ctrl-C (SIGINT) in a batch script read from a pipe ends the wait of the
# command it came during, not every wait after it; one while the script
# waits for its next line ends nothing
cat >"$tmp/int.sh" <<'EOS'
mkfifo "$1/in"
./colldb -n 2 --batch <"$1/in" >"$1/int.out" 2>&1 &
pid=$!
exec 3>"$1/in"
printf 'set timeout 0\nalloc s [2] i32\nalloc b [4194304] f32\nalloc g [2,1] i32\nsay ready\n@1 wait s[0] >= 1\n' >&3
for i in $(seq 100); do grep -q ready "$1/int.out" && break; sleep 0.1; done
# (one that comes before the wait does is a Ctrl-C between commands)
for i in $(seq 100); do
	kill -INT $pid
	sleep 0.2
	grep -q 'blocked: wait' "$1/int.out" && break
done
printf 'interrupt @1\nsay between\n' >&3
for i in $(seq 100); do grep -q between "$1/int.out" && break; sleep 0.1; done
kill -INT $pid
sleep 0.5
printf 'allreduce b g\nsay end\n' >&3
exec 3>&-
wait $pid
st=$?
cat "$1/int.out"
exit $st
EOS
run 0 sh "$tmp/int.sh" "$tmp"
[ $st = 0 ] && has "[rank 1] blocked: wait s[0] >= 1 (now 0)" &&
	has "[rank 1] wait s[0] >= 1 interrupted (value 0)" &&
	has "allreduce(mesh): done" && has "end" && ok ||
	bad "Ctrl-C in a batch script: it ended the waits after it, or the script (exit $st)"

# tree after a bench Ctrl-C stopped says so: interrupted in its warmup,
# that it has no tree; later, the tree of the rounds every rank finished
# (it said "no bench yet")
cat >"$tmp/bint.sh" <<'EOS'
mkfifo "$1/bin"
./colldb -n 2 --batch <"$1/bin" >"$1/bint.out" 2>&1 &
pid=$!
exec 3>"$1/bin"
# stop: wait for the line MARK, give the bench SECS, Ctrl-C it
stop() {
	for i in $(seq 100); do grep -q "^$2\$" "$1/bint.out" && break; sleep 0.1; done
	sleep $3
	kill -INT $pid
}
printf 'say w\nexpect error\nbench allreduce 1M rounds=1 warmup=100000\nexpect error\ntree\n' >&3
stop "$1" w 1
printf 'say r\nexpect error\nbench allreduce 1M rounds=100000\ntree launch=0\nsay end\n' >&3
stop "$1" r 2
exec 3>&-
wait $pid
st=$?
cat "$1/bint.out"
exit $st
EOS
run 0 sh "$tmp/bint.sh" "$tmp"
[ $st = 0 ] && [ "$(printf '%s\n' "$out" | grep -c '^error: bench interrupted$')" = 2 ] &&
	has "error: the last bench (allreduce 1M) was interrupted in its warmup (no timed round finished), so it has no tree; bench again" &&
	printf '%s\n' "$out" | grep -q '^note: the last bench (allreduce 1M) was interrupted: the tree of the [1-9][0-9]* rounds\{0,1\} every rank finished$' &&
	printf '%s\n' "$out" | grep -q '^launch\[0\] (pid=0 inv=[0-9]* hid=[0-9a-f]* round=0 slot=0):$' &&
	has "end" && ok ||
	bad "tree after an interrupted bench (exit $st)"

# a lesson shows the commands it runs
run 0 sh -c "./colldb learn tag0 </dev/null"
[ $st = 0 ] && has "(colldb) @0 notify 1 sig[0] 0 set" && ok ||
	bad "colldb learn does not show the lesson's commands (exit $st)"
! printf '%s\n' "$out" | grep -q '^(colldb) say\|^#' && has "Lesson 2: the handshake of lesson 1, with tag 0." && ok ||
	bad "colldb learn echoes its narration or comments"

# the ranks' environment knobs: a bad value is refused before any rank
# starts (deep in a rank it could only be ignored)
run 2 env COLLDB_KERN=avx512 ./colldb --batch </dev/null
[ $st = 2 ] && has "error: COLLDB_KERN=avx512: expected scalar, generic or avx2 (try 'colldb --help')" && ok ||
	bad "COLLDB_KERN=avx512 (exit $st): $out"
for v in 4M -1 "" 0x; do
	run 2 env COLLDB_STREAM_MIN="$v" ./colldb run -n 2 --batch /bin/true </dev/null
	[ $st = 2 ] && has "error: COLLDB_STREAM_MIN=$v: expected a byte count or off (try 'colldb run --help')" && ok ||
		bad "COLLDB_STREAM_MIN='$v' (exit $st): $out"
done
for v in "COLLDB_STREAM_MIN=off" "COLLDB_STREAM_MIN=8388608" "COLLDB_KERN=scalar"; do
	run 0 env "$v" ./colldb -n 2 --batch </dev/null
	[ $st = 0 ] && ok || bad "$v refused (exit $st): $out"
done

# the mpi transport's options: checked before anything starts (exit 2)
run 2 ./colldb -t tcp </dev/null
[ $st = 2 ] && has "error: -t tcp: unknown transport (expected shm or mpi) (try 'colldb --help')" && ok ||
	bad "-t tcp (exit $st)"
run 2 ./colldb --hosts node1:2 </dev/null
[ $st = 2 ] && has "error: --hosts needs -t mpi (try 'colldb --help')" && ok ||
	bad "--hosts without -t mpi (exit $st)"
run 2 ./colldb run --mpirun mpirun.mpich /bin/true </dev/null
[ $st = 2 ] && has "error: --mpirun needs -t mpi (try 'colldb run --help')" && ok ||
	bad "run --mpirun without -t mpi (exit $st)"
for h in "node1:0" "node1:x" ",node1" "node1,,node2" "node 1:2" "node1:2:3"; do
	run 2 ./colldb -t mpi --hosts "$h" </dev/null
	[ $st = 2 ] && has "error: --hosts $h: expected HOST[:N],... (N ranks on HOST, 1..16384) (try 'colldb --help')" &&
		ok || bad "--hosts '$h' (exit $st)"
done
for l in "127.0.0.1:99999" "127.0.0.1:" ":7777" "10.0.0.1:x" "10.0.0.1:-1" "" "a b:1"; do
	run 2 ./colldb -t mpi --listen "$l" </dev/null
	[ $st = 2 ] && has "error: --listen '$l': expected ADDR[:PORT] (PORT 0..65535) (try 'colldb --help')" &&
		ok || bad "--listen '$l' (exit $st): $out"
done
run 2 ./colldb -t mpi --mpirun " " </dev/null
[ $st = 2 ] && has "error: --mpirun ' ': expected a command (try 'colldb --help')" && ok ||
	bad "--mpirun ' ' (exit $st)"

# explore never writes over a file, nor through a symlink: with
# explore-1.coll the user's and explore-2.coll a planted link, the
# counterexample is explore-3.coll, and it says why
mkdir "$tmp/xw"
echo "mine" >"$tmp/xw/explore-1.coll"
ln -s "$tmp/xw/planted" "$tmp/xw/explore-2.coll"
printf 'alloc flag [2,1] i32\nalloc data [4] f32\nalloc seen [4] f32\n@0 fill data 7\nexpect error\nexplore script %s\n' \
	"$top/tests/golden/explore/put-after-notify.coll" >"$tmp/xw.coll"
run 0 sh -c "cd $tmp/xw && $top/colldb -n 2 $tmp/xw.coll"
[ $st = 0 ] && has "counterexample 1 (4 steps, 2 context switches) saved as explore-3.coll (explore-1.coll to explore-2.coll are taken: explore never overwrites a file); \`source\` it to replay it here" &&
	[ "$(cat "$tmp/xw/explore-1.coll")" = mine ] && [ ! -e "$tmp/xw/planted" ] &&
	grep -q '^# colldb explore, counterexample 1 ' "$tmp/xw/explore-3.coll" && ok ||
	bad "explore over explore-1.coll (a file) and explore-2.coll (a symlink) (exit $st)"
# a lesson runs in a directory of its own, said first: lesson 14 (explore)
# leaves the user's explore-1.coll alone and adds nothing where it was run;
# a lesson that writes nothing leaves no directory behind
mkdir "$tmp/lcwd" "$tmp/ltmp"
echo "mine" >"$tmp/lcwd/explore-1.coll"
run 0 sh -c "cd $tmp/lcwd && TMPDIR=$tmp/ltmp $top/colldb learn 14 </dev/null"
ldir=$(printf '%s\n' "$out" | sed -n '1s/^colldb learn: 14-explore runs in \(.*\) (the files it writes go there)$/\1/p')
[ $st = 0 ] && [ -n "$ldir" ] && [ "${ldir#$tmp/ltmp/colldb-learn-}" != "$ldir" ] &&
	[ "$(ls "$tmp/lcwd")" = explore-1.coll ] && [ "$(cat "$tmp/lcwd/explore-1.coll")" = mine ] &&
	[ "$(ls "$ldir")" = explore-1.coll ] && has "(colldb) source explore-1.coll" &&
	! has "error: unknown command 'mine'" && ok ||
	bad "colldb learn 14 beside the user's explore-1.coll (exit $st; dir '$ldir')"
rm -rf "$tmp/ltmp"/*
run 0 sh -c "cd $tmp/lcwd && TMPDIR=$tmp/ltmp $top/colldb learn 1 </dev/null"
[ $st = 0 ] && [ -z "$(ls "$tmp/ltmp")" ] && ok ||
	bad "colldb learn 1 left its directory behind (exit $st): $(ls "$tmp/ltmp")"

# colldb killed while its ranks start (SIGTERM, or SIGKILL: a CI timeout,
# kill -9) leaves no segment in /dev/shm.  The segment's name stayed
# until every rank had said hello: 2 GiB of sparse file per kill.  Each
# try kills colldb as soon as it holds the segment, while 64 ranks start.
left= tries=0
for sig in TERM KILL TERM KILL; do
	env -i $SAN_ENV PATH=/usr/bin:/bin HOME="$tmp" LC_ALL=C ./colldb -n 64 </dev/null >/dev/null 2>&1 &
	p=$!
	j=0
	while [ $j -lt 3000 ] && kill -0 $p 2>/dev/null &&
	    ! ls -l /proc/$p/fd 2>/dev/null | grep -q '/dev/shm/colldb-'; do
		j=$((j + 1))
	done
	ls -l /proc/$p/fd 2>/dev/null | grep -q '/dev/shm/colldb-' && tries=$((tries + 1))
	kill -$sig $p 2>/dev/null
	wait $p 2>/dev/null
	for f in /dev/shm/colldb-$(id -u)-$p-*; do
		[ -e "$f" ] && { left="$left $f"; rm -f "$f"; }
	done
done
out=
[ $tries -gt 0 ] && [ -z "$left" ] && ok ||
	bad "colldb killed while starting: $tries of 4 killed holding the segment, segments left:${left:- none}"

echo "  cli: $pass passed, $fail failed"
[ $fail = 0 ]
