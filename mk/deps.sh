#!/bin/sh
# mk/deps.sh: the Debian packages colldb needs, and the step that installs
# the missing ones (make deps, make run, make check).
#
#   sh mk/deps.sh [GROUP...]            as root: apt-get install what is
#                                       missing; otherwise say what to run
#   sh mk/deps.sh --missing [GROUP...]  print the missing packages on one
#                                       line (nothing when none); exit 0
#
# GROUPs: build (make: compile and link), test (make check: the test
# tiers and the tools they run), mpi (Open MPI and MPICH: make bench's
# peers, the mpi transport), valgrind (make valgrind).  None: build, test
# and mpi.
#
# The table: one line per package: the package, the group that needs it,
# and the test that is true when it is installed:
#   pc MODULE     pkg-config knows MODULE
#   cmd COMMAND   COMMAND is on PATH
#   rt NAME       clang's runtime library NAME is installed
# (any other shell command works too).  Add a line for a new dependency.
set -u
TABLE='
pkg-config	build	cmd pkg-config
libedit-dev	build	pc libedit
libncurses-dev	build	pc ncursesw
libffi-dev	build	pc libffi
libjansson-dev	build	pc jansson
check		test	pc check
tmux		test	cmd tmux
python3		test	cmd python3
procps		test	cmd pgrep
groff-base	test	cmd groff
less		test	cmd less
iproute2	test	cmd ip
util-linux	test	cmd nsenter
util-linux	test	cmd setpriv
perl-base	test	cmd perl
gdb		test	cmd gdb
openmpi-bin	mpi	cmd mpirun.openmpi
libopenmpi-dev	mpi	pc ompi-c
mpich		mpi	cmd mpirun.mpich
libmpich-dev	mpi	pc mpich
clang-format	test	cmd clang-format
clang		test	cmd clang
libclang-rt-14-dev	test	rt fuzzer
valgrind	valgrind	cmd valgrind
'

pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1" 2>/dev/null; }
cmd() { command -v "$1" >/dev/null 2>&1; }
# rt NAME: clang's runtime library NAME (libFuzzer, the sanitizers) is there
rt() { cmd clang && [ -f "$(clang -print-resource-dir)/lib/linux/libclang_rt.$1-$(uname -m).a" ]; }

# missing GROUP...: the packages of those groups that are not installed
missing() {
	printf '%s\n' "$TABLE" | while read -r pkg group test; do
		[ -n "$pkg" ] || continue
		case " $* " in *" $group "*) ;; *) continue ;; esac
		eval "$test" || printf '%s ' "$pkg"
	done
}

list=0
[ "${1:-}" = --missing ] && { list=1; shift; }
[ $# -eq 0 ] && set -- build test mpi
if [ $list = 1 ]; then
	need=$(missing "$@")
	[ -n "$need" ] && echo "${need% }"
	exit 0
fi

need=$(missing "$@")
need=${need% }
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "colldb: missing packages: $need; run this as root to install them," \
	    "or: apt-get install --no-install-recommends $need" >&2
	exit 1
fi

echo "colldb: installing $need"
export DEBIAN_FRONTEND=noninteractive
apt="apt-get -qq -o DPkg::Lock::Timeout=600"
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
# Empty package lists (a fresh machine): fetch them first.  Lists that are
# there but stale (the mirror moved on) show as a failed install: fetch
# them then, and try once more.  apt's output is shown only on failure.
if ! ls /var/lib/apt/lists 2>/dev/null | grep -q '_Packages'; then
	$apt update >"$log" 2>&1 || { cat "$log" >&2; echo "colldb: apt-get update failed" >&2; exit 1; }
fi
# shellcheck disable=SC2086
if ! $apt install -y --no-install-recommends $need >"$log" 2>&1; then
	# shellcheck disable=SC2086
	{ $apt update && $apt install -y --no-install-recommends $need; } >"$log" 2>&1 || {
		cat "$log" >&2
		echo "colldb: could not install: $need" >&2
		exit 1
	}
fi
still=$(missing "$@")
if [ -n "$still" ]; then
	echo "colldb: installed, but still not found: ${still% }" >&2
	exit 1
fi
