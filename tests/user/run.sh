#!/bin/sh
# User programs and libraries (issue 5): docs/examples and tests/user/*.c as
# built by `make examples`, run standalone and under `colldb run --batch`
# with their results and exit statuses checked; golden transcripts of
# `colldb run` sessions (NAME.coll with "#! run: ARGS") and of load/call in
# colldb's own ranks ("#! colldb: ARGS"), run in the examples directory;
# and an install into a DESTDIR, with a program built against the
# installed colldb.pc.
#   tests/user/run.sh [objdir] [--update] [NAME...]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
. tests/need.sh
need pgrep python3 groff pkg-config cc timeout
# a sanitizer build (make asan/ubsan) links programs against an
# instrumented libcolldb: with the same compiler and runtime
ucc="${COLLDB_TEST_CC:-cc} ${COLLDB_TEST_SANFLAGS:-}"
O=build
case ${1:-} in -*|'') ;; *) O=$1; shift ;; esac
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
ex=$top/$O/examples
colldb=$top/colldb
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "  ok   $1"; }
bad() { fail=$((fail + 1)); echo "  FAIL $1"; }

# clean environment, as a user would have it
# (sanitizer builds: let SIGSEGV kill, as without them)
cenv() { env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C TERM=dumb \
	ASAN_OPTIONS=handle_segv=0 UBSAN_OPTIONS=handle_segv=0 "$@"; }

# status DESC WANT CMD... : the command exits with WANT; output in $out
status() {
	desc=$1 want=$2
	shift 2
	out=$(cd "$ex" && cenv timeout 60 "$@" 2>&1 </dev/null)
	st=$?
	if [ "$st" = "$want" ]; then ok "$desc (exit $st)"; else
		bad "$desc: exit $st, expected $want"; printf '%s\n' "$out" | head -20; fi
}

# has DESC TEXT : $out has the line TEXT
has() {
	if printf '%s\n' "$out" | grep -qxF -- "$2"; then ok "$1"; else
		bad "$1: no line '$2' in:"; printf '%s\n' "$out" | head -20; fi
}

[ -x "$ex/ring" ] && [ -x "$ex/exits" ] && [ -x "$ex/ring-exit" ] && [ -x "$ex/ring-crash" ] && [ -x "$ex/forker" ] && [ -x "$ex/batch" ] && [ -x "$ex/allocspin" ] && [ -f "$ex/libhostile.so" ] && [ -f "$ex/libkern.so" ] || {
	echo "FAIL: $ex is not built (make examples)"; exit 1; }

