/*
 * span-cost.c - `make bench`, spans part: what recording spans costs.
 *
 * 1. One rank (this process) runs a program of cheap micro-ops (notify to
 *    itself, then a wait that holds at once, named like a collective's
 *    chunks) through rank_run, on a segment whose span ring is on and on
 *    one without a ring; the difference per record is the cost of a span.
 *    Also the writer alone (span_put in a loop).
 * 2. What it costs a bench: two rank processes run a real allreduce
 *    (coll_build, mesh and ring, 4 KiB and 64 KiB f32) back to back, as
 *    bench does, with spans off and at each detail (spans=ops|phases|
 *    roots); rank 0 times batches of runs.  The configurations alternate
 *    batch by batch (interleaved); each figure is the median batch, each
 *    % the median of the ratios of batches run side by side.
 * Figures, not tests.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "coll.h"
#include "futex.h"
#include "median.h"
#include "proto.h"
#include "rank.h"
#include "seg.h"
#include "span.h"

#define NOPS 65536 /* micro-ops per run */
#define RUNS 21	   /* per configuration, alternated */
#define RING (8u << 20)

/* notify(self, +0) then wait(>= 0), 8 micro-ops per chunk phase */
static struct prog *
program(uint64_t cell)
{
	struct prog *p = prog_new("spans");
	char name[64];

	for (int i = 0; i < NOPS; i++) {
		struct uop u;

		memset(&u, 0, sizeof u);
		u.kind = i % 2 ? UOP_WAIT : UOP_NOTIFY;
		u.dtype = DT_I32;
		u.dst = cell;
		u.count = 1;
		u.op = i % 2 ? CMP_GE : NOTIFY_ADD;
		snprintf(name, sizeof name, "bench.chunk%d.%s", i / 8,
		    i % 2 ? "wait" : "notify");
		u.name = prog_str(p, name);
		prog_add(p, &u);
	}
	return p;
}

/* Part 1 pins this process to CPU 0; part 2's ranks pin themselves. */
static void
unpin_all(void)
{
	cpu_set_t all;

	CPU_ZERO(&all);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	sched_setaffinity(0, sizeof all, &all);
}

struct world1 {
	struct seg seg;
	struct rank_ctx rc;
};

static void
open1(struct world1 *w, uint64_t span_bytes)
{
	char *cause = NULL;
	uint64_t shape[1] = { 8 };

	if (seg_create(&w->seg, "span-cost", 1, 1 << 20, span_bytes, &cause) != 0 ||
	    seg_win_alloc(&w->seg, "sig", shape, 1, DT_I32, 0, &cause) == NULL ||
	    rank_attach(&w->rc, w->seg.fd, -1, 0, &cause) != 0) {
		fprintf(stderr, "span-cost: %s\n", cause);
		exit(1);
	}
	seg_unlink(&w->seg);
}

static uint64_t
run(struct world1 *w, const struct prog *p, uint64_t *records)
{
	static struct span_rec buf[4096];
	struct done_info di;
	char *cause = NULL;
	uint64_t t0, t1;
	size_t n;

	t0 = mono_ns();
	if (rank_run(&w->rc, p, 1, 0, &di, &cause) != DONE_OK) {
		fprintf(stderr, "span-cost: %s\n", cause ? cause : "run failed");
		exit(1);
	}
	t1 = mono_ns();
	*records = 0;
	if (w->seg.h->span_bytes > 0) {
		while ((n = span_ring_read(seg_spans(&w->seg, 0),
			    w->seg.h->span_bytes, buf, 4096)) > 0)
			*records += n;
	}
	return t1 - t0;
}

/* ---- 2. a real allreduce on two ranks ------------------------------- */

#define AR_BATCH 200  /* runs timed together */
#define AR_BATCHES 15 /* rounds per pass */
#define AR_PASSES 3   /* a round: one batch of each configuration */

enum { CFG_OFF, CFG_OPS, CFG_PHASES, CFG_ROOTS, CFG__COUNT };
static const char *const cfg_names[CFG__COUNT] = { "spans off", "spans=ops",
	"spans=phases", "spans=roots" };

/* Rank r's loop: AR_PASSES x AR_BATCHES rounds, each one batch of
 * AR_BATCH runs of every configuration in turn, the ranks meeting on
 * `together` before each batch (after draining their rings); rank 0
 * writes each batch's ns per run into out. */
