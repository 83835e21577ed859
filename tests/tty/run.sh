#!/bin/sh
# tty tier: interactive REPL tests under tmux (failed without tmux).
#   tests/tty/run.sh [objdir]
set -u
dir=$(cd "$(dirname "$0")" && pwd)
fail=0
for t in "$dir"/*.sh; do
	case $(basename "$t") in run.sh | lib.sh) continue ;; esac
	sh "$t" "$@" || fail=1
done
exit $fail
