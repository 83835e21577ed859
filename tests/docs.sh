#!/bin/sh
# Docs tier.
# 1. Every command of the command table has a man page entry and a line
#    in `help` (colldb --list-commands prints the table).
#    The man page renders without a groff warning.
# 2. Tests from the docs: every fenced block whose info string is
#    "colldb -n N" in README.md and docs/*.md is a transcript; its
#    "(colldb) " lines (and "# " comments) are run through
#    `colldb --batch --echo -n N` and the output must equal the block.
set -u
# sanitizer builds (make asan/ubsan) pass their options through env -i
SAN_ENV="${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS}"
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. tests/need.sh
need awk groff cmp diff
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0

help=$(printf 'help\n' | ./colldb --batch -n 1 2>&1)
for c in $(./colldb --list-commands); do
	if ! grep -Eq "^\.(B|BI|BR) \"?$c\b" docs/colldb.1; then
		echo "FAIL: docs: command '$c' has no entry in docs/colldb.1"
		fail=1
	fi
	if ! printf '%s\n' "$help" | grep -Eq "^  $c "; then
		echo "FAIL: docs: command '$c' is missing from help"
		fail=1
	fi
done

# the man page renders without a warning (what man would print)
warn=$(groff -man -ww -z docs/colldb.1 2>&1)
if [ -n "$warn" ]; then
	echo "FAIL: docs: groff warns about docs/colldb.1:"; printf '%s\n' "$warn" | head; fail=1
fi

# each command's entry line, rendered on one line, reads as written: its
# quotes and brackets pair up, and each placeholder (an upper-case word)
# is one the help usages or the rest of the page use (no two run together)
groff -man -Tascii -rLL=400n -P-c -P-b -P-u docs/colldb.1 >"$tmp/man.txt" 2>/dev/null
for c in $(./colldb --list-commands); do printf 'help %s\n' "$c"; done |
	./colldb --batch -n 1 2>&1 | sed -n 's/^usage: //p' >"$tmp/usages"
for c in $(./colldb --list-commands); do
	grep -E "^       $c( |\$)" "$tmp/man.txt" | while IFS= read -r l; do
		q=$(printf '%s' "$l" | tr -cd '"' | wc -c)
		o=$(printf '%s' "$l" | tr -cd '[' | wc -c)
		k=$(printf '%s' "$l" | tr -cd ']' | wc -c)
		if [ $((q % 2)) != 0 ] || [ "$o" != "$k" ]; then
			echo "FAIL: docs: docs/colldb.1: unpaired quote or bracket in:$l"
			echo x >>"$tmp/man.bad"
		fi
		for w in $(printf '%s\n' "$l" | grep -oE '\b[A-Z][A-Z0-9_]+\b' | sort -u); do
			grep -qw -- "$w" "$tmp/usages" && continue
			[ "$(grep -cw -- "$w" "$tmp/man.txt")" -ge 2 ] && continue
			echo "FAIL: docs: docs/colldb.1: placeholder '$w' appears nowhere else:$l"
			echo x >>"$tmp/man.bad"
		done
	done
done
[ -f "$tmp/man.bad" ] && fail=1

# a help example that runs a script names one that is there, and it
# runs (help source's named scripts/handshake.coll, which never existed)
for c in $(./colldb --list-commands); do printf 'help %s\n' "$c"; done |
	./colldb --batch -n 1 2>&1 | sed -n 's/^  example: source //p' >"$tmp/sourced"
while IFS= read -r f; do
	if ! env -i $SAN_ENV PATH=/usr/bin:/bin HOME="$tmp" LC_ALL=C \
	    ./colldb --batch -n 2 -x "$f" </dev/null >"$tmp/sourced.out" 2>&1; then
		echo "FAIL: docs: help's example 'source $f' does not run:"
		head -3 "$tmp/sourced.out"
		fail=1
	fi
done <"$tmp/sourced"
[ -s "$tmp/sourced" ] || { echo "FAIL: docs: no 'source' example in help"; fail=1; }

wide=$(printf '%s\n' "$help" | awk 'length > 80')
if [ -n "$wide" ]; then
	echo "FAIL: docs: help lines wider than 80 columns:"; echo "$wide"; fail=1
