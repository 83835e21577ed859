/*
 * cmd-coll.c - the collective commands (allreduce, barrier, broadcast,
 * allgather, reduce_scatter, all_to_all): issue one on every rank, keep
 * track of it until every rank is done, and `check` the result against a
 * reference computed from the inputs (nccl-tests' #wrong).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "ctl.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

struct coll_run {
	int id;
	struct coll_call cc;
	char title[64];
	int remaining; /* ranks not done yet */
	struct rankset aborted, died, errored;
	/* ranks ended with the MPI job another's death ended */
	struct rankset with_job;
	char *error; /* the lowest failing rank's error text */
	int error_rank;
	struct coll_ref *ref; /* `check`: the reference, from the inputs
				 * before the call */
	struct coll_run *next;
};

/* Each lifted restriction (and each acceptance note) is said once per
 * session: prefix "strict off: " or "". */
static void
note_once(const char *prefix, const char *note)
{
	static const char *seen[32];
	static size_t n;

	for (size_t i = 0; i < n; i++) {
		if (seen[i] == note)
			return;
	}
	if (n < ARRAY_SIZE(seen))
		seen[n++] = note;
	out_printf("note: %s%s\n", prefix, note);
}

/*
 * PyPTO's composite allgather (LowerTensorAllGatherRule) checks that
 * local_data is a plain Tensor and rejects a window; colldb has only
 * windows.  It accepts one and reads it as the rank's local data, and says
 * so once in strict mode (docs/protocols.md, "allgather").
 */
static const char allgather_src_note[] =
    "PyPTO's composite allgather takes SRC "
    "(local_data) as a plain tensor and rejects a window; colldb has only "
    "windows and reads SRC as this rank's local data (impl=builtin takes a "
    "window, as PyPTO's builtin does)";

int
coll_in_progress(struct session *s, const char **what)
{
	for (struct coll_run *c = s->colls; c != NULL; c = c->next) {
		if (c->remaining > 0) {
			*what = c->title;
			return 1;
		}
	}
	return 0;
}

static void
run_free(struct session *s, struct coll_run *c)
{
	coll_ref_free(c->ref);
	free(c->error);
	free(c);
}

void
coll_read_output(struct view *v, int r, const struct coll_output *o, void *out)
{
	uint64_t n = o->count * dtype_size(o->dtype);

	view_read(v, r, o->off, out, n);
	if (o->count2 > 0)
		view_read(v, r, o->off2, (uint8_t *)out + n, o->count2 * 4);
}

/* session_close(): the collectives still in progress go with it (their
 * jobs' done callbacks find nothing afterwards). */
static void
colls_close(struct session *s)
{
	while (s->colls != NULL) {
		struct coll_run *c = s->colls;

		s->colls = c->next;
		run_free(s, c);
	}
}

const struct session_hook coll_session_hook = {
	.name = "coll",
	.close = colls_close,
};

/* Read every rank's input windows before anything moves, into the
 * reference (one rank's copy at a time). */
static void
snapshot(struct session *s, struct coll_run *c)
{
	const struct coll_args *a = &c->cc.a;
	uint64_t lo, hi;
	uint8_t *in;

	coll_inputs(a, &lo, &hi);
	in = xmalloc(hi - lo + 1);
	c->ref = coll_ref_new(a, s->nranks);
	for (int r = 0; r < s->nranks; r++) {
		view_read(&s->view, r, lo, in, hi - lo);
		coll_ref_add(c->ref, r, in - lo); /* indexed by area offset */
	}
	free(in);
}

static void
report_check(struct session *s, struct coll_run *c)
{
	const struct coll_args *a = &c->cc.a;
	struct strbuf sb = STRBUF_INIT;
	uint64_t total = 0;
	void *got = NULL;

	for (int r = 0; r < s->nranks; r++) {
		struct coll_output o;
		void *want;
		uint64_t wrong;

		if (coll_dense(a, r) < 0)
			continue; /* outside its domain */
		coll_output(a, s->nranks, r, &o);
		want = xmalloc(coll_output_bytes(&o) + 1);
		got = xrealloc(got, coll_output_bytes(&o) + 1);
		coll_ref_expect(c->ref, r, want);
		coll_read_output(&s->view, r, &o, got);
		wrong = coll_wrong(a, s->nranks, &o, want, got);
		if (wrong != 0)
			strbuf_addf(&sb, "%srank %d: %llu", total ? ", " : "",
			    r, (unsigned long long)wrong);
		total += wrong;
		free(want);
	}
	if (total == 0)
		out_event(INT_MAX, "%s: done, #wrong 0", c->title);
	else
		out_event(INT_MAX, "%s: done, #wrong %llu (%s)", c->title,
		    (unsigned long long)total, sb.buf);
	strbuf_release(&sb);
	free(got);
}

