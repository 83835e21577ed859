/*
 * exits.c - a user program whose ranks end the way argv says, for the
 * `colldb run` tests: argv[1 + rank] (missing: "ok") is one of
 *
 *	ok	notify the next rank, wait for the previous one, finalize, exit 0
 *	N	exit with status N after the handshake, without cdb_finalize
 *	segv	crash in its own code after the handshake
 *	abort	abort() after the handshake
 *	early	exit 4 before cdb_init
 *	hang	wait forever for a notify nobody sends
 *	spin	loop in its own code for 30 seconds, then exit 0
 *	exec	exec a shell that writes 200000 lines (more than a pipe holds)
 *		and exits 9
 *	fork	leave a child that sleeps 60 s holding every descriptor (the
 *		session's socket too), then finalize (forkspin: spin 30 s first)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "colldb.h"

int
main(int argc, char **argv)
{
	const char *how = "ok";
	int32_t *sig;
	int rank, n;

	if (argc > 1 && strcmp(argv[1], "early") == 0 && getenv("COLLDB_RANK") != NULL &&
	    strcmp(getenv("COLLDB_RANK"), "0") == 0)
		return 4;
	if (cdb_init() != CDB_OK)
		return 1;
	rank = cdb_rank();
	n = cdb_nranks();
	if (rank + 1 < argc)
		how = argv[rank + 1];
	if (cdb_alloc_shape("sig", 1, (size_t[]){ 2 }, CDB_I32, (void **)&sig) != CDB_OK)
		return 1;
	if (strcmp(how, "hang") == 0) {
		cdb_wait(&sig[1], CDB_GE, 1);
		return 0;
	}
	cdb_notify((rank + 1) % n, &sig[0], 1, CDB_ADD);
	cdb_wait(&sig[0], CDB_GE, 1);
	if (strcmp(how, "exec") == 0) {
		execl("/bin/sh", "sh", "-c", "seq 1 200000; echo exec done; exit 9",
		    (char *)NULL);
		return 1;
	}
	if ((strcmp(how, "fork") == 0 || strcmp(how, "forkspin") == 0) &&
	    fork() == 0) {
		sleep(60);
		_exit(0);
	}
	if (strcmp(how, "segv") == 0)
		raise(SIGSEGV);
	if (strcmp(how, "abort") == 0)
		abort();
	if (strcmp(how, "spin") == 0 || strcmp(how, "forkspin") == 0) {
		time_t t0 = time(NULL);
		while (time(NULL) - t0 < 30)
			;
	}
	if (strcmp(how, "ok") != 0 && strcmp(how, "spin") != 0 &&
	    strcmp(how, "early") != 0 && strcmp(how, "fork") != 0 &&
	    strcmp(how, "forkspin") != 0)
		exit(atoi(how));
	printf("rank %d: ok\n", rank);
	return cdb_finalize() == CDB_OK ? 0 : 1;
}
