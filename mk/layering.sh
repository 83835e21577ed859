#!/bin/sh
# mk/layering.sh - the layers of docs/design.md ("The map"), checked on the
# #include lines (each folder of shell/ has its own header, so what a file
# includes is what it uses).  Prints every violation; exits 1 if any.
#
#   core/   includes nothing of shell/ or viz/
#   viz/    nothing of shell/
#   shell/, viz/: only core's public headers, never its private ones
#   shell/ floors, bottom up:  lang out view | session | user | diag
#           trace | cmd | bench | repl | start; a folder includes only its
#           own and lower floors' headers
#   the board and cells are read only in shell/view/ and written only by
#   shell/session/ (the ranks' own words about themselves); the gate's
#   control words are written only by core/ctl.c
#   curses only in viz/curses.c
set -u
cd "$(dirname "$0")/.." || exit 2
bad=0
fail() { echo "layering: $*" >&2; bad=1; }

# includes matching ERE $2 in files $3...: each is a violation $1
forbid() {
	why=$1 re=$2
	shift 2
	hits=$(grep -nE "$re" "$@" 2>/dev/null)
	[ -z "$hits" ] || { printf '%s\n' "$hits" >&2; fail "$why"; }
}

forbid "core/ must not include shell/ or viz/" \
	'#include "(\.\./)?(shell|viz)/' core/*.[ch] core/coll/*.[ch]
forbid "viz/ must not include shell/" '#include "(\.\./)?shell/' viz/*.[ch]
private='api-int|exec|futex|rank|shm|transport|coll-int'
forbid "shell/ and viz/ use core's public headers only (core/oneside.h, core/ctl.h ... ; not exec.h, shm.h, rank.h, futex.h, transport.h)" \
	"#include \"(\.\./core/)?($private)\.h\"" shell/*/*.[ch] viz/*.[ch]

# floor FOLDER ALLOWED...: FOLDER's files include only ALLOWED folders
floor() {
	dir=$1
	shift
	ok="$dir"
	for a in "$@"; do ok="$ok|$a"; done
	for f in shell/"$dir"/*.[ch]; do
		[ -f "$f" ] || continue
		grep -nE '#include "[a-z]+/' "$f" | grep -vE "#include \"($ok)/" |
		    sed "s|^|$f:|" | grep . >&2 &&
		    fail "shell/$dir/ may include only: $*"
	done
}
floor lang
floor out
floor view
floor session lang out view
floor user lang out view session
floor diag lang out view session user
floor trace lang out view session
floor cmd lang out view session user diag trace
floor bench lang out view session user diag trace cmd
floor repl lang out view session user diag trace cmd bench
forbid "shell/ has no umbrella header: include the folders' own" \
	'#include "shell\.h"' shell/*/*.[ch]

forbid "only shell/view/ reads the board and cells (and shell/session/ writes a rank's end): use view/view.h" \
	'seg_(board|area|read_cur)\(' $(ls shell/*/*.c | grep -vE '^shell/(view|session)/')
forbid "only core/ctl.c writes the gate's control words" \
	'atomic_(store|fetch_add|exchange)[a-z_]*\(&[a-zA-Z_.>()-]*(->|\.)(credits|mode|skip_pc|interrupt|abort|ctl|gate_active|break_seq|wait_giveup)\b' \
	shell/*/*.c
hits=$(grep -lE '#include <n?curses' shell/*/*.c core/*.c viz/*.c 2>/dev/null | grep -v '^viz/curses.c$')
[ -z "$hits" ] || fail "only viz/curses.c may include curses: $hits"
exit $bad
