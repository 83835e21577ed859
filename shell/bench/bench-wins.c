/* bench-wins.c - the windows a bench runs on; see bench.h. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static uint64_t
align32(uint64_t v)
{
	return (v + SEG_ALIGN - 1) / SEG_ALIGN * SEG_ALIGN;
}

static void
ref_shape(struct win_ref *w, const char *name, enum dtype dt, uint64_t d0,
    uint64_t d1)
{
	memset(w, 0, sizeof *w);
	w->name = name;
	w->dtype = dt;
	w->ndim = d1 ? 2 : 1;
	w->shape[0] = d0;
	w->shape[1] = d1;
	w->count = d0 * (d1 ? d1 : 1);
}

/* The windows a bench of `size` bytes needs, placed above the top of the
 * window area as seg_win_alloc() will place them. */
static void
bench_layout(struct session *s, const struct bench_args *ba, uint64_t size,
    struct bench_wins *bw)
{
	const struct coll_args *a = &ba->cc.a;
	struct seg_window *list[SEG_MAX_WINDOWS];
	int n = seg_win_list(&s->seg, list, SEG_MAX_WINDOWS);
	uint64_t N = (uint64_t)coll_size(a, s->nranks),
		 count = size / dtype_size(ba->dtype);
	uint64_t top = 0, off;

	memset(bw, 0, sizeof *bw);
	bw->domain = a->domain;
	for (int i = 0; i < n; i++)
		top = MAX(top, list[i]->off + align32(list[i]->bytes));
	switch (a->kind) {
	case COLL_ALLREDUCE:
	case COLL_BROADCAST:
		ref_shape(&bw->buf, "bench.buf", ba->dtype, count, 0);
		bw->has_buf = 1;
		break;
	case COLL_REDUCE_SCATTER:
		ref_shape(&bw->buf, "bench.buf", ba->dtype, N, count / N);
		bw->has_buf = 1;
		break;
	case COLL_ALLGATHER:
		ref_shape(&bw->src, "bench.src", ba->dtype, 1, count / N);
		ref_shape(&bw->buf, "bench.buf", ba->dtype, N, count / N);
		bw->has_buf = bw->has_src = 1;
		break;
	case COLL_ALL_TO_ALL:
		ref_shape(&bw->src, "bench.src", ba->dtype, N, count / N);
		ref_shape(&bw->buf, "bench.buf", ba->dtype, N, count / N);
		bw->has_buf = bw->has_src = 1;
		break;
	case COLL_ALL_TO_ALL_V:
		/* one-element rows: the counts are in elements */
		ref_shape(&bw->src, "bench.src", ba->dtype, count, 1);
		ref_shape(&bw->buf, "bench.buf", ba->dtype, count, 1);
		ref_shape(&bw->scount, "bench.scount", DT_I32, N, 0);
		ref_shape(&bw->rcount, "bench.rcount", DT_I32, N, 1);
		bw->has_buf = bw->has_src = bw->has_counts = 1;
		break;
	default:
		break;
	}
	if (a->kind == COLL_ALLREDUCE && a->mode == MODE_RING)
		ref_shape(&bw->sig, "bench.sig", DT_I32,
		    a->impl == IMPL_BUILTIN ? 2 * N - 1 : 2 * N - 2, N);
	else
		ref_shape(&bw->sig, "bench.sig", DT_I32, N, 1);
	off = top;
	if (bw->has_src) {
		bw->src.off = off;
		off += align32(bw->src.count * dtype_size(ba->dtype));
	}
	if (bw->has_buf) {
		bw->buf.off = off;
		off += align32(bw->buf.count * dtype_size(ba->dtype));
	}
	if (bw->has_counts) {
		bw->scount.off = off;
		off += align32(bw->scount.count * 4);
		bw->rcount.off = off;
		off += align32(bw->rcount.count * 4);
	}
	bw->sig.off = off;
	off += align32(bw->sig.count * 4);
	bw->need = off - top;
}

