/*
 * check.c - reference results for `check` (nccl-tests' #wrong).
 *
 * coll_expect() computes what the collective means, from every rank's
 * inputs, independently of the programs: reductions fold the ranks in
 * order 0..N-1 in the accumulator type (f32 for f16/bf16, wrapping for
 * integers) and convert once; copies are copies.
 *
 * Decisions:
 * - Copies (broadcast, allgather, all_to_all) must match bit for bit.
 * - Integer reductions must match exactly (sums and products wrap, which
 *   does not depend on the order).
 * - Float reductions may differ by rounding: each rank reduces in its own
 *   order (own value first), the ring rounds to the storage type after
 *   every reduce-scatter step, and f16/bf16 round on every store.  An
 *   element is wrong when |got - expected| > 2 * N * eps * max(1,
 *   |expected|), eps the type's machine epsilon.  That bound is loose for
 *   well-scaled data and tight enough to catch a missing or doubled
 *   contribution (whose error is a whole operand).  NaN matches NaN; an
 *   infinity must match exactly.
 * - The builtins' silent return on more than 16 ranks is not folded in:
 *   the expectation is the collective's meaning, so such a call reports
 *   every element wrong, which is the truth about it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../xmalloc.h"
#include "coll-int.h"

void
coll_output(const struct coll_args *a, int nranks, int rank,
    struct coll_output *o)
{
	const struct win_ref *b = &a->buf;

	rank = coll_dense(a, rank); /* a domain's rows are its own ranks' */
	o->dtype = b->dtype;
	o->off = b->off;
	o->count = b->count;
	o->off2 = o->count2 = 0;
	switch (a->kind) {
	case COLL_ALL_TO_ALL_V:
		o->off2 = a->rcount.off;
		o->count2 = a->rcount.count;
		break;
	case COLL_BARRIER:
		o->dtype = DT_I32;
		o->off = a->sig.off;
		o->count = 0;
		break;
	case COLL_REDUCE_SCATTER:
		o->count = b->shape[1];
		o->off =
		    b->off + (uint64_t)rank * o->count * dtype_size(b->dtype);
		break;
	default:
		break;
	}
	(void)nranks;
}

uint64_t
coll_output_bytes(const struct coll_output *o)
{
	return o->count * dtype_size(o->dtype) + o->count2 * 4;
}

void
coll_output_copy(const struct coll_output *o, const void *area, void *out)
{
	uint64_t n = o->count * dtype_size(o->dtype);

	memcpy(out, (const uint8_t *)area + o->off, n);
	memcpy((uint8_t *)out + n, (const uint8_t *)area + o->off2,
	    o->count2 * 4);
}

static void
widen(const struct win_ref *w, uint64_t *lo, uint64_t *hi)
{
	if (w->count == 0)
		return;
	*lo = MIN(*lo, w->off);
	*hi = MAX(*hi, w->off + w->count * dtype_size(w->dtype));
}

void
coll_inputs(const struct coll_args *a, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	widen(&a->buf, lo, hi);
	if (a->kind == COLL_ALLGATHER || a->kind == COLL_ALL_TO_ALL ||
	    a->kind == COLL_ALL_TO_ALL_V)
		widen(&a->src, lo, hi);
	if (a->kind == COLL_ALL_TO_ALL_V) {
		widen(&a->scount, lo, hi);
		widen(&a->rcount, lo, hi);
	}
	if (*hi == 0)
		*lo = 0;
}

/* out = fold(op, region at off of every rank) in dt */
static void
fold(const struct coll_args *a, int nranks, const void *const *in, uint64_t off,
    uint64_t count, enum dtype dt, void *out)
{
	enum dtype adt = dtype_acc(dt);
	size_t asz = dtype_size(adt);
	void *acc = xmalloc(count * asz + 1), *tmp = xmalloc(count * asz + 1);

	dtype_convert(adt, acc, dt, (const uint8_t *)in[0] + off, count);
	for (int r = 1; r < nranks; r++) {
		dtype_convert(adt, tmp, dt, (const uint8_t *)in[r] + off, count);
		reduce_apply(adt, a->op, acc, tmp, count);
	}
	dtype_convert(dt, out, adt, acc, count);
	free(acc);
	free(tmp);
}

static void expect(const struct coll_args *a, int nranks, int rank,
    const void *const *in, void *out);

