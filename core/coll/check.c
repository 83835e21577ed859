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

/* out = fold(op, region at off of every rank) in dt */
static void
fold(const struct coll_args *a, int nranks, const void *const *in,
    uint64_t off, uint64_t count, enum dtype dt, void *out)
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

void
coll_expect(const struct coll_args *a, int nranks, int rank,
    const void *const *in, void *out)
{
	const struct win_ref *b = &a->buf, *s = &a->src;
	size_t esz = dtype_size(b->dtype);
	struct coll_output o;
	uint64_t row;

	coll_output(a, nranks, rank, &o);
	switch (a->kind) {
	case COLL_ALLREDUCE:
	case COLL_REDUCE_SCATTER:
		fold(a, nranks, in, o.off, o.count, b->dtype, out);
		break;
	case COLL_BROADCAST:
		memcpy(out, (const uint8_t *)in[a->root] + b->off, b->count * esz);
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
