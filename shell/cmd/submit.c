/* submit.c - send a command's programs to ranks and report what is left. */
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

struct prog *
prog_one(const char *title, const struct uop *u)
{
	struct prog *p = prog_new(title);

	prog_add(p, u);
	return p;
}

int
cmd_submit_done(struct cmdctx *ctx, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags, job_done_fn done)
{
	struct session *s = ctx->s;
	struct job *j;
	char *cause = NULL;

	if (s->sink != NULL)
		return s->sink->prog(s->sink->arg, r, p, desc);
	if (s->kind->submit(s, r, p, desc, flags, pflags, &j, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return -1;
	}
	if (j == NULL)
		return 0; /* it ran at once */
	j->done = done;
	j->domain = ctx->dom; /* its windows' domain: shown both ways */
	ctx->subs = xreallocarray(ctx->subs, ctx->nsubs + 1, sizeof *ctx->subs);
	ctx->subs[ctx->nsubs].rank = r;
	ctx->subs[ctx->nsubs].tag = j->tag;
	ctx->nsubs++;
	return 0;
}

int
cmd_submit(struct cmdctx *ctx, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags)
{
	return cmd_submit_done(ctx, r, p, desc, flags, pflags, NULL);
}

static uint32_t
prog_tag_of(struct session *s, int r)
{
	struct view_board b;

	view_board(&s->view, r, &b);
	return b.prog_tag;
}

void
cmd_report(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < ctx->nsubs; i++) {
		int r = ctx->subs[i].rank;
		struct job *j = rank_job(s, r);
		enum rank_state st;

		if (j == NULL || j->tag != ctx->subs[i].tag || !rank_alive(s, r))
			continue; /* done, or queued (said so already) */
		st = rank_state_of(s, r);
		if (st == RS_BLOCKED) {
			/* blocked on a cell that already holds is about to
			 * run on: that is "still running" */
			struct view_board b;

			view_board(&s->view, r, &b);
			if (wait_cmp_holds(b.wait_cmp,
				view_cell(&s->view, r, b.wait_off),
				b.wait_expected))
				st = RS_RUNNING;
		}
		strbuf_reset(&sb);
		describe_rank(s, r, &sb, 0);
		if (st == RS_BLOCKED) {
			out_event(r, "[rank %d] blocked: %s", r, sb.buf);
			j->flags |= JOB_SAID_BLOCKED;
		} else if (st == RS_STOPPED) {
			/* with "[breakpoint N]" when one stopped it */
			strbuf_reset(&sb);
			describe_rank(s, r, &sb, 1);
			out_event(r, "[rank %d] stopped before %s", r, sb.buf);
			break_stop_said(s, r);
		} else if (st == RS_IDLE) {
			/* sent, and the board does not show it: the rank has
			 * not taken it from its socket when the settle time
			 * ran out (a busy machine), or it cannot; or it ended
			 * just now (its report comes next) */
			int frozen = rank_frozen(s, r);
			struct view_board b;

			view_board(&s->view, r, &b);
			strbuf_reset(&sb);
			if (b.prog_tag == j->tag)
				strbuf_addstr(&sb,
				    "it ended; its report comes next");
			else if (frozen == RANK_FROZEN_SIGNAL)
				strbuf_addstr(&sb,
				    "the rank is stopped by a signal, SIGCONT resumes it");
			else if (frozen == RANK_FROZEN_TRACED)
				strbuf_addstr(&sb,
				    "the rank is held by a debugger");
			else
				strbuf_addf(&sb,
				    "the rank had not taken it up when the settle time, %g s, ran out",
				    s->set.settle_ms / 1e3);
			out_event(r, "[rank %d] not started yet: %s (%s)", r,
			    j->desc, sb.buf);
		} else
			out_event(r, "[rank %d] still running: %s", r,
			    sb.len ? sb.buf : j->desc);
		j->flags |= JOB_ANNOUNCE;
	}
	/* A queued program that started meanwhile and blocked says so too. */
	for (int r = 0; r < s->nranks; r++) {
		struct job *j = rank_job(s, r);
		if (j == NULL || !(j->flags & JOB_ANNOUNCE) ||
		    (j->flags & JOB_COLL) || (j->flags & JOB_SAID_BLOCKED) ||
		    !rank_alive(s, r) || rank_state_of(s, r) != RS_BLOCKED ||
		    prog_tag_of(s, r) != j->tag)
			continue;
		strbuf_reset(&sb);
		describe_rank(s, r, &sb, 0);
		out_event(r, "[rank %d] blocked: %s", r, sb.buf);
		j->flags |= JOB_SAID_BLOCKED;
	}
	strbuf_release(&sb);
}