fi

for doc in README.md docs/*.md; do
	[ -f "$doc" ] || continue
	# split the doc's session blocks into files: N.args, N.block
	awk -v dir="$tmp" -v doc="$(basename "$doc")" '
		/^```colldb/ { inb = 1; k++; f = dir "/" doc "." k
			args = $0; sub(/^```colldb */, "", args)
			print args > (f ".args"); close(f ".args")
			printf "" > (f ".block"); next }
		/^```/ && inb { inb = 0; close(f ".block"); next }
		inb { print >> (f ".block") }
	' "$doc"
done
for blk in "$tmp"/*.block; do
	[ -f "$blk" ] || continue
	base=${blk%.block}
	args=$(cat "$base.args")
	# the script is the transcript's command lines ("(colldb) " and, for
	# continued lines, "... "), and its comments
	sed -n 's/^(colldb) //p; s/^\.\.\. //p; /^#/p' "$blk" >"$base.coll"
	# shellcheck disable=SC2086
	env -i $SAN_ENV PATH=/usr/bin:/bin HOME="$tmp" LC_ALL=C ./colldb --batch --echo \
		--name "docs-$n" $args "$base.coll" >"$base.got" 2>&1 </dev/null
	n=$((n + 1))
	if ! cmp -s "$blk" "$base.got"; then
		echo "FAIL: docs: block in $(basename "$base" | sed 's/\.[0-9]*$//') (${args}) differs:"
		diff -u "$blk" "$base.got" | head -20
		fail=1
	fi
done
# colldb learn lists every lesson (with its description) and runs one
# found by a word of its name, in batch when stdin is not a terminal.
learn=$(./colldb learn 2>&1)
for f in scripts/lessons/*.coll; do
	b=$(basename "$f" .coll)
	d=$(sed -n '2s/^# //p' "$f")
	if ! printf '%s\n' "$learn" | grep -qF "$b" || ! printf '%s\n' "$learn" | grep -qF "$d"; then
		echo "FAIL: docs: colldb learn does not list $b with its description"
		fail=1
	fi
done
if ! ./colldb learn handshake </dev/null >"$tmp/learn.out" 2>&1; then
	echo "FAIL: docs: colldb learn handshake failed"; tail -5 "$tmp/learn.out"; fail=1
elif ! grep -q 'Lesson 1' "$tmp/learn.out"; then
	echo "FAIL: docs: colldb learn handshake did not run lesson 1"; fail=1
fi
# the tutorial's table of lessons says what colldb learn says
for f in scripts/lessons/*.coll; do
	b=$(basename "$f" .coll)
	d=$(sed -n '2s/^# //p' "$f")
	grep -qF "| [\`$b\`](../scripts/lessons/$b.coll) | $d |" docs/tutorial.md ||
		{ echo "FAIL: docs: docs/tutorial.md's lesson table has no row '$b | $d' (as colldb learn lists it)"; fail=1; }
done
./colldb learn nosuchlesson >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL: docs: learn of an unknown lesson is not a usage error"; fail=1; }
# the repository stands on its own: it cites its own docs (man page,
# docs/*.md), never a contract outside it; and no stray empty file at
# the top (a merge brought back an empty '=' once)
cites=$(grep -rnE 'SPEC( |\.md|§)|\.\./shared/' --include='*.[ch]' --include='*.md' \
	--include='*.1' --include='*.sh' --include='*.py' --include='*.coll' \
	--include=Makefile --include='*.mk' README.md Makefile core shell viz tests docs \
	mk bench scripts examples 2>/dev/null | grep -v '^tests/docs.sh:')
[ -z "$cites" ] || { echo "FAIL: docs: cites what is not in the repository:"; echo "$cites" | head -5; fail=1; }
stray=$(find . -maxdepth 1 -type f -empty)
[ -z "$stray" ] || { echo "FAIL: docs: empty file(s) at the top: $stray"; fail=1; }
[ $fail = 0 ] && echo "  docs: every command documented; $n session blocks match; colldb learn lists and runs the lessons"
exit $fail