/* One rank's part of a collective ended (or its rank died): the
 * collective reports once every rank's part has. */
static void
coll_job_done(struct session *s, struct job *j, const struct job_end *e)
{
	struct coll_run **pp = &s->colls, *c;
	int status = e->status, failed;
	const char *text = e->text;

	if (status == DONE_ERROR) {
		job_report_done(s, j, e); /* "[rank N] ... failed: ..." */
		return;
	}
	while (*pp != NULL && (*pp)->id != j->coll)
		pp = &(*pp)->next;
	if ((c = *pp) == NULL)
		return;
	if (status == DONE_ABORTED) {
		rankset_add(&c->aborted, j->rank);
	} else if (status == JOB_DIED) {
		rankset_add(s->rp[j->rank].with_job ? &c->with_job : &c->died,
		    j->rank);
	} else if (status != DONE_OK) {
		rankset_add(&c->errored, j->rank);
		if (c->error == NULL || j->rank < c->error_rank) {
			free(c->error);
			c->error = xstrdup(text != NULL ? text : "");
			c->error_rank = j->rank;
		}
	}
	if (--c->remaining > 0)
		return;
	failed = rankset_count(&c->aborted) + rankset_count(&c->died) +
	    rankset_count(&c->with_job) + rankset_count(&c->errored);
	leftover_note_end(s, &c->cc.a, c->title, failed == 0);
	if (failed > 0) {
		/* rank sets, not arrival order: the report is deterministic */
		struct strbuf sb = STRBUF_INIT;
		char *t;
		if (rankset_count(&c->died) > 0) {
			t = rankset_format(&c->died, s->nranks);
			strbuf_addf(&sb, "%s died", t);
			free(t);
		}
		if (rankset_count(&c->with_job) > 0) {
			t = rankset_format(&c->with_job, s->nranks);
			strbuf_addf(&sb, "%s%s ended with the MPI job",
			    sb.len ? "; " : "", t);
			free(t);
		}
		if (rankset_count(&c->aborted) > 0) {
			t = rankset_format(&c->aborted, s->nranks);
			strbuf_addf(&sb, "%sabandoned by %s (interrupt)",
			    sb.len ? "; " : "", t);
			free(t);
		}
		if (rankset_count(&c->errored) > 0)
			strbuf_addf(&sb, "%srank %d failed: %s",
			    sb.len ? "; " : "", c->error_rank, c->error);
		out_event(INT_MAX, "%s: not completed: %s", c->title, sb.buf);
		strbuf_release(&sb);
	} else if (c->cc.check) {
		report_check(s, c);
	} else {
		out_event(INT_MAX, "%s: done", c->title);
	}
	*pp = c->next;
	atomic_compare_exchange_strong(&s->seg.h->cur_coll_id,
	    &(uint32_t){ (uint32_t)c->id }, 0);
	run_free(s, c);
}