if [ $# -eq 0 ]; then
echo "-- standalone"
status "ring, no COLLDB_NRANKS: 4 ranks" 0 ./ring
has "ring, default: the note" "colldb: ring: COLLDB_NRANKS is not set; running 4 ranks"
for r in 0 1 2 3; do has "ring default rank $r" "rank $r: out[0] = 10, 0 wrong"; done
status "ring, COLLDB_NRANKS=1" 0 env COLLDB_NRANKS=1 ./ring
has "ring, 1 rank: result" "rank 0: out[0] = 1, 0 wrong"
printf '%s\n' "$out" | grep -q 'not set' && bad "a note although COLLDB_NRANKS is set" ||
	ok "no note when COLLDB_NRANKS is set"
status "ring, COLLDB_NRANKS=4" 0 env COLLDB_NRANKS=4 ./ring
for r in 0 1 2 3; do has "ring standalone rank $r" "rank $r: out[0] = 10, 0 wrong"; done
status "handshake, COLLDB_NRANKS=2" 0 env COLLDB_NRANKS=2 ./handshake
has "handshake standalone" "rank 1: got 8 values, sum 36"
status "bad COLLDB_NRANKS" 1 env COLLDB_NRANKS=0 ./ring
has "bad COLLDB_NRANKS says why" "ring: cdb_init: invalid argument (COLLDB_NRANKS='0': expected 1..16384 ranks)"
status "a standalone rank fails: rank 0's cdb_finalize reports it" 1 env COLLDB_NRANKS=2 ./exits ok 3
has "standalone failure named" "colldb: rank 1 exited with status 3"

echo "-- colldb run --batch"
for n in 1 2 3 4 8; do
	status "ring -n $n" 0 "$colldb" run -n $n --batch ./ring
	want=$((n * (n + 1) / 2))
	has "ring -n $n: rank 0 result" "[rank 0] rank 0: out[0] = $want, 0 wrong"
	has "ring -n $n: last rank result" "[rank $((n - 1))] rank $((n - 1)): out[0] = $want, 0 wrong"
	[ "$(printf '%s\n' "$out" | grep -c 'wrong$')" = $n ] && ok "ring -n $n: $n results" ||
		bad "ring -n $n: not $n results"
done
status "handshake -n 2" 0 "$colldb" run -n 2 --batch ./handshake
has "handshake answer" "[rank 0] rank 0: answered with 36"
status "handshake -n 3: the program's own exit status" 2 "$colldb" run -n 3 --batch ./handshake
has "handshake -n 3 rank 2 message" "[rank 2] handshake: needs exactly 2 ranks ()"
has "handshake -n 3 exit reported" "[rank 2] exited with status 2 without cdb_finalize, in its own code after cdb_init"
status "handshake-broken hangs: watchdog exit 3" 3 "$colldb" run -n 2 --batch --timeout 0.5 ./handshake-broken
has "hang: the watchdog's diagnosis" "watchdog: no progress for 0.5s; diagnosis:"
has "hang: rank 1's wait, with its line and the set's" "  rank 1  blocked  wait flag[0] >= 1 at handshake-broken.c:49  now 0   writers: none pending: no remaining call sends it (rank 0 wrote 0 with set at handshake-broken.c:45)"
has "hang: diagnose names tag 0 and its line" "likely cause: handshake tag 0 (Set with 0, wait >= 1; the set is handshake-broken.c:45); send a tag >= 1"
has "hang: the ranks are killed" "colldb run: hang; killing 2 ranks"
has "hang: where rank 0 waits, in the source" "rank 0: blocked  handshake-broken.c:46: wait flag[1] >= 1 (now 0)"
status "ring-broken hangs: watchdog exit 3" 3 "$colldb" run -n 4 --batch --timeout 0.5 ./ring-broken
has "ring-broken: diagnose names the row mismatch in the program's lines and rows" "likely cause: notify/wait mismatch: rank 3 notifies sig[1,3] of rank 0 at ring-broken.c:82, but rank 0 waits on sig[0,3] at ring-broken.c:84; the notify writes row 1, the wait reads row 0: make both compute the same row"
has "ring-broken: each blocked rank's line" "  rank 2  blocked  wait sig[0,1] >= 1 at ring-broken.c:84  now 0   writers: none pending: no remaining call sends it"
status "ring-exit: rank 0 exits early, the ring hangs: exit 3" 3 "$colldb" run -n 4 --batch --timeout 0.5 ./ring-exit
has "ring-exit: diagnose names the exited rank, not a row mismatch" "likely cause: rank 0 exited owing the notify to sig[1,0] of rank 1 (exited with status 3 without cdb_finalize, in its own code after ring-exit.c:41)"
[ "$(printf '%s\n' "$out" | grep -c '^likely cause:')" = 1 ] && ok "ring-exit: that cause only (rank 2 waits behind rank 1)" ||
	{ bad "ring-exit: more likely causes than the exited rank:"; printf '%s\n' "$out" | grep '^likely cause:'; }
status "ring-crash: rank 2 dies after its first step, the ring hangs: exit 3" 3 "$colldb" run -n 4 --batch --timeout 0.5 ./ring-crash
has "ring-crash: the dead rank is blamed for its next rank's cell" "likely cause: rank 2 died owing the notify to sig[1,2] of rank 3 (killed by SIGSEGV in its own code after ring-crash.c:45)"
[ "$(printf '%s\n' "$out" | grep -c '^likely cause:')" = 1 ] && ok "ring-crash: that cause only, none for rank 0 (it waits for rank 3, which rank 2 never notified)" ||
	{ bad "ring-crash: more likely causes than the dead rank's:"; printf '%s\n' "$out" | grep '^likely cause:'; }
status "worst status: exit 5 and SIGSEGV" 139 "$colldb" run -n 4 --batch ./exits ok 5 segv ok
has "exit 5 reported" "[rank 1] exited with status 5 without cdb_finalize, in its own code after exits.c:49"
has "SIGSEGV reported" "[rank 2] died: killed by SIGSEGV in its own code after exits.c:49"
has "the others finish" "[rank 3] rank 3: ok"
status "worst status: exit 7" 7 "$colldb" run -n 2 --batch ./exits 7 ok
status "worst status: SIGABRT" 134 "$colldb" run -n 2 --batch ./exits ok abort
status "quiet when every rank ends well" 0 "$colldb" run -n 2 --batch ./exits
[ "$(printf '%s\n' "$out" | grep -c exited)" = 0 ] && ok "no exit lines for clean ranks" ||
	bad "exit lines for clean ranks"
status "program arguments after --" 0 "$colldb" run -n 2 --batch -- ./exits ok ok

echo "-- a source breakpoint on a call written over two lines"
# ring-exit.c:44-45 is one cdb_wait: gcc records line 44, clang 45; a
# breakpoint on either line stops there
for line in 44 45; do
	out=$(cd "$ex" && printf 'break ring-exit.c:%s @1\ncontinue\n' $line |
		cenv timeout 60 "$colldb" run -n 3 ./ring-exit 2>&1)
	has "break ring-exit.c:$line takes the call's two lines" "breakpoint 1: ring-exit.c:44-45 @1"
	if printf '%s\n' "$out" | grep -Eqx 'rank 1: stopped  ring-exit\.c:4[45]: wait sig\[0,0\] >= 1 \(now 1\)  \[breakpoint 1\]'; then
		ok "break ring-exit.c:$line stops rank 1 at the wait"
	else
		bad "break ring-exit.c:$line: rank 1 did not stop at the wait:"; printf '%s\n' "$out" | head -20
	fi
done

echo "-- collective matching (tests/user/mismatch.c)"
status "mismatched kinds hang: exit 3" 3 "$colldb" run -n 4 --batch --timeout 1 ./mismatch kind
has "kind mismatch named at once" "warning: collective mismatch on sig: rank 0 entered allreduce(buf, sig) at mismatch.c:35; ranks 1-3 entered barrier(sig) at mismatch.c:37"
has "diagnose names the mismatch as the cause" "likely cause: collective mismatch on sig: rank 0 entered allreduce(buf, sig) at mismatch.c:35; ranks 1-3 entered barrier(sig) at mismatch.c:37"
status "a different op: the program ends, with a word" 0 "$colldb" run -n 4 --batch ./mismatch op
has "op mismatch" "warning: collective mismatch on sig: ranks 0,2-3 entered allreduce(buf, sig) at mismatch.c:39; rank 1 entered allreduce(buf, sig, op=max) at mismatch.c:39"
status "a different root" 0 "$colldb" run -n 4 --batch ./mismatch root
has "root mismatch" "warning: collective mismatch on sig: ranks 0-1,3 entered broadcast(buf, sig, root=0) at mismatch.c:41; rank 2 entered broadcast(buf, sig, root=1) at mismatch.c:41"
status "a different signal hangs" 3 "$colldb" run -n 4 --batch --timeout 1 ./mismatch sig
has "signal mismatch" "warning: collective mismatch on sig and sig2: ranks 0-2 entered allreduce(buf, sig) at mismatch.c:43; rank 3 entered allreduce(buf, sig2) at mismatch.c:43"
status "matching calls: no warning" 0 "$colldb" run -n 4 --batch ./mismatch ok
printf '%s\n' "$out" | grep -q mismatch && bad "a mismatch warning for matching calls" ||
	ok "no mismatch warning for matching calls"

echo "-- lint of a user program's calls (tests/user/lint.c), with source lines"
status "put after notify" 0 "$colldb" run -n 2 --batch ./lint put-after
has "put after notify named with both lines" "warning: lint.c:66: put after notify: rank 0 notified rank 1 (flag[0]) at lint.c:65 before this put; rank 1 may act on the notify before the data lands: put first, then notify"
status "== on a counter several ranks add to" 0 "$colldb" run -n 4 --batch ./lint eq
has "== on a shared counter" "warning: lint.c:58: == on flag[0] of rank 0, which several ranks add to: the count can overshoot; wait with >="
status "set 0 on an awaited cell (handshake-broken)" 3 "$colldb" run -n 2 --batch --timeout 1 ./handshake-broken
has "tag 0 named with the set's and the wait's lines" "warning: handshake-broken.c:45: rank 0 sets flag[0] of rank 1 to 0, which rank 1 awaits with >= 1 at handshake-broken.c:49: the set never releases it (a tag of 0: send a tag >= 1)"
status "set on a cell two ranks write" 0 "$colldb" run -n 4 --batch ./lint set-shared
has "set shared" "warning: lint.c:38: set on flag[0] of rank 0, which ranks 1-2 write: with several writers the last set wins; use CDB_ADD for a shared cell, CDB_SET only for one writer"
status "a raw signal waited on twice" 0 "$colldb" run -n 2 --batch ./lint reused
has "reused signal, with both waits' lines" "warning: lint.c:44: flag[0] of rank 1 holds 1 and was waited on before at lint.c:43: a raw signal is single-shot (use a fresh cell, or wait for the next generation); this wait passes at once"
status "a correct put, then notify" 0 "$colldb" run -n 2 --batch ./lint ok
printf '%s\n' "$out" | grep -q warning && bad "a lint warning for correct calls" ||
	ok "no lint warning for correct calls"
status "200 rounds on one counter, >= and == the round" 0 "$colldb" run -n 2 --batch ./lint rounds
printf '%s\n' "$out" | grep -q warning && bad "a reused-signal warning for rising rounds: $(printf '%s\n' "$out" | grep warning | head -1)" ||
	ok "no lint warning for a wait on the next generation"
status "the ring: no lint warning" 0 "$colldb" run -n 4 --batch ./ring
printf '%s\n' "$out" | grep -q warning && bad "a lint warning for ring.c" ||
	ok "no lint warning for ring.c"

echo "-- calls queued in the outbox (tests/user/batch.c: 2000 rounds of ping-pong first)"
for how in segv kill; do
	case $how in segv) want=139 sig=SIGSEGV ;; *) want=137 sig=SIGKILL ;; esac
	status "a rank that dies right after its last calls ($sig)" $want "$colldb" run -n 2 --batch ./batch $how
	has "$sig: its last calls were heard (lint of the last two)" "warning: batch.c:53: put after notify: rank 0 notified rank 1 (pp[0]) at batch.c:52 before this put; rank 1 may act on the notify before the data lands: put first, then notify"
	has "$sig: reported with its last call's line" "[rank 0] died: killed by $sig in its own code after batch.c:53"
	has "$sig: the other rank ends" "[rank 1] rank 1: done"
