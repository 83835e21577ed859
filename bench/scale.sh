#!/bin/sh
# scale.sh - `make bench`: colldb on many ranks (bench/scale.py says what
# each column is).  Figures, not tests; the verdicts read the issue's
# targets on the largest world.
#   bench/scale.sh [objdir] [N...]     SCALE_SECS: seconds the ring and the
#                                       mesh get each (default 60)
set -u
O=${1:-build}
[ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")/.." && pwd)
sizes=${*:-64 256 1024}
echo "== many ranks: start, step, where, diagnose, a pane, a ring and a mesh with check, quit (load average $(cut -d' ' -f1-3 /proc/loadavg))"
exec python3 "$top/bench/scale.py" "$top/colldb" $sizes -t "${SCALE_SECS:-60}"
