/*
 * forker.c - a user program that forks where it should not, for the
 * `colldb run` tests (core/rank.h, "fork() in a rank"):
 *
 *	inside	rank 0 forks from a signal handler while it is blocked in
 *		cdb_allreduce's wait: a thread of its own sends the signal
 *		once /proc says the main thread sleeps in futex there (never
 *		while it mallocs: a fork() there can deadlock in glibc), and
 *		rank 1 joins the allreduce only after the fork (it reads
 *		rank 0's "forked" cell with cdb_get), so no timing is
 *		assumed; the child must exit at once (status 125) and every
 *		allreduce stay right
 *	outside	every rank forks with its windows mapped; the child's cdb_*
 *		calls must fail
 *
 * Each rank prints what it saw; the exit status is 0 when all is well.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "colldb.h"

#define N 16384
#define ROUNDS 50
#define PATIENCE_MS 30000	/* a test that fails says so, it does not hang */

static volatile sig_atomic_t in_coll, forked;
static volatile pid_t child;
static int32_t *flag;		/* [0]: rank 0 forked; [1]: rank 1's copy */
static pid_t main_tid;
static char main_syscall[64];	/* /proc/self/task/TID/syscall */

static void
on_signal(int sig)
{
	(void)sig;
	if (forked || !in_coll)
		return;
	forked = 1;
	/* the child, were it to live, would go back into the collective as a
	 * second rank 0 (it does not: libcolldb ends it) */
	child = fork();
	__atomic_store_n(&flag[0], 1, __ATOMIC_RELEASE);
}

static void
nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* The main thread sleeps in futex(): the number /proc shows first. */
static int
main_in_futex(void)
{
	char buf[64];
	ssize_t n;
	int fd = open(main_syscall, O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10) == SYS_futex;
}

/* rank 0's signaller: once, when the main thread waits inside
 * cdb_allreduce (rank 1 holds back until the fork, so it waits there) */
static void *
signaller(void *arg)
{
	(void)arg;
	for (int ms = 0; ms < PATIENCE_MS && !forked; ms++) {
		if (in_coll && main_in_futex()) {
			syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
			break;
		}
		nap_ms(1);
	}
	return NULL;
}

static int
inside(int rank, int n)
{
	static float buf[N];
	pthread_t th;
	float *x;
	int32_t *sig;
	long wrong = 0;
	int st = -1;

	if (cdb_alloc_shape("x", 1, (size_t[]){ N }, CDB_F32, (void **)&x) != CDB_OK ||
	    cdb_alloc_shape("sig", 2, (size_t[]){ (size_t)n, 1 }, CDB_I32,
		(void **)&sig) != CDB_OK ||
	    cdb_alloc_shape("forked", 1, (size_t[]){ 2 }, CDB_I32,
		(void **)&flag) != CDB_OK)
		return 1;
	if (rank == 0) {
		main_tid = (pid_t)syscall(SYS_gettid);
		snprintf(main_syscall, sizeof main_syscall,
		    "/proc/self/task/%d/syscall", (int)main_tid);
		signal(SIGUSR1, on_signal);
		if (pthread_create(&th, NULL, signaller, NULL) != 0)
			return 1;
	}
	if (rank == 1) {
		/* rank 0 waits for us meanwhile, until it forked */
		for (int ms = 0; ms < PATIENCE_MS && flag[1] == 0; ms += 5) {
			if (cdb_get(&flag[1], 0, &flag[0], 1) != CDB_OK)
				return 1;
			if (flag[1] == 0)
				nap_ms(5);
		}
	}
	for (int k = 0; k < ROUNDS; k++) {
		for (int i = 0; i < N; i++)
			x[i] = (float)(rank + 1);
		in_coll = 1;
		if (cdb_allreduce(x, sig, CDB_SUM, 0) != CDB_OK)
			return 1;
		in_coll = 0;
		memcpy(buf, x, sizeof buf);
		for (int i = 0; i < N; i++)
			wrong += buf[i] != (float)(n * (n + 1) / 2);
	}
	if (rank == 0) {
		pthread_join(th, NULL);
		if (forked && child > 0 && waitpid(child, &st, 0) == child)
			printf("rank 0: forked inside; the child exited with %d\n",
			    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		else
			printf("rank 0: the signal never landed inside cdb_allreduce\n");
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
