#!/bin/sh
# make bench: print the figures (not tests; nothing asserts a time).
O=${1:-build}
echo "== colldb bench on $(nproc) CPUs, $(date -u +%Y-%m-%d)"
"$O/bench/bench-wake"
echo "== watch pane: CPU of sampling and drawing 64 ranks x 256 cells at 10 Hz (80x24)"
"$O/bench/pane-cost" -s 3
echo "== spans: what recording costs a rank (one rank, notify/wait micro-ops)"
"$O/bench/span-cost"
echo "== explore: executions and micro-ops per second; executions explored vs every interleaving"
"$O/bench/explore-bench"
echo "== allreduce 64 MiB f32 (colldb --batch, bench ... rounds=10 warmup=2)"
sh bench/coll.sh "$O"
echo "== colldb stats / tree --mean on a generated 1M-span [STRACE] log"
sh bench/logs-scale.sh
