/*
 * ring.c - a hand-rolled ring allreduce (sum) written against colldb.h.
 *
 * Every rank holds COUNT floats in `buf`, x[i] = rank + 1, cut into N
 * chunks.  Reduce-scatter: at step s (0 .. N-2) a rank puts chunk
 * (rank - s) mod N into the next rank's `tmp` and notifies it on signal
 * row s, column rank; then it waits for the previous rank's notify on its
 * own row s, column prev, and adds the chunk it received, (rank - s - 1)
 * mod N, into its buffer.  After N-1 steps it owns the full sum of chunk
 * (rank + 1) mod N, which it copies to `out`.  Allgather: at step s it
 * puts chunk (rank + 1 - s) mod N into the next rank's `out` (from buf at
 * step 0, then what it received), notifies row N-1+s and waits for the
 * same row from the previous rank.
 *
 * Every chunk of tmp and out is written once, by one rank, before the
 * notify its reader waits for, so no rank overwrites data a peer has not
 * read yet.  Signal: [2(N-1), N] i32, one row per step, one column per
 * sender, every cell used once.  Result: out = N(N+1)/2 everywhere.
 *
 *	make examples
 *	COLLDB_NRANKS=4 build/examples/ring	   # standalone
 *	colldb run -n 4 build/examples/ring	   # stopped in cdb_init
 */
#include <stdio.h>
#include <stdlib.h>

#include "colldb.h"

#define COUNT 840	/* a multiple of 1 .. 8 ranks */

static void
check(int err, const char *what)
{
	if (err != CDB_OK) {
		fprintf(stderr, "ring: %s: %s (%s)\n", what, cdb_strerror(err),
		    cdb_errmsg());
		exit(1);
	}
}

int
main(void)
{
	float *x, *tmp, *out;
	int32_t *sig;
	int rank, n, next, prev, chunk, bad = 0;
	size_t sshape[2];

	check(cdb_init(), "cdb_init");
	rank = cdb_rank();
	n = cdb_nranks();
	next = (rank + 1) % n;
	prev = (rank + n - 1) % n;
	chunk = COUNT / n;
	sshape[0] = n > 1 ? 2 * (size_t)(n - 1) : 1;
	sshape[1] = (size_t)n;
	check(cdb_alloc_shape("buf", 1, (size_t[]){ COUNT }, CDB_F32,
	    (void **)&x), "alloc buf");
	check(cdb_alloc_shape("tmp", 1, (size_t[]){ COUNT }, CDB_F32,
	    (void **)&tmp), "alloc tmp");
	check(cdb_alloc_shape("out", 1, (size_t[]){ COUNT }, CDB_F32,
	    (void **)&out), "alloc out");
	check(cdb_alloc_shape("sig", 2, sshape, CDB_I32, (void **)&sig),
	    "alloc sig");
	for (int i = 0; i < COUNT; i++)
		x[i] = (float)(rank + 1);

	cdb_span_begin("reduce-scatter");
	for (int s = 0; s < n - 1; s++) {
		int send = ((rank - s) % n + n) % n;
		int recv = ((rank - s - 1) % n + n) % n;

		check(cdb_put(&tmp[send * chunk], next, &x[send * chunk], chunk, 0),
		    "put");
		check(cdb_notify(next, &sig[s * n + rank], 1, CDB_ADD), "notify");
		check(cdb_wait(&sig[s * n + prev], CDB_GE, 1), "wait");
		for (int i = 0; i < chunk; i++)
			x[recv * chunk + i] += tmp[recv * chunk + i];
	}
	cdb_span_end();
	for (int i = 0; i < chunk; i++)
		out[next * chunk + i] = x[next * chunk + i];

	cdb_span_begin("allgather");
	for (int s = 0; s < n - 1; s++) {
		int send = ((rank + 1 - s) % n + n) % n;
		int row = n - 1 + s;

		check(cdb_put(&out[send * chunk], next, &out[send * chunk], chunk, 0),
		    "put");
		check(cdb_notify(next, &sig[row * n + rank], 1, CDB_ADD), "notify");
		check(cdb_wait(&sig[row * n + prev], CDB_GE, 1), "wait");
	}
	cdb_span_end();

	for (int i = 0; i < COUNT; i++)
		bad += out[i] != (float)(n * (n + 1) / 2);
	printf("rank %d: out[0] = %g, %d wrong\n", rank, (double)out[0], bad);
	check(cdb_finalize(), "cdb_finalize");
	return bad != 0;
}