static void
ar_rank(struct seg *s, int r, const struct coll_args *a, double *out,
    _Atomic uint64_t *together)
{
	static const unsigned flags[CFG__COUNT] = { PROG_F_NOSPANS, 0,
		PROG_F_SPANS_PHASES, PROG_F_SPANS_ROOTS };
	struct rank_ctx rc;
	struct span_rec buf[4096];
	struct prog *p;
	char *cause = NULL;
	uint32_t iter = 0;

	if (rank_attach(&rc, s->fd, -1, r, &cause) != 0)
		_exit(1);
	rank_pin(r, 2);
	p = coll_build(a, 2, r);
	for (int k = 0; k < AR_PASSES * AR_BATCHES; k++) {
		for (int c = 0; c < CFG__COUNT; c++) {
			{
				struct done_info di;
				uint64_t t0;

				/* both ranks drained: a batch does not pay
				 * for the one before it */
				atomic_fetch_add(together, 1);
				while (atomic_load(together) <
				    2 * (uint64_t)(k * CFG__COUNT + c + 1))
					sched_yield();
				t0 = mono_ns();
				for (int i = 0; i < AR_BATCH; i++, iter++) {
					rc.iter = iter;
					rc.checked = iter > 0;
					if (rank_run(&rc, p, 1, flags[c], &di,
						&cause) != DONE_OK)
						_exit(1);
				}
				if (r == 0)
					out[k * CFG__COUNT + c] =
					    (double)(mono_ns() - t0) / AR_BATCH;
				/* the shell's part: drain the ring */
				while (span_ring_read(seg_spans(s, r),
					   s->h->span_bytes, buf, 4096) > 0)
					;
			}
		}
	}
	prog_free(p);
	_exit(0);
}

