#!/bin/sh
# logs-scale.sh - time `colldb stats` and `colldb tree --mean` on a generated
# [STRACE] log of 1 000 000 spans (L3: 4 ranks, 2 dispatches per launch, a
# host-orchestrator pid).  Target: each under 2 s and 300 MB resident.
#
# PYPTO_REF, when set, is a command that takes colldb's tree/stats
# arguments and runs PyPTO's own bench.py on the log (a driver you keep
# outside this tree, e.g. PYPTO_REF="python3 /tmp/pyref/ref.py"); it is
# timed on the same log with the same explicit arguments, its output is
# compared with colldb's, and the speed ratio printed.
#
# Exit status: 1 when colldb failed or its output differs from PyPTO's,
# never for a time over the target (that is the verdict line's).
#
# usage: bench/logs-scale.sh [SPANS]      (not part of `make check`)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
colldb=$top/colldb
spans=${1:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/colldb-scale.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
log=$tmp/scale.log
[ -x "$colldb" ] || { echo "logs-scale: build colldb first (make)" >&2; exit 2; }

python3 "$top/tests/logs/genlog.py" scale --spans "$spans" >"$log" || exit 2
n=$(grep -c '\[STRACE\]' "$log")
echo "log: $n spans, $(( $(wc -c <"$log") / 1048576 )) MiB"

# run LABEL CMD...: time CMD (stdout to $tmp/LABEL.out), print seconds and RSS
fail=0
run() {
	_l=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$tmp/$_l.time" "$@" \
		    >"$tmp/$_l.out" 2>"$tmp/$_l.err"
		rc=$?
		read -r secs kb <"$tmp/$_l.time"
	else
		t0=$(date +%s.%N)
		"$@" >"$tmp/$_l.out" 2>"$tmp/$_l.err"
		rc=$?
		secs=$(echo "$(date +%s.%N) - $t0" | bc)
		kb=0
	fi
	[ $rc -eq 0 ] || { echo "  $_l: exit $rc"; head -3 "$tmp/$_l.err"; fail=1; }
	eval "secs_$_l=\$secs"
	printf '  %-22s %7.2f s  %6d MB resident\n' "$_l" "$secs" $((kb / 1024))
}

# verdict LABEL: MET or OVER TARGET for the last run (a figure: an
# exit status says only whether the command itself failed)
verdict() {
	if awk -v s="$secs" -v k="$kb" 'BEGIN { exit !(s >= 2.0 || k >= 300 * 1024) }'; then
		echo "  OVER TARGET: $1 under 2 s and 300 MB"
	else
		echo "  MET: $1 under 2 s and 300 MB"
	fi
}

echo "colldb (default arguments):"
run stats "$colldb" stats "$log"
verdict "colldb stats"
run tree_mean "$colldb" tree --mean "$log"
verdict "colldb tree --mean"

if [ -n "${PYPTO_REF:-}" ]; then
	rounds=$(sed -n 's/^BenchmarkStats(rounds=\([0-9]*\).*/\1/p' "$tmp/stats.out")
	args="--l3 --rounds $rounds --warmup 3"
	echo "PyPTO's bench.py via PYPTO_REF, same log, $args:"
	for cmd in stats "tree --mean"; do
		label=$(echo "$cmd" | tr ' -' '__' | tr -s _)
		# shellcheck disable=SC2086
		run "c_$label" "$colldb" $cmd $args "$log"
		# shellcheck disable=SC2086
		run "py_$label" $PYPTO_REF $cmd $args "$log"
		if cmp -s "$tmp/c_$label.out" "$tmp/py_$label.out"; then
			same="identical output"
		else
			same="OUTPUT DIFFERS"
			fail=1
		fi
		eval "c=\$secs_c_$label py=\$secs_py_$label"
		awk -v c="$c" -v p="$py" -v what="$cmd" -v same="$same" 'BEGIN {
			printf "  %s: PyPTO %.2f s / colldb %.2f s = %.1fx, %s\n",
			    what, p, c, (c > 0 ? p / c : 0), same }'
	done
fi
exit $fail