done
status "a rank that dies after its rounds, no rounds" 139 "$colldb" run -n 2 --batch ./batch segv 0
has "no rounds: its calls were heard" "warning: batch.c:53: put after notify: rank 0 notified rank 1 (pp[0]) at batch.c:52 before this put; rank 1 may act on the notify before the data lands: put first, then notify"
for n in 2 4; do
	status "300 matching allreduces, then a mismatch, -n $n" 0 "$colldb" run -n $n --batch ./batch coll
	case $n in 2) who="rank 0" ;; *) who="ranks 0,2-3" ;; esac
	has "the mismatch after 300 calls, -n $n" "warning: collective mismatch on sig: $who entered allreduce(buf, sig) at batch.c:72; rank 1 entered allreduce(buf, sig, op=max) at batch.c:72"
	[ "$(printf '%s\n' "$out" | grep -c 'collective mismatch')" = 1 ] && ok "one mismatch, -n $n" ||
		bad "-n $n: $(printf '%s\n' "$out" | grep -c 'collective mismatch') mismatch warnings"
done
status "a correct ping-pong after 2000 rounds" 0 "$colldb" run -n 2 --batch ./batch line
has "its answer" "[rank 0] rank 0: got 2000"
printf '%s\n' "$out" | grep -q warning && bad "a warning for batch.c line: $(printf '%s\n' "$out" | grep warning | head -1)" ||
	ok "no warning for correct rounds"

