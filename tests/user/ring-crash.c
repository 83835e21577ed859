/*
 * ring-crash.c - the reduce-scatter half of docs/examples/ring.c, where
 * one rank (argv[1], default 2) crashes with SIGSEGV after its first step:
 * it has notified its next rank once and owes it the notifies of the
 * steps it never ran.  Its next rank waits for one of them; the others
 * wait behind it for notifies from live, blocked ranks.  diagnose must
 * blame the dead rank for its next rank's cell only, never for a cell of
 * a rank it never notified.
 */
#include <signal.h>
#include <stdlib.h>

#include "colldb.h"

#define COUNT 840

int
main(int argc, char **argv)
{
	float *x, *tmp;
	int32_t *sig;
	int rank, n, next, prev, chunk, victim;
	size_t sshape[2];

	if (cdb_init() != CDB_OK)
		return 1;
	victim = argc > 1 ? atoi(argv[1]) : 2;
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
		    cdb_notify(next, &sig[s * n + rank], 1, CDB_ADD) != CDB_OK ||
		    cdb_wait(&sig[s * n + prev], CDB_GE, 1) != CDB_OK)
			return 1;
		if (rank == victim)
			raise(SIGSEGV);
		for (int i = 0; i < chunk; i++)
			x[recv * chunk + i] += tmp[recv * chunk + i];
	}
	return cdb_finalize() == CDB_OK ? 0 : 1;
}
