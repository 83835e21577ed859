#!/bin/sh
# Install the build dependencies that pkg-config cannot find.
# As root: apt-get install them.  Otherwise: print the command and fail.
set -u
need=""
for pair in libedit:libedit-dev ncursesw:libncurses-dev libffi:libffi-dev \
	check:check jansson:libjansson-dev; do
	pc=${pair%%:*}
	pkg=${pair#*:}
	pkg-config --exists "$pc" 2>/dev/null || need="$need $pkg"
done
command -v pkg-config >/dev/null 2>&1 || need="pkg-config$need"
command -v tmux >/dev/null 2>&1 || need="$need tmux"
command -v python3 >/dev/null 2>&1 || need="$need python3"	# trace tier: json checks
command -v groff >/dev/null 2>&1 || need="$need groff-base"	# man page check
[ -z "$need" ] && exit 0

cmd="apt-get install -y --no-install-recommends pkg-config$need"
if [ "$(id -u)" != 0 ]; then
	echo "colldb: missing build dependencies:$need" >&2
	echo "colldb: run as root:  $cmd" >&2
	exit 1
fi
echo "colldb: installing:$need"
export DEBIAN_FRONTEND=noninteractive
$cmd || { apt-get update && $cmd; } || exit 1
