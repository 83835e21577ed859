#!/bin/sh
# mk/fmt-check.sh - every C file of core/, shell/, viz/, bench/ and the tests is laid
# out as .clang-format says, but those mk/fmt-pending.txt lists (written
# before the layout was enforced; the list only shrinks).  A new file is
# checked from its first commit.  Prints each file that differs with the
# command that fixes it; exits 1 if any.
set -u
cd "$(dirname "$0")/.." || exit 2
command -v clang-format >/dev/null 2>&1 || {
	echo "fmt-check: clang-format not found (make check installs what the tests run; see mk/deps.sh)" >&2
	exit 1; }
pending=$(grep -v '^#' mk/fmt-pending.txt)
bad=0
# (not docs/examples/ nor tests/user/: user programs whose line numbers
# the transcripts and docs quote, ring.c:51, forker.c:133)
for f in core/*.[ch] core/*/*.[ch] shell/*/*.[ch] viz/*.[ch] bench/*.c \
    tests/unit/*.c tests/helper/*.[ch] tests/tools/*.c tests/fuzz/*.c; do
	[ -f "$f" ] || continue
	printf '%s\n' "$pending" | grep -qxF "$f" && continue
	if ! clang-format "$f" | cmp -s "$f" -; then
		echo "fmt-check: $f is not laid out as .clang-format says: make fmt FILE=$f" >&2
		bad=1
	fi
done
for f in $pending; do
	[ -f "$f" ] || echo "fmt-check: mk/fmt-pending.txt names $f, which is gone: drop it" >&2
	[ -f "$f" ] || bad=1
done
exit $bad