void
coll_expect(const struct coll_args *a, int nranks, int rank,
    const void *const *in, void *out)
{
	int n = coll_size(a, nranks);
	const void **dense;

	if (a->domain == 0) {
		expect(a, nranks, rank, in, out);
		return;
	}
	/* a domain's collective folds its members, in their order */
	dense = xcalloc((size_t)n, sizeof *dense);
	for (int d = 0; d < n; d++)
		dense[d] = in[coll_world(a, d)];
	expect(a, n, rank, dense, out);
	free(dense);
}

/* in[] is indexed by the collective's own ranks (0..nranks-1) here; rank
 * is still a world rank (coll_output() maps it). */
static void
expect(const struct coll_args *a, int nranks, int rank, const void *const *in,
    void *out)
{
	const struct win_ref *b = &a->buf, *s = &a->src;
	size_t esz = dtype_size(b->dtype);
	struct coll_output o;
	uint64_t row;

	coll_output(a, nranks, rank, &o);
	rank = coll_dense(a, rank);
	switch (a->kind) {
	case COLL_ALLREDUCE:
	case COLL_REDUCE_SCATTER:
		fold(a, nranks, in, o.off, o.count, b->dtype, out);
		break;
	case COLL_BROADCAST:
		memcpy(out, (const uint8_t *)in[a->root] + b->off,
		    b->count * esz);
		break;
	case COLL_ALLGATHER:
		row = s->count * esz;
		for (int r = 0; r < nranks; r++)
			memcpy((uint8_t *)out + (uint64_t)r * row,
			    (const uint8_t *)in[r] + s->off, row);
		break;
	case COLL_ALL_TO_ALL:
		row = b->shape[1] * esz;
		for (int r = 0; r < nranks; r++)
			memcpy((uint8_t *)out + (uint64_t)r * row,
			    (const uint8_t *)in[r] + s->off + (uint64_t)rank * row,
			    row);
		break;
	case COLL_ALL_TO_ALL_V: {
		/* the whole MAX_RECV-row block of every source moves; src tells
		 * how many rows are valid: min(its SEND_COUNTS[rank], MAX_RECV) */
		uint64_t max_recv = b->shape[0] / (uint64_t)nranks;
		/* RECV_COUNTS follows DST: not aligned for i32 when DST's
		 * bytes are not a multiple of 4 (f16 x an odd count) */
		uint8_t *rc = (uint8_t *)out + b->count * esz;

		row = max_recv * b->shape[1] * esz;
		for (int r = 0; r < nranks; r++) {
			int32_t c;
			memcpy((uint8_t *)out + (uint64_t)r * row,
			    (const uint8_t *)in[r] + s->off + (uint64_t)rank * row,
			    row);
			memcpy(&c,
			    (const uint8_t *)in[r] + a->scount.off +
				(uint64_t)rank *
				    (a->scount.ndim == 2 ? a->scount.shape[1] : 1) *
				    4,
			    4);
			if ((int64_t)c > (int64_t)max_recv)
				c = (int32_t)max_recv;
			memcpy(rc + (uint64_t)r * a->rcount.shape[1] * 4, &c, 4);
		}
		/* cells of RECV_COUNTS no source writes keep their input value */
		break;
	}
	default:
		break;
	}
}

static double
epsilon(enum dtype dt)
{
	switch (dt) {
	case DT_F16:
		return 0x1p-10;
	case DT_BF16:
		return 0x1p-7;
	case DT_F32:
		return 0x1p-23;
	default:
		return 0x1p-52;
	}
}

uint64_t
coll_wrong(const struct coll_args *a, int nranks, const struct coll_output *o,
    const void *expected, const void *got)
{
	enum dtype dt = a->kind == COLL_BARRIER ? DT_I32 : a->buf.dtype;
	size_t esz = dtype_size(dt);
	int reduces = a->kind == COLL_ALLREDUCE || a->kind == COLL_REDUCE_SCATTER;
	int n = coll_size(a, nranks);
	double tol = 2.0 * (n > 0 ? n : 1) * epsilon(dt);
	uint64_t wrong = 0, count = o->count, tail = count * esz;

	for (uint64_t i = 0; i < o->count2; i++) /* i32 cells, exact */
		wrong += memcmp((const uint8_t *)expected + tail + 4 * i,
			     (const uint8_t *)got + tail + 4 * i, 4) != 0;
	for (uint64_t i = 0; i < count; i++) {
		double e, g;

		if (!reduces || !dtype_is_float(dt)) {
			wrong += memcmp((const uint8_t *)expected + i * esz,
				     (const uint8_t *)got + i * esz, esz) != 0;
			continue;
		}
		e = dtype_get(dt, expected, i);
		g = dtype_get(dt, got, i);
		if (isnan(e) || isnan(g))
			wrong += !(isnan(e) && isnan(g));
		else if (isinf(e) || isinf(g))
			wrong += e != g;
		else
			wrong += fabs(g - e) > tol * fmax(1.0, fabs(e));
	}
	return wrong;
}

