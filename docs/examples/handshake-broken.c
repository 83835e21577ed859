/*
 * handshake-broken.c - BROKEN ON PURPOSE: handshake.c with tag 0.
 *
 * Rank 0 raises rank 1's flag with a Set of 0.  The flag was already 0,
 * so rank 1's wait (flag >= 1) never returns, and rank 0 then waits
 * forever for the answer: a hang.  Find it with
 *
 *	colldb run -n 2 build/examples/handshake-broken
 *	(colldb) continue
 *	(colldb) where
 *
 * or let `colldb run --batch` report the hang (exit status 3).
 */
#include <stdio.h>

#include "colldb.h"

#define TAG 0	/* the bug: a Set of 0 never releases a wait >= 1 */

int
main(void)
{
	float *msg;
	int32_t *flag;
	float sum = 0;
	int rank;

	if (cdb_init() != CDB_OK || cdb_nranks() != 2) {
		fprintf(stderr, "handshake: needs exactly 2 ranks (%s)\n",
		    cdb_errmsg());
		return 2;
	}
	rank = cdb_rank();
	if (cdb_alloc_shape("msg", 1, (size_t[]){ 8 }, CDB_F32,
		(void **)&msg) != CDB_OK ||
	    cdb_alloc_shape("flag", 1, (size_t[]){ 2 }, CDB_I32,
		(void **)&flag) != CDB_OK) {
		fprintf(stderr, "handshake: %s\n", cdb_errmsg());
		return 1;
	}
	if (rank == 0) {
		for (int i = 0; i < 8; i++)
			msg[i] = (float)(i + 1);
		cdb_put(msg, 1, msg, 8, 0);
		cdb_notify(1, &flag[0], TAG, CDB_SET);
		cdb_wait(&flag[1], CDB_GE, 1);
		printf("rank 0: answered with %g\n", (double)msg[0]);
	} else {
		cdb_wait(&flag[0], CDB_GE, 1);
		for (int i = 0; i < 8; i++)
			sum += msg[i];
		msg[0] = sum;
		cdb_put(msg, 0, msg, 1, 0);
		cdb_notify(0, &flag[1], TAG, CDB_SET);
		printf("rank 1: got 8 values, sum %g\n", (double)sum);
	}
	return cdb_finalize() == CDB_OK ? 0 : 1;
}
