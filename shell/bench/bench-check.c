/*
 * bench-check.c - bench `check`: random inputs, one call (or two in one
 * message), the reference result compared on every rank (nccl-tests'
 * #wrong), zeroes again.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "xmalloc.h"

/* Run one fill program over window w on every rank of a's domain. */
static int
fill_all(struct session *s, const struct coll_args *a, const struct win_ref *w,
    enum fill_pattern pat, double fval)
{
	uint32_t *tags = xcalloc((size_t)s->nranks, sizeof *tags);
	char *cause = NULL;
	int rc = 0;

	for (int r = 0; r < s->nranks && rc == 0; r++) {
		if (coll_dense(a, r) < 0)
			continue;
		struct uop u = { .kind = UOP_FILL,
			.dtype = (uint8_t)w->dtype,
			.op = (uint8_t)pat,
			.dst = w->off,
			.count = w->count,
			.fval = fval };
		struct prog *p = prog_new("bench fill");
		struct job *j;

		u.name = prog_str(p, "bench.fill");
		prog_add(p, &u);
		j = session_submit(s, r, p, xstrdup("bench fill"), 0, 0, &cause);
		if (j == NULL) {
			out_error("%s", cause);
			free(cause);
			rc = -1;
		} else {
			tags[r] = j->tag;
		}
	}
	if (bench_wait(s, tags, NULL) != 0)
		rc = -1;
	free(tags);
	return rc;
}

/*
 * Whether the checked call runs twice in one message, as the timed rounds
 * do: repetitions of one message read a program generated once
 * (docs/design.md, "Repetitions"), which a single checked call never
 * reads.  Only when a second reference is exact: the output is every byte
 * the reference reads (after the first call the inputs are its outputs),
 * and the second result is not rounded again (a copy, or a reduction
 * over integers or by max or min).
 */
static int
check_twice(const struct coll_args *a, int nranks)
{
	uint64_t lo, hi;

	if ((a->kind == COLL_ALLREDUCE || a->kind == COLL_REDUCE_SCATTER) &&
	    dtype_is_float(a->buf.dtype) && a->op != RED_MAX && a->op != RED_MIN)
		return 0; /* a sum or product is rounded again */
	coll_inputs(a, &lo, &hi);
	if (hi <= lo)
		return 0;
	for (int r = 0; r < nranks; r++) {
		struct coll_output o;

		if (coll_dense(a, r) < 0)
			continue;
		coll_output(a, nranks, r, &o);
		if (o.off != lo || o.count2 != 0 ||
		    coll_output_bytes(&o) != hi - lo)
			return 0;
	}
	return 1;
}

/* The reference of a second call: each rank's inputs with its output
 * replaced by what the first call must have left there. */
static struct coll_ref *
ref_again(struct session *s, const struct coll_args *a, struct coll_ref *first,
    uint64_t lo, uint64_t hi)
{
	struct coll_ref *ref = coll_ref_new(a, s->nranks);
	uint8_t *snap = xmalloc(hi - lo);

	for (int r = 0; r < s->nranks; r++) {
		struct coll_output o;

		view_read(&s->view, r, lo, snap, hi - lo);
		if (coll_dense(a, r) >= 0) {
			coll_output(a, s->nranks, r, &o);
			coll_ref_expect(first, r, snap + (o.off - lo));
		}
		coll_ref_add(ref, r, snap - lo);
	}
	free(snap);
	return ref;
}

/* `check`: random inputs, one call (two when check_twice() says so),
 * compare with the reference, zero again. */
int
bench_check(struct session *s, const struct coll_args *a,
    const struct bench_wins *bw, int64_t *wrong)
{
	const struct win_ref *in = bw->has_src ? &bw->src : &bw->buf;
	uint64_t lo = in->off, hi = in->off + in->count * dtype_size(in->dtype);
	uint32_t *tags = xcalloc((size_t)s->nranks, sizeof *tags);
	struct coll_ref *ref = coll_ref_new(a, s->nranks);
	uint32_t calls = check_twice(a, s->nranks) ? 2 : 1;
	uint8_t *snap;
	int rc = -1;

	if (bw->has_buf && bw->buf.off < lo)
		lo = bw->buf.off;
	if (bw->has_buf)
		hi = MAX(hi,
		    bw->buf.off + bw->buf.count * dtype_size(bw->buf.dtype));
	if (fill_all(s, a, in, FILL_RANDOM, 1) != 0 ||
	    (bw->has_counts && fill_all(s, a, &bw->scount, FILL_RANDOM, 2) != 0))
		goto out;
	{
		/* and whatever else the reference reads */
		uint64_t ilo, ihi;

		coll_inputs(a, &ilo, &ihi);
		if (ihi > ilo) {
			lo = MIN(lo, ilo);
			hi = MAX(hi, ihi);
		}
	}
	snap = xmalloc(hi - lo);
	for (int r = 0; r < s->nranks; r++) {
		view_read(&s->view, r, lo, snap, hi - lo);
		coll_ref_add(ref, r, snap - lo); /* indexed by area offset */
	}
	free(snap);
	if (calls == 2) {
		struct coll_ref *again = ref_again(s, a, ref, lo, hi);

		coll_ref_free(ref);
		ref = again;
	}
	if (bench_submit(s, a, calls, 0, SPAN_DETAIL_ROOTS, tags) != 0 ||
	    bench_wait(s, tags, NULL) != 0)
		goto out;
	*wrong = 0;
	for (int r = 0; r < s->nranks; r++) {
		struct coll_output o;
		void *want, *got;

		if (coll_dense(a, r) < 0)
			continue; /* outside its domain */
		coll_output(a, s->nranks, r, &o);
		want = xmalloc(coll_output_bytes(&o) + 1);
		got = xmalloc(coll_output_bytes(&o) + 1);
		coll_ref_expect(ref, r, want);
		coll_read_output(&s->view, r, &o, got);
		*wrong += (int64_t)coll_wrong(a, s->nranks, &o, want, got);
		free(got);
		free(want);
	}
	if ((bw->has_src && fill_all(s, a, &bw->src, FILL_VALUE, 0) != 0) ||
	    (bw->has_buf && fill_all(s, a, &bw->buf, FILL_VALUE, 0) != 0))
		goto out;
	/* the counts: bench_one() sets them for the timed calls */
	rc = 0;
out:
	coll_ref_free(ref);
	free(tags);
	return rc;
}

int
bench_counts_reset(struct session *s, const struct coll_args *a,
    const struct bench_wins *bw)
{
	uint64_t max_recv = bw->buf.shape[0] / (uint64_t)coll_size(a, s->nranks);

	if (fill_all(s, a, &bw->scount, FILL_VALUE,
		max_recv > INT32_MAX ? INT32_MAX : (double)max_recv) != 0 ||
	    fill_all(s, a, &bw->rcount, FILL_VALUE, 0) != 0)
		return -1;
	return 0;
}