/* ---- the reference built one rank at a time ------------------------------ */

struct coll_ref {
	struct coll_args a;
	int world;	    /* ranks of the session */
	int n;		    /* the collective's ranks (a domain's members) */
	int next;	    /* the next world rank coll_ref_add() takes */
	int added;	    /* members added */
	uint64_t lo, hi;    /* the inputs (coll_inputs()) */
	uint8_t **in;	    /* [n]: members' inputs, when the result is
				 * made of them (allgather, all_to_all(_v)) */
	uint8_t *acc, *tmp; /* allreduce, reduce_scatter: BUF folded so
				 * far, in the accumulator type */
	uint8_t *root;	    /* broadcast: root's inputs */
};

static int
ref_folds(const struct coll_args *a)
{
	return a->kind == COLL_ALLREDUCE || a->kind == COLL_REDUCE_SCATTER;
}

struct coll_ref *
coll_ref_new(const struct coll_args *a, int nranks)
{
	struct coll_ref *c = xcalloc(1, sizeof *c);
	const struct win_ref *b = &a->buf;
	size_t asz = dtype_size(dtype_acc(b->dtype));

	c->a = *a;
	c->world = nranks;
	c->n = coll_size(a, nranks);
	coll_inputs(a, &c->lo, &c->hi);
	if (ref_folds(a)) {
		c->acc = xmalloc(b->count * asz + 1);
		c->tmp = xmalloc(b->count * asz + 1);
	} else if (a->kind != COLL_BROADCAST && a->kind != COLL_BARRIER) {
		c->in = xcalloc((size_t)c->n, sizeof *c->in);
	}
	return c;
}

void
coll_ref_add(struct coll_ref *c, int rank, const void *area)
{
	const struct coll_args *a = &c->a;
	const struct win_ref *b = &a->buf;
	enum dtype dt = b->dtype, adt = dtype_acc(dt);
	const uint8_t *src = (const uint8_t *)area + b->off;
	int d = coll_dense(a, rank);

	if (rank != c->next++)
		BUG("reference: rank %d added out of order", rank);
	if (d < 0)
		return; /* not a member */
	c->added++;
	if (ref_folds(a)) {
		/* the members in their order, as coll_expect() folds */
		if (d == 0) {
			dtype_convert(adt, c->acc, dt, src, b->count);
		} else {
			dtype_convert(adt, c->tmp, dt, src, b->count);
			reduce_apply(adt, a->op, c->acc, c->tmp, b->count);
		}
	} else if (a->kind == COLL_BROADCAST) {
		if (d == a->root) {
			c->root = xmalloc(b->count * dtype_size(dt) + 1);
			memcpy(c->root, src, b->count * dtype_size(dt));
		}
	} else if (c->in != NULL) {
		c->in[d] = xmalloc(c->hi - c->lo + 1);
		memcpy(c->in[d], (const uint8_t *)area + c->lo, c->hi - c->lo);
	}
}

void
coll_ref_expect(struct coll_ref *c, int rank, void *out)
{
	const struct coll_args *a = &c->a;
	const struct win_ref *b = &a->buf;
	enum dtype dt = b->dtype, adt = dtype_acc(dt);
	size_t esz = dtype_size(dt), asz = dtype_size(adt);
	struct coll_output o;

	if (c->next != c->world)
		BUG("reference: %d of %d ranks added", c->next, c->world);
	coll_output(a, c->world, rank, &o);
	if (ref_folds(a)) {
		dtype_convert(dt, out, adt,
		    c->acc + (o.off - b->off) / esz * asz, o.count);
	} else if (a->kind == COLL_BROADCAST) {
		if (c->root != NULL)
			memcpy(out, c->root, b->count * esz);
	} else if (c->in != NULL) {
		const void **in = xcalloc((size_t)c->n, sizeof *in);

		for (int d = 0; d < c->n; d++)
			in[d] = c->in[d] - c->lo; /* indexed by area offset */
		expect(a, c->n, rank, in, out);
		free(in);
	}
}

void
coll_ref_free(struct coll_ref *c)
{
	if (c == NULL)
		return;
	for (int d = 0; c->in != NULL && d < c->n; d++)
		free(c->in[d]);
	free(c->in);
	free(c->acc);
	free(c->tmp);
	free(c->root);
	free(c);
}