int
coll_issue(struct cmdctx *ctx, struct coll_call *cc, unsigned pflags)
{
	struct session *s = ctx->s;
	struct coll_run *c;
	struct seg_window *w;
	const char *note;
	char *cause = NULL;
	int synth_new;

	if (s->sink != NULL)
		return coll_synth_signal(ctx, cc, 1) != 0 ?
		    -1 :
		    s->sink->coll(s->sink->arg, cc);
	/* no other collective is in progress (CMD_NEEDS_NO_COLL); a rank
	 * that died meanwhile is seen dead */
	session_pump(s, 0);
	for (int r = 0; r < s->nranks; r++) {
		if (coll_dense(&cc->a, r) >= 0 && !rank_alive(s, r)) {
			cmd_error(ctx,
			    "collectives need every rank%s; rank %d is %s",
			    cc->a.domain ? " of their domain" : "", r,
			    rank_state_name(rank_state_of(s, r)));
			return -1;
		}
	}
	/* Refused here, nothing has changed: no signal made, no rank told. */
	if (coll_synth_signal(ctx, cc, 1) != 0)
		return -1;
	if (session_coll_ready(s, &cc->a, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return -1;
	}
	synth_new = cc->synth && seg_win_find(&s->seg, cc->synth_name) == NULL;
	if (coll_synth_signal(ctx, cc, 0) != 0)
		return -1;
	/* the names point into cc; keep them valid in the copy */
	c = xcalloc(1, sizeof *c);
	c->cc = *cc;
	c->cc.a.buf.name = c->cc.names[0];
	c->cc.a.src.name = c->cc.names[1];
	c->cc.a.sig.name = cc->synth ? c->cc.synth_name : c->cc.names[2];
	c->cc.a.scount.name = c->cc.names[3];
	c->cc.a.rcount.name = c->cc.names[4];
	c->id = s->next_coll++;
	c->remaining = coll_size(&c->cc.a, s->nranks);
	coll_title(&c->cc.a, c->title, sizeof c->title);
	if ((note = coll_strict_lifted(&c->cc.a)) != NULL && !s->set.strict)
		note_once("strict off: ", note);
	if (c->cc.a.kind == COLL_ALLGATHER && c->cc.a.impl == IMPL_COMPOSITE &&
	    s->set.strict)
		note_once("", allgather_src_note);
	if ((note = coll_warning(&c->cc.a, s->nranks)) != NULL)
		out_warning("%s", note);
	lint_coll_signal(s, &c->cc.a, c->title);
	if (cc->check)
		snapshot(s, c);
	s->seg.h->cur_coll = c->cc.a;
	coll_args_unname(&s->seg.h->cur_coll);
	atomic_store(&s->seg.h->cur_coll_id, (uint32_t)c->id);
	pflags |= s->start_pflags;
	if (pflags & PROG_F_START)
		ctl_set_gate(&s->seg, 1); /* before it is sent */
	if (session_submit_coll(s, &c->cc.a, pflags | PROG_F_RESUMABLE, c->id,
		coll_job_done, &cause) != 0) {
		/* a rank died just now: no rank runs it (jobs.c) */
		cmd_error(ctx, "%s", cause);
		free(cause);
		leftover_note_end(s, &c->cc.a, c->title, -1);
		atomic_store(&s->seg.h->cur_coll_id, 0);
		if (synth_new &&
		    (w = seg_win_find(&s->seg, cc->synth_name)) != NULL) {
			seg_lock(&s->seg);
			seg_win_free(&s->seg, w);
			seg_unlock(&s->seg);
		}
		session_update_gate(s);
		run_free(s, c);
		return -1;
	}
	leftover_note_issue();
	c->next = s->colls;
	s->colls = c;
	for (int r = 0; r < s->nranks; r++) {
		struct job *j =
		    coll_dense(&c->cc.a, r) >= 0 ? rank_job(s, r) : NULL;
		/* the collective is the tail of every queue; report it like a
		 * command's own program */
		while (j != NULL && j->next != NULL)
			j = j->next;
		if (j != NULL) {
			ctx->subs = xreallocarray(ctx->subs, ctx->nsubs + 1,
			    sizeof *ctx->subs);
			ctx->subs[ctx->nsubs].rank = r;
			ctx->subs[ctx->nsubs].tag = j->tag;
			ctx->nsubs++;
			if (rank_job(s, r) != j) {
				struct strbuf sb = STRBUF_INIT;
				describe_rank(s, r, &sb, 0);
				out_event(r,
				    "[rank %d] %s is queued: rank %d is %s in %s",
				    r, c->title, r,
				    rank_state_name(rank_state_of(s, r)), sb.buf);
				strbuf_release(&sb);
			}
		}
	}
	return 0;
}

/* Every collective command: the kind is the entry's data. */
static enum cmd_retval
cmd_coll_exec(struct cmdctx *ctx)
{
	const enum coll_kind *kind = ctx->entry->data;
	struct coll_call cc;

	if (coll_parse(ctx, *kind, 0, &cc, NULL, NULL) != 0)
		return CMD_ERROR;
	return coll_issue(ctx, &cc, 0) == 0 ? CMD_OK : CMD_ERROR;
}

static const enum coll_kind kind_allreduce = COLL_ALLREDUCE,
			    kind_barrier = COLL_BARRIER,
			    kind_broadcast = COLL_BROADCAST,
			    kind_allgather = COLL_ALLGATHER,
			    kind_reduce_scatter = COLL_REDUCE_SCATTER,
			    kind_all_to_all = COLL_ALL_TO_ALL,
			    kind_all_to_all_v = COLL_ALL_TO_ALL_V;

static const char *const coll_keywords[] = { "op=sum", "op=max", "op=min",
	"op=prod", "mode=mesh", "mode=ring", "impl=composite", "impl=builtin",
	"impl=builtin-neighbour", "core_num=", "root=", "check", NULL };

const struct cmd_entry cmd_allreduce_entry = {
	.name = "allreduce",
	.usage =
	    "BUF [SIG] [op=sum|max|min|prod] [mode=mesh|ring] [impl=composite|builtin|builtin-neighbour] [core_num=B] [check]",
	.summary = "reduce BUF across ranks in place (mesh or ring)",
	.example = "allreduce buf sig mode=ring check",
	.group = GRP_COLL,
	.min_args = 1,
	.max_args = 7,
	.flags = CMD_ALL_RANKS_ONLY | CMD_AGENTS_ONLY | CMD_NEEDS_NO_COLL |
	    CMD_EXPLORE,
	.keywords = coll_keywords,
	.data = &kind_allreduce,
	.exec = cmd_coll_exec,
};

const struct cmd_entry cmd_barrier_entry = {
	.name = "barrier",
	.usage = "SIG [impl=composite|builtin]",
	.summary = "the self-clearing credit barrier on signal SIG ([N,1] i32)",
	.example = "barrier sig",
	.group = GRP_COLL,
	.min_args = 1,
	.max_args = 2,
	.flags = CMD_ALL_RANKS_ONLY | CMD_AGENTS_ONLY | CMD_NEEDS_NO_COLL |
	    CMD_EXPLORE,
	.keywords = coll_keywords,
	.data = &kind_barrier,
	.exec = cmd_coll_exec,
};

const struct cmd_entry cmd_broadcast_entry = {
	.name = "broadcast",
	.usage = "BUF SIG root=R [impl=composite|builtin] [check]",
	.summary = "every rank gets a copy of root's BUF",
	.example = "broadcast buf sig root=0 check",
	.group = GRP_COLL,
	.min_args = 3,
	.max_args = 5,
	.flags = CMD_ALL_RANKS_ONLY | CMD_AGENTS_ONLY | CMD_NEEDS_NO_COLL |
	    CMD_EXPLORE,
	.keywords = coll_keywords,
	.data = &kind_broadcast,
	.exec = cmd_coll_exec,
};

const struct cmd_entry cmd_allgather_entry = {
	.name = "allgather",
	.usage = "SRC DST SIG [impl=composite|builtin] [check]",
	.summary = "every rank puts its SRC row into DST[rank,:] of every rank",
	.example = "allgather src dst sig check",
	.group = GRP_COLL,
	.min_args = 3,
	.max_args = 5,
	.flags = CMD_ALL_RANKS_ONLY | CMD_AGENTS_ONLY | CMD_NEEDS_NO_COLL |
	    CMD_EXPLORE,
	.keywords = coll_keywords,
	.data = &kind_allgather,
	.exec = cmd_coll_exec,
};

const struct cmd_entry cmd_reduce_scatter_entry = {
	.name = "reduce_scatter",
	.usage = "BUF SIG [op=sum] [impl=composite|builtin] [check]",
	.summary = "reduce BUF [N,SIZE] across ranks; rank r keeps row r",
	.example = "reduce_scatter buf sig check",
	.group = GRP_COLL,
	.min_args = 2,
	.max_args = 5,
	.flags = CMD_ALL_RANKS_ONLY | CMD_AGENTS_ONLY | CMD_NEEDS_NO_COLL |
	    CMD_EXPLORE,
	.keywords = coll_keywords,
	.data = &kind_reduce_scatter,
	.exec = cmd_coll_exec,
};

const struct cmd_entry cmd_all_to_all_entry = {
	.name = "all_to_all",
	.usage = "SRC DST SIG [impl=composite|builtin] [check]",
	.summary = "SRC[dest,:] of every rank goes to DST[src,:] on dest",
	.example = "all_to_all src dst sig check",
	.group = GRP_COLL,
	.min_args = 3,
	.max_args = 5,
	.flags = CMD_ALL_RANKS_ONLY | CMD_AGENTS_ONLY | CMD_NEEDS_NO_COLL |
	    CMD_EXPLORE,
	.keywords = coll_keywords,
	.data = &kind_all_to_all,
	.exec = cmd_coll_exec,
};

const struct cmd_entry cmd_all_to_all_v_entry = {
	.name = "all_to_all_v",
	.usage =
	    "SRC DST SIG SEND_COUNTS RECV_COUNTS [impl=composite|builtin] [check]",
	.summary = "all_to_all with counts: MoE dispatch (PyPTO argument order)",
	.example = "all_to_all_v src dst sig sc rc check",
	.group = GRP_COLL,
	.min_args = 5,
	.max_args = 7,
	.flags = CMD_ALL_RANKS_ONLY | CMD_AGENTS_ONLY | CMD_NEEDS_NO_COLL |
	    CMD_EXPLORE,
	.keywords = coll_keywords,
	.data = &kind_all_to_all_v,
	.exec = cmd_coll_exec,
};
