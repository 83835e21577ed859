/*
 * compute.c - a user program that computes between its calls, for the
 * mpi tier (`colldb run -t mpi -n 2 --batch compute`): rank 1 spins on
 * the clock for 3 s outside colldb while rank 0 puts 1 MiB into it and
 * notifies it.  Across hosts (and on MPICH on one host) a one-sided write
 * completes only while its target calls MPI, so without the rank's
 * progress thread rank 0's notify (a flush) waits until rank 1 calls
 * again, 3 s later; with it, at once (tens of ms; a loaded machine
 * stretched a 16 MiB put across hosts under MPICH past 1 s once).  Rank
 * 0 says whether it took less than 1.5 s, rank 1 whether the data
 * arrived.
 */
#include <stdio.h>
#include <time.h>

#include "colldb.h"

#define COUNT (256u << 10) /* f32: 1 MiB */

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int
main(void)
{
	float *buf, *dst;
	int32_t *sig, *ready;
	int rank, bad = 0;

	if (cdb_init() != CDB_OK || cdb_nranks() != 2)
		return 1;
	rank = cdb_rank();
	if (cdb_alloc_shape("buf", 1, (size_t[]){ COUNT }, CDB_F32,
		(void **)&buf) != CDB_OK ||
	    cdb_alloc_shape("dst", 1, (size_t[]){ COUNT }, CDB_F32,
		(void **)&dst) != CDB_OK ||
	    cdb_alloc_shape("ready", 2, (size_t[]){ 2, 1 }, CDB_I32,
		(void **)&ready) != CDB_OK ||
	    cdb_alloc_shape("sig", 1, (size_t[]){ 1 }, CDB_I32,
		(void **)&sig) != CDB_OK)
		return 1;
	for (unsigned i = 0; i < COUNT; i++)
		buf[i] = (float)(rank + 1);
	if (cdb_barrier(ready, 0) != CDB_OK)
		return 1;
	if (rank == 0) {
		double t0 = now(), dt;

		if (cdb_put(dst, 1, buf, COUNT, 0) != CDB_OK ||
		    cdb_notify(1, sig, 1, CDB_ADD) != CDB_OK)
			return 1;
		dt = now() - t0;
		printf("rank 0: put and notify into a computing rank: %s\n",
		    dt < 1.5 ? "done within 1.5 s" : "took over 1.5 s");
	} else {
		double t0 = now();
		volatile double x = 0;

		while (now() - t0 < 3.0) /* compute: no colldb call */
			x = x + 1;
		if (cdb_wait(sig, CDB_GE, 1) != CDB_OK)
			return 1;
		for (unsigned i = 0; i < COUNT; i++)
			bad += dst[i] != 1.0f;
		printf("rank 1: %d of %u elements wrong\n", bad, COUNT);
	}
	return cdb_finalize() != CDB_OK || bad != 0;
}
