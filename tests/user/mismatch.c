/*
 * mismatch.c - BROKEN ON PURPOSE: the ranks enter different collectives
 * (or the same one with different arguments) on one signal, which colldb
 * run reports as a collective mismatch.  The first argument says how:
 *
 *   kind   rank 0 calls cdb_allreduce, the others cdb_barrier
 *   op     rank 1 reduces with CDB_MAX, the others with CDB_SUM
 *   root   rank 2 broadcasts from root 1, the others from root 0
 *   sig    rank 3 uses another signal window
 *   ok     every rank makes the same calls (no warning)
 */
#include <stdio.h>
#include <string.h>

#include "colldb.h"

int
main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "ok";
	float *buf;
	int32_t *sig, *sig2;
	int rank, n;

	if (cdb_init() != CDB_OK)
		return 2;
	rank = cdb_rank();
	n = cdb_nranks();
	cdb_alloc_shape("buf", 1, (size_t[]){ 64 }, CDB_F32, (void **)&buf);
	cdb_alloc_shape("sig", 2, (size_t[]){ (size_t)n, 1 }, CDB_I32, (void **)&sig);
	cdb_alloc_shape("sig2", 2, (size_t[]){ (size_t)n, 1 }, CDB_I32, (void **)&sig2);
	for (int i = 0; i < 64; i++)
		buf[i] = (float)(rank + 1);
	if (strcmp(how, "kind") == 0 && rank == 0)
		cdb_allreduce(buf, sig, CDB_SUM, 0);
	else if (strcmp(how, "kind") == 0)
		cdb_barrier(sig, 0);
	else if (strcmp(how, "op") == 0)
		cdb_allreduce(buf, sig, rank == 1 ? CDB_MAX : CDB_SUM, 0);
	else if (strcmp(how, "root") == 0)
		cdb_broadcast(buf, sig, rank == 2 ? 1 : 0, 0);
	else if (strcmp(how, "sig") == 0)
		cdb_allreduce(buf, rank == 3 ? sig2 : sig, CDB_SUM, 0);
	else
		cdb_allreduce(buf, sig, CDB_SUM, 0);
	printf("rank %d: buf[0] = %g\n", rank, (double)buf[0]);
	return cdb_finalize() == CDB_OK ? 0 : 1;
}
