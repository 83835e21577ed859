/*
 * bench-run.c - a bench's runs on every rank: send them, wait for them
 * (progress, Ctrl-C, a dead rank, the watchdog); see bench.h.
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

void
bench_progress_start(struct session *s, struct progress *pg, long runs)
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
		pg->nops[r] =
		    j != NULL && j->prog != NULL ? prog_len(j->prog) : 0;
	}
}

static void
progress_tick(struct session *s, struct progress *pg)
{
	uint64_t now = mono_ns(), done = UINT64_MAX;

	if (pg == NULL || !s->interactive || !isatty(STDOUT_FILENO) ||
	    now - pg->start_ns < 1000000000ull ||
	    now - pg->last_ns < 200000000ull)
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

void
bench_progress_end(struct progress *pg)
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
		/* before the jobs' end: Ctrl-C also reaches the ranks, which
		 * may abandon every job before this loop sees it, and an
		 * interrupted bench must not pass for a whole one */
		if (shell_interrupted || s->watchdog_fired)
			failed = 1;
		if (left == 0)
			break;
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
		shell_interrupted = 0; /* the prompt need not see it again */
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
		tags[r] = coll_dense(a, r) >= 0 && rank_job(s, r) != NULL ?
		    rank_job(s, r)->tag :
		    0;
	return 0;
}
