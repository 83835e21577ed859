/*
 * mpi-ops.c - `make bench`, mpi part: colldb's own operations on the mpi
 * transport next to the same operations written directly against MPI, in
 * the same MPI job and the same window (bench/mpi.sh runs it as a user
 * program: `colldb run -t mpi -n 2 --batch mpi-ops`, on one host and
 * across the two namespaces of tests/mpi/hosts.sh).
 *
 *   rtt        rank 0 notifies rank 1, which waits and notifies back: a
 *              program of 2 micro-ops per round on each rank, run by
 *              colldb's executor (step gate, board, spans, the mpi
 *              transport); raw: the plugin's RAW_RTT, the same loop of
 *              MPI_Accumulate + flush and MPI_Iprobe + MPI_Win_sync polls
 *   putbw      the same with a put of BYTES before each notify
 *   allreduce  colldb's ring allreduce program of BYTES f32 on every
 *              rank: PyPTO's composite (16 KiB sub-chunks, two barriers
 *              each: latency-bound across hosts, a network round trip per
 *              barrier and per read) and the builtin (one barrier and one
 *              read of the whole segment per step: MPI_Allreduce's data
 *              volume and message count); raw: MPI_Allreduce of the same
 *              size
 *
 * Prints one line per figure on rank 0 (median of ROUNDS programs of
 * ITERS rounds each, colldb's and MPI's alternating; bench/mpi.sh runs
 * the job BENCH_REPS times and takes 3 rounds of each).  Figures, not
 * tests: nothing asserts a time.
 *   mpi-ops [ITERS [BYTES [ROUNDS]]]     (2000, 64 MiB, 5)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "remote-rank.h"

#define ROUNDS_MAX 15

static struct remote rm;
static struct rank_ctx rc;
static uint32_t tag = 1000;

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_d);
	return v[n / 2];
}

/* Seconds rank_run() takes over p (freed). */
static double
run_timed(struct prog *p)
{
	struct done_info di;
	char *cause = NULL;
	uint64_t t0 = mono_ns(), t1;

	if (rank_run(&rc, p, tag++, PROG_F_USER, &di, &cause) != DONE_OK) {
		fprintf(stderr, "mpi-ops: %s\n",
		    cause != NULL ? cause : "failed");
		exit(1);
	}
	t1 = mono_ns();
	prog_free(p);
	return (double)(t1 - t0) / 1e9;
}

static void
op(struct prog *p, enum uop_kind k, int peer, uint64_t dst, int32_t value,
    uint64_t count)
{
	struct uop u;

	memset(&u, 0, sizeof u);
	u.kind = (uint8_t)k;
	u.dtype = k == UOP_PUT ? DT_U8 : DT_I32;
	u.op = k == UOP_WAIT ? CMP_GE :
	    k == UOP_NOTIFY  ? NOTIFY_ADD :
			       ATOMIC_NONE;
	u.peer = peer;
	u.value = value;
	u.dst = dst;
	u.count = count;
	prog_add(p, &u);
}

/* Seconds per round of a ping-pong program: rank 0 [put] notify, wait;
 * rank 1 wait, notify.  The cell at cell counts up from base. */
static double
pingpong(uint32_t iters, uint64_t bytes, uint64_t cell, int32_t base)
{
	struct prog *p = prog_new("pingpong");

	for (uint32_t k = 1; k <= iters; k++) {
		if (rc.rank == 0) {
			if (bytes > 0)
				op(p, UOP_PUT, 1, 0, 0, bytes);
			op(p, UOP_NOTIFY, 1, cell, 1, 1);
			op(p, UOP_WAIT, 0, cell, base + (int32_t)k, 1);
		} else if (rc.rank == 1) {
			op(p, UOP_WAIT, 0, cell, base + (int32_t)k, 1);
			op(p, UOP_NOTIFY, 0, cell, 1, 1);
		}
	}
	return run_timed(p) / iters;
}

static double
raw(int kind, uint32_t iters, uint64_t bytes, uint64_t off)
{
	struct mpi_raw_args a = { kind, iters, bytes, off };
	double secs = 0;

	if (rm.p->raw_bench(&a, &secs) != 0) {
		fprintf(stderr, "mpi-ops: the raw benchmark failed\n");
		exit(1);
	}
	return secs;
}

/* Seconds of one colldb ring allreduce of bytes f32 at offset 0 (its
 * signal after it), the composite or the builtin. */
