/*
 * allreduce-ring.c - ring allreduce: the InCore composite and the builtin.
 *
 * Composite (lower_composite_ops_pass.cpp
 * LowerTensorRingAllReduceRule), signal [2(N-1),N], cell [row,j]:
 *   the target is one [1,SIZE] stream cut into N segments,
 *   segment i = [floor(i*SIZE/N), floor((i+1)*SIZE/N)); for f16 every
 *   boundary is rounded up to 16 elements (32 bytes) and clamped to SIZE.
 *   max_seg = ceil(SIZE/N) (f16: min(SIZE, ceil(SIZE/N) + 15));
 *   chunk = 16 KiB / elem bytes, or max_seg rounded up to 32 bytes when
 *   smaller; C = ceil(max_seg / chunk).  left = (me-1+N) mod N.
 *   RS step s = 0..N-2 on row s, segment (me-s-2) mod N;
 *   AG step s = 0..N-2 on row N-1+s, segment (me-s-1) mod N.
 *   Every step runs C sub-chunks k, each: barrier g=2k+1 (ready), read
 *   left's sub-chunk (RS: acc = own op left; AG: acc = left), barrier
 *   g=2k+2 (read done), store acc into own sub-chunk.
 *   Epilogue: -2C on every non-self cell of every row.
 *
 *   SIZE < N and SIZE not divisible by N: segments differ in length and
 *   may be empty, but PyPTO loops every step over the same C sub-chunks
 *   (the bound is max_seg, not the rank's own segment) and only skips the
 *   data movement of a sub-chunk past the segment's end ("inactive").  So
 *   every rank runs exactly 2C barriers per row and the epilogue's -2C is
 *   right on every row; a builder that skipped empty sub-chunks would
 *   deadlock (a peer waits for credits never sent).  We do the same: the
 *   barriers are always emitted, the data ops only for active sub-chunks.
 *
 * Builtin (allreduce_ring/templates/kernel.cpp.in),
 * signal [2(N-1)+1,N]: segment i = [i*SIZE/N, (i+1)*SIZE/N) (SIZE % N ==
 * 0 is validated), one RoundBarrier (g=1) at the start of each step on its
 * own row; RS step s: own segment (me-s-2) mod N op= left's; AG step s:
 * own segment (me-s-1) mod N = left's; then a final barrier on row
 * 2(N-1) so no rank leaves while a peer still reads; epilogue -1 on every
 * non-self cell of each of the 2(N-1)+1 rows.  N == 1 (and N > 16): the
 * kernel returns at once, so the program is empty.
 *
 * Decisions:
 * - The builtin walks each segment in 256-element tiles with no
 *   synchronisation between tiles, so one reduce (or get) per step is
 *   indistinguishable from the tile loop; we emit one op per step.  It
 *   reduces straight into the own segment, as the kernel's TLOAD/TADD/
 *   TSTORE does, without the accumulator.
 * - The composite's AG also stages through the accumulator (copy from left
 *   before the read-done barrier, store after it), as the lowering does,
 *   so a stepped run shows the store where PyPTO has it.
 * - Composite ring on one rank is rejected by validate.c: its signal would
 *   be [0,1], which cannot be allocated.
 */
#include <stdio.h>

#include "../xmalloc.h"
#include "coll-int.h"

/*
 * Composite.  Rank me's program is 2(N-1) steps, then the epilogues (one
 * per row of the signal, N-1 ops each).  Step (part, s) on segment seg
 * runs C sub-chunks; sub-chunk k is active when k * chunk < len(seg), and
 * the active ones come first, so a step is
 *
 *	a(seg) active sub-chunks of 2 bar + (rs ? 3 : 2) ops, then
 *	C - a(seg) inactive ones of 2 bar ops.
 *
 * Finding the step of a pc: walk forward from the block asked before (a
 * rank reads its program in order: O(1) each), else a binary search over
 * the steps with the prefix sums of a() over the segments (built once per
 * collective, N + 1 entries), O(log N).
 */
static uint64_t
ring_seg_begin(const struct coll_desc *d, uint64_t i)
{
	uint64_t n = (uint64_t)d->n, size = d->a.buf.count;

	if (!d->f16)
		return i * size / n;
	return MIN(ceil_div(i * size, n * d->align) * d->align, size);
}

static uint64_t
ring_seg_len(const struct coll_desc *d, uint64_t i)
{
	return ring_seg_begin(d, i + 1) - ring_seg_begin(d, i);
}

/* Active sub-chunks of segment i. */
static uint64_t
ring_active(const struct coll_desc *d, uint64_t i)
{
	return MIN(d->nchunks, ceil_div(ring_seg_len(d, i), d->chunk));
}