void
bench_wins_free(struct session *s)
{
	static const char *const names[] = { "bench.buf", "bench.src",
		"bench.scount", "bench.rcount", "bench.sig" };

	seg_lock(&s->seg);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct seg_window *w = seg_win_find(&s->seg, names[i]);
		if (w != NULL)
			seg_win_free(&s->seg, w);
	}
	seg_unlock(&s->seg);
}

void
bench_wins_release(struct session *s, const struct bench_wins *bw)
{
	uint64_t lo = bw->has_src ? bw->src.off :
	    bw->has_buf		  ? bw->buf.off :
				    bw->sig.off;
	int r;

	if (session_range_busy(s, lo, lo + bw->need, &r))
		out_warning("rank %d did not stop; the bench windows stay allocated while it holds them",
		    r);
	else
		bench_wins_free(s);
}

int
bench_wins_alloc(struct session *s, struct bench_wins *bw, char **cause)
{
	struct win_ref *refs[] = { bw->has_src ? &bw->src : NULL,
		bw->has_buf ? &bw->buf : NULL,
		bw->has_counts ? &bw->scount : NULL,
		bw->has_counts ? &bw->rcount : NULL, &bw->sig };
	int rc = 0;

	seg_lock(&s->seg);
	for (size_t i = 0; i < ARRAY_SIZE(refs) && rc == 0; i++) {
		struct seg_window *w;

		if (refs[i] == NULL)
			continue;
		w = seg_win_alloc_in(&s->seg, refs[i]->name, refs[i]->shape,
		    refs[i]->ndim, refs[i]->dtype, 0, bw->domain, cause);
		if (w == NULL)
			rc = -1;
		else if (w->off != refs[i]->off)
			BUG("bench window %s at %llu, expected %llu", w->name,
			    (unsigned long long)w->off,
			    (unsigned long long)refs[i]->off);
	}
	seg_unlock(&s->seg);
	if (rc != 0)
		bench_wins_free(s);
	return rc;
}

/* Validate a bench of `size` bytes without touching anything. */
int
bench_validate(struct cmdctx *ctx, const struct bench_args *ba, uint64_t size,
    struct coll_args *a, struct bench_wins *bw)
{
	struct session *s = ctx->s;
	enum coll_arg bad = CARG_NONE;
	char *cause = NULL;
	struct prog *p;
	size_t pos;

	bench_layout(s, ba, size, bw);
	*a = ba->cc.a;
	if (bw->has_buf)
		a->buf = bw->buf;
	if (bw->has_src)
		a->src = bw->src;
	if (bw->has_counts) {
		a->scount = bw->scount;
		a->rcount = bw->rcount;
	}
	a->sig = bw->sig;
	if (coll_validate(a, s->nranks, &cause, &bad) != 0) {
		pos = bad == CARG_OPTION ?
		    ba->cc.argpos[CARG_OPTION] :
		    bad == CARG_BUF || bad == CARG_SRC ?
		    (ba->at_dtype ? ba->at_dtype : ba->at_size) :
		    ba->at_coll;
		if (bad == CARG_OPTION && pos == 0)
			pos = ba->at_coll;
		arg_error(ctx, pos, "%s", cause);
		free(cause);
		return -1;
	}
	if (bw->need > s->seg.area_size) {
		arg_error(ctx, ba->at_size,
		    "bench needs %llu bytes of window area per rank; the area holds %llu",
		    (unsigned long long)bw->need,
		    (unsigned long long)s->seg.area_size);
		return -1;
	}
	p = coll_build(a, s->nranks, coll_world(a, 0));
	if (prog_len(p) == 0) {
		int n = coll_size(a, s->nranks);
		prog_free(p);
		arg_error(ctx, ba->at_coll,
		    "%s on %d rank%s has no micro-op to time",
		    coll_kind_name(a->kind), n, n == 1 ? "" : "s");
		return -1;
	}
	prog_free(p);
	return 0;
}
