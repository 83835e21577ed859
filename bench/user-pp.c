/*
 * user-pp.c - `make bench`, user-program part: what a libcolldb program's
 * calls cost, standalone and under `colldb run` (bench/user.sh runs it
 * both ways, interleaved).  A user program written as a user writes it:
 * the public header, the cdb_* macros (each call records its source line).
 *
 *   pingpong   rank 0 cdb_notify()s rank 1 and cdb_wait()s for the answer;
 *              rank 1 waits and notifies back: one round trip is four
 *              calls, two a rank
 *   allreduce  cdb_allreduce() of COUNT f32 (mesh, sum) on every rank,
 *              back to back
 *
 * Rank 0 times batches of ITERS round trips (or calls) and prints one line
 * per figure, the median batch over the batches with min and max:
 *	pingpong us MEDIAN MIN MAX
 *	allreduce us MEDIAN MIN MAX
 * in microseconds per round trip / per call.  Every other rank checks the
 * allreduce's result and exits 1 on a wrong element.  Figures, not tests.
 *	user-pp [ITERS [BATCHES [COUNT]]]	(2000, 7, 256)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "colldb.h"
#include "median.h"

#define BATCH_MAX 64

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void
report(const char *what, double *v, int n)
{
	double lo = v[0], hi = v[0];

	for (int i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	printf("%s us %.3f %.3f %.3f\n", what, median_double(v, (size_t)n), lo,
	    hi);
}

static void
check(int err, const char *what)
{
	if (err != CDB_OK) {
		fprintf(stderr, "user-pp: %s: %s\n", what, cdb_errmsg());
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2000;
	int batches = argc > 2 ? atoi(argv[2]) : 7;
	long count = argc > 3 ? atol(argv[3]) : 256;
	double pp[BATCH_MAX], ar[BATCH_MAX];
	int32_t *sig, *asig;
	float *buf;
	int rank, n;
	long k = 0;

	if (iters < 1 || batches < 1 || batches > BATCH_MAX || count < 1) {
		fprintf(stderr,
		    "usage: user-pp [ITERS [BATCHES (1..%d) [COUNT]]]\n",
		    BATCH_MAX);
		return 2;
	}
	check(cdb_init(), "cdb_init");
	rank = cdb_rank();
	n = cdb_nranks();
	if (n < 2) {
		fprintf(stderr, "user-pp: needs 2 ranks or more\n");
		return 2;
	}
	check(cdb_alloc_shape("pp", 1, (size_t[]){ 2 }, CDB_I32, (void **)&sig),
	    "cdb_alloc_shape pp");
	check(cdb_alloc_shape("buf", 1, (size_t[]){ (size_t)count }, CDB_F32,
		  (void **)&buf),
	    "cdb_alloc_shape buf");
	check(cdb_alloc_shape("asig", 2, (size_t[]){ (size_t)n, 1 }, CDB_I32,
		  (void **)&asig),
	    "cdb_alloc_shape asig");

	/* rank 0 and rank 1 play; the others only join the allreduces */
	for (int b = 0; b < batches; b++) {
		double t0 = now_us();

		for (long i = 0; i < iters && rank < 2; i++) {
			k++;
			if (rank == 0) {
				check(cdb_notify(1, &sig[0], 1, CDB_ADD),
				    "cdb_notify");
				check(cdb_wait(&sig[1], CDB_GE, (int32_t)k),
				    "cdb_wait");
			} else {
				check(cdb_wait(&sig[0], CDB_GE, (int32_t)k),
				    "cdb_wait");
				check(cdb_notify(0, &sig[1], 1, CDB_ADD),
				    "cdb_notify");
			}
		}
		pp[b] = (now_us() - t0) / (double)iters;
	}
	for (int b = 0; b < batches; b++) {
		double t0 = now_us();

		for (long i = 0; i < iters; i++) {
			for (long e = 0; e < count; e++)
				buf[e] = (float)(rank + 1);
			check(cdb_allreduce(buf, asig, CDB_SUM, 0),
			    "cdb_allreduce");
		}
		ar[b] = (now_us() - t0) / (double)iters;
		for (long e = 0; e < count; e++) {
			if (buf[e] != (float)(n * (n + 1) / 2)) {
				fprintf(stderr,
				    "user-pp: rank %d: buf[%ld] = %g, not %d\n",
				    rank, e, (double)buf[e], n * (n + 1) / 2);
				return 1;
			}
		}
	}
	if (rank == 0) {
		report("pingpong", pp, batches);
		report("allreduce", ar, batches);
	}
	return cdb_finalize() == CDB_OK ? 0 : 1;
}
