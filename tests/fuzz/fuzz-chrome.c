/*
 * fuzz-chrome.c - libFuzzer harness: the Chrome trace-event JSON reader
 * (viz/chrome-read.c, with jansson) and the same views as fuzz-strace.c.
 * Seeds: tests/logs/ (*.json) and the traces the trace tier writes.
 */
#include <stdint.h>
#include <stdlib.h>

#include "strace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);
void fuzz_views(const struct span_set *set);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct span_set *set = span_set_new();
	char *cause = NULL;

	(void)chrome_sniff((const char *)data, n);
	if (chrome_read(set, (const char *)data, n, &cause) == 0)
		fuzz_views(set);
	free(cause);
	span_set_free(set);
	return 0;
}
