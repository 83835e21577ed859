#!/bin/sh
# Hostile-user tier: a second local user plants symlinks, files and
# directories where colldb (run as root) keeps its session registry and
# writes the user's files, on a machine without fs.protected_symlinks.
# colldb must not delete, follow into or write any file of that user's
# choosing (docs/design.md, "What colldb trusts").
#
# It re-runs itself in private mount and pid namespaces with a fresh tmpfs
# on /tmp, and the second user is a uid no account has: nothing outside
# those namespaces is touched.  Needs root and util-linux (unshare,
# setpriv) and perl; without them it fails, it does not skip.
# usage: tests/hostile.sh [objdir]      COLLDB=path tests another binary
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
COLLDB=${COLLDB:-$top/colldb}
if [ "${COLLDB_HOSTILE_NS:-}" != 1 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "  FAIL hostile: needs root (a second uid, a private mount namespace)"
		exit 1
	fi
	for t in unshare setpriv mount perl; do
		command -v $t >/dev/null 2>&1 ||
			{ echo "  FAIL hostile: needs $t (util-linux)"; exit 1; }
	done
	# In a chroot whose / is no mount point, unshare cannot make the
	# mounts private; they must be already (no "shared:" in mountinfo).
	prop=private
	if ! unshare -m true 2>/dev/null; then
		if grep -q ' shared:' /proc/self/mountinfo; then
			echo "  FAIL hostile: shared mounts and no private mount namespace"
			exit 1
		fi
		prop=unchanged
	fi
	COLLDB_HOSTILE_NS=1 COLLDB=$COLLDB exec unshare -m -p -f \
		--propagation $prop --mount-proc sh "$0" "$@"
fi
# sanitizer builds (make asan/ubsan) pass their options through env -i
SAN_ENV="${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS}"
# a checkout under /tmp (mktemp -d's clean clone) would vanish under the
# tmpfs: see it at /mnt instead, in this namespace only
case $top/ in
/tmp/*)
	mount --bind "$top" /mnt ||
		{ echo "  FAIL hostile: cannot bind $top on /mnt"; exit 1; }
	case $COLLDB in "$top"/*) COLLDB=/mnt${COLLDB#"$top"} ;; esac
	top=/mnt
	cd /mnt || exit 2 ;;
esac
mount -t tmpfs -o mode=1777,size=64m colldb-hostile /tmp ||
	{ echo "  FAIL hostile: cannot mount a tmpfs on /tmp"; exit 1; }
evil=61117
while getent passwd $evil >/dev/null || getent group $evil >/dev/null; do
	evil=$((evil + 1))
done
as_evil() { setpriv --reuid=$evil --regid=$evil --clear-groups "$@"; }
reg=/tmp/colldb-0
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "  FAIL $1"; printf '%s\n' "$out" | head -10; }
has() { printf '%s\n' "$out" | grep -qF -- "$1"; }
# colldb ARGS...: as root, output (both streams) in $out, status in $st
colldb() {
	out=$(env -i $SAN_ENV PATH=/usr/bin:/bin HOME=/tmp/home LC_ALL=C \
		timeout 30 "$COLLDB" "$@" 2>&1)
	st=$?
}
# a victim: root's private files a hostile link points at
victim() {
	rm -rf /tmp/victim && mkdir -m 700 /tmp/victim &&
		echo precious >/tmp/victim/precious && echo notes >/tmp/victim/notes
}
intact() { [ "$(cat /tmp/victim/precious 2>/dev/null)" = precious ] &&
	[ "$(cat /tmp/victim/notes 2>/dev/null)" = notes ] &&
	[ "$(ls /tmp/victim | wc -l)" = 2 ]; }
clean() { rm -rf "$reg" "$reg"-*; victim; }
# start a batch session named $1 that lives ~4 s; wait until listed
session() {
	(sleep 4; echo quit) | env -i $SAN_ENV PATH=/usr/bin:/bin HOME=/tmp/home \
		LC_ALL=C "$COLLDB" -n 1 --name "$1" >/tmp/session.out 2>&1 &
	spid=$!
	for i in $(seq 40); do
		colldb watch
		has "$1 " && return 0
		sleep 0.1
	done
	return 1
}
mkdir -m 700 /tmp/home

# 1. the registry path is a symlink to root's files: listing deletes nothing
clean
as_evil ln -s /tmp/victim "$reg"
colldb watch
intact && ok || bad "colldb watch deleted files through a planted $reg symlink"
has "not using $reg for the session registry ($reg is a symlink owned by uid $evil" &&
	ok || bad "colldb watch does not say why $reg is not used"
# ... and a session does not write its entry there; it says where it went
if session hostile1; then
	ok
	wait $spid
	out=$(cat /tmp/session.out)
	intact && ok || bad "a session wrote into the symlinked registry"
	has "registering in $reg-" && ok || bad "a session does not say where it registered"
	! has "the other one" && ok || bad "the warning names a session that does not exist"
else
	wait $spid
	bad "a session's entry is not found when $reg is taken (colldb watch)"
fi
[ -L "$reg" ] && ok || bad "colldb removed or replaced the other user's $reg"

# 2. the registry path is the other user's directory: its files stay
clean
as_evil mkdir -m 777 "$reg"
as_evil sh -c "echo junk >$reg/junk; ln -s /tmp/victim/precious $reg/s1"
colldb watch
intact && [ -f "$reg/junk" ] && [ -L "$reg/s1" ] && ok ||
	bad "colldb watch removed files from another user's $reg"
has "$reg belongs to uid $evil" && ok || bad "colldb watch does not say $reg is not ours"

# 3. our own directory with a loose mode is not trusted either
clean
mkdir -m 755 "$reg"
echo junk >"$reg/junk"
colldb watch
[ -f "$reg/junk" ] && has "$reg has mode 0755" && ok ||
	bad "a mode 0755 $reg is used (or emptied)"

# 4. in our own registry only stale entries go: not other files, not links
clean
mkdir -m 700 "$reg"
echo "not an entry" >"$reg/readme"
ln -s /tmp/victim/precious "$reg/link"
echo "999999 3 2" >"$reg/stale"
colldb watch
[ -f "$reg/readme" ] && [ -L "$reg/link" ] && intact && ok ||
	bad "colldb watch unlinked what is not an entry it wrote"
[ ! -e "$reg/stale" ] && ok || bad "a stale entry (its shell gone) is kept"

# 5. trace save through a planted symlink: refused, the target untouched
clean
as_evil ln -s /tmp/victim/precious /tmp/t.json
printf 'trace save /tmp/t.json\n' >/tmp/cmds
colldb -n 1 /tmp/cmds
[ $st = 1 ] && intact && ok || bad "trace save followed another user's symlink (exit $st)"
has "error: cannot write '/tmp/t.json': /tmp/t.json is a symlink owned by uid $evil in the sticky world-writable directory /tmp (not followed)" &&
	ok || bad "trace save does not say why it refused the symlink"
printf 'trace save /tmp/t.json strace\n' >/tmp/cmds
colldb -n 1 /tmp/cmds
[ $st = 1 ] && intact && ok || bad "trace save ... strace followed another user's symlink"
# a directory on the way is a symlink too
as_evil ln -s /tmp/victim /tmp/d
printf 'trace save /tmp/d/precious\n' >/tmp/cmds
colldb -n 1 /tmp/cmds
[ $st = 1 ] && intact && has "/tmp/d is a symlink owned by uid $evil" && ok ||
	bad "trace save followed a directory symlink of another user (exit $st)"

# 6. the temporary file's name cannot be predicted: PATH.tmpPID is planted
# for the next 200 pids of this pid namespace; the save still lands
clean
next=$(( $(cat /proc/sys/kernel/ns_last_pid) + 1 ))
# one process (perl), so the planting itself uses up no pid of the range
as_evil perl -e 'for ($ARGV[0] .. $ARGV[0] + 200) {
	symlink("/tmp/victim/precious", "/tmp/out.json.tmp$_") or die "$!" }' $next
[ -L /tmp/out.json.tmp$next ] || echo "  FAIL hostile: could not plant /tmp/out.json.tmp$next"
printf 'trace save /tmp/out.json\n' >/tmp/cmds
colldb -n 1 /tmp/cmds
[ $st = 0 ] && intact && [ -f /tmp/out.json ] && [ ! -L /tmp/out.json ] && ok ||
	bad "trace save wrote through a planted temporary name (exit $st)"
[ "$(stat -c %u /tmp/out.json 2>/dev/null)" = 0 ] && ok || bad "trace save's file is not root's"

# 7. record: the same rule
clean
as_evil ln -s /tmp/victim/precious /tmp/rec.coll
printf 'record /tmp/rec.coll\n' >/tmp/cmds
colldb -n 1 /tmp/cmds
[ $st = 1 ] && intact && has "/tmp/rec.coll is a symlink owned by uid $evil" && ok ||
	bad "record followed another user's symlink (exit $st)"

# 8. our own links are followed, as always
clean
ln -s /tmp/victim/mine.json /tmp/mine.json
printf 'trace save /tmp/mine.json\nrecord /tmp/mine.coll\nrecord stop\n' >/tmp/cmds
colldb -n 1 /tmp/cmds
[ $st = 0 ] && [ -L /tmp/mine.json ] && grep -q traceEvents /tmp/victim/mine.json && ok ||
	bad "trace save does not follow the user's own symlink (exit $st)"
# a hard link in /tmp (anyone may have made it) is replaced, not written into
echo precious2 >/tmp/victim/data
ln /tmp/victim/data /tmp/hl
printf 'trace save /tmp/hl\n' >/tmp/cmds
colldb -n 1 /tmp/cmds
[ $st = 0 ] && [ "$(cat /tmp/victim/data)" = precious2 ] && grep -q traceEvents /tmp/hl && ok ||
	bad "trace save wrote into a file through a hard link in /tmp (exit $st)"
printf 'record /tmp/hl\n' >/tmp/cmds
ln -f /tmp/victim/data /tmp/hl
colldb -n 1 /tmp/cmds
[ $st = 1 ] && [ "$(cat /tmp/victim/data)" = precious2 ] && ok ||
	bad "record appended to a file through a hard link in /tmp (exit $st)"

kill $spid 2>/dev/null
echo "  hostile: $pass passed, $fail failed"
[ $fail = 0 ]
