/*
 * bench-wake.c - `make bench`, transport part: notify->wait round trips
 * between two rank processes next to the floors (bare C11 atomic
 * ping-pongs between two processes), and the CPU a rank blocked in wait
 * costs.  Figures, not tests: nothing here asserts a time.
 *
 *   bench-wake		the table (REPEATS interleaved runs) and the CPU
 *   bench-wake -k	one run of each, one line of us for bench/peers.sh:
 *			LINE_FLOOR PROTOCOL_FLOOR TRANSPORT EXECUTOR
 *   bench-wake -c [SECS]	the CPU of a rank blocked for SECS (5) only
 */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "futex.h"
#include "median.h"
#include "rank.h"
#include "seg.h"
#include "shm.h"

#define BATCH 1000  /* round trips timed together */
#define BATCHES 100 /* per measurement */
#define ROUNDS (BATCH * BATCHES)
#define REPEATS 5 /* measurements of each, interleaved */

static cpu_set_t all_cpus; /* restored after each pinned measurement */

/*
 * The spinning floors never yield: on a machine busy with other work a
 * run can take a scheduler slice per round trip.  Give up (SIGALRM ends
 * us) rather than spin for ever, and never leave a spinning child.
 */
#define GIVE_UP_SECS 120

static pid_t
fork_rank(void)
{
	pid_t pid = fork();

	if (pid == 0)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	return pid;
}

static void
unpin(void)
{
	sched_setaffinity(0, sizeof all_cpus, &all_cpus);
}

/* The median batch, per round trip: the clock is read once per BATCH
 * round trips (its 10 ns steps on this VM would dwarf one). */
static double
median_us(uint64_t *ns, size_t n)
{
	return (double)median_u64(ns, n) / 1e3 / BATCH;
}

/*
 * The floors, bare C11 atomics between two processes spinning both ways:
 * one shared cache line that each side stores to (the hardware's
 * minimum), and the notify/wait protocol itself (each side waits on a
 * cell in its own page and fetch_adds the other's: what any shm
 * notify(add)/wait must do, and what colldb's transport is held to).
 */
static double
floor_pingpong(int protocol)
{
	char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	_Atomic uint32_t *ping = (_Atomic uint32_t *)m;
	_Atomic uint32_t *pong = (_Atomic uint32_t *)(m + (protocol ? 4096 : 0));
	uint64_t *t = malloc(BATCHES * sizeof *t), t0 = 0;
	pid_t pid;
	double med;

	pid = fork_rank();
	if (pid == 0) {
		rank_pin(1, 2);
		for (uint32_t i = 1; i <= ROUNDS; i++) {
			uint32_t want = protocol ? i : 2 * i - 1;

			while (atomic_load_explicit(ping,
				   memory_order_acquire) != want)
				cpu_relax();
			if (protocol)
				atomic_fetch_add(pong, 1);
			else
				atomic_store_explicit(pong, 2 * i,
				    memory_order_release);
		}
		_exit(0);
	}
	rank_pin(0, 2);
	for (uint32_t i = 1; i <= ROUNDS; i++) {
		uint32_t want = protocol ? i : 2 * i;

		if (i % BATCH == 1)
			t0 = mono_ns();
		if (protocol)
			atomic_fetch_add(ping, 1);
		else
			atomic_store_explicit(ping, 2 * i - 1,
			    memory_order_release);
		while (atomic_load_explicit(pong, memory_order_acquire) != want)
			cpu_relax();
		if (i % BATCH == 0)
			t[i / BATCH - 1] = mono_ns() - t0;
	}
	waitpid(pid, NULL, 0);
	unpin();
	med = median_us(t, BATCHES);
	free(t);
	munmap(m, 8192);
	return med;
}

/* One line of the table: the median and range of us (if any), the median
 * ratio (if any). */
static void
row(const char *what, double *us, double *ratio, const char *of)
{
	printf("  %-50s", what);
	if (us != NULL) {
		double m = median_double(us, REPEATS);
		printf(" %7.3f us [%.3f..%.3f]", m, us[0], us[REPEATS - 1]);
	}
	if (us == NULL)
		printf(" %30s", "");
	if (ratio != NULL)
		printf("  %.2fx %s", median_double(ratio, REPEATS), of);
	printf("\n");
}

