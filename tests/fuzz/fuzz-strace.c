/*
 * fuzz-strace.c - libFuzzer harness: the [STRACE] log reader and its
 * views, as `colldb tree` and `colldb stats` run them: parse (fed in two
 * pieces, as a stream arrives), then BenchmarkStats at L2 and L3, every
 * launch's tree and the mean tree.  Seeds: tests/logs/ (*.log) and the
 * traces the trace tier writes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

void fuzz_views(const struct span_set *set);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct span_set *set = span_set_new();
	struct strace_parser *p = strace_parser_new(set);
	size_t cut = n / 2;

	strace_parser_feed(p, (const char *)data, cut);
	strace_parser_feed(p, (const char *)data + cut, n - cut);
	strace_parser_finish(p);
	strace_parser_free(p);
	fuzz_views(set);
	span_set_free(set);
	return 0;
}
