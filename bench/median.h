/*
 * median.h - the medians the bench programs report (header-only: the MPI
 * peers are built without libcolldb).  Both sort v in place; n > 0.  The
 * median of an even count is the upper middle element, as each program
 * has always printed it (mpi-peer's too).
 */
#ifndef COLLDB_BENCH_MEDIAN_H
#define COLLDB_BENCH_MEDIAN_H

#include <stdint.h>
#include <stdlib.h>

static int
median_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
median_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline uint64_t
median_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, median_cmp_u64);
	return v[n / 2];
}

static inline double
median_double(double *v, size_t n)
{
	qsort(v, n, sizeof *v, median_cmp_double);
	return v[n / 2];
}

#endif
