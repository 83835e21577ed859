/*
 * bench-run.c - run one bench: the windows, the timed back-to-back calls
 * on every rank, waiting for them (progress, Ctrl-C, a dead rank, the
 * watchdog); see bench.h.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "ctl.h"
#include "proto.h"
#include "span.h"
#include "xmalloc.h"


static int
tag_queued(struct session *s, int r, uint32_t tag)
{
	for (struct job *j = rank_job(s, r); j != NULL; j = j->next) {
		if (j->tag == tag)
			return 1;
	}
	return 0;
}

/* Ask every rank running something to abandon it (bench interrupted). */
static void
abort_all(struct session *s)
{
	for (int r = 0; r < s->nranks; r++) {
		if (rank_alive(s, r) && rank_job(s, r) != NULL)
			ctl_cancel(&s->seg, r);
	}
}

/* The progress line of a long bench (interactive only, never captured). */
struct progress {
	uint64_t start_ns, last_ns;
	uint64_t *base;		/* per rank: board progress at the start */
	uint64_t *nops;		/* per rank: micro-ops of one run */
	long runs;
	int shown;
};

static void
progress_start(struct session *s, struct progress *pg, long runs)
{
	memset(pg, 0, sizeof *pg);
	pg->start_ns = pg->last_ns = mono_ns();
	pg->runs = runs;
	pg->base = xcalloc((size_t)s->nranks, sizeof *pg->base);
	pg->nops = xcalloc((size_t)s->nranks, sizeof *pg->nops);
	for (int r = 0; r < s->nranks; r++) {
		struct job *j = rank_job(s, r);

		struct view_board b;

		view_board(&s->view, r, &b);
		pg->base[r] = b.progress;
		pg->nops[r] = j != NULL && j->prog != NULL ? j->prog->nops : 0;
	}
}

static void
progress_tick(struct session *s, struct progress *pg)
{
	uint64_t now = mono_ns(), done = UINT64_MAX;

	if (pg == NULL || !s->interactive || !isatty(STDOUT_FILENO) ||
	    now - pg->start_ns < 1000000000ull || now - pg->last_ns < 200000000ull)
		return;
	pg->last_ns = now;
	for (int r = 0; r < s->nranks; r++) {
		struct view_board b;
		uint64_t p;

		view_board(&s->view, r, &b);
		p = b.progress - pg->base[r];

		if (pg->nops[r] > 0)
			done = MIN(done, p / pg->nops[r]);
	}
	if (done == UINT64_MAX)
		return;
	printf("\rbench: round %ld of %ld (%.0f s)",
	    (long)MIN(done + 1, (uint64_t)pg->runs), pg->runs,
	    (double)(now - pg->start_ns) / 1e9);
	fflush(stdout);
	pg->shown = 1;
}

static void
progress_clear(struct progress *pg)
{
	if (pg != NULL && pg->shown) {
		printf("\r\033[K");
		fflush(stdout);
		pg->shown = 0;
	}
}

static void
progress_end(struct progress *pg)
{
	progress_clear(pg);
	free(pg->base);
	free(pg->nops);
}

/*
 * Wait until no rank still has the jobs tags[r] (0: none on r).  Returns 0,
 * or -1 (reported) when interrupted, when the watchdog fired, or when a
 * rank died; the rest are asked to abandon the jobs, and given
 * ABORT_GRACE_NS to do so (a rank that does not answer, e.g. stopped by
 * SIGSTOP, keeps its job, and bench_one() its windows).
 */
