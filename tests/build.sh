#!/bin/sh
# Build tier: what a new user's first `make` says on a machine that lacks
# the packages (mk/deps.sh), shown here by hiding pkg-config's modules:
# one line naming them and the goals that install them, no compiler
# errors; the install step's own message when it cannot install (not
# root) names each package once, separated by spaces.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. tests/need.sh
need make setpriv
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "  FAIL $1"; printf '%s\n' "$out" | head -10 | sed 's/^/    | /'; }
libs="libedit-dev libncurses-dev libffi-dev libjansson-dev"

# plain make: one line, the packages and the goals that install them
out=$(PKG_CONFIG_LIBDIR=/nonexistent make --no-print-directory -n 2>&1)
st=$?
[ $st -ne 0 ] && ok || bad "plain make without packages exits 0"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && ok || bad "plain make says more than one line"
printf '%s\n' "$out" | grep -qF "missing packages: $libs; 'make run' or 'make check' installs them (as root: 'make deps')" &&
	ok || bad "plain make does not name the packages and the goals that install them"
out=$(PKG_CONFIG_LIBDIR=/nonexistent make --no-print-directory -n tests 2>&1)
printf '%s\n' "$out" | grep -qF "missing packages: $libs check;" && ok ||
	bad "make tests does not name the test packages"
# the goals that install first do not stop there
out=$(PKG_CONFIG_LIBDIR=/nonexistent make --no-print-directory -n clean 2>&1)
[ $? = 0 ] && ok || bad "make clean needs the packages"

# the install step, not as root: one line with a runnable apt-get command
asuser() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
# (a copy the other uid can read: a checkout may be private, mktemp -d's)
dd=$(mktemp -d) && chmod 755 "$dd" && cp mk/deps.sh "$dd/" && chmod 644 "$dd/deps.sh"
out=$(PKG_CONFIG_LIBDIR=/nonexistent asuser sh "$dd/deps.sh" build 2>&1)
st=$?
rm -rf "$dd"
[ $st = 1 ] && ok || bad "mk/deps.sh not as root: exit $st, expected 1"
[ "$out" = "colldb: missing packages: $libs; run this as root to install them, or: apt-get install --no-install-recommends $libs" ] &&
	ok || bad "mk/deps.sh not as root: the message"
out=$(PKG_CONFIG_LIBDIR=/nonexistent sh mk/deps.sh --missing build test 2>&1)
[ "$out" = "$libs check" ] && ok || bad "mk/deps.sh --missing build test"
out=$(sh mk/deps.sh --missing build test 2>&1)
[ -z "$out" ] && ok || bad "mk/deps.sh --missing: something is missing here"
# the install step's default takes Open MPI and MPICH too (make bench's
# peers): their -dev packages are found through pkg-config
out=$(PKG_CONFIG_LIBDIR=/nonexistent sh mk/deps.sh --missing mpi 2>&1)
[ "$out" = "libopenmpi-dev libmpich-dev" ] && ok || bad "mk/deps.sh --missing mpi"
out=$(PKG_CONFIG_LIBDIR=/nonexistent sh mk/deps.sh --missing 2>&1)
[ "$out" = "$libs check libopenmpi-dev libmpich-dev" ] && ok ||
	bad "mk/deps.sh --missing: the default groups"
out=$(sh mk/deps.sh --missing 2>&1)
[ -z "$out" ] && ok || bad "mk/deps.sh --missing (default groups): something is missing here"

echo "  build: $pass passed, $fail failed"
[ $fail = 0 ]
