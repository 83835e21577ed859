/*
 * proto-floor.c - `make bench`: the allreduce protocols' own floor.  The
 * composite mesh and ring allreduce that colldb runs (PyPTO's lowerings,
 * core/coll/allreduce-mesh.c and allreduce-ring.c), written directly with
 * C11 atomics between N processes: the same credit barriers (every rank
 * adds 1 to its cell in each peer's signal row, then waits for each of
 * its own cells to reach the barrier's generation), the same 16 KiB
 * chunks, the same data movement (one pass acc = own + peer with
 * core/kern.h's kernel, a cached store of acc into the own buffer after
 * the chunk's barrier), and nothing else: no executor, no step gate, no
 * board, no spans.  What colldb's figure is next to this one is what
 * colldb adds; what is left is the protocol's (its barriers per chunk and
 * its data volume) on this machine.
 *
 *   proto-floor [-d|-b] N mesh|ring SIZE [SECS]
 *
 * -d moves the data without the barriers (the ranks race: a time, not a
 * result), -b runs the barriers without the data: where the time goes.
 * SIZE in bytes (k, M suffixes), f32 sum; prints busbw in GB/s
 * (2(N-1)/N x SIZE / the median round, a round being the slowest rank's
 * call, calls back to back, as bench does).  Ranks pin to CPU r mod
 * ncpu; a wait spins when the ranks fit the CPUs, else yields.  The
 * generations grow from call to call (no epilogue: a few atomics a call).
 * SECS (0.2): how long each size runs after 3 warmup calls.
 */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "futex.h"
#include "kern.h"
#include "median.h"

#define CHUNK_BYTES (16u << 10)
#define MAX_ROUNDS 100000
#define SIG_BYTES 4096 /* a page of cells per rank, apart from the data */
#define MAX_RANKS 16   /* the ring's 2(N-1) rows of N cells fit SIG_BYTES */

static int nranks, spin, nodata, nobar; /* -d, -b */
static size_t size;
static uint8_t *mem;	   /* rank r: [signal page][buffer] */
static uint64_t *round_ns; /* [rank][round] */

static uint8_t *
area(int r)
{
	return mem + (size_t)r * (SIG_BYTES + size);
}

static _Atomic int32_t *
cell(int owner, int row, int j)
{
	return (_Atomic int32_t *)(void *)area(owner) + row * nranks + j;
}

static float *
buf(int r)
{
	return (float *)(void *)(area(r) + SIG_BYTES);
}

static void
wait_ge(_Atomic int32_t *c, int32_t g)
{
	while (atomic_load_explicit(c, memory_order_acquire) < g) {
		if (spin)
			cpu_relax();
		else
			sched_yield();
	}
}

/* PyPTO's credit barrier on row `row`: notify every peer, wait for all. */
static void
barrier(int me, int row, int32_t g)
{
	if (nobar)
		return;
	for (int j = 0; j < nranks; j++)
		if (j != me)
			atomic_fetch_add(cell(j, row, me), 1);
	for (int j = 0; j < nranks; j++)
		if (j != me)
			wait_ge(cell(me, row, j), g);
}

/* One mesh call: ready barrier; per chunk acc = own + every peer,
 * barrier, store.  gen: the generation before this call. */
static int32_t
mesh_call(int me, float *acc, int32_t gen)
{
	size_t n = size / 4, chunk = CHUNK_BYTES / 4;

	barrier(me, 0, ++gen);
	for (size_t first = 0; first < n; first += chunk) {
		size_t cnt = MIN(chunk, n - first);
		int p0 = me == 0 ? 1 : 0;

		if (!nodata) {
			kern_reduce(DT_F32, RED_SUM, acc, buf(me) + first,
			    buf(p0) + first, cnt);
			for (int j = p0 + 1; j < nranks; j++)
				if (j != me)
					kern_reduce(DT_F32, RED_SUM, acc, acc,
					    buf(j) + first, cnt);
		}
		barrier(me, 0, ++gen);
		if (!nodata)
			memcpy(buf(me) + first, acc, cnt * 4);
	}
	return gen;
}

/* One ring call: 2(N-1) steps on rows 0..2N-3, each over C sub-chunks of
 * its segment: barrier, read the left neighbour's sub-chunk (RS: acc =
 * own + left; AG: acc = left), barrier, store.  gens[row]: per row. */
