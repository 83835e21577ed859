/*
 * lint.c - the lint patterns in a user program's own calls (the first
 * argument picks one); colldb run warns with the source lines:
 *
 *   put-after   rank 0 notifies rank 1, then puts the data it announced
 *   eq          ranks 1.. add 1 to rank 0's counter; rank 0 waits == N-1
 *   set-shared  ranks 1 and 2 both set rank 0's flag
 *   reused      rank 1 waits twice on a flag rank 0 raised once
 *   ok          put, then notify, as it should be (no warning)
 *   rounds      200 rounds of ping-pong on one counter each, rank 0
 *               waiting >= round, rank 1 == round: the next generation
 *               every time, not a reused signal (no warning, however far
 *               the ranks run ahead of the shell)
 */
#include <stdio.h>
#include <string.h>

#include "colldb.h"

int
main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "ok";
	float *msg;
	int32_t *flag;
	int rank, n;

	if (cdb_init() != CDB_OK)
		return 2;
	rank = cdb_rank();
	n = cdb_nranks();
	cdb_alloc_shape("msg", 1, (size_t[]){ 8 }, CDB_F32, (void **)&msg);
	cdb_alloc_shape("flag", 1, (size_t[]){ 2 }, CDB_I32, (void **)&flag);
	if (strcmp(how, "set-shared") == 0) {
		if (rank == 0)
			cdb_wait(&flag[0], CDB_GE, 1);
		else if (rank <= 2)
			cdb_notify(0, &flag[0], 1, CDB_SET);
	} else if (strcmp(how, "reused") == 0) {
		if (rank == 0) {
			cdb_notify(1, &flag[0], 1, CDB_ADD);
		} else if (rank == 1) {
			cdb_wait(&flag[0], CDB_GE, 1);
			cdb_wait(&flag[0], CDB_GE, 1);
		}
	} else if (strcmp(how, "rounds") == 0) {
		for (int i = 1; i <= 200 && rank < 2; i++) {
			if (rank == 0) {
				cdb_notify(1, &flag[0], 1, CDB_ADD);
				cdb_wait(&flag[0], CDB_GE, i);
			} else {
				cdb_wait(&flag[0], CDB_EQ, i);
				cdb_notify(0, &flag[0], 1, CDB_ADD);
			}
		}
	} else if (strcmp(how, "eq") == 0) {
		if (rank == 0)
			cdb_wait(&flag[0], CDB_EQ, n - 1);
		else
			cdb_notify(0, &flag[0], 1, CDB_ADD);
	} else if (rank == 0) {
		for (int i = 0; i < 8; i++)
			msg[i] = (float)(i + 1);
		if (strcmp(how, "put-after") == 0) {
			cdb_notify(1, &flag[0], 1, CDB_SET);
			cdb_put(msg, 1, msg, 8, 0);
		} else {
			cdb_put(msg, 1, msg, 8, 0);
			cdb_notify(1, &flag[0], 1, CDB_SET);
		}
	} else if (rank == 1) {
		cdb_wait(&flag[0], CDB_GE, 1);
	}
	printf("rank %d: done\n", rank);
	return cdb_finalize() == CDB_OK ? 0 : 1;
}
