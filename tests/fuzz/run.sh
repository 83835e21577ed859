#!/bin/sh
# Fuzz tier: every libFuzzer harness of tests/fuzz/ (built by make fuzz
# or make check into FUZZ_O), seeded from the golden transcripts, the log
# fixtures and the pane snapshots, for SECS seconds each.  make check runs
# a short smoke of each; make fuzz a long run.  A crash, leak or timeout is
# a failure: the input is kept in FUZZ_O/crash-NAME-* and named.
#   tests/fuzz/run.sh [FUZZ_O] [SECS]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
F=${1:-build-fuzz}
secs=${2:-3}
fail=0
names="parse strace chrome snap script"
for n in $names; do
	[ -x "$F/fuzz/fuzz-$n" ] || { echo "  FAIL fuzz: $F/fuzz/fuzz-$n is not built (make fuzzers)"; exit 1; }
done

# seed corpora: copies, so the fuzzer may add to the corpus beside them
seeds() {
	d="$F/seeds/$1"
	rm -rf "$d"
	mkdir -p "$d"
	case $1 in
	parse|script) cp tests/golden/*.coll tests/user/*.coll scripts/lessons/*.coll "$d"/ ;;
	strace) cp tests/logs/*.log "$d"/ ;;
	chrome) cp tests/logs/*.json "$d"/ ;;
	snap)	# the snapshot blocks of the pane fixtures
		for f in tests/viz/*.snap; do
			awk -v out="$d/$(basename "$f")" '
				/^snapshot$/ { n++; file = out "." n; next }
				/^end$/ { file = ""; next }
				file != "" { print > file }' "$f"
		done ;;
	esac
}

for n in $names; do
	seeds "$n"
	mkdir -p "$F/corpus/$n"
	log="$F/fuzz-$n.log"
	# ASan's leak check is on; a death test's signal is not ours to catch
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	"$F/fuzz/fuzz-$n" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
	    -max_len=65536 -print_final_stats=1 -artifact_prefix="$F/crash-$n-" \
	    "$F/corpus/$n" "$F/seeds/$n" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ $rc = 0 ] && [ -n "$runs" ] && [ "$runs" -gt 0 ]; then
		echo "  ok   fuzz-$n: $runs runs in ${secs}s"
	else
		echo "  FAIL fuzz-$n (exit $rc, ${runs:-0} runs); log follows"
		grep -E 'ERROR|SUMMARY|runtime error|artifact|Test unit' "$log" | head -12
		fail=1
	fi
done
[ $fail = 0 ]
