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

	o->dtype = b->dtype;
	o->off = b->off;
	o->count = b->count;
	switch (a->kind) {
	case COLL_BARRIER:
		o->dtype = DT_I32;
		o->off = a->sig.off;
		o->count = 0;
		break;
	case COLL_REDUCE_SCATTER:
		o->count = b->shape[1];
		o->off = b->off + (uint64_t)rank * o->count * dtype_size(b->dtype);
		break;
	default:
		break;
	}
	(void)nranks;
}

struct coll_ref {
	struct coll_args a;
	int n;
	int added;		/* ranks added so far */
	uint8_t *keep;		/* see coll_ref_new() */
	size_t keep_bytes;
	uint8_t *tmp;		/* one rank's region in the accumulator type */
};

struct coll_ref *
coll_ref_new(const struct coll_args *a, int nranks)
{
	struct coll_ref *c = xcalloc(1, sizeof *c);
	const struct win_ref *b = &a->buf;
	size_t esz = dtype_size(b->dtype), asz = dtype_size(dtype_acc(b->dtype));
	uint64_t n = (uint64_t)nranks;

	c->a = *a;
	c->n = nranks;
	switch (a->kind) {
	case COLL_ALLREDUCE:
	case COLL_REDUCE_SCATTER:
		/* the fold so far, in the accumulator type */
		c->keep_bytes = b->count * asz;
		c->tmp = xmalloc(c->keep_bytes + 1);
		break;
	case COLL_BROADCAST:
		c->keep_bytes = b->count * esz;	/* root's buffer */
		break;
	case COLL_ALLGATHER:
		c->keep_bytes = n * a->src.count * esz;	/* every SRC */
		break;
	case COLL_ALL_TO_ALL:
		c->keep_bytes = n * n * b->shape[1] * esz;	/* every SRC */
		break;
	default:
		break;
	}
	c->keep = xmalloc(c->keep_bytes + 1);
	return c;
}

void
coll_ref_add(struct coll_ref *c, int rank, const void *area)
{
	const struct coll_args *a = &c->a;
	const struct win_ref *b = &a->buf;
	const uint8_t *in = area;
	enum dtype dt = b->dtype, adt = dtype_acc(dt);
	size_t esz = dtype_size(dt);
	uint64_t row;

	if (rank != c->added++)
		BUG("reference: rank %d added out of order", rank);
	switch (a->kind) {
	case COLL_ALLREDUCE:
	case COLL_REDUCE_SCATTER:
		/* fold in rank order 0..N-1, as the meaning says */
		if (rank == 0) {
			dtype_convert(adt, c->keep, dt, in + b->off, b->count);
		} else {
			dtype_convert(adt, c->tmp, dt, in + b->off, b->count);
			reduce_apply(adt, a->op, c->keep, c->tmp, b->count);
		}
		break;
	case COLL_BROADCAST:
		if (rank == a->root)
			memcpy(c->keep, in + b->off, b->count * esz);
		break;
	case COLL_ALLGATHER:
		row = a->src.count * esz;
		memcpy(c->keep + (uint64_t)rank * row, in + a->src.off, row);
		break;
	case COLL_ALL_TO_ALL:
		row = (uint64_t)c->n * b->shape[1] * esz;
		memcpy(c->keep + (uint64_t)rank * row, in + a->src.off, row);
		break;
	default:
		break;
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
	uint64_t row;

	if (c->added != c->n)
		BUG("reference: %d of %d ranks added", c->added, c->n);
	coll_output(a, c->n, rank, &o);
	switch (a->kind) {
	case COLL_ALLREDUCE:
		dtype_convert(dt, out, adt, c->keep, o.count);
		break;
	case COLL_REDUCE_SCATTER:
		dtype_convert(dt, out, adt, c->keep + (o.off - b->off) / esz * asz,
		    o.count);
		break;
	case COLL_BROADCAST:
		memcpy(out, c->keep, b->count * esz);
		break;
	case COLL_ALLGATHER:
		memcpy(out, c->keep, (uint64_t)c->n * a->src.count * esz);
		break;
	case COLL_ALL_TO_ALL:
		/* DST[src,:] = src's SRC[rank,:] */
		row = b->shape[1] * esz;
		for (int r = 0; r < c->n; r++)
			memcpy((uint8_t *)out + (uint64_t)r * row, c->keep +
			    ((uint64_t)r * (uint64_t)c->n + (uint64_t)rank) * row, row);
		break;
	default:
		break;
	}
}

void
coll_ref_free(struct coll_ref *c)
{
	if (c == NULL)
		return;
	free(c->keep);
	free(c->tmp);
	free(c);
}

void
coll_expect(const struct coll_args *a, int nranks, int rank,
    const void *const *in, void *out)
{
	struct coll_ref *c = coll_ref_new(a, nranks);

	for (int r = 0; r < nranks; r++)
		coll_ref_add(c, r, in[r]);
	coll_ref_expect(c, rank, out);
	coll_ref_free(c);
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
coll_wrong(const struct coll_args *a, int nranks, const void *expected,
    const void *got, uint64_t count)
{
	enum dtype dt = a->kind == COLL_BARRIER ? DT_I32 : a->buf.dtype;
	size_t esz = dtype_size(dt);
	int reduces = a->kind == COLL_ALLREDUCE ||
	    a->kind == COLL_REDUCE_SCATTER;
	double tol = 2.0 * (nranks > 0 ? nranks : 1) * epsilon(dt);
	uint64_t wrong = 0;

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
