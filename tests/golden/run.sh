#!/bin/sh
# Golden transcripts: each tests/golden/NAME.coll runs through
#   colldb --batch --echo --name golden-NAME [args from a "#! args:" line]
# in a clean environment, and its output (stdout+stderr, plus "[exit N]"
# when the status is not 0) must equal NAME.out byte for byte.
# GOLDEN_CWD=DIR runs them in DIR (files they write go there), with the
# script given by its absolute path.  VALGRIND=1 (make valgrind) runs
# the shell under valgrind's memcheck: a transcript also fails when
# valgrind reports an error or a definite leak.
#   tests/golden/run.sh [objdir] [--update] [NAME...]
set -u
# sanitizer builds (make asan/ubsan) pass their options through env -i
SAN_ENV="${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS}"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
. tests/need.sh
need timeout cmp diff
[ $# -gt 0 ] && case $1 in -*|*.coll) ;; *) shift ;; esac
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
pass=0 fail=0 failed=""
vg= vglog=
if [ "${VALGRIND:-}" = 1 ]; then
	need valgrind
	vglog=$(mktemp -d) || exit 2
	trap 'rm -rf "$vglog"' EXIT
	# the shell: its ranks are exec'd and run natively (a rank under
	# valgrind dies, and so reports its death, seconds late)
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	    --suppressions=$top/tests/valgrind.supp --log-file=$vglog/%p"
fi
dir=${GOLDEN_DIR:-tests/golden}
if [ $# -gt 0 ]; then
	list=$(for n in "$@"; do echo "$dir/${n%.coll}.coll"; done)
else
	list=$(ls "$dir"/*.coll)
fi
[ -n "$list" ] || { echo "FAIL: no $dir/*.coll"; exit 1; }
# explore's counterexamples (save=build/explore-golden/...) start afresh:
# a transcript may check what a run made there
rm -rf "${GOLDEN_CWD:-.}/build/explore-golden"
for t in $list; do
	name=$(basename "$t" .coll)
	args=$(sed -n 's/^#! *args: *//p' "$t" | head -1)
	got=$dir/$name.got
	script=$t
	[ -n "${GOLDEN_CWD:-}" ] && script=$top/$t
	# shellcheck disable=SC2086
	(cd "${GOLDEN_CWD:-.}" && env -i $SAN_ENV PATH=/usr/bin:/bin HOME=/nonexistent \
		LC_ALL=C TERM=dumb timeout $([ -n "$vg" ] && echo 900 || echo 120) \
		$vg "$top/colldb" --batch --echo \
		--name "golden-$name" $args "$script") >"$got" 2>&1 </dev/null
	st=$?
	[ $st -ne 0 ] && echo "[exit $st]" >>"$got"
	if [ -n "$vg" ] && [ -n "$(find "$vglog" -type f -size +0 2>/dev/null)" ]; then
		fail=$((fail + 1))
		failed="$failed $name(valgrind)"
		echo "FAIL: golden $name: valgrind reports"
		find "$vglog" -type f -size +0 -exec cat {} + | head -60
	fi
	[ -n "$vg" ] && rm -f "$vglog"/*
	if [ $update = 1 ]; then
		cp "$got" "$dir/$name.out"
	fi
	if cmp -s "$got" "$dir/$name.out"; then
		pass=$((pass + 1))
		rm -f "$got"
	else
		fail=$((fail + 1))
		failed="$failed $name"
		echo "FAIL: golden $name"
		diff -u "$dir/$name.out" "$got" | head -40
	fi
done
echo "  $(basename "$dir"): $pass passed, $fail failed${failed:+ (}${failed# }${failed:+)}"
[ $fail -eq 0 ]