echo "-- a debugging session recorded with expect lines replays as a test"
cmds=$(mktemp)
rec=$(mktemp -u)
printf 'record %s expect\nbreak ring.c:76 @1\ncontinue\ndelete\ncontinue\nrecord stop\n' "$rec" >"$cmds"
status "record FILE expect under colldb run" 0 "$colldb" run -n 4 -x "$cmds" ./ring
grep -qxF 'expect @1 state stopped' "$rec" && grep -qxF 'expect @all state exited' "$rec" &&
	grep -qxF 'expect @0 buf[210:420] == 10' "$rec" && ok "the recording holds the states and the changed regions" ||
	{ bad "record expect lines missing"; cat "$rec"; }
status "the recording replays" 0 "$colldb" run -n 4 -x "$rec" ./ring
sed 's/^break ring.c:76 @1$/break ring.c:75 @1/' "$rec" >"$cmds"
status "the replay fails when the behaviour changes" 1 "$colldb" run -n 4 -x "$cmds" ./ring
has "it says what changed" "expect failed: rank 0 buf[210] = 1, expected 10"
# its "#! args: -n N" line gives the world when the command line does not
printf 'record %s expect\nbreak ring.c:76 @1\ncontinue\ndelete\ncontinue\nrecord stop\n' "$rec.2" >"$cmds"
status "record FILE expect on 2 ranks" 0 "$colldb" run -n 2 -x "$cmds" ./ring
head -n 1 "$rec.2" | grep -qxF '#! args: -n 2' && ok "the recording says its world" ||
	bad "no '#! args: -n 2' line: $(head -n 1 "$rec.2")"
