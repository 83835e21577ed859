/*
 * memcpy-bw.c - `make bench`: memcpy bandwidth of a buffer, the reference
 * the collectives' busbw is printed next to.
 *
 *   memcpy-bw [SIZE]	SIZE in bytes, with an optional k/M/G suffix
 *			(powers of 1024); a bare number up to 1024 is MiB,
 *			as before (default 64 MiB)
 *
 * Prints GB/s (bytes copied / time, GB = 1e9): the median of 11 samples,
 * each one timing enough copies into the same, already touched buffer to
 * take about 16 MiB of copying (one copy for 16 MiB and up), so a small
 * buffer is measured where it lives (the caches), as an allreduce of that
 * size would find it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "futex.h"
#include "median.h"

#define SAMPLES 11

static size_t
size_arg(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k':
	case 'K':
		return (size_t)v << 10;
	case 'm':
	case 'M':
		return (size_t)v << 20;
	case 'g':
	case 'G':
		return (size_t)v << 30;
	case '\0':
		return v <= 1024 ? (size_t)v << 20 : (size_t)v;
	default:
		return 0;
	}
}

int
main(int argc, char **argv)
{
	size_t bytes = argc > 1 ? size_arg(argv[1]) : 64u << 20;
	size_t copies =
	    bytes >= (16u << 20) ? 1 : (16u << 20) / (bytes ? bytes : 1);
	char *src, *dst;
	uint64_t t[SAMPLES];

	if (bytes == 0) {
		fprintf(stderr, "usage: memcpy-bw [SIZE]\n");
		return 2;
	}
	src = malloc(bytes);
	dst = malloc(bytes);
	if (src == NULL || dst == NULL)
		return 1;
	memset(src, 1, bytes);
	memset(dst, 2, bytes);
	for (int i = 0; i < SAMPLES; i++) {
		uint64_t t0 = mono_ns();

		for (size_t k = 0; k < copies; k++) {
			memcpy(dst, src, bytes);
			src[k % bytes] = dst[bytes - 1 - k % bytes]; /* keep it */
		}
		t[i] = mono_ns() - t0;
	}
	printf("%.2f\n",
	    (double)bytes * (double)copies / (double)median_u64(t, SAMPLES));
	free(src);
	free(dst);
	return 0;
}
