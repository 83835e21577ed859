/*
 * gen.c - described collectives: coll_describe(), the prog_gen glue, and
 * the blocks every family is made of (barrier, epilogue, data ops).
 *
 * The blocks are exactly what the protocols in docs/protocols.md issue:
 * a credit barrier is +1 into my cell of every peer in peer order 0..N-1
 * (the first notify carries UOP_F_BARRIER), then a wait on every peer's
 * cell of mine >= gen in the same order; an epilogue is -total into my
 * own copy of every peer's cell (a notify to myself, UOP_F_EPILOGUE).
 * With one rank neither has an op.
 */
#include <stdlib.h>
#include <string.h>

#include "../xmalloc.h"
#include "coll-int.h"

uint64_t
ceil_div(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

uint64_t
round_up(uint64_t a, uint64_t b)
{
	return ceil_div(a, b) * b;
}

struct cellset
gen_mesh_cells(const struct coll_desc *d)
{
	const struct win_ref *s = &d->a.sig;
	struct cellset cs = { 0, s->ndim >= 2 ? s->shape[1] : 1 };

	return cs;
}

struct cellset
gen_ring_row(const struct coll_desc *d, uint64_t row)
{
	struct cellset cs = { row * d->a.sig.shape[1], 1 };

	return cs;
}

uint64_t
gen_cell(const struct coll_desc *d, struct cellset cs, int rank)
{
	return d->a.sig.off + 4 * (cs.base + (uint64_t)rank * cs.step);
}

static void
signal_tmpl(struct blk *b, enum uop_kind kind, int32_t value, uint8_t op,
    uint8_t flags)
{
	memset(&b->t, 0, sizeof b->t);
	b->t.kind = (uint8_t)kind;
	b->t.dtype = DT_I32;
	b->t.op = op;
	b->t.flags = flags;
	b->t.value = value;
	b->t.count = 1;
}

static void
blk_start(struct blk *b, int me, uint64_t start, uint64_t len, enum blk_rep rep)
{
	memset(b, 0, sizeof *b);
	b->start = start;
	b->len = len;
	b->rep = (uint8_t)rep;
	b->me = me;
}

void
gen_barrier(const struct coll_desc *d, int me, struct cellset cs, int32_t gen,
    uint64_t start, uint64_t off, struct blk_name span, struct blk_name phase,
    struct blk *b)
{
	uint64_t half = (uint64_t)d->n - 1;

	if (off < half) {
		blk_start(b, me, start, half, BLK_OTHERS);
		signal_tmpl(b, UOP_NOTIFY, 1, NOTIFY_ADD, 0);
		b->first_flags = UOP_F_BARRIER;
		b->peer_p = 1;
		b->t.dst = gen_cell(d, cs, me);
		b->name = bname_sfx(span, ".notify");
	} else {
		/* a wait names, in peer, the rank whose credits it counts */
		blk_start(b, me, start + half, half, BLK_OTHERS);
		signal_tmpl(b, UOP_WAIT, gen, CMP_GE, 0);
		b->peer_p = 1;
		b->t.dst = gen_cell(d, cs, 0);
		b->dst_step = 4 * (int64_t)cs.step;
		b->name = bname_sfx(span, ".wait");
	}
	b->phase = phase;
}

void
gen_epilogue(const struct coll_desc *d, int me, struct cellset cs,
    int32_t total, uint64_t start, struct blk *b)
{
	blk_start(b, me, start, (uint64_t)d->n - 1, BLK_OTHERS);
	signal_tmpl(b, UOP_NOTIFY, -total, NOTIFY_ADD, UOP_F_EPILOGUE);
	b->t.peer = me;
	b->t.dst = gen_cell(d, cs, 0);
	b->dst_step = 4 * (int64_t)cs.step;
	b->name = bname("%s.epilogue", d->coll, NULL, 0, 0);
	b->phase = bname("epilogue", NULL, NULL, 0, 0);
}

static void
data_tmpl(const struct coll_desc *d, struct blk *b, enum uop_kind kind,
    enum uop_space dsp, uint64_t dst, enum uop_space ssp, uint64_t src,
    int peer, uint64_t count)
{
	memset(&b->t, 0, sizeof b->t);
	b->t.kind = (uint8_t)kind;
	b->t.dtype = (uint8_t)d->a.buf.dtype;
	b->t.op = kind == UOP_REDUCE ? (uint8_t)d->a.op : 0;
	b->t.dsp = (uint8_t)dsp;
	b->t.ssp = (uint8_t)ssp;
	b->t.peer = peer;
	b->t.dst = dst;
	b->t.src = src;
	b->t.count = count;
}

void
gen_data(const struct coll_desc *d, int me, enum uop_kind kind,
    enum uop_space dsp, uint64_t dst, enum uop_space ssp, uint64_t src,
    int peer, uint64_t count, uint64_t start, struct blk_name name,
    struct blk_name phase, struct blk *b)
{
	blk_start(b, me, start, 1, BLK_ONE);
	data_tmpl(d, b, kind, dsp, dst, ssp, src, peer, count);
	b->name = name;
	b->phase = phase;
}

void
gen_peers(const struct coll_desc *d, int me, enum blk_rep rep,
    enum uop_kind kind, enum uop_space dsp, uint64_t dst, enum uop_space ssp,
    uint64_t src, uint64_t count, int64_t dst_step, int64_t src_step,
    uint64_t start, struct blk_name name, struct blk_name phase, struct blk *b)
{
	uint64_t n = (uint64_t)d->n;

	blk_start(b, me, start, rep == BLK_ALL ? n : n - 1, rep);
	data_tmpl(d, b, kind, dsp, dst, ssp, src, 0, count);
	b->peer_p = 1;
	b->dst_step = dst_step;
	b->src_step = src_step;
	b->name = name;
	b->phase = phase;
}

void
gen_owed_periodic(const struct coll_desc *d, int me, uint64_t from, int t,
    uint64_t first, uint64_t period, uint64_t k0, uint64_t k1, prog_owe_fn fn,
    void *arg)
{
	uint64_t at = first + (uint64_t)(t - (t > me)), k = k0;
	struct prog_owe o = { 0, 0, NOTIFY_ADD, 1 };

	(void)d;
	if (k0 >= k1)
		return;
	if (from > at + k0 * period)
		k = k0 + ceil_div(from - at - k0 * period, period);
	if (k >= k1)
		return;
	o.pc = at + k * period;
	o.count = k1 - k;
	fn(arg, &o);
}

/* ---- the prog_gen glue ------------------------------------------------------- */

static uint64_t
g_len(const struct prog_gen *g, int rank)
{
	const struct coll_desc *d = (const struct coll_desc *)g;

	return d->empty ? 0 : d->gen->len(d, rank);
}

static void
g_block(const struct prog_gen *g, int rank, uint64_t pc, const struct blk *hint,
    struct blk *out)
{
	const struct coll_desc *d = (const struct coll_desc *)g;

	d->gen->block(d, rank, pc, hint, out);
	out->world = d->world;
}

static int
g_dense(const struct prog_gen *g, int w)
{
	const struct coll_desc *d = (const struct coll_desc *)g;

	if (d->dense == NULL)
		return w >= 0 && w < d->n ? w : -1;
	return w >= 0 && w < d->nworld ? d->dense[w] : -1;
}

/* A member's world rank. */
static int
to_world(const struct coll_desc *d, int m)
{
	return m < 0 || d->world == NULL ? m : d->world[m];
}

/* The rank whose notifies write cell off (see prog_gen_ops.writer). */
static int
g_writer(const struct prog_gen *g, uint64_t off)
{
	const struct coll_desc *d = (const struct coll_desc *)g;
	const struct win_ref *s = &d->a.sig;
	uint64_t e, stride;

	if (d->gen->cells == CELLS_ANY)
		return -2;
	if (d->a.kind == COLL_ALL_TO_ALL_V && off >= d->a.rcount.off &&
	    off < d->a.rcount.off + 4 * d->a.rcount.count) {
		/* RECV_COUNTS[j,0] is set by j */
		uint64_t row = d->a.rcount.ndim >= 2 ? d->a.rcount.shape[1] : 1;

		e = (off - d->a.rcount.off) / 4;
		if ((off - d->a.rcount.off) % 4 || e % row != 0 ||
		    e / row >= (uint64_t)d->n)
			return -1;
		return to_world(d, (int)(e / row));
	}
	if (off < s->off || off >= s->off + 4 * s->count || (off - s->off) % 4)
		return -1;
	e = (off - s->off) / 4;
	if (d->gen->cells == CELLS_RING)
		return to_world(d, (int)(e % s->shape[1]));
	stride = s->ndim >= 2 ? s->shape[1] : 1;
	if (e % stride >= d->lanes || e / stride >= (uint64_t)d->n)
		return -1;
	return to_world(d, (int)(e / stride));
}

static void
g_owed(const struct prog_gen *g, int rank, uint64_t from, int t, uint64_t off,
    prog_owe_fn fn, void *arg)
{
	const struct coll_desc *d = (const struct coll_desc *)g;

	d->gen->owed(d, rank, from, t, off, fn, arg);
}

static void
g_free(struct prog_gen *g)
{
	struct coll_desc *d = (struct coll_desc *)g;

	free(d->act);
	free(d->world);
	free(d->dense);
	free(d);
}

static const struct prog_gen_ops coll_gen_ops = {
	.len = g_len,
	.block = g_block,
	.writer = g_writer,
	.owed = g_owed,
	.dense = g_dense,
	.free = g_free,
};
static const struct prog_gen_ops coll_gen_ops_walk = {
	.len = g_len,
	.block = g_block,
	.writer = g_writer,
	.dense = g_dense,
	.free = g_free,
};

static const struct coll_gen *
gen_of(const struct coll_args *a)
{
	int builtin = a->impl == IMPL_BUILTIN;

	switch (a->kind) {
	case COLL_ALLREDUCE:
		if (a->mode == MODE_RING && builtin && a->neighbour)
			return &gen_allreduce_ring_neighbour;
		if (a->mode == MODE_RING)
			return builtin ? &gen_allreduce_ring_builtin :
					 &gen_allreduce_ring;
		return &gen_allreduce_mesh;
	case COLL_BARRIER:
		return &gen_barrier_coll;
	case COLL_BROADCAST:
		return builtin ? &gen_broadcast_builtin : &gen_broadcast;
	case COLL_ALLGATHER:
		return &gen_allgather;
	case COLL_REDUCE_SCATTER:
		return &gen_reduce_scatter;
	case COLL_ALL_TO_ALL:
		return &gen_all_to_all;
	case COLL_ALL_TO_ALL_V:
		return &gen_all_to_all_v;
	default:
		BUG("bad collective %d", a->kind);
	}
}

struct prog_gen *
coll_describe(const struct coll_args *a, int nranks)
{
	struct coll_desc *d;

	if (nranks < 1)
		BUG("a world of %d ranks", nranks);
	/* a synthesized signal must have been placed (has_sig false) */
	if (a->sig.ndim == 0 || a->sig.dtype != DT_I32)
		BUG("%s described without a signal", coll_kind_name(a->kind));
	d = xcalloc(1, sizeof *d);
	d->a = *a;
	coll_args_unname(&d->a);
	d->nworld = nranks;
	d->n = coll_size(a, nranks);
	if (a->domain != 0) {
		/* members in rank order are the protocol's ranks 0..n-1 */
		int m = 0;

		d->world = xreallocarray(NULL, (size_t)d->n, sizeof *d->world);
		d->dense = xreallocarray(NULL, (size_t)nranks, sizeof *d->dense);
		for (int q = 0; q < nranks; q++) {
			int in = q < COLL_MAX_RANKS &&
			    ((a->members[q / 64] >> (q % 64)) & 1);

			d->dense[q] = in && m < d->n ? m : -1;
			if (in && m < d->n)
				d->world[m++] = q;
		}
		if (m != d->n)
			BUG("domain of %d members, %d in the world", d->n, m);
	}
	nranks = d->n;
	d->coll = coll_kind_name(a->kind);
	coll_title(a, d->title, sizeof d->title);
	d->gen = gen_of(a);
	d->bar = 2 * ((uint64_t)nranks - 1);
	d->esz = dtype_size(a->buf.dtype);
	d->lanes = 1;
	d->gen->init(d);
	d->g.ops = d->gen->owed != NULL ? &coll_gen_ops : &coll_gen_ops_walk;
	d->g.refs = 1;
	return &d->g;
}

struct prog *
coll_prog(struct prog_gen *g, int rank)
{
	struct coll_desc *d = (struct coll_desc *)g;
	int m = g_dense(g, rank);
	struct prog *p;

	if (rank < 0 || rank >= d->nworld || m < 0)
		BUG("rank %d is not in the collective (%d of %d ranks)", rank,
		    d->n, d->nworld);
	p = prog_new_gen(d->title, g, rank, m, d->acc_bytes);

	p->stream_bytes = d->stream_bytes;
	return p;
}

static void
span_add(const struct win_ref *w, uint64_t *lo, uint64_t *hi)
{
	uint64_t n = w->count * dtype_size(w->dtype);

	if (n == 0)
		return;
	*lo = MIN(*lo, w->off);
	*hi = MAX(*hi, w->off + n);
}

void
coll_footprint(const struct coll_args *a, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	span_add(&a->sig, lo, hi);
	if (a->kind != COLL_BARRIER)
		span_add(&a->buf, lo, hi);
	if (a->kind == COLL_ALLGATHER || a->kind == COLL_ALL_TO_ALL ||
	    a->kind == COLL_ALL_TO_ALL_V)
		span_add(&a->src, lo, hi);
	if (a->kind == COLL_ALL_TO_ALL_V) {
		span_add(&a->scount, lo, hi);
		span_add(&a->rcount, lo, hi);
	}
}
