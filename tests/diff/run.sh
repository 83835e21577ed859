#!/bin/sh
# Differential tier: random command sequences against a reference model of
# the windows (tests/diff/run.py has the rules; COLLDB_DIFF_SEEDS=N runs N
# sequences instead of 300).  Failing sequences are kept in $O/diff/.
#   tests/diff/run.sh [objdir]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
command -v python3 >/dev/null 2>&1 || { echo "  FAIL diff: needs python3"; exit 1; }
exec python3 tests/diff/run.py --seeds "${COLLDB_DIFF_SEEDS:-300}" --keep "${1:-build}/diff"
