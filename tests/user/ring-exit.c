/*
 * ring-exit.c - the reduce-scatter half of docs/examples/ring.c, where
 * rank 0, after its first step, waits on an f32 cell by mistake: cdb_wait
 * refuses it and rank 0 exits with status 3, owing the notifies of the
 * steps it never ran.  Rank 1 then waits for a notify only rank 0 could
 * send: diagnose must name the exited rank, not a row mismatch.
 */
#include <stdio.h>
#include <stdlib.h>

#include "colldb.h"

#define COUNT 840

int
main(void)
{
	float *x, *tmp;
	int32_t *sig;
	int rank, n, next, prev, chunk;
	size_t sshape[2];

	if (cdb_init() != CDB_OK)
		return 1;
	rank = cdb_rank();
	n = cdb_nranks();
	next = (rank + 1) % n;
	prev = (rank + n - 1) % n;
	chunk = COUNT / n;
	sshape[0] = n > 1 ? (size_t)(n - 1) : 1;
	sshape[1] = (size_t)n;
	if (cdb_alloc_shape("buf", 1, (size_t[]){ COUNT }, CDB_F32, (void **)&x) != CDB_OK ||
	    cdb_alloc_shape("tmp", 1, (size_t[]){ COUNT }, CDB_F32, (void **)&tmp) != CDB_OK ||
	    cdb_alloc_shape("sig", 2, sshape, CDB_I32, (void **)&sig) != CDB_OK)
		return 1;
	for (int s = 0; s < n - 1; s++) {
		int send = ((rank - s) % n + n) % n;
		int recv = ((rank - s - 1) % n + n) % n;

		if (cdb_put(&tmp[send * chunk], next, &x[send * chunk], chunk, 0) != CDB_OK ||
		    cdb_notify(next, &sig[s * n + rank], 1, CDB_ADD) != CDB_OK)
			return 1;
		/* the bug: rank 0 waits on tmp (f32) instead of sig */
		if (cdb_wait(rank == 0 && s == 0 ? (int32_t *)(void *)tmp : &sig[s * n + prev],
		    CDB_GE, 1) != CDB_OK) {
			fprintf(stderr, "ring-exit: rank %d: wait: %s\n", rank, cdb_errmsg());
			exit(3);
		}
		for (int i = 0; i < chunk; i++)
			x[recv * chunk + i] += tmp[recv * chunk + i];
	}
	return cdb_finalize() == CDB_OK ? 0 : 1;
}
