/*
 * bench-one.c - one bench of one size: its windows, the check, the timed
 * runs, the figures; the result becomes the session's last bench (for
 * `tree` and `trace save`).  See bench.h.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "proto.h"
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

/* The ranks' wait counters, summed (the board, through the view). */
static void
wait_counts(struct session *s, uint64_t out[3])
{
	out[0] = out[1] = out[2] = 0;
	view_sample(&s->view);
	for (int r = 0; r < s->nranks; r++) {
		struct view_board b;

		view_board(&s->view, r, &b);
		out[0] += b.n_yield;
		out[1] += b.n_sleep;
		out[2] += b.n_wake;
	}
}

/* Send a and wait for its `runs` runs (iterations first .. ); 0 or -1. */
static int
bench_run_job(struct session *s, const struct coll_args *a, long runs,
    uint32_t first, enum span_detail spans, uint32_t *tags)
{
	struct progress pg;
	int rc;

	if (bench_submit(s, a, (uint32_t)runs, first, spans, tags) != 0)
		return -1;
	bench_progress_start(s, &pg, runs);
	rc = bench_wait(s, tags, &pg);
	bench_progress_end(&pg);
	return rc;
}

/* Count each rank's runs finished (its root spans). */
struct runs_done {
	long *n;
	int nranks;
};

static int
count_root(void *arg, const struct trace_span *sp)
{
	struct runs_done *d = arg;

	if (sp->rec->rank < d->nranks)
		d->n[sp->rec->rank]++;
	return 0;
}

/* A bench that ended early (interrupted, the watchdog, a rank gone) is
 * the last bench all the same, so that `tree` says so and shows the runs
 * every rank finished, if any. */
static void
keep_stopped(struct session *s, const struct bench_args *ba,
    const struct coll_args *a, uint64_t size, uint32_t *tags, size_t ntags,
    long warmup)
{
	struct runs_done d = { xcalloc((size_t)s->nranks, sizeof *d.n),
		s->nranks };
	struct trace_counts tc;
	long done;
	int dead = -1;

	for (int r = 0; r < s->nranks && dead < 0; r++) {
		if (!rank_alive(s, r))
			dead = r;
	}
	trace_summary(s, &tc);
	trace_visit(s, tags, ntags, 1, count_root, &d);
	done = d.n[0];
	for (int r = 1; r < s->nranks; r++)
		done = MIN(done, d.n[r]);
	free(d.n);
	s->bench = xcalloc(1, sizeof *s->bench);
	snprintf(s->bench->root, sizeof s->bench->root, "%s",
	    coll_kind_name(a->kind));
	s->bench->stopped = dead >= 0 ? "was stopped: a rank ended" :
	    s->watchdog_fired	      ? "was stopped by the hang watchdog" :
					"was interrupted";
	s->bench->done = done;
	s->bench->warmup = MIN(done, warmup);
	s->bench->rounds = done - s->bench->warmup;
	s->bench->tags = xcalloc(ntags, sizeof *tags);
	memcpy(s->bench->tags, tags, ntags * sizeof *tags);
	s->bench->ntags = (int)ntags;
	trace_pin(s, tags, ntags);
	s->bench->gen = tc.gen;
	s->bench->lost = tc.lost;
	s->bench->not_kept = tc.not_kept;
	s->bench->kept = tc.kept;
	s->bench->bytes = a->kind == COLL_BARRIER ? 0 : size;
	s->bench->ring = a->kind == COLL_ALLREDUCE && a->mode == MODE_RING;
	s->bench->sweep = ba->sweep;
	s->bench->spans = ba->spans;
	s->bench->complete = tc.lost == 0 && tc.not_kept == 0 && tc.unnamed == 0;
}

