/*
 * bench-one.c - one bench of one size: its windows, the check, the timed
 * runs, the figures; the result becomes the session's last bench (for
 * `tree` and `trace save`).  See bench.h.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "xmalloc.h"

void
bench_last_free(struct session *s)
{
	if (s->bench == NULL)
		return;
	free(s->bench->tags);
	free(s->bench);
	s->bench = NULL;
}

const struct session_hook bench_session_hook = {
	.name = "bench",
	.close = bench_last_free,
};

/* One bench of `size` bytes: windows, check, timed runs, figures. */
int
bench_one(struct cmdctx *ctx, const struct bench_args *ba, uint64_t size,
    struct bench_result *res)
{
	struct session *s = ctx->s;
	struct coll_args a;
	struct bench_wins bw;
	struct trace_counts tc;
	struct progress pg;
	uint32_t *tags = NULL;
	char *cause = NULL;
	int rc = -1;

	memset(res, 0, sizeof *res);
	strbuf_init(&res->stats, 0);
	res->wrong = -1;
	res->bytes = size;
	res->count = size / dtype_size(ba->dtype);
	if (bench_validate(ctx, ba, size, &a, &bw) != 0)
		return -1;
	if (bench_wins_alloc(s, &bw, &cause) != 0) {
		arg_error(ctx, ba->at_size, "%s", cause);
		free(cause);
		return -1;
	}
	tags = xcalloc((size_t)s->nranks, sizeof *tags);
	if (ba->cc.check && bench_check(s, &a, &bw, &res->wrong) != 0)
		goto fail;
	trace_clear(s);
	bench_last_free(s);
	if (bench_submit(s, &a, (uint32_t)(ba->rounds + ba->warmup), tags) != 0)
		goto fail;
	bench_progress_start(s, &pg, ba->rounds + ba->warmup);
	rc = bench_wait(s, tags, &pg);
	bench_progress_end(&pg);
	if (rc != 0)
		goto fail;
	trace_summary(s, &tc);
	res->lost = tc.lost;
	res->not_kept = tc.not_kept;
	if (bench_stats(s, ba, tags, res) != 0) {
		rc = -1;
		goto fail;
	}
	if (res->median > 0) {
		res->algbw = (double)size / res->median / 1e3;
		res->busbw = res->algbw * coll_busbw_factor(a.kind,
		    coll_size(&a, s->nranks));
	}
	s->bench = xcalloc(1, sizeof *s->bench);
	snprintf(s->bench->root, sizeof s->bench->root, "%s",
	    coll_kind_name(a.kind));
	s->bench->rounds = ba->rounds;
	s->bench->warmup = ba->warmup;
	s->bench->tags = tags;
	s->bench->ntags = s->nranks;
	trace_pin(s, tags, (size_t)s->nranks);	/* tree needs them later */
	s->bench->gen = tc.gen;
	s->bench->lost = tc.lost;
	s->bench->not_kept = tc.not_kept;
	s->bench->kept = tc.kept;
	s->bench->bytes = a.kind == COLL_BARRIER ? 0 : size;
	s->bench->ring = a.kind == COLL_ALLREDUCE && a.mode == MODE_RING;
	s->bench->sweep = ba->sweep;
	s->bench->complete = tc.lost == 0 && tc.not_kept == 0 && tc.unnamed == 0;
	tags = NULL;
	rc = 0;
fail:
	free(tags);
	{
		uint64_t lo = bw.has_src ? bw.src.off : bw.has_buf ?
		    bw.buf.off : bw.sig.off;
		int r;

		if (session_range_busy(s, lo, lo + bw.need, &r))
			out_warning("rank %d did not stop; the bench windows stay allocated while it holds them",
			    r);
		else
			bench_wins_free(s);
	}
	if (rc != 0)
		bench_result_release(res, s->nranks);
	return rc;
}
