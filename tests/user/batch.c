/*
 * batch.c - many calls in a row, for the tests of a user rank's outbox
 * (core/outbox.h): the rank queues its calls' announcements and the shell
 * reads them later, so what the shell says must not depend on when it
 * reads.  argv[1] picks the ending, argv[2] the rounds (default 2000) of
 * a notify/wait ping-pong between ranks 0 and 1 that come first:
 *
 *   segv    rank 0 notifies rank 1, puts after it (a lint warning), and
 *           crashes at once, before anything could have told the shell
 *   kill    the same, ending in SIGKILL (nothing can run at the end)
 *   line    after the rounds rank 1 leaves an answer, and rank 0 gets it
 *           with one call on a line of its own (a breakpoint there stops
 *           it at that call, not at one of the rounds')
 *   coll    every rank makes 300 allreduces after the rounds, then one
 *           more where rank 1 asks for max (a collective mismatch)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colldb.h"

int
main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "line";
	long rounds = argc > 2 ? atol(argv[2]) : 2000;
	int32_t *pp, *sig;
	float *buf;
	int rank;

	if (cdb_init() != CDB_OK || cdb_nranks() < 2)
		return 2;
	rank = cdb_rank();
	cdb_alloc_shape("pp", 1, (size_t[]){ 2 }, CDB_I32, (void **)&pp);
	cdb_alloc_shape("buf", 1, (size_t[]){ 8 }, CDB_F32, (void **)&buf);
	cdb_alloc_shape("sig", 2, (size_t[]){ (size_t)cdb_nranks(), 1 },
	    CDB_I32, (void **)&sig);
	for (long i = 1; i <= rounds && rank < 2; i++) {
		if (rank == 0) {
			cdb_notify(1, &pp[0], 1, CDB_ADD);
			cdb_wait(&pp[1], CDB_GE, (int32_t)i);
		} else {
			cdb_wait(&pp[0], CDB_GE, (int32_t)i);
			cdb_notify(0, &pp[1], 1, CDB_ADD);
		}
	}
	if (strcmp(how, "segv") == 0 || strcmp(how, "kill") == 0) {
		if (rank == 0) {
			cdb_notify(1, &pp[0], 1, CDB_ADD);
			cdb_put(buf, 1, buf, 8, 0);
			if (strcmp(how, "segv") == 0)
				raise(SIGSEGV);
			kill(getpid(), SIGKILL);
		} else if (rank == 1) {
			cdb_wait(&pp[0], CDB_GE, (int32_t)rounds + 1);
		}
	} else if (strcmp(how, "line") == 0) {
		if (rank == 1) {
			buf[0] = (float)rounds;
			cdb_notify(0, &pp[1], 1, CDB_ADD);
		} else if (rank == 0) {
			cdb_wait(&pp[1], CDB_GE, (int32_t)rounds + 1);
			cdb_get(buf, 1, buf, 1);
			printf("rank 0: got %g\n", (double)buf[0]);
		}
	} else if (strcmp(how, "coll") == 0) {
		for (int i = 0; i < 300; i++)
			cdb_allreduce(buf, sig, CDB_SUM, 0);
		cdb_allreduce(buf, sig, rank == 1 ? CDB_MAX : CDB_SUM, 0);
	}
	printf("rank %d: done\n", rank);
	return cdb_finalize() == CDB_OK ? 0 : 1;
}