/* One bench of `size` bytes: windows, check, timed runs, figures. */
int
bench_one(struct cmdctx *ctx, const struct bench_args *ba, uint64_t size,
    const struct bench_wins *reuse, struct bench_result *res)
{
	struct session *s = ctx->s;
	struct coll_args a;
	struct bench_wins bw;
	struct trace_counts tc;
	uint32_t *tags = NULL;
	size_t ntags;
	uint64_t w0[3], w1[3];
	char *cause = NULL;
	int rc = -1;

	memset(res, 0, sizeof *res);
	strbuf_init(&res->stats, 0);
	res->wrong = -1;
	res->bytes = size;
	res->count = size / dtype_size(ba->dtype);
	if (bench_validate(ctx, ba, size, &a, &bw) != 0)
		return -1;
	if (reuse != NULL) {
		/* a sweep's windows, placed for its largest size: this size
		 * runs on the front of each (its pages already touched) */
		bw.src.off = a.src.off = reuse->src.off;
		bw.buf.off = a.buf.off = reuse->buf.off;
		bw.sig = a.sig = reuse->sig;
		bw.scount = a.scount = reuse->scount;
		bw.rcount = a.rcount = reuse->rcount;
	} else if (bench_wins_alloc(s, &bw, &cause) != 0) {
		arg_error(ctx, ba->at_size, "%s", cause);
		free(cause);
		return -1;
	}
	/* job A: every run, or (time=) the warmup; job B: time='s rounds */
	tags = xcalloc(2 * (size_t)s->nranks, sizeof *tags);
	ntags = (size_t)s->nranks;
	if (ba->cc.check && bench_check(s, &a, &bw, &res->wrong) != 0)
		goto fail;
	if (bw.has_counts && bench_counts_reset(s, &a, &bw) != 0)
		goto fail;
	trace_clear(s);
	bench_last_free(s);
	wait_counts(s, w0);
	res->rounds = ba->rounds;
	res->warmup = ba->warmup;
	if (bench_run_job(s, &a,
		ba->time > 0 ? res->warmup : res->rounds + res->warmup, 0,
		ba->spans, tags) != 0) {
		keep_stopped(s, ba, &a, size, tags, ntags, res->warmup);
		goto fail;
	}
	if (ba->time > 0) {
		double pace = bench_pace(s, tags, ntags, res->warmup);
		double fit = ba->time * 1e6 / (pace > 0.001 ? pace : 0.001);

		res->rounds = fit < 1	   ? 1 :
		    fit > BENCH_ROUNDS_MAX ? BENCH_ROUNDS_MAX :
					     (long)fit;
		if (bench_run_job(s, &a, res->rounds, (uint32_t)res->warmup,
			ba->spans, tags + ntags) != 0) {
			keep_stopped(s, ba, &a, size, tags, 2 * ntags,
			    res->warmup);
			goto fail;
		}
		ntags *= 2;
	}
	wait_counts(s, w1);
	res->yields = w1[0] - w0[0];
	res->sleeps = w1[1] - w0[1];
	res->wakes = w1[2] - w0[2];
	trace_summary(s, &tc);
	res->lost = tc.lost;
	res->not_kept = tc.not_kept;
	if (bench_stats(s, ba, tags, ntags, res) != 0) {
		rc = -1;
		goto fail;
	}
	if (res->median > 0) {
		res->algbw = (double)size / res->median / 1e3;
		res->busbw = res->algbw *
		    coll_busbw_factor(a.kind, coll_size(&a, s->nranks));
	}
	s->bench = xcalloc(1, sizeof *s->bench);
	snprintf(s->bench->root, sizeof s->bench->root, "%s",
	    coll_kind_name(a.kind));
	s->bench->rounds = res->rounds;
	s->bench->warmup = res->warmup;
	s->bench->rounds_timed = ba->time > 0;
	s->bench->tags = tags;
	s->bench->ntags = (int)ntags;
	trace_pin(s, tags, ntags); /* tree needs them later */
	s->bench->gen = tc.gen;
	s->bench->lost = tc.lost;
	s->bench->not_kept = tc.not_kept;
	s->bench->kept = tc.kept;
	s->bench->bytes = a.kind == COLL_BARRIER ? 0 : size;
	s->bench->ring = a.kind == COLL_ALLREDUCE && a.mode == MODE_RING;
	s->bench->sweep = ba->sweep;
	s->bench->spans = ba->spans;
	s->bench->complete = tc.lost == 0 && tc.not_kept == 0 && tc.unnamed == 0;
	tags = NULL;
	rc = 0;
fail:
	free(tags);
	if (reuse == NULL)
		bench_wins_release(s, &bw);
	if (rc != 0)
		bench_result_release(res, s->nranks);
	return rc;
}
