/*
 * handshake.c - the two-rank notify/wait handshake, written against
 * colldb.h: rank 0 puts a message into rank 1's window, then raises a
 * flag on rank 1 with a Set of tag 1; rank 1 waits for the flag (>= 1),
 * reads the message and answers on rank 0's flag the same way.
 *
 * The tag must not be 0: a Set of 0 on a cell the peer awaits with >= 1
 * never releases it (handshake-broken.c does exactly that).
 *
 *	make examples
 *	colldb run -n 2 --batch build/examples/handshake
 */
#include <stdio.h>

#include "colldb.h"

#define TAG 1

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
