/* submit.c - send a command's programs to ranks and report what is left. */
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "shell.h"
#include "xmalloc.h"

struct prog *
prog_one(const char *title, const struct uop *u)
{
	struct prog *p = prog_new(title);

	prog_add(p, u);
	return p;
}

int
cmd_submit(struct cmdctx *ctx, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags)
{
	struct session *s = ctx->s;
	struct job *head = rank_job(s, r), *j;
	char *cause = NULL;

	if (s->sink != NULL)
		return s->sink->prog(s->sink->arg, r, p, desc);
	if (s->user)
		return run_submit(ctx, r, p, desc);
	if (head != NULL) {
		struct strbuf sb = STRBUF_INIT;
		enum rank_state st = rank_state_of(s, r);
		describe_rank(s, r, &sb, 0);
		out_event(r, "[rank %d] %s is queued: rank %d is %s%s%s", r, desc, r,
		    rank_state_name(st), sb.len ? " in " : "", sb.buf);
		strbuf_release(&sb);
		flags |= JOB_ANNOUNCE;
	}
	pflags |= s->start_pflags;
	if (pflags & PROG_F_START)
		atomic_store(&s->seg.h->gate_active, 1);
	j = session_submit(s, r, p, desc, flags, pflags, &cause);
	if (j == NULL) {
		out_error("%s", cause);
		free(cause);
		return -1;
	}
	ctx->subs = xreallocarray(ctx->subs, ctx->nsubs + 1, sizeof *ctx->subs);
	ctx->subs[ctx->nsubs].rank = r;
	ctx->subs[ctx->nsubs].tag = j->tag;
	ctx->nsubs++;
	return 0;
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
			continue;	/* done, or queued (said so already) */
		st = rank_state_of(s, r);
		if (st == RS_BLOCKED) {
			/* blocked on a cell that already holds is about to
			 * run on: that is "still running" */
			struct seg_rank *b = seg_board(&s->seg, r);
			int32_t v = atomic_load((_Atomic int32_t *)(seg_area(&s->seg, r) +
			    atomic_load(&b->wait_off)));
			if (wait_cmp_holds((enum wait_cmp)atomic_load(&b->wait_cmp), v,
			    atomic_load(&b->wait_expected)))
				st = RS_RUNNING;
		}
		strbuf_reset(&sb);
		describe_rank(s, r, &sb, 0);
		if (st == RS_BLOCKED) {
			out_event(r, "[rank %d] blocked: %s", r, sb.buf);
			j->flags |= JOB_SAID_BLOCKED;
		}
		else if (st == RS_STOPPED)
			out_event(r, "[rank %d] stopped before %s", r, sb.buf);
		else
			out_event(r, "[rank %d] still running: %s", r, sb.len ? sb.buf : j->desc);
		j->flags |= JOB_ANNOUNCE;
	}
	/* A queued program that started meanwhile and blocked says so too. */
	for (int r = 0; r < s->nranks; r++) {
		struct job *j = rank_job(s, r);
		if (j == NULL || !(j->flags & JOB_ANNOUNCE) || (j->flags & JOB_COLL) ||
		    (j->flags & JOB_SAID_BLOCKED) || !rank_alive(s, r) ||
		    rank_state_of(s, r) != RS_BLOCKED ||
		    atomic_load(&seg_board(&s->seg, r)->prog_tag) != j->tag)
			continue;
		strbuf_reset(&sb);
		describe_rank(s, r, &sb, 0);
		out_event(r, "[rank %d] blocked: %s", r, sb.buf);
		j->flags |= JOB_SAID_BLOCKED;
	}
	strbuf_release(&sb);
}
