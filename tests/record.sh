#!/bin/sh
# record/replay tier: a session records itself, then `colldb FILE` replays
# the file; both must end with the same windows, cell values and rank
# states.  Also: a killed session keeps every command it recorded.
set -u
# sanitizer builds (make asan/ubsan) pass their options through env -i
SAN_ENV="${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS}"
O=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. tests/need.sh
need mkfifo awk cmp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() { env -i $SAN_ENV PATH=/usr/bin:/bin HOME="$tmp" LC_ALL=C ./colldb --batch "$@"; }

cat >"$tmp/session.coll" <<EOS
record $tmp/rec.coll
set strict off
set timeout 5
alloc sig [4,1] i32
alloc buf [8] f32
alloc ring [6,4] i32
focus @1,2
fill buf rank+1
focus @all
@0 notify 1 sig[0] 2 set
@2 wait sig[3] >= 1
@3 notify 2 sig[3] 1
allreduce buf ring mode=ring
break wait @1
delete
focus @1
start allreduce buf ring mode=ring
focus @all
step 3
# a failed command is not recorded
expect error
alloc sig 4
pause
record stop
EOS
cat >"$tmp/state.coll" <<'EOS'
windows
ranks
where
print sig
print buf
print ring
EOS
run -n 4 "$tmp/session.coll" "$tmp/state.coll" >"$tmp/a.out" 2>&1 || { echo "FAIL: record: the recording session failed"; cat "$tmp/a.out"; fail=1; }
run "$tmp/rec.coll" "$tmp/state.coll" >"$tmp/b.out" 2>&1 || { echo "FAIL: record: the replay failed"; cat "$tmp/b.out"; fail=1; }
# compare the state dumps (everything after the last recorded command)
sed -n '/^name/,$p' "$tmp/a.out" | grep -v '^recorded to' >"$tmp/a.state"
sed -n '/^name/,$p' "$tmp/b.out" >"$tmp/b.state"
if ! cmp -s "$tmp/a.state" "$tmp/b.state" || [ ! -s "$tmp/a.state" ]; then
	echo "FAIL: record: the replay ends in another state"; diff "$tmp/a.state" "$tmp/b.state"; fail=1
fi
grep -q '^@1-2 fill buf rank+1$' "$tmp/rec.coll" || { echo "FAIL: record: focus not made explicit"; fail=1; }
grep -q '^# \[rank 2\] blocked' "$tmp/rec.coll" || { echo "FAIL: record: events are not comments"; fail=1; }
grep -q '^set strict off$' "$tmp/rec.coll" && grep -q '^break wait @1$' "$tmp/rec.coll" ||
	{ echo "FAIL: record: settings or break got a rank prefix"; fail=1; }
# an event follows the command that caused it
awk '/^@2 wait sig\[3\]/ { w = NR } /^# \[rank 2\] blocked/ { e = NR } END { exit !(w && e == w + 1) }' "$tmp/rec.coll" ||
	{ echo "FAIL: record: an event is not right after its command"; fail=1; }
grep -q '^start allreduce buf ring mode=ring$' "$tmp/rec.coll" ||
	{ echo "FAIL: record: a collective's start got the focus as a prefix"; fail=1; }
grep -q '^alloc sig 4\|^pause\|^record' "$tmp/rec.coll" && { echo "FAIL: record: recorded what it must not"; fail=1; }

# record FILE expect: the state each command left, as expect lines; the
# replay passes, and fails once the replayed behaviour changes
cat >"$tmp/xsession.coll" <<EOS
record $tmp/x.coll expect
alloc sig [4,1] i32
alloc buf [8] f32
fill buf rank+1
@0 notify 1 sig[0] 2 set
@2 wait sig[3] >= 1
@3 notify 2 sig[3] 1
allreduce buf
fill buf iota
print buf
record stop
EOS
run -n 4 "$tmp/xsession.coll" >"$tmp/x.out" 2>&1 || { echo "FAIL: record expect: the session failed"; cat "$tmp/x.out"; fail=1; }
for want in 'expect @all state idle' 'expect @3 buf == 4' 'expect @1 sig[0] == 2' \
	'expect @0,2-3 sig[0] == 0' 'expect @2 state blocked' 'expect @2 sig[3] == 1' \
	'expect @all buf == 10' 'expect @all buf == 0,1,2,3,4,5,6,7'; do
	grep -qxF -- "$want" "$tmp/x.coll" || { echo "FAIL: record expect: no line '$want' in:"; cat "$tmp/x.coll"; fail=1; }
