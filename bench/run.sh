#!/bin/sh
# make bench: print the figures (not tests; nothing asserts a time).
O=${1:-build}
echo "== colldb bench on $(nproc) CPUs, $(date -u +%Y-%m-%d)"
"$O/bench/bench-wake"
echo "== watch pane: CPU of sampling and drawing 64 ranks x 256 cells at 10 Hz (80x24)"
"$O/bench/pane-cost" -s 3
