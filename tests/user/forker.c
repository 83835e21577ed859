/*
 * forker.c - a user program that forks where it should not, for the
 * `colldb run` tests (core/rank.h, "fork() in a rank"):
 *
 *	inside	rank 0 forks from a SIGALRM handler that lands inside
 *		cdb_allreduce (blocked in its wait for rank 1, which comes
 *		late, so the handler never interrupts malloc: fork() there
 *		could deadlock in glibc): the child must exit at once
 *		(status 125) and every allreduce stay right
 *	outside	every rank forks with its windows mapped; the child's cdb_*
 *		calls must fail
 *
 * Each rank prints what it saw; the exit status is 0 when all is well.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "colldb.h"

#define N 16384
#define ROUNDS 50

static volatile sig_atomic_t in_coll, forked;
static volatile pid_t child;

static void
on_alarm(int sig)
{
	(void)sig;
	if (forked || !in_coll)
		return;
	forked = 1;
	/* the child, were it to live, would go back into the collective as a
	 * second rank 0 (it does not: libcolldb ends it) */
	child = fork();
}

static int
inside(int rank, int n)
{
	static float buf[N];
	struct itimerval it = { { 0, 0 }, { 0, 100000 } };	/* once, 100 ms */
	float *x;
	int32_t *sig;
	long wrong = 0;
	int st = -1;

	if (cdb_alloc_shape("x", 1, (size_t[]){ N }, CDB_F32, (void **)&x) != CDB_OK ||
	    cdb_alloc_shape("sig", 2, (size_t[]){ (size_t)n, 1 }, CDB_I32,
		(void **)&sig) != CDB_OK)
		return 1;
	if (rank == 0) {
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	for (int k = 0; k < ROUNDS; k++) {
		for (int i = 0; i < N; i++)
			x[i] = (float)(rank + 1);
		if (k == 0 && rank == 1)
			usleep(400000);	/* rank 0 waits for us meanwhile */
		in_coll = 1;
		if (cdb_allreduce(x, sig, CDB_SUM, 0) != CDB_OK)
			return 1;
		in_coll = 0;
		memcpy(buf, x, sizeof buf);
		for (int i = 0; i < N; i++)
			wrong += buf[i] != (float)(n * (n + 1) / 2);
	}
	if (rank == 0) {
		setitimer(ITIMER_REAL, &(struct itimerval){ { 0, 0 }, { 0, 0 } }, NULL);
		if (forked && child > 0 && waitpid(child, &st, 0) == child)
			printf("rank 0: forked inside; the child exited with %d\n",
			    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		else
			printf("rank 0: the timer never landed inside cdb_allreduce\n");
	}
	printf("rank %d: %d rounds, %ld wrong\n", rank, ROUNDS, wrong);
	return wrong != 0 || (rank == 0 && (!forked || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 125));
}

static int
outside(int rank, int n)
{
	int32_t *sig;
	pid_t pid;
	int st;

	if (cdb_alloc_shape("sig", 1, (size_t[]){ 1 }, CDB_I32, (void **)&sig) != CDB_OK)
		return 1;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int err = cdb_notify((rank + 1) % n, sig, 1, CDB_ADD);
		printf("rank %d's child: cdb_notify: %s (%s)\n", rank,
		    cdb_strerror(err), cdb_errmsg());
		fflush(stdout);
		_exit(err == CDB_ERR_INIT ? 0 : 1);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	cdb_notify((rank + 1) % n, sig, 1, CDB_ADD);
	cdb_wait(sig, CDB_GE, 1);
	printf("rank %d: the rank itself still works (sig %d)\n", rank, *sig);
	return 0;
}

int
main(int argc, char **argv)
{
	int rank, n, rc;

	if (cdb_init() != CDB_OK)
		return 1;
	rank = cdb_rank();
	n = cdb_nranks();
	rc = argc > 1 && strcmp(argv[1], "outside") == 0 ? outside(rank, n) :
	    inside(rank, n);
	return cdb_finalize() == CDB_OK ? rc : 1;
}