static double
allreduce(uint64_t bytes, enum coll_impl impl)
{
	struct coll_args a;
	char *cause = NULL;
	int n = rc.t.nranks;

	memset(&a, 0, sizeof a);
	a.kind = COLL_ALLREDUCE;
	a.mode = MODE_RING;
	a.impl = impl;
	a.op = RED_SUM;
	a.has_sig = true;
	a.buf.dtype = DT_F32;
	a.buf.ndim = 1;
	a.buf.shape[0] = a.buf.count = bytes / 4;
	a.sig.off = (bytes + 63) / 64 * 64;
	a.sig.dtype = DT_I32;
	a.sig.ndim = 2;
	a.sig.shape[0] = 2 * (uint64_t)(n - 1) + (impl == IMPL_BUILTIN);
	a.sig.shape[1] = (uint64_t)n;
	a.sig.count = a.sig.shape[0] * a.sig.shape[1];
	if (coll_validate(&a, n, &cause, NULL) != 0) {
		fprintf(stderr, "mpi-ops: %s\n", cause);
		exit(1);
	}
	return run_timed(coll_build(&a, n, rc.rank));
}

int
main(int argc, char **argv)
{
	uint32_t iters = argc > 1 ? (uint32_t)atoi(argv[1]) : 2000;
	uint64_t bytes = argc > 2 ? strtoull(argv[2], NULL, 0) : 64ull << 20;
	int rounds = argc > 3 ? atoi(argv[3]) : 5;
	double c[ROUNDS_MAX], r[ROUNDS_MAX];
	/* colldb's cell, then the raw rtt's (the raw putbw's is at bytes,
	 * the allreduce's signal too: both end zeroed) */
	uint64_t cell = (bytes + 4095) / 4096 * 4096 + 4096;
	int32_t base = 0;
	char *cause = NULL;
	int n;

	if (rounds < 1 || rounds > ROUNDS_MAX) {
		fprintf(stderr, "mpi-ops: ROUNDS: expected 1 to %d, not '%s'\n",
		    ROUNDS_MAX, argv[3]);
		return 1;
	}
	if (remote_open(&rm, &rc, REMOTE_AGENT, &cause) != 0) {
		fprintf(stderr,
		    "mpi-ops: %s (run it under colldb run -t mpi)\n", cause);
		return 1;
	}
	n = rc.t.nranks;
	if (rc.seg.area_size < cell + 8192) {
		fprintf(stderr,
		    "mpi-ops: the window area is too small (--window-area)\n");
		return 1;
	}
	/* warm up both ranks in their loops, then alternate colldb and raw */
	pingpong(100, 0, cell, base);
	base += 100;
	for (int i = 0; i < rounds; i++) {
		c[i] = pingpong(iters, 0, cell, base);
		base += (int32_t)iters;
		r[i] = raw(RAW_RTT, iters, 0, cell + 64);
	}
	if (rc.rank == 0)
		printf("rtt %.3f %.3f\n", median(c, rounds) * 1e6,
		    median(r, rounds) * 1e6);
	for (int i = 0; i < rounds; i++) {
		c[i] = pingpong(iters / 100 + 2, bytes, cell, base);
		base += (int32_t)(iters / 100 + 2);
		r[i] = raw(RAW_PUTBW, iters / 100 + 2, bytes, 0);
	}
	if (rc.rank == 0)
		printf("putbw %.3f %.3f\n",
		    (double)bytes / median(c, rounds) / 1e9,
		    (double)bytes / median(r, rounds) / 1e9);
	for (int k = 0; k < 2; k++) {
		enum coll_impl impl = k ? IMPL_BUILTIN : IMPL_COMPOSITE;

		for (int i = 0; i < rounds; i++) {
			c[i] = allreduce(bytes, impl);
			r[i] = raw(RAW_ALLREDUCE, 2, bytes, 0);
		}
		/* busbw = 2(n-1)/n x bytes / time, as bench reports it */
		if (rc.rank == 0)
			printf("%s %.3f %.3f\n",
			    k ? "allreduce-builtin" : "allreduce",
			    2.0 * (n - 1) / n * (double)bytes /
				median(c, rounds) / 1e9,
			    2.0 * (n - 1) / n * (double)bytes /
				median(r, rounds) / 1e9);
	}
	fflush(stdout);
	seg_set_state(rc.board, RS_EXITED);
	remote_close(&rm);
	return 0;
}
