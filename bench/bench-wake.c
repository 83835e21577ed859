/*
 * bench-wake.c - `make bench`, transport part: notify->wait round trips
 * between two rank processes next to the physical floor (a bare C11
 * atomic ping-pong between two processes), and the CPU a rank blocked in
 * wait costs.  Figures, not tests: nothing here asserts a time.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "futex.h"
#include "rank.h"
#include "seg.h"
#include "shm.h"

#define ROUNDS 100000

static cpu_set_t all_cpus;	/* restored after each pinned measurement */

static void
unpin(void)
{
	sched_setaffinity(0, sizeof all_cpus, &all_cpus);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double
median_us(uint64_t *ns, size_t n)
{
	qsort(ns, n, sizeof *ns, cmp_u64);
	return (double)ns[n / 2] / 1e3;
}

/* The floor: two processes, one shared cache line, spin both ways. */
static double
floor_pingpong(void)
{
	_Atomic uint32_t *f = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t *t = malloc(ROUNDS * sizeof *t);
	pid_t pid;
	double m;

	atomic_store(f, 0);
	pid = fork();
	if (pid == 0) {
		rank_pin(1, 2);
		for (uint32_t i = 1; i <= ROUNDS; i++) {
			while (atomic_load_explicit(f, memory_order_acquire) != 2 * i - 1)
				cpu_relax();
			atomic_store_explicit(f, 2 * i, memory_order_release);
		}
		_exit(0);
	}
	rank_pin(0, 2);
	for (uint32_t i = 1; i <= ROUNDS; i++) {
		uint64_t t0 = mono_ns();
		atomic_store_explicit(f, 2 * i - 1, memory_order_release);
		while (atomic_load_explicit(f, memory_order_acquire) != 2 * i)
			cpu_relax();
		t[i - 1] = mono_ns() - t0;
	}
	waitpid(pid, NULL, 0);
	unpin();
	m = median_us(t, ROUNDS);
	free(t);
	munmap((void *)f, 4096);
	return m;
}

/* colldb: rank 0 notifies rank 1's ping, rank 1 waits and notifies back. */
static double
colldb_pingpong(struct seg *s, uint64_t ping, uint64_t pong)
{
	uint64_t *t = malloc(ROUNDS * sizeof *t);
	struct transport tr;
	int32_t seen;
	pid_t pid;
	double m;

	pid = fork();
	if (pid == 0) {
		rank_pin(1, 2);
		shm_transport_init(&tr, s, 1);
		for (int32_t i = 1; i <= ROUNDS; i++) {
			tr.ops->wait(&tr, ping, CMP_GE, i, &seen);
			tr.ops->notify(&tr, 0, pong, 1, NOTIFY_ADD);
		}
		_exit(0);
	}
	rank_pin(0, 2);
	shm_transport_init(&tr, s, 0);
	for (int32_t i = 1; i <= ROUNDS; i++) {
		uint64_t t0 = mono_ns();
		tr.ops->notify(&tr, 1, ping, 1, NOTIFY_ADD);
		tr.ops->wait(&tr, pong, CMP_GE, i, &seen);
		t[i - 1] = mono_ns() - t0;
	}
	waitpid(pid, NULL, 0);
	unpin();
	tr.ops->close(&tr);
	m = median_us(t, ROUNDS);
	free(t);
	return m;
}

/* The same through the rank executor: programs of ROUNDS notify/wait pairs
 * (step gate, status board, bounds checks included); mean per round trip. */
static double
executor_pingpong(struct seg *s, uint64_t ping, uint64_t pong)
{
	struct prog *p[2] = { prog_new("ping"), prog_new("pong") };
	uint64_t t0, t1;
	pid_t pids[2];

	for (int32_t i = 1; i <= ROUNDS; i++) {
		struct uop n0 = { .kind = UOP_NOTIFY, .dtype = DT_I32, .peer = 1,
			.dst = ping, .value = 1, .count = 1 };
		struct uop w0 = { .kind = UOP_WAIT, .dtype = DT_I32, .op = CMP_GE,
			.dst = pong, .value = i, .count = 1 };
		struct uop w1 = { .kind = UOP_WAIT, .dtype = DT_I32, .op = CMP_GE,
			.dst = ping, .value = ROUNDS + i, .count = 1 };
		struct uop n1 = { .kind = UOP_NOTIFY, .dtype = DT_I32, .peer = 0,
			.dst = pong, .value = 1, .count = 1 };
		prog_add(p[0], &n0);
		prog_add(p[0], &w0);
		prog_add(p[1], &w1);
		prog_add(p[1], &n1);
	}
	/* the cells hold ROUNDS from the first run: rank 0 restarts its
	 * expectations from there */
	for (int32_t i = 0; i < ROUNDS; i++)
		p[0]->mops[2 * i + 1].value += ROUNDS;
	t0 = mono_ns();
	for (int r = 0; r < 2; r++) {
		pids[r] = fork();
		if (pids[r] == 0) {
			struct rank_ctx rc;
			struct done_info di;
			char *cause = NULL;
			if (rank_attach(&rc, s->fd, -1, r, &cause) != 0)
				_exit(1);
			rank_pin(r, 2);
			_exit(rank_run(&rc, p[r], 1, 0, &di, &cause));
		}
	}
	for (int r = 0; r < 2; r++)
		waitpid(pids[r], NULL, 0);
	t1 = mono_ns();
	prog_free(p[0]);
	prog_free(p[1]);
	return (double)(t1 - t0) / ROUNDS / 1e3;
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

	pid = fork();
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
main(void)
{
	struct seg s;
	char *cause = NULL;
	uint64_t shape[1] = { 1 };
	struct seg_window *ping, *pong, *idle;
	double fl, cd, ex, cpu, secs = 5;

	sched_getaffinity(0, sizeof all_cpus, &all_cpus);
	if (seg_create(&s, "bench", 2, 1 << 20, 4096, &cause) != 0) {
		fprintf(stderr, "bench: %s\n", cause);
		return 1;
	}
	seg_unlink(&s);
	ping = seg_win_alloc(&s, "ping", shape, 1, DT_I32, 0, NULL);
	pong = seg_win_alloc(&s, "pong", shape, 1, DT_I32, 0, NULL);
	idle = seg_win_alloc(&s, "idle", shape, 1, DT_I32, 0, NULL);

	fl = floor_pingpong();
	cd = colldb_pingpong(&s, ping->off, pong->off);
	ex = executor_pingpong(&s, ping->off, pong->off);
	printf("notify->wait round trip, 2 ranks, %d round trips (median):\n", ROUNDS);
	printf("  C11 atomic ping-pong (floor)    %8.3f us\n", fl);
	printf("  colldb shm transport            %8.3f us   (%.2fx the floor)\n",
	    cd, cd / fl);
	printf("  colldb rank executor (mean)     %8.3f us   (%.2fx the floor)\n",
	    ex, ex / fl);
	cpu = blocked_cpu(&s, idle->off, secs);
	printf("CPU of a rank blocked in wait for %.0f s: %.4f s = %.3f%% of a core\n",
	    secs, cpu, 100 * cpu / secs);
	seg_close(&s);
	return 0;
}
