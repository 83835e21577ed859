#!/bin/sh
# make bench: print the figures (not tests; nothing asserts a time).
O=${1:-build}
echo "== colldb bench on $(nproc) CPUs, $(date -u +%Y-%m-%d)"
"$O/bench/bench-wake"