#define ABORT_GRACE_NS 5000000000ull
int
bench_wait(struct session *s, const uint32_t *tags, struct progress *pg)
{
	int failed = 0;
	uint64_t last_abort = 0, first_abort = 0;

	for (;;) {
		int left = 0;

		for (int r = 0; r < s->nranks; r++) {
			if (tags[r] != 0 && rank_alive(s, r) &&
			    tag_queued(s, r, tags[r]))
				left++;
			else if (tags[r] != 0 && !rank_alive(s, r))
				failed = 1;
		}
		if (left == 0)
			break;
		if (shell_interrupted || s->watchdog_fired)
			failed = 1;
		if (failed && first_abort != 0 &&
		    mono_ns() - first_abort > ABORT_GRACE_NS)
			break;
		if (failed && mono_ns() - last_abort > 20000000ull) {
			/* again and again: a rank between two runs forgets */
			abort_all(s);
			last_abort = mono_ns();
			if (first_abort == 0)
				first_abort = last_abort;
		}
		session_pump(s, 2);
		progress_tick(s, pg);
	}
	if (failed) {
		int dead = -1;

		for (int r = 0; r < s->nranks && dead < 0; r++) {
			if (tags[r] != 0 && !rank_alive(s, r))
				dead = r;
		}
		progress_clear(pg);
		if (dead >= 0)
			out_error("bench stopped: rank %d is %s", dead,
			    rank_state_name(rank_state_of(s, dead)));
		else if (s->watchdog_fired)
			out_error("bench stopped: the hang watchdog fired");
		else
			out_error("bench interrupted");
		shell_interrupted = 0;	/* the prompt need not see it again */
		for (int r = 0; r < s->nranks; r++) {
			if (rank_job(s, r) == NULL)
				ctl_cancel_clear(&s->seg, r);
		}
		session_update_gate(s);
	}
	return failed ? -1 : 0;
}

int
bench_submit(struct session *s, const struct coll_args *a, uint32_t repeat,
    uint32_t first_iter, enum span_detail spans, uint32_t *tags)
{
	static const unsigned flags[SPAN_DETAIL__COUNT] = {
		[SPAN_DETAIL_PHASES] = PROG_F_SPANS_PHASES,
		[SPAN_DETAIL_ROOTS] = PROG_F_SPANS_ROOTS,
	};
	char *cause = NULL;

	if (session_submit_coll_repeat(s, a, flags[spans], s->next_coll++,
	    repeat, first_iter, NULL, &cause) != 0) {
		out_error("%s", cause);
		free(cause);
		return -1;
	}
	for (int r = 0; r < s->nranks; r++)
		tags[r] = rank_job(s, r) != NULL ? rank_job(s, r)->tag : 0;
	return 0;
}

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
	progress_start(s, &pg, runs);
	rc = bench_wait(s, tags, &pg);
	progress_end(&pg);
	return rc;
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
	trace_clear(s);
	bench_last_free(s);
	wait_counts(s, w0);
	res->rounds = ba->rounds;
	res->warmup = ba->warmup;
	if (bench_run_job(s, &a, ba->time > 0 ? res->warmup :
	    res->rounds + res->warmup, 0, ba->spans, tags) != 0)
		goto fail;
	if (ba->time > 0) {
		double pace = bench_pace(s, tags, ntags, res->warmup);
		double fit = ba->time * 1e6 / (pace > 0.001 ? pace : 0.001);

		res->rounds = fit < 1 ? 1 : fit > BENCH_ROUNDS_MAX ?
		    BENCH_ROUNDS_MAX : (long)fit;
		if (bench_run_job(s, &a, res->rounds, (uint32_t)res->warmup,
		    ba->spans, tags + ntags) != 0)
			goto fail;
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
		res->busbw = res->algbw * coll_busbw_factor(a.kind, s->nranks);
	}
	s->bench = xcalloc(1, sizeof *s->bench);
	snprintf(s->bench->root, sizeof s->bench->root, "%s",
	    coll_kind_name(a.kind));
	s->bench->rounds = res->rounds;
	s->bench->warmup = res->warmup;
	s->bench->rounds_timed = ba->time > 0;
	s->bench->tags = tags;
	s->bench->ntags = (int)ntags;
	s->bench->gen = tc.gen;
	s->bench->lost = tc.lost;
	s->bench->not_kept = tc.not_kept;
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
