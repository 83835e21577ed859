#!/bin/sh
# make bench: print the figures (not tests; nothing asserts a time).
# bench/README says what each part measures and how to read it.
O=${1:-build}
echo "== colldb bench on $(nproc) CPUs, $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg)"
sh bench/peers.sh "$O"
echo "== a rank blocked in wait: what it costs"
"$O/bench/bench-wake" -c
echo "== data path: the reduce and convert kernels at each level (core/kern.h)"
"$O/bench/kern-bw"
echo "== spans: what recording costs"
"$O/bench/span-cost"
echo "== programs: what coll_build costs"
"$O/bench/build-cost"
echo "== watch pane: CPU of sampling and drawing 64 ranks x 256 cells at 10 Hz (80x24)"
"$O/bench/pane-cost" -s 3
echo "== explore: executions and micro-ops per second; executions explored vs every interleaving"
"$O/bench/explore-bench"
sh bench/diagnose.sh "$O"
echo "== colldb stats / tree --mean on a generated 1M-span [STRACE] log"
sh bench/logs-scale.sh