static void
ring_init(struct coll_desc *d)
{
	const struct win_ref *b = &d->a.buf;
	uint64_t n = (uint64_t)d->n, max_seg = ceil_div(b->count, n);
	uint64_t chunk = COLL_CHUNK_BYTES / d->esz;

	d->f16 = b->dtype == DT_F16;
	d->align = COLL_ALIGN_BYTES / d->esz;
	if (d->f16)
		max_seg = MIN(b->count, max_seg + d->align - 1);
	if (max_seg > 0 && max_seg < chunk)
		chunk = round_up(max_seg, d->align);
	d->chunk = chunk;
	d->nchunks = ceil_div(max_seg, chunk);
	d->acc_bytes = chunk * dtype_size(dtype_acc(b->dtype));
}

/* The segment step s of part rs (1: reduce-scatter) works on. */
static uint64_t
ring_seg(const struct coll_desc *d, int me, int rs, uint64_t s)
{
	int64_t n = d->n, m = me;

	return (uint64_t)(rs ? ((m - (int64_t)s - 2) % n + 2 * n) % n :
			       ((m - (int64_t)s - 1) % n + n) % n);
}

static uint64_t
ring_step_len(const struct coll_desc *d, int rs, uint64_t seg)
{
	return d->nchunks * 2 * d->bar + ring_active(d, seg) * (rs ? 3 : 2);
}

/* Sum of a() over the cyclic run of cnt segments from lo. */
static uint64_t
ring_act_sum(const struct coll_desc *d, uint64_t lo, uint64_t cnt)
{
	uint64_t n = (uint64_t)d->n, *A = d->act;

	if (lo + cnt <= n)
		return A[lo + cnt] - A[lo];
	return A[n] - A[lo] + A[lo + cnt - n];
}

static void
ring_table(const struct coll_desc *d)
{
	struct coll_desc *m = (struct coll_desc *)d; /* the cache */
	uint64_t n = (uint64_t)d->n;

	if (d->act != NULL)
		return;
	m->act = xreallocarray(NULL, n + 1, sizeof *m->act);
	m->act[0] = 0;
	for (uint64_t i = 0; i < n; i++)
		m->act[i + 1] = m->act[i] + ring_active(d, i);
}

/* pc where step s of part rs starts (counting from the part's start). */
static uint64_t
ring_steps_len(const struct coll_desc *d, int me, int rs, uint64_t s)
{
	uint64_t n = (uint64_t)d->n, lo;

	ring_table(d);
	/* rs visits me-2, me-3, ...; ag me-1, me-2, ...: the last s */
	lo = ((uint64_t)me + 2 * n - s - (rs ? 1 : 0)) % n;
	return s * d->nchunks * 2 * d->bar +
	    (rs ? 3 : 2) * ring_act_sum(d, lo, s);
}

static uint64_t
ring_part_len(const struct coll_desc *d, int me, int rs)
{
	return ring_steps_len(d, me, rs, (uint64_t)d->n - 1);
}

static uint64_t
ring_len(const struct coll_desc *d, int me)
{
	return ring_part_len(d, me, 1) + ring_part_len(d, me, 0) +
	    d->a.sig.shape[0] * ((uint64_t)d->n - 1);
}

/* Blocks of one sub-chunk k of step (rs, s) starting at pc start. */
static void
ring_chunk(const struct coll_desc *d, int me, int rs, uint64_t s, uint64_t k,
    uint64_t start, uint64_t o, struct blk *b)
{
	const struct win_ref *buf = &d->a.buf;
	int n = d->n, left = (me - 1 + n) % n;
	uint64_t seg = ring_seg(d, me, rs, s);
	int64_t row = rs ? (int64_t)s : n - 1 + (int64_t)s;
	uint64_t beg = ring_seg_begin(d, seg), len = ring_seg_len(d, seg);
	uint64_t sub = k * d->chunk, cnt = 0, off = 0, data = 0;
	const char *part = rs ? "rs" : "ag";
	struct cellset cs = gen_ring_row(d, (uint64_t)row);
	struct blk_name ph = bname("%s row %d", part, 0, row, 0);
	int active = sub < len;

	if (active) {
		cnt = MIN(d->chunk, len - sub);
		off = buf->off + (beg + sub) * d->esz;
		data = rs ? 2 : 1;
	}
#define RING_NAME(what) \
	bname("%s.%s.row%d.chunk%d." what, d->coll, part, row, (int64_t)k)
	if (o < d->bar) {
		gen_barrier(d, me, cs, (int32_t)(2 * k + 1), start, o,
		    RING_NAME("ready"), ph, b);
	} else if (o < d->bar + data) {
		if (rs && o == d->bar)
			gen_data(d, me, UOP_COPY, SP_ACC, 0, SP_OWN, off, me,
			    cnt, start + o, RING_NAME("load"), ph, b);
		else if (rs)
			gen_data(d, me, UOP_REDUCE, SP_ACC, 0, SP_PEER, off,
			    left, cnt, start + o, RING_NAME("reduce"), ph, b);
		else
			gen_data(d, me, UOP_COPY, SP_ACC, 0, SP_PEER, off, left,
			    cnt, start + o, RING_NAME("load"), ph, b);
	} else if (o < 2 * d->bar + data) {
		gen_barrier(d, me, cs, (int32_t)(2 * k + 2),
		    start + d->bar + data, o - d->bar - data, RING_NAME("read"),
		    ph, b);
	} else {
		gen_data(d, me, UOP_COPY, SP_OWN, off, SP_ACC, 0, me, cnt,
		    start + o, RING_NAME("store"), ph, b);
	}
#undef RING_NAME
}

