#!/bin/sh
# Scenario tier: scripts/hangs (one per failure pattern) and the lessons
# run as golden transcripts; each also asserts with expect, so exit 0.
# They run in a scratch directory, as a learner would in theirs (lesson 14
# saves explore's counterexamples there).
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for d in scripts/hangs scripts/lessons; do
	ls "$d"/*.coll >/dev/null 2>&1 || { echo "FAIL: no $d/*.coll"; fail=1; continue; }
	GOLDEN_CWD=$tmp GOLDEN_DIR=$d sh tests/golden/run.sh "$@" || fail=1
done
exit $fail
