/*
 * span-cost.c - `make bench`, spans part: what recording spans costs a
 * rank.  One rank (this process) runs a program of cheap micro-ops
 * (notify to itself, then a wait that holds at once, named like a
 * collective's chunks) through rank_run, on a segment whose span ring is
 * on and on one without a ring; the difference per record is the cost of a
 * span.  Also the writer alone (span_put in a loop).  Figures, not tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "futex.h"
#include "rank.h"
#include "seg.h"
#include "span.h"

#define NOPS 65536		/* micro-ops per run */
#define RUNS 21			/* per configuration, alternated */
#define RING (8u << 20)

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t
median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_u64);
	return v[n / 2];
}

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

struct world1 {
	struct seg seg;
	struct rank_ctx rc;
};

static void
open1(struct world1 *w, uint64_t span_bytes)
{
	char *cause = NULL;
	uint64_t shape[1] = { 8 };

	if (seg_create(&w->seg, "span-cost", 1, 1 << 20, span_bytes,
	    &cause) != 0 ||
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

int
main(void)
{
	struct world1 on, off;
	struct prog *p;
	uint64_t t_on[RUNS], t_off[RUNS], recs = 0, lost, m_on, m_off;
	struct span_writer sw;
	uint64_t w0, w1;
	double per_op_on, per_op_off, per_span, writer;

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
	m_on = median(t_on, RUNS);
	m_off = median(t_off, RUNS);
	per_op_on = (double)m_on / NOPS;
	per_op_off = (double)m_off / NOPS;
	per_span = ((double)m_on - (double)m_off) / (double)recs;

	/* the writer alone: records into the ring, drained every 64k */
	span_writer_begin(&sw, seg_spans(&on.seg, 0), on.seg.h->span_bytes, p,
	    0, 1, 0);
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
	printf("  the writer alone      %7.1f ns per record (span_put)\n", writer);
	prog_free(p);
	rank_detach(&on.rc);
	rank_detach(&off.rc);
	return 0;
}