/* colldb: rank 0 notifies rank 1's ping, rank 1 waits and notifies back.
 * The cells start where the last run left them (base). */
static double
colldb_pingpong(struct seg *s, uint64_t ping, uint64_t pong, int32_t base)
{
	uint64_t *t = malloc(BATCHES * sizeof *t), t0 = 0;
	struct transport tr;
	int32_t seen;
	pid_t pid;
	double m;

	pid = fork_rank();
	if (pid == 0) {
		rank_pin(1, 2);
		shm_transport_init(&tr, s, 1);
		for (int32_t i = 1; i <= ROUNDS; i++) {
			tr.ops->wait(&tr, ping, CMP_GE, base + i, &seen);
			tr.ops->notify(&tr, 0, pong, 1, NOTIFY_ADD);
		}
		_exit(0);
	}
	rank_pin(0, 2);
	shm_transport_init(&tr, s, 0);
	for (int32_t i = 1; i <= ROUNDS; i++) {
		if (i % BATCH == 1)
			t0 = mono_ns();
		tr.ops->notify(&tr, 1, ping, 1, NOTIFY_ADD);
		tr.ops->wait(&tr, pong, CMP_GE, base + i, &seen);
		if (i % BATCH == 0)
			t[i / BATCH - 1] = mono_ns() - t0;
	}
	waitpid(pid, NULL, 0);
	unpin();
	tr.ops->close(&tr);
	m = median_us(t, BATCHES);
	free(t);
	return m;
}

/*
 * The same through the rank executor (step gate, status board, bounds
 * checks included): programs of BATCH notify/wait pairs that each rank
 * runs BATCHES times back to back, as bench repeats a collective; rank 0
 * times each run.  Between runs every rank moves its expectations on by
 * BATCH (the cells keep counting), before rank 0's clock starts.
 */
