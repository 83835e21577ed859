/*
 * allocspin.c - a user program for the `colldb run` tests: each rank
 * allocates a window, then loops in its own code for argv[1] seconds
 * (default 30) and exits 0 without cdb_finalize.  Its last call is
 * cdb_alloc_shape, which runs no program: where must name it (it said
 * "after cdb_init").
 */
#include <stdlib.h>
#include <time.h>

#include "colldb.h"

int
main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 30;
	int32_t *sig;
	time_t t0;

	if (cdb_init() != CDB_OK)
		return 1;
	if (cdb_alloc_shape("sig", 1, (size_t[]){ 2 }, CDB_I32, (void **)&sig) !=
	    CDB_OK)
		return 1;
	t0 = time(NULL);
	while (time(NULL) - t0 < secs)
		;
	return 0;
}