/* The spans=roots overhead over spans off, in percent. */
static double
allreduce_costs(enum coll_mode mode, uint64_t bytes)
{
	size_t n = AR_PASSES * CFG__COUNT * AR_BATCHES;
	double *t = mmap(NULL, n * sizeof *t + 64, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	_Atomic uint64_t *together = (_Atomic uint64_t *)(void *)(t + n);
	struct seg s;
	struct coll_args a;
	struct seg_window *bw, *sw;
	uint64_t shape[1] = { bytes / 4 };
	uint64_t sshape[2] = { 2, mode == MODE_RING ? 2 : 1 }; /* 2(N-1) x N */
	char *cause = NULL;
	double med[CFG__COUNT], over[CFG__COUNT];
	pid_t pid[2];

	if (seg_create(&s, "span-cost-ar", 2, 64u << 20, 16u << 20, &cause) != 0) {
		fprintf(stderr, "span-cost: %s\n", cause);
		exit(1);
	}
	seg_unlink(&s);
	bw = seg_win_alloc(&s, "buf", shape, 1, DT_F32, 0, &cause);
	sw = seg_win_alloc(&s, "sig", sshape, 2, DT_I32, 0, &cause);
	if (bw == NULL || sw == NULL) {
		fprintf(stderr, "span-cost: %s\n", cause);
		exit(1);
	}
	memset(&a, 0, sizeof a);
	a.kind = COLL_ALLREDUCE;
	a.mode = mode;
	a.op = RED_SUM;
	a.strict = true;
	a.has_sig = true;
	seg_win_ref(bw, &a.buf);
	seg_win_ref(sw, &a.sig);
	if (coll_validate(&a, 2, &cause, NULL) != 0) {
		fprintf(stderr, "span-cost: %s\n", cause);
		exit(1);
	}
	for (int r = 0; r < 2; r++) {
		if ((pid[r] = fork()) == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			ar_rank(&s, r, &a, t, together);
		}
	}
	for (int r = 0; r < 2; r++)
		waitpid(pid[r], NULL, 0);
	/* a figure: the median batch; a % over spans off: the median of the
	 * per-round ratios (a round's batches ran side by side, so a change
	 * of load on a shared machine hits both) */
	for (int c = 0; c < CFG__COUNT; c++) {
		double v[AR_PASSES * AR_BATCHES], q[AR_PASSES * AR_BATCHES];

		for (int k = 0; k < AR_PASSES * AR_BATCHES; k++) {
			v[k] = t[k * CFG__COUNT + c];
			q[k] = v[k] / t[k * CFG__COUNT + CFG_OFF];
		}
		med[c] = median_double(v, AR_PASSES * AR_BATCHES);
		over[c] = 100 * (median_double(q, AR_PASSES * AR_BATCHES) - 1);
	}
	printf("  %s %3llu KiB:", mode == MODE_RING ? "ring" : "mesh",
	    (unsigned long long)(bytes >> 10));
	for (int c = 0; c < CFG__COUNT; c++) {
		printf("  %s %.2f us", cfg_names[c], med[c] / 1e3);
		if (c > CFG_OFF)
			printf(" (%+.1f%%)", over[c]);
	}
	printf("\n");
	munmap(t, n * sizeof *t + 64);
	seg_close(&s);
	return over[CFG_ROOTS];
}

/* One verdict line: MET or OVER TARGET (a figure, never a failure). */
static void
verdict(int met, const char *goal, double x, const char *unit)
{
	printf("  %s: %s (%.1f%s)\n", met ? "MET" : "OVER TARGET", goal, x, unit);
}

int
main(void)
{
	struct world1 on, off;
	struct prog *p;
	uint64_t t_on[RUNS], t_off[RUNS], recs = 0, lost, m_on, m_off;
	struct span_writer sw;
	uint64_t w0, w1;
	double per_op_on, per_op_off, per_span, writer, roots[4], worst;

	rank_pin(0, 1);
	open1(&on, RING);
	open1(&off, 0);
	p = program(0);
	for (int i = 0; i < RUNS; i++) {
		uint64_t r;

		t_on[i] = run(&on, p, &r);
		recs = r;
		t_off[i] = run(&off, p, &r);
	}
	lost = span_ring_lost(seg_spans(&on.seg, 0));
	m_on = median_u64(t_on, RUNS);
	m_off = median_u64(t_off, RUNS);
	per_op_on = (double)m_on / NOPS;
	per_op_off = (double)m_off / NOPS;
	per_span = ((double)m_on - (double)m_off) / (double)recs;

	/* the writer alone: records into the ring, drained every 64k */
	span_writer_begin(&sw, seg_spans(&on.seg, 0), on.seg.h->span_bytes, p,
	    0, 1, 0, SPAN_DETAIL_OPS);
	w0 = mono_ns();
	for (uint32_t i = 0; i < 1u << 20; i++) {
		span_put(&sw, i, i + 1, i % NOPS, SPAN_LEVEL_OP, 0, 0);
		if ((i & 0xffff) == 0xffff) {
			static struct span_rec buf[4096];
			while (span_ring_read(seg_spans(&on.seg, 0),
				   on.seg.h->span_bytes, buf, 4096) > 0)
				;
		}
	}
	w1 = mono_ns();
	span_writer_end(&sw, 0);
	writer = (double)(w1 - w0) / (1u << 20);

	printf("  micro-ops per run %d, span records per run %llu (%.3f per op), %llu lost\n",
	    NOPS, (unsigned long long)recs, (double)recs / NOPS,
	    (unsigned long long)lost);
	printf("  rank_run, spans off   %7.1f ns per micro-op (median of %d runs)\n",
	    per_op_off, RUNS);
	printf("  rank_run, spans on    %7.1f ns per micro-op\n", per_op_on);
	printf("  per span              %7.1f ns (target < 100 ns)\n", per_span);
	printf("  the writer alone      %7.1f ns per record (span_put)\n",
	    writer);
	prog_free(p);
	rank_detach(&on.rc);
	rank_detach(&off.rc);

	printf("  what spans cost a bench: 2 ranks, allreduce f32 back to back, ns per call (median batch of %d calls; %% over spans off)\n",
	    AR_BATCH);
	unpin_all();
	roots[0] = allreduce_costs(MODE_MESH, 4096);
	roots[1] = allreduce_costs(MODE_RING, 4096);
	roots[2] = allreduce_costs(MODE_MESH, 65536);
	roots[3] = allreduce_costs(MODE_RING, 65536);
	printf(
	    "  (bench records spans=roots unless told: the target is < 5%% over spans off)\n");
	verdict(per_span < 100, "per span < 100 ns", per_span, " ns");
	worst = roots[0];
	for (int i = 1; i < 4; i++)
		worst = roots[i] > worst ? roots[i] : worst;
	verdict(worst < 5,
	    "spans=roots < 5% over spans off (the worst of the four)", worst,
	    "%");
	return 0;
}