static double
executor_pingpong(struct seg *s, uint64_t ping, uint64_t pong, int32_t base)
{
	uint64_t *t = mmap(NULL, BATCHES * sizeof *t, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct prog *p[2] = { prog_new("ping"), prog_new("pong") };
	pid_t pids[2];
	double m;

	for (int32_t i = 1; i <= BATCH; i++) {
		struct uop n0 = { .kind = UOP_NOTIFY,
			.dtype = DT_I32,
			.peer = 1,
			.dst = ping,
			.value = 1,
			.count = 1 };
		struct uop w0 = { .kind = UOP_WAIT,
			.dtype = DT_I32,
			.op = CMP_GE,
			.dst = pong,
			.value = base + i,
			.count = 1 };
		struct uop w1 = { .kind = UOP_WAIT,
			.dtype = DT_I32,
			.op = CMP_GE,
			.dst = ping,
			.value = base + i,
			.count = 1 };
		struct uop n1 = { .kind = UOP_NOTIFY,
			.dtype = DT_I32,
			.peer = 0,
			.dst = pong,
			.value = 1,
			.count = 1 };
		prog_add(p[0], &n0);
		prog_add(p[0], &w0);
		prog_add(p[1], &w1);
		prog_add(p[1], &n1);
	}
	for (int r = 0; r < 2; r++) {
		pids[r] = fork_rank();
		if (pids[r] == 0) {
			struct rank_ctx rc;
			struct done_info di;
			char *cause = NULL;
			if (rank_attach(&rc, s->fd, -1, r, &cause) != 0)
				_exit(1);
			rank_pin(r, 2);
			for (int k = 0; k < BATCHES; k++) {
				uint64_t t0;

				for (size_t i = 0; k > 0 && i < p[r]->nmops; i++)
					if (p[r]->mops[i].kind == UOP_WAIT)
						p[r]->mops[i].value += BATCH;
				rc.iter = (uint32_t)k;
				rc.checked = k > 0; /* validated once */
				t0 = mono_ns();
				if (rank_run(&rc, p[r], 1, 0, &di, &cause) !=
				    DONE_OK)
					_exit(1);
				t[k] = mono_ns() - t0;
			}
			_exit(0);
		}
	}
	for (int r = 0; r < 2; r++)
		waitpid(pids[r], NULL, 0);
	prog_free(p[0]);
	prog_free(p[1]);
	m = median_us(t, BATCHES);
	munmap(t, BATCHES * sizeof *t);
	return m;
}

/* A rank blocked in wait for secs: how much CPU did it use? */
static double
blocked_cpu(struct seg *s, uint64_t cell, double secs)
{
	struct transport tr;
	struct rusage ru;
	int32_t seen;
	pid_t pid;
	int st;

	pid = fork_rank();
	if (pid == 0) {
		rank_pin(1, 2);
		shm_transport_init(&tr, s, 1);
		tr.ops->wait(&tr, cell, CMP_GE, 1, &seen);
		_exit(0);
	}
	usleep((useconds_t)(secs * 1e6));
	shm_transport_init(&tr, s, 0);
	tr.ops->notify(&tr, 1, cell, 1, NOTIFY_ADD);
	tr.ops->close(&tr);
	wait4(pid, &st, 0, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int
main(int argc, char **argv)
{
	struct seg s;
	char *cause = NULL;
	uint64_t shape[1] = { 1 };
	struct seg_window *ping, *pong, *idle;
	double fl[REPEATS], cd[REPEATS], ex[REPEATS], cpu, secs = 5;
	double rt_cd[REPEATS], rt_ex[REPEATS], ex_cd[REPEATS], line[REPEATS];

	sched_getaffinity(0, sizeof all_cpus, &all_cpus);
	alarm(GIVE_UP_SECS);
	if (seg_create(&s, "bench", 2, 1 << 20, 4096, &cause) != 0) {
		fprintf(stderr, "bench: %s\n", cause);
		return 1;
	}
	seg_unlink(&s);
	ping = seg_win_alloc(&s, "ping", shape, 1, DT_I32, 0, NULL);
	pong = seg_win_alloc(&s, "pong", shape, 1, DT_I32, 0, NULL);
	idle = seg_win_alloc(&s, "idle", shape, 1, DT_I32, 0, NULL);
	if (argc > 1 && strcmp(argv[1], "-k") == 0) {
		/* in this order: the colldb runs continue each other's cells */
		double l = floor_pingpong(0), f = floor_pingpong(1);
		double c = colldb_pingpong(&s, ping->off, pong->off, 0);
		double e = executor_pingpong(&s, ping->off, pong->off, ROUNDS);

		printf("%.4f %.4f %.4f %.4f\n", l, f, c, e);
		seg_close(&s);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "-c") == 0) {
		if (argc > 2 && atof(argv[2]) > 0)
			secs = atof(argv[2]);
		goto cpu;
	}

	/* interleaved, so a change of load hits them all alike */
	for (int k = 0; k < REPEATS; k++) {
		line[k] = floor_pingpong(0);
		fl[k] = floor_pingpong(1);
		cd[k] = colldb_pingpong(&s, ping->off, pong->off, 2 * k * ROUNDS);
		ex[k] = executor_pingpong(&s, ping->off, pong->off,
		    (2 * k + 1) * ROUNDS);
		rt_cd[k] = cd[k] / fl[k];
		rt_ex[k] = ex[k] / fl[k];
		ex_cd[k] = ex[k] / cd[k];
	}
	printf("notify->wait round trip, 2 ranks: median of %d runs, interleaved; a run's figure is its median batch of %d round trips\n",
	    REPEATS, BATCH);
	row("C11, one line, stores (the hardware's floor)", line, NULL, NULL);
	row("C11, two cells, fetch_add (the protocol's floor)", fl, NULL, NULL);
	row("colldb shm transport", cd, rt_cd,
	    "the protocol's floor (target <= 1.2x)");
	row("colldb rank executor", ex, rt_ex, "the protocol's floor");
	row("colldb executor / transport", NULL, ex_cd, "(target <= 2x)");
cpu:
	cpu = blocked_cpu(&s, idle->off, secs);
	printf("CPU of a rank blocked in wait for %g s: %.4f s = %.3f%% of a core\n",
	    secs, cpu, 100 * cpu / secs);
	seg_close(&s);
	return 0;
}