/*
 * Block positions: pos[0] part (1 rs, 0 ag, -1 epilogue), pos[1] step,
 * base the step's first pc.
 */
static void
ring_block(const struct coll_desc *d, int me, uint64_t pc,
    const struct blk *hint, struct blk *b)
{
	uint64_t n = (uint64_t)d->n, rs_len, s, base, seg, act, ua, o, k;
	int rs;

	if (hint != NULL && hint->pos[0] >= 0 && hint->base <= pc) {
		/* walk forward from the step asked before */
		rs = (int)hint->pos[0];
		s = (uint64_t)hint->pos[1];
		base = hint->base;
		for (int i = 0; i < 4; i++) {
			uint64_t l = ring_step_len(d, rs, ring_seg(d, me, rs, s));
			if (pc < base + l)
				goto found;
			base += l;
			if (++s == n - 1) {
				if (!rs)
					break; /* the epilogue */
				rs = 0;
				s = 0;
			}
		}
	}
	rs_len = ring_part_len(d, me, 1);
	if (pc >= rs_len + ring_part_len(d, me, 0)) {
		uint64_t e = pc - rs_len - ring_part_len(d, me, 0);
		uint64_t row = e / (n - 1);

		gen_epilogue(d, me, gen_ring_row(d, row),
		    (int32_t)(2 * d->nchunks), pc - e % (n - 1), b);
		b->pos[0] = -1;
		return;
	}
	rs = pc < rs_len;
	{
		uint64_t rel = rs ? pc : pc - rs_len, lo = 0, hi = n - 1;

		/* the last step starting at or before rel */
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;
			if (ring_steps_len(d, me, rs, mid) <= rel)
				lo = mid;
			else
				hi = mid;
		}
		s = lo;
		base = (rs ? 0 : rs_len) + ring_steps_len(d, me, rs, s);
	}
found:
	seg = ring_seg(d, me, rs, s);
	act = ring_active(d, seg);
	ua = 2 * d->bar + (rs ? 3 : 2);
	o = pc - base;
	if (o < act * ua) {
		k = o / ua;
		o %= ua;
	} else {
		k = act + (o - act * ua) / (2 * d->bar);
		o = (o - act * ua) % (2 * d->bar);
	}
	ring_chunk(d, me, rs, s, k, pc - o, o, b);
	b->pos[0] = rs;
	b->pos[1] = (int64_t)s;
	b->base = base;
}

/* Cell [row, me] is written only in the step on that row: its 2C
 * barriers, +1 each. */
static void
ring_owed(const struct coll_desc *d, int me, uint64_t from, int t, uint64_t off,
    prog_owe_fn fn, void *arg)
{
	uint64_t n = (uint64_t)d->n, row = (off - d->a.sig.off) / 4 / n;
	uint64_t s, base, act, ua, at = (uint64_t)(t - (t > me));
	struct prog_owe o = { 0, 0, NOTIFY_ADD, 1 };
	int rs;

	if (row >= 2 * (n - 1))
		return;
	rs = row < n - 1;
	s = rs ? row : row - (n - 1);
	base = (rs ? 0 : ring_part_len(d, me, 1)) + ring_steps_len(d, me, rs, s);
	act = ring_active(d, ring_seg(d, me, rs, s));
	ua = 2 * d->bar + (rs ? 3 : 2);
	for (uint64_t k = 0; k < d->nchunks; k++) {
		uint64_t c = base +
		    (k < act ? k * ua : act * ua + (k - act) * 2 * d->bar);
		uint64_t data = k < act ? (rs ? 2 : 1) : 0;
		uint64_t pcs[2] = { c + at, c + d->bar + data + at };

		for (int i = 0; i < 2; i++) {
			if (pcs[i] < from)
				continue;
			if (o.count++ == 0)
				o.pc = pcs[i];
		}
	}
	if (o.count > 0)
		fn(arg, &o);
}