status "the recording replays without -n, on the 2 ranks it says" 0 "$colldb" run -x "$rec.2" ./ring
rm -f "$cmds" "$rec" "$rec.2"

echo "-- spans of a user program"
cmds=$(mktemp)
printf 'continue\ntrace save user-trace.json\n' >"$cmds"
status "trace save after colldb run" 0 "$colldb" run -n 2 -x "$cmds" ./ring
has "trace save counts every call's spans" \
	"trace: 24 spans saved to user-trace.json (Chrome trace-event JSON: open it in https://ui.perfetto.dev)"
names=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted({e["name"] for e in d["traceEvents"] if e["ph"] == "X"})))' \
	"$ex/user-trace.json" 2>&1)
[ "$names" = "allgather allgather.notify allgather.put allgather.wait reduce-scatter reduce-scatter.notify reduce-scatter.put reduce-scatter.wait" ] &&
	ok "span names carry cdb_span_begin's names" || bad "span names: $names"
rm -f "$cmds" "$ex/user-trace.json"

echo "-- docs/libcolldb.md against core/colldb.h"
api=$(grep -oE '\bcdb_[a-z_]+\(' core/colldb.h | tr -d '(' | sort -u)
for f in $api; do
	grep -q "\b$f(" docs/libcolldb.md && ok "documented: $f" || bad "docs/libcolldb.md lacks $f"
done
for f in $(grep -oE '\bcdb_[a-z_]+' docs/libcolldb.md | sort -u); do
	printf '%s\n' "$api" | grep -qx "$f" || bad "docs/libcolldb.md names $f, which colldb.h lacks"
done

echo "-- ranks that exec or fork"
status "a rank that execs: its output and exit still come through" 9 "$colldb" run -n 2 --batch ./exits exec
has "exec'd rank's last line" "[rank 0] exec done"
has "exec'd rank's exit" "[rank 0] exited with status 9 without cdb_finalize, in its own code after exits.c:49"
t0=$(date +%s)
# (the unused third argument tells this run's processes from other runs')
status "a rank's child holding the socket does not keep the run going" 0 "$colldb" run -n 2 --batch ./exits fork ok "tag-$$"
[ $(( $(date +%s) - t0 )) -lt 20 ] && ok "the run ends with its ranks" || bad "the run waited for the rank's child"
pgrep -f "exits fork ok tag-$$" >/dev/null
case $? in
0) bad "the rank's child outlived colldb run" ;;
1) ok "the rank's child is gone" ;;
*) bad "pgrep failed" ;;
esac

# fork() in a rank (core/rank.h): inside a collective the child ends at
# once and the results stay right; outside, the child's cdb_* fail
status "a fork inside cdb_allreduce: the run ends, nothing wrong" 0 "$colldb" run -n 2 --batch ./forker inside
has "the fork is reported" "[rank 0] colldb: rank 0 forked inside forker.c:133 allreduce(mesh): the child exits at once (it would run the operation a second time)"
has "the child exited at once" "[rank 0] rank 0: forked inside; the child exited with 125"
has "rank 0's results are right" "[rank 0] rank 0: 50 rounds, 0 wrong"
has "rank 1's results are right" "[rank 1] rank 1: 50 rounds, 0 wrong"
status "a fork with windows mapped: the child may not use libcolldb" 0 "$colldb" run -n 2 --batch ./forker outside
has "that fork is reported" "[rank 1] colldb: rank 1 forked with its windows mapped: libcolldb refuses the child (it would act as the same rank)"
has "the child's cdb_notify fails" "[rank 1] rank 1's child: cdb_notify: not initialised (this process is a fork() of a rank: libcolldb belongs to the rank itself)"
has "the rank goes on" "[rank 1] rank 1: the rank itself still works (sig 1)"

echo "-- colldb run starts like colldb"
status "no -n: four ranks, as the usage says" 0 "$colldb" run --batch ./ring
has "rank 3 ran" "[rank 3] rank 3: out[0] = 10, 0 wrong"
# SIGTERM while a script runs: the registry entry goes, the ranks too
name="term-$$"
cmds=$(mktemp)
printf 'sleep 30\n' >"$cmds"
(cd "$ex" && exec env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C \
	TERM=dumb "$colldb" run -n 2 --name "$name" -x "$cmds" ./ring \
	</dev/null >/dev/null 2>&1) &
pid=$!
reg=/tmp/colldb-$(id -u)/$name
for i in $(seq 100); do [ -e "$reg" ] && break; sleep 0.1; done
[ -e "$reg" ] && ok "colldb run registers its session" || bad "no registry entry $reg"
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
st=$?
[ "$st" = 143 ] && ok "SIGTERM ends colldb run with the signal's status" ||
	bad "SIGTERM: exit $st, expected 143"