done
# a command that changes nothing adds nothing
awk '/^@all print buf$/ { p = NR } END { exit !(p && p == NR) }' "$tmp/x.coll" ||
	{ echo "FAIL: record expect: print added expect lines"; fail=1; }
run "$tmp/x.coll" >"$tmp/x2.out" 2>&1 || { echo "FAIL: record expect: the replay failed"; cat "$tmp/x2.out"; fail=1; }
sed 's/^@3 notify 2 sig\[3\] 1$/@3 notify 2 sig[3] 2/' "$tmp/x.coll" >"$tmp/x3.coll"
if run "$tmp/x3.coll" >"$tmp/x3.out" 2>&1; then
	echo "FAIL: record expect: the replay passed after the behaviour changed"; fail=1
elif ! grep -qxF 'expect failed: rank 2 sig[3] = 2, expected 1' "$tmp/x3.out"; then
	echo "FAIL: record expect: the changed replay failed for another reason"; cat "$tmp/x3.out"; fail=1
fi
run -n 1 -x /dev/stdin >"$tmp/x4.out" 2>&1 <<EOS
expect error
record $tmp/y.coll expected
expect error
record stop expect
EOS
[ $? = 0 ] || { echo "FAIL: record expect: bad arguments not refused"; cat "$tmp/x4.out"; fail=1; }

# record FILE expect on a domain's windows: the focus a window narrowed
# (in start's command too) is written as its members, expect lines name
# members only, and the replay passes
cat >"$tmp/dsession.coll" <<EOS
record $tmp/d.coll expect
domain ep @1,2,3
alloc b [4] f32 domain=ep
alloc sig [3,1] i32 domain=ep
fill b rank+1
start allreduce b sig
step
continue
start fill b 5
continue
record stop
EOS
run -n 4 "$tmp/dsession.coll" >"$tmp/d.out" 2>&1 || { echo "FAIL: record expect domain: the session failed"; cat "$tmp/d.out"; fail=1; }
for want in '@1-3 fill b rank+1' 'expect @2 b == 2' 'expect @1-3 b == 6' '@1-3 start fill b 5' 'expect @1-3 b == 5'; do
	grep -qxF -- "$want" "$tmp/d.coll" || { echo "FAIL: record expect domain: no line '$want' in:"; cat "$tmp/d.coll"; fail=1; }
done
grep -q '^expect @0[ ,-][^s]*\b\(b\|sig\)\b' "$tmp/d.coll" && { echo "FAIL: record expect domain: an expect on rank 0, outside the domain:"; cat "$tmp/d.coll"; fail=1; }
run "$tmp/d.coll" >"$tmp/d2.out" 2>&1 || { echo "FAIL: record expect domain: the replay failed"; cat "$tmp/d2.out"; fail=1; }

# a session killed mid-way keeps what it recorded (written through)
mkfifo "$tmp/in"
( env -i $SAN_ENV PATH=/usr/bin:/bin HOME="$tmp" LC_ALL=C ./colldb -n 2 --batch <"$tmp/in" >/dev/null 2>&1 ) &
pid=$!
exec 3>"$tmp/in"
printf 'record %s/kill.coll\nalloc k [2,1] i32\n@0 notify 1 k[0] 1\n' "$tmp" >&3
sleep 1
kill -9 $pid 2>/dev/null
exec 3>&-
wait $pid 2>/dev/null
grep -q '^@0 notify 1 k\[0\] 1$' "$tmp/kill.coll" || { echo "FAIL: record: lost a command when the session was killed"; fail=1; }
[ $fail = 0 ] && echo "  record: replay reproduces the state; record expect replays as a test that fails when behaviour changes, on domains too; nothing lost on kill"
exit $fail
