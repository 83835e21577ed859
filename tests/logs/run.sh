#!/bin/sh
# Log tier: `colldb tree|stats` on every tests/logs/*.log (and .json) with
# the arguments recorded in NAME.cases, byte-compared with the output of
# PyPTO's own bench.py on the same log and arguments (NAME.TAG.out).
#
# NAME.cases lines:  TAG EXIT ARGS...   (a last argument "<FILE" is stdin)
# NAME.TAG.err, when present, is the exact stderr; otherwise stderr must be
# empty.  Expected .out files come from PyPTO (see docs/benchmarking.md,
# "Test logs"); the logs come from genlog.py.
# usage: tests/logs/run.sh [objdir]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
colldb=$top/colldb
dir=$top/tests/logs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/colldb-logs.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$dir" || exit 2
. "$top/tests/need.sh"
need cmp diff
[ -x "$colldb" ] || { echo "FAIL: $colldb not built"; exit 1; }

n=0
failed=0
for cases in *.cases; do
	name=${cases%.cases}
	while read -r tag want rest; do
		case $tag in ''|'#'*) continue ;; esac
		n=$((n + 1))
		stdin=/dev/null
		case $rest in
		*' <'*)
			stdin=${rest##* <}
			rest=${rest% <*}
			;;
		esac
		set -f
		# shellcheck disable=SC2086
		set -- $rest
		set +f
		"$colldb" "$@" <"$stdin" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		why=
		[ "$rc" = "$want" ] || why="exit $rc, expected $want"
		if [ -z "$why" ] && ! cmp -s "$tmp/out" "$name.$tag.out"; then
			why="stdout differs from $name.$tag.out"
		fi
		if [ -z "$why" ]; then
			if [ -f "$name.$tag.err" ]; then
				cmp -s "$tmp/err" "$name.$tag.err" ||
				    why="stderr differs from $name.$tag.err"
			elif [ -s "$tmp/err" ]; then
				why="unexpected stderr"
			fi
		fi
		if [ -n "$why" ]; then
			failed=$((failed + 1))
			echo "FAIL: logs $name.$tag: colldb $rest: $why"
			diff "$name.$tag.out" "$tmp/out" 2>/dev/null | head -10
			head -5 "$tmp/err"
		fi
	done <"$cases"
done

# every expected file belongs to a case
for f in *.out *.err; do
	[ -f "$f" ] || continue
	base=${f%.*}
	name=${base%.*}
	tag=${base##*.}
	if ! grep -q "^$tag " "$name.cases" 2>/dev/null; then
		echo "FAIL: logs: $f has no case in $name.cases"
		failed=$((failed + 1))
	fi
done

echo "  logs: $n cases, $failed failed"
[ "$failed" -eq 0 ]
