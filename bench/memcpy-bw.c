/*
 * memcpy-bw.c - `make bench`: memcpy bandwidth of a buffer (default 64 MiB),
 * the reference the collectives' busbw is printed next to.  Prints GB/s
 * (bytes copied / time, GB = 1e9), the median of 11 copies into a buffer
 * already touched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "futex.h"

#define COPIES 11

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	size_t bytes = (argc > 1 ? strtoull(argv[1], NULL, 0) : 64) << 20;
	char *src = malloc(bytes), *dst = malloc(bytes);
	uint64_t t[COPIES];

	if (src == NULL || dst == NULL)
		return 1;
	memset(src, 1, bytes);
	memset(dst, 2, bytes);
	for (int i = 0; i < COPIES; i++) {
		uint64_t t0 = mono_ns();

		memcpy(dst, src, bytes);
		t[i] = mono_ns() - t0;
		src[i] = dst[bytes - 1 - (size_t)i];	/* keep the copy alive */
	}
	qsort(t, COPIES, sizeof *t, cmp_u64);
	printf("%.2f\n", (double)bytes / (double)t[COPIES / 2]);
	free(src);
	free(dst);
	return 0;
}