[ ! -e "$reg" ] && ok "SIGTERM removes the registry entry" || bad "$reg left behind"
for i in $(seq 50); do pgrep -f "ring.*--name $name" >/dev/null || break; sleep 0.1; done
pgrep -P "$pid" >/dev/null && bad "ranks outlived colldb run" || ok "the ranks went with it"
rm -f "$cmds"
# SIGTERM or SIGHUP while a rank that forked still runs: its child goes too
for sig in TERM HUP; do
	tag="tag-$$-$sig"
	(cd "$ex" && exec env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C \
		"$colldb" run -n 2 --batch --name "fork-$sig-$$" ./exits forkspin ok "$tag" \
		</dev/null >/dev/null 2>&1) &
	pid=$!
	# rank 0, its child, rank 1 (which ends): two stay
	for i in $(seq 100); do [ "$(pgrep -c -f "exits forkspin ok $tag")" -ge 2 ] && break; sleep 0.1; done
	[ "$(pgrep -c -f "exits forkspin ok $tag")" -ge 2 ] || bad "SIG$sig: the forking rank did not start"
	kill -$sig "$pid"
	wait "$pid" 2>/dev/null
	for i in $(seq 50); do pgrep -f "exits forkspin ok $tag" >/dev/null || break; sleep 0.1; done
	if pgrep -f "exits forkspin ok $tag" >/dev/null; then
		bad "SIG$sig: a rank's child outlived colldb run"
		for p in $(pgrep -f "exits forkspin ok $tag"); do kill -KILL "$p"; done
	else
		ok "SIG$sig: a rank's forked child goes with colldb run"
	fi
	[ ! -e "/tmp/colldb-$(id -u)/fork-$sig-$$" ] && ok "SIG$sig: no registry entry left" ||
		bad "SIG$sig: registry entry left"
done
# a crash of colldb itself (SIGSEGV, SIGABRT) leaves no registry entry
for sig in SEGV ABRT; do
	name="crash-$sig-$$"
	cmds=$(mktemp)
	printf 'sleep 30\n' >"$cmds"
	env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C \
		ASAN_OPTIONS=handle_segv=0:handle_abort=0 UBSAN_OPTIONS=handle_segv=0 \
		"$colldb" -n 2 --name "$name" "$cmds" </dev/null >/dev/null 2>&1 &
	pid=$!
	reg=/tmp/colldb-$(id -u)/$name
	for i in $(seq 100); do [ -e "$reg" ] && break; sleep 0.1; done
	kill -$sig "$pid"
	wait "$pid" 2>/dev/null
	st=$?
	[ ! -e "$reg" ] && [ $st -gt 128 ] && ok "SIG$sig of colldb: no registry entry left (exit $st)" ||
		bad "SIG$sig of colldb: exit $st, $reg left behind?"
	rm -f "$cmds" "$reg"
done

echo "-- colldb run usage"
status "no PROGRAM" 2 "$colldb" run -n 2
status "-n 0" 2 "$colldb" run -n 0 ./ring
has "-n 0 message" "error: -n 0: expected 1..16384 ranks (try 'colldb run --help')"
status "--batch with -x" 2 "$colldb" run --batch -x /dev/null ./ring
status "unknown option" 2 "$colldb" run --frob ./ring
has "unknown option named, as colldb run" "error: unknown option '--frob' (try 'colldb run --help')"
status "-n without a value" 2 "$colldb" run -n
has "missing value named" "error: -n needs a value (try 'colldb run --help')"
status "missing program" 127 "$colldb" run ./no-such-program
has "missing program message" "error: cannot run './no-such-program': No such file or directory"
status "program not on PATH" 127 "$colldb" run no-such-program-anywhere
has "not on PATH message" "error: cannot run 'no-such-program-anywhere': not found on PATH"
status "not executable" 126 "$colldb" run "$top/docs/examples/ring.c"
status "a directory, refused before any rank starts" 126 "$colldb" run -n 2 --batch "$top/docs"
has "directory message" "error: cannot run '$top/docs': Is a directory"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && ok "a directory: that line only, no rank started" ||
	bad "a directory: more than the error line: $out"
status "--help" 0 "$colldb" run --help
status "EOF on stdin ends the session, ranks killed" 0 "$colldb" run -n 2 ./ring
has "stopped in cdb_init first" "2 ranks of ./ring stopped in cdb_init; 'continue' runs them"
fi