static void
ring_call(int me, float *acc, int32_t *gens)
{
	size_t n = size / 4, chunk = CHUNK_BYTES / 4;
	size_t maxseg = (n + (size_t)nranks - 1) / (size_t)nranks;
	size_t c = (maxseg + chunk - 1) / chunk;
	int left = (me - 1 + nranks) % nranks;

	for (int part = 0; part < 2; part++)
		for (int s = 0; s < nranks - 1; s++) {
			int row = part * (nranks - 1) + s;
			int seg =
			    ((me - s - 2 + part) % nranks + 2 * nranks) % nranks;
			size_t b = (size_t)seg * n / (size_t)nranks;
			size_t e = (size_t)(seg + 1) * n / (size_t)nranks;

			for (size_t k = 0; k < c; k++) {
				size_t first = b + k * chunk;
				size_t cnt = first < e && !nodata ?
				    MIN(chunk, e - first) :
				    0;

				barrier(me, row, ++gens[row]);
				if (cnt != 0 && part == 0)
					kern_reduce(DT_F32, RED_SUM, acc,
					    buf(me) + first, buf(left) + first,
					    cnt);
				else if (cnt != 0)
					memcpy(acc, buf(left) + first, cnt * 4);
				barrier(me, row, ++gens[row]);
				if (cnt != 0)
					memcpy(buf(me) + first, acc, cnt * 4);
			}
		}
}

static void
rank_main(int me, int ring, int rounds)
{
	float *acc = aligned_alloc(64, CHUNK_BYTES);
	int32_t gen = 0, *gens = calloc((size_t)(2 * nranks), sizeof *gens);
	int cpus = get_nprocs();
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(me % cpus, &set);
	sched_setaffinity(0, sizeof set, &set);
	for (size_t i = 0; i < size / 4; i++)
		buf(me)[i] = (float)(i % 7);
	for (int i = 0; i < rounds; i++) {
		uint64_t t0 = mono_ns();

		if (ring)
			ring_call(me, acc, gens);
		else
			gen = mesh_call(me, acc, gen);
		round_ns[(size_t)me * MAX_ROUNDS + (size_t)i] = mono_ns() - t0;
	}
	free(acc);
	free(gens);
}

static int
usage(void)
{
	fprintf(stderr, "usage: proto-floor [-d|-b] N mesh|ring SIZE [SECS]\n");
	return 2;
}

static size_t
size_arg(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		return (size_t)v << 10;
	if (*end == 'm' || *end == 'M')
		return (size_t)v << 20;
	return *end == '\0' ? (size_t)v : 0;
}

/* Run `rounds` calls on every rank; the median of the slowest rank's. */
static uint64_t
run(int ring, int rounds)
{
	pid_t pid[MAX_RANKS];
	uint64_t *worst = malloc((size_t)rounds * sizeof *worst), m;

	for (int r = 1; r < nranks; r++)
		if ((pid[r] = fork()) == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			rank_main(r, ring, rounds);
			_exit(0);
		}
	rank_main(0, ring, rounds);
	for (int r = 1; r < nranks; r++)
		waitpid(pid[r], NULL, 0);
	for (int i = 0; i < rounds; i++) {
		worst[i] = 0;
		for (int r = 0; r < nranks; r++)
			worst[i] = MAX(worst[i],
			    round_ns[(size_t)r * MAX_ROUNDS + (size_t)i]);
	}
	m = median_u64(worst, (size_t)rounds);
	free(worst);
	return m;
}

int
main(int argc, char **argv)
{
	int ring, rounds, opt;
	double secs = 0.2;
	uint64_t warm;
	size_t len;

	while ((opt = getopt(argc, argv, "db")) != -1) {
		if (opt == 'd')
			nobar = 1;
		else if (opt == 'b')
			nodata = 1;
		else
			return usage();
	}
	argc -= optind;
	argv += optind;
	if (argc < 3 || (nranks = atoi(argv[0])) < 2 || nranks > MAX_RANKS ||
	    (strcmp(argv[1], "mesh") != 0 && strcmp(argv[1], "ring") != 0) ||
	    (size = size_arg(argv[2])) == 0 || size % 4 != 0 ||
	    size / 4 < (size_t)nranks ||
	    (argc > 3 && (secs = atof(argv[3])) <= 0))
		return usage();
	ring = strcmp(argv[1], "ring") == 0;
	spin = nranks <= get_nprocs();
	len = (size_t)nranks * (SIG_BYTES + size);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	round_ns = mmap(NULL, (size_t)nranks * MAX_ROUNDS * sizeof *round_ns,
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || round_ns == MAP_FAILED)
		return 1;
	memset(mem, 0, len);
	/* 3 warmup calls give the pace; then as many as fit in secs */
	warm = run(ring, 3);
	rounds = (int)MIN((double)MAX_ROUNDS,
	    MAX(5.0, secs * 1e9 / (double)(warm ? warm : 1)));
	memset(mem, 0, len);
	printf("%.2f\n",
	    2.0 * (nranks - 1) / nranks * (double)size /
		(double)run(ring, rounds));
	return 0;
}