const struct coll_gen gen_allreduce_ring = {
	.init = ring_init,
	.len = ring_len,
	.block = ring_block,
	.owed = ring_owed,
	.cells = CELLS_RING,
};

/*
 * Builtin.  Step s = 1..N-1 of rs on row s-1: barrier, reduce; ag on row
 * N-2+s: barrier, get; the final barrier on row 2(N-1); epilogues on
 * every row.  unit = bar + 1 ops per step.
 */
static void
ringb_init(struct coll_desc *d)
{
	const struct win_ref *b = &d->a.buf;
	int n = d->n;

	if (n <= 1 || n > COLL_BUILTIN_MAX_RANKS || b->count % (uint64_t)n != 0) {
		d->empty = 1;
		return;
	}
	d->chunk = b->count / (uint64_t)n;
	d->seg_bytes = d->chunk * d->esz;
	d->unit = d->bar + 1;
}

static uint64_t
ringb_len(const struct coll_desc *d, int me)
{
	uint64_t n = (uint64_t)d->n;

	(void)me;
	return 2 * (n - 1) * d->unit + d->bar + (2 * n - 1) * (n - 1);
}

static void
ringb_block(const struct coll_desc *d, int me, uint64_t pc,
    const struct blk *hint, struct blk *b)
{
	uint64_t n = (uint64_t)d->n, steps = 2 * (n - 1) * d->unit;
	int left = (me - 1 + d->n) % d->n;

	(void)hint;
	if (pc < steps) {
		uint64_t row = pc / d->unit, o = pc % d->unit;
		int rs = row < n - 1;
		int64_t step = (int64_t)(rs ? row + 1 : row - (n - 1) + 1);
		int64_t seg = rs ? (me - step - 1 + 2 * d->n) % d->n :
				   (me - step + d->n) % d->n;
		uint64_t off = d->a.buf.off + (uint64_t)seg * d->seg_bytes;
		const char *part = rs ? "rs" : "ag";
		struct blk_name ph = bname("%s row %d", part, 0, (int64_t)row, 0);

		if (o < d->bar)
			gen_barrier(d, me, gen_ring_row(d, row), 1, pc - o, o,
			    bname("%s.%s.row%d", d->coll, part, (int64_t)row, 0),
			    ph, b);
		else if (rs)
			gen_data(d, me, UOP_REDUCE, SP_OWN, off, SP_PEER, off,
			    left, d->chunk, pc,
			    bname("%s.rs.row%d.reduce", d->coll, 0,
				(int64_t)row, 0),
			    ph, b);
		else
			gen_data(d, me, UOP_GET, SP_OWN, off, SP_PEER, off,
			    left, d->chunk, pc,
			    bname("%s.ag.row%d.get", d->coll, 0, (int64_t)row, 0),
			    ph, b);
		b->pos[0] = (int64_t)row;
		return;
	}
	if (pc - steps < d->bar) {
		uint64_t row = 2 * (n - 1);

		gen_barrier(d, me, gen_ring_row(d, row), 1, steps, pc - steps,
		    bname("%s.final.row%d", d->coll, 0, (int64_t)row, 0),
		    bname("final", 0, 0, 0, 0), b);
		return;
	}
	{
		uint64_t e = pc - steps - d->bar, row = e / (n - 1);

		gen_epilogue(d, me, gen_ring_row(d, row), 1, pc - e % (n - 1), b);
	}
}

/* Row r's one barrier: rows 0..2N-3 at r * unit, the final row after. */
static void
ringb_owed(const struct coll_desc *d, int me, uint64_t from, int t,
    uint64_t off, prog_owe_fn fn, void *arg)
{
	uint64_t n = (uint64_t)d->n, row = (off - d->a.sig.off) / 4 / n;

	if (row < 2 * (n - 1))
		gen_owed_periodic(d, me, from, t, row * d->unit, 1, 0, 1, fn,
		    arg);
	else if (row == 2 * (n - 1))
		gen_owed_periodic(d, me, from, t, 2 * (n - 1) * d->unit, 1, 0,
		    1, fn, arg);
}

const struct coll_gen gen_allreduce_ring_builtin = {
	.init = ringb_init,
	.len = ringb_len,
	.block = ringb_block,
	.owed = ringb_owed,
	.cells = CELLS_RING,
};