echo "-- golden transcripts"
names=$*
[ -z "$names" ] && names=$(ls tests/user/*.coll | sed 's|.*/||; s|\.coll$||')
for name in $names; do
	t=$top/tests/user/$name.coll
	got=$top/tests/user/$name.got
	run=$(sed -n 's/^#! *run: *//p' "$t" | head -1)
	own=$(sed -n 's/^#! *colldb: *//p' "$t" | head -1)
	# shellcheck disable=SC2086
	if [ -n "$run" ]; then
		(cd "$ex" && cenv timeout 120 "$colldb" run --echo --name "golden-$name" \
			-x "$t" $run) >"$got" 2>&1 </dev/null
	else
		(cd "$ex" && cenv timeout 120 "$colldb" --batch --echo \
			--name "golden-$name" $own "$t") >"$got" 2>&1 </dev/null
	fi
	st=$?
	# messages naming the script read the same in every checkout
	sed -i "s|$top/||g" "$got"
	[ $st -ne 0 ] && echo "[exit $st]" >>"$got"
	# the script's path as the repository names it, wherever it is checked out
	sed -i "s|$top/tests/user/|tests/user/|g" "$got"
	[ $update = 1 ] && cp "$got" "tests/user/$name.out"
	if cmp -s "$got" "tests/user/$name.out"; then
		ok "golden $name"
		rm -f "$got"
	else
		bad "golden $name"
		diff -u "tests/user/$name.out" "$got" | head -40
	fi
done

if [ $# -eq 0 ]; then
echo "-- make install"
if [ -n "${SANITIZER:-}" ]; then
	echo "  skip make install under SANITIZER=$SANITIZER"
else
	dest=$(mktemp -d)
	if make -s --no-print-directory install O="$O" DESTDIR="$dest" PREFIX=/usr >"$dest.log" 2>&1; then
		ok "make install DESTDIR=... PREFIX=/usr"
	else
		bad "make install"; tail -20 "$dest.log"
	fi
	for f in bin/colldb lib/libcolldb.a lib/libcolldb.so.0 lib/libcolldb.so \
		include/colldb.h lib/pkgconfig/colldb.pc share/man/man1/colldb.1; do
		[ -e "$dest/usr/$f" ] && ok "installed $f" || bad "not installed: $f"
	done
	pc="env PKG_CONFIG_PATH=$dest/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest pkg-config"
	flags=$($pc --cflags --libs colldb 2>&1 | sed 's/ *$//')
	[ "$flags" = "-I$dest/usr/include -L$dest/usr/lib -lcolldb" ] && ok "pkg-config colldb: $flags" ||
		bad "pkg-config colldb: '$flags'"
	# shellcheck disable=SC2046
	if $ucc -std=c11 -Wall -Werror -o "$dest/myring" docs/examples/ring.c $($pc --cflags --libs colldb) 2>"$dest.log"; then
		ok "ring.c builds against the installed colldb.pc"
	else
		bad "ring.c against the installed colldb.pc"; cat "$dest.log"
	fi
	status "installed: standalone ring, 3 ranks" 0 env LD_LIBRARY_PATH="$dest/usr/lib" COLLDB_NRANKS=3 "$dest/myring"
	has "installed ring result" "rank 2: out[0] = 6, 0 wrong"
	status "installed: colldb run -n 4 --batch" 0 env LD_LIBRARY_PATH="$dest/usr/lib" \
		"$dest/usr/bin/colldb" run -n 4 --batch "$dest/myring"
	has "installed run result" "[rank 3] rank 3: out[0] = 10, 0 wrong"
	# shellcheck disable=SC2046
	if $ucc -std=c11 -o "$dest/myring-static" docs/examples/ring.c $($pc --cflags colldb) \
		"$dest/usr/lib/libcolldb.a" $($pc --static --libs-only-other --libs-only-l colldb | sed 's/-lcolldb//') 2>"$dest.log"; then
		ok "ring.c links the installed libcolldb.a (pkg-config --static)"
	else
		bad "static link"; cat "$dest.log"
	fi
	status "installed static ring" 0 env COLLDB_NRANKS=2 "$dest/myring-static"
	# in the tree: -Icore -L. -lcolldb, as docs/libcolldb.md says
	if $ucc -std=c11 -o "$dest/intree" docs/examples/ring.c -Icore -L. -lcolldb 2>"$dest.log"; then
		ok "ring.c links the tree's libcolldb.so"
	else
		bad "in-tree link"; cat "$dest.log"
	fi
	status "in-tree shared ring under colldb run" 0 env LD_LIBRARY_PATH="$top" \
		"$colldb" run -n 2 --batch "$dest/intree"
	has "in-tree ring result" "[rank 1] rank 1: out[0] = 3, 0 wrong"
	# through the tree's colldb-uninstalled.pc: no LD_LIBRARY_PATH needed
	# shellcheck disable=SC2046
	if flags=$(PKG_CONFIG_PATH="$top" pkg-config --cflags --libs colldb) &&
		$ucc -std=c11 -o "$dest/uninst" docs/examples/ring.c $flags 2>"$dest.log"; then
		ok "ring.c builds with PKG_CONFIG_PATH=the tree ($flags)"
	else
		bad "ring.c against colldb-uninstalled.pc"; cat "$dest.log"
	fi
	status "uninstalled pkg-config ring runs standalone without LD_LIBRARY_PATH" 0 \
		env COLLDB_NRANKS=3 "$dest/uninst"
	has "uninstalled ring result" "rank 2: out[0] = 6, 0 wrong"
	status "... and under colldb run" 0 "$colldb" run -n 2 --batch "$dest/uninst"
	has "uninstalled ring under colldb run" "[rank 1] rank 1: out[0] = 3, 0 wrong"
	groff -man -Tascii -P-cbou "$dest/usr/share/man/man1/colldb.1" 2>/dev/null | grep -q "colldb run" &&
		ok "the man page documents colldb run" || bad "man page lacks colldb run"
	# the installed colldb finds its lessons where PREFIX put them, though
	# the objects were built for another PREFIX (it looked in /usr/local)
	if make -s --no-print-directory install O="$O" PREFIX="$dest/pfx" >"$dest.log" 2>&1; then
		"$dest/pfx/bin/colldb" learn >"$dest.log" 2>&1
		grep -q '^01-handshake ' "$dest.log" && ok "make install PREFIX=DIR: colldb learn finds DIR's lessons" ||
			{ bad "make install PREFIX=DIR: colldb learn"; head -3 "$dest.log"; }
	else
		bad "make install PREFIX=DIR"; tail -20 "$dest.log"
	fi
	rm -rf "$dest" "$dest.log"

	# Into the loader's path, as root: make install runs ldconfig, so a
	# program linked with pkg-config's flags runs as it is.  Done in a
	# private mount namespace (unshare -m), on an empty /usr/local and a
	# copy of /etc (the loader's cache), so this machine's are untouched.
	# In a chroot whose / is no mount point, unshare cannot make the
	# mounts private; they must be already (no "shared:" in mountinfo).
	dest=$(mktemp -d)
	ns=
	if [ "$(id -u)" = 0 ]; then
		if unshare -m true 2>/dev/null; then ns="unshare -m"
		elif ! grep -q ' shared:' /proc/self/mountinfo; then ns="unshare -m --propagation unchanged"
		else echo "  skip make install PREFIX=/usr/local: shared mounts and no private namespace"
		fi
	fi
	if [ -n "$ns" ]; then
		cp -a /etc "$dest/etc"
		out=$($ns sh -c '
			mount -t tmpfs tmpfs /usr/local &&
			mount --bind "$1/etc" /etc || exit 99
			make -s --no-print-directory install O="$2" PREFIX=/usr/local | tail -1 &&
			$3 -std=c11 -o "$1/myring" docs/examples/ring.c $(pkg-config --cflags --libs colldb) &&
			env -u LD_LIBRARY_PATH COLLDB_NRANKS=2 "$1/myring"' sh "$dest" "$O" "$ucc" 2>&1)
		st=$?
		if [ $st = 0 ]; then ok "make install PREFIX=/usr/local as root: a -lcolldb program runs"; else
			bad "make install PREFIX=/usr/local as root (exit $st)"; printf '%s\n' "$out" | head -10; fi
		has "make install ran ldconfig" "colldb: ran ldconfig: programs linked with -lcolldb find /usr/local/lib/libcolldb.so.0"
	elif [ "$(id -u)" != 0 ]; then
		echo "  skip make install PREFIX=/usr/local: needs root (a private mount namespace)"
	fi
	# elsewhere: make install says how to run programs
	out=$(make -s --no-print-directory install O="$O" PREFIX="$dest/p" 2>&1 | tail -1)
	has "make install elsewhere says what to do" "colldb: $dest/p/lib is not on the loader's path: run programs linked with -lcolldb with LD_LIBRARY_PATH=$dest/p/lib, or add $dest/p/lib to /etc/ld.so.conf.d/colldb.conf and run ldconfig"
	rm -rf "$dest"
fi
fi

echo "  user: $pass passed, $fail failed"
[ $fail -eq 0 ]
