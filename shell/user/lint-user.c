/*
 * lint-user.c - the shell's lint patterns (diag/lint.c) for a user
 * program's own cdb_* calls, with the source lines involved.  A user rank
 * announces each call before it runs it (job_begin); against what the
 * ranks did (the history) and still run (their jobs) that call is checked
 * for:
 *
 *   put after notify   a put to a peer whose last word from this rank was
 *                      a notify that released no data (notify, then put);
 *   set 0, awaited     a set whose value never satisfies the wait the
 *                      peer has on that cell (a tag of 0);
 *   == on a counter    a wait for == on a cell several ranks add to;
 *   set, shared        a set on a cell another rank writes too;
 *   reused signal      a wait on a cell this rank waited on before that
 *                      still holds what released it (single-shot).
 *
 * Either side of a pattern may come second (the notify or the wait), so
 * each is checked from both and said once per cell, in one wording.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/out.h"
#include "user/user.h"
#include "xmalloc.h"

#define LINT_SAID_MAX 256

enum {
	PAT_PUT_AFTER,
	PAT_SET_AWAITED,
	PAT_EQ_SHARED,
	PAT_SET_SHARED,
	PAT_REUSED
};

static struct {
	struct said {
		int pat, target;
		uint64_t off;
	} said[LINT_SAID_MAX];
	int nsaid;
	/* waits for == seen, done or not: a notify read after the wait
	 * ended still finds it */
	struct eqwait {
		int rank;
		struct uop u;
		struct site site;
	} eq[LINT_SAID_MAX];
	int neq;
} lu;

/* Whether the pattern was said for (target, off); marks it said. */
static int
once(int pat, int target, uint64_t off)
{
	for (int i = 0; i < lu.nsaid; i++) {
		if (lu.said[i].pat == pat && lu.said[i].target == target &&
		    lu.said[i].off == off)
			return 0;
	}
	if (lu.nsaid < LINT_SAID_MAX)
		lu.said[lu.nsaid++] = (struct said){ pat, target, off };
	return 1;
}

static const char *
at(const struct site *st, char *buf, size_t len)
{
	char loc[SITE_FILE_MAX + 16];

	site_text(st, loc, sizeof loc);
	snprintf(buf, len, "%s%s", loc[0] ? " at " : "", loc);
	return buf;
}

/* The single op of a user call, or NULL (a collective, an empty put). */
static const struct uop *
one_op(const struct job *j)
{
	return j->prog != NULL && j->prog->gen == NULL && j->prog->nmops == 1 &&
		!(j->flags & JOB_COLL) ?
	    &j->prog->mops[0] :
	    NULL;
}

/* The first job of rank q still to run with a single op of kind on
 * cell off (a wait: its own; a notify: aimed at peer). */
static const struct job *
pending(struct session *s, int q, enum uop_kind kind, uint64_t off, int peer)
{
	for (const struct job *j = rank_job(s, q); j != NULL; j = j->next) {
		const struct uop *u = one_op(j);
		if (u != NULL && u->kind == kind && u->dst == off &&
		    (kind == UOP_WAIT || u->peer == peer))
			return j;
	}
	return NULL;
}

static void
put_after_notify(struct session *s, int r, const struct job *j,
    const struct uop *u)
{
	const struct diag_event *last = NULL, *before = NULL;
	struct strbuf c = STRBUF_INIT;
	char a1[64], a2[64];

	for (size_t i = s->nhist; i-- > 0;) {
		const struct diag_event *e = &s->hist[i];
		if (e->writer != r || e->target != u->peer ||
		    (e->kind != UOP_NOTIFY && e->kind != UOP_PUT))
			continue;
		if (last == NULL) {
			last = e;
			continue;
		}
		before = e;
		break;
	}
	/* notify, then put: the notify released nothing (no put before it,
	 * or the put before it belongs to an earlier notify) */
	if (last == NULL || last->kind != UOP_NOTIFY ||
	    (before != NULL && before->kind == UOP_PUT) ||
	    !once(PAT_PUT_AFTER, u->peer, last->off))
		return;
	describe_cell(&s->view, last->off, 1, &c);
	site_text(&j->site, a1, sizeof a1);
	out_warning("%s%sput after notify: rank %d notified rank %d (%s)%s before this put; rank %d may act on the notify before the data lands: put first, then notify",
	    a1, a1[0] ? ": " : "", r, u->peer, c.buf,
	    at(&last->site, a2, sizeof a2), u->peer);
	strbuf_release(&c);
}

static void
say_set_awaited(struct session *s, int setter, const struct site *nsite,
    int waiter, const struct uop *w, const struct site *wsite, int32_t v)
{
	struct strbuf c = STRBUF_INIT;
	char a1[64], a2[64];

	if (!once(PAT_SET_AWAITED, waiter, w->dst))
		return;
	describe_cell(&s->view, w->dst, 1, &c);
	site_text(nsite, a1, sizeof a1);
	out_warning("%s%srank %d sets %s of rank %d to %d, which rank %d awaits with %s %d%s: the set never releases it%s",
	    a1, a1[0] ? ": " : "", setter, c.buf, waiter, v, waiter,
	    wait_cmp_name((enum wait_cmp)w->op), w->value,
	    at(wsite, a2, sizeof a2),
	    v == 0 ? " (a tag of 0: send a tag >= 1)" : "");
	strbuf_release(&c);
}

static void
say_eq_shared(struct session *s, int waiter, const struct uop *w,
    const struct site *wsite)
{
	struct strbuf c = STRBUF_INIT;
	char a1[64];

	if (!once(PAT_EQ_SHARED, waiter, w->dst))
		return;
	describe_cell(&s->view, w->dst, 1, &c);
	site_text(wsite, a1, sizeof a1);
	out_warning("%s%s== on %s of rank %d, which several ranks add to: the count can overshoot; wait with >=",
	    a1, a1[0] ? ": " : "", c.buf, waiter);
	strbuf_release(&c);
}

/* Ranks other than self that add to (target, off): done or still to. */
static int
adders(struct session *s, int target, uint64_t off, int self)
{
	uint8_t *seen = xcalloc((size_t)s->nranks, 1);
	int n = 0;

	for (size_t i = 0; i < s->nhist; i++) {
		const struct diag_event *e = &s->hist[i];
		if (e->kind == UOP_NOTIFY && e->op == NOTIFY_ADD &&
		    e->target == target && e->off == off && e->writer != self &&
		    e->writer >= 0 && e->writer < s->nranks && !seen[e->writer]) {
			seen[e->writer] = 1;
			n++;
		}
	}
	for (int q = 0; q < s->nranks; q++) {
		const struct job *p = pending(s, q, UOP_NOTIFY, off, target);
		if (q != self && !seen[q] && p != NULL &&
		    one_op(p)->op == NOTIFY_ADD) {
			seen[q] = 1;
			n++;
		}
	}
	free(seen);
	return n;
}

/* A set to (peer, off) while another rank writes it too (or an add
 * where another rank set it): the ranks known to write it, with self. */
static void
set_shared(struct session *s, int r, const struct job *j, const struct uop *u)
{
	struct rankset writers;
	struct strbuf c = STRBUF_INIT;
	int sets = u->op == NOTIFY_SET, others = 0;
	char a1[64], *t;

	rankset_clear(&writers);
	rankset_add(&writers, r);
	for (size_t i = 0; i < s->nhist; i++) {
		const struct diag_event *e = &s->hist[i];
		if (e->kind == UOP_NOTIFY && e->target == u->peer &&
		    e->off == u->dst && e->writer != r) {
			others += !rankset_has(&writers, e->writer);
			rankset_add(&writers, e->writer);
			sets |= e->op == NOTIFY_SET;
		}
	}
	for (int q = 0; q < s->nranks; q++) {
		const struct job *p =
		    q != r ? pending(s, q, UOP_NOTIFY, u->dst, u->peer) : NULL;
		if (p != NULL) {
			others += !rankset_has(&writers, q);
			rankset_add(&writers, q);
			sets |= one_op(p)->op == NOTIFY_SET;
		}
	}
	if (others == 0 || !sets || !once(PAT_SET_SHARED, u->peer, u->dst))
		return;
	describe_cell(&s->view, u->dst, 1, &c);
	site_text(&j->site, a1, sizeof a1);
	t = rankset_format(&writers, s->nranks);
	out_warning("%s%sset on %s of rank %d, which ranks %s write: with several writers the last set wins; use CDB_ADD for a shared cell, CDB_SET only for one writer",
	    a1, a1[0] ? ": " : "", c.buf, u->peer, t + 1);
	free(t);
	strbuf_release(&c);
}

/* A wait on a cell this rank waited on before, which still holds what
 * released it then: a raw signal is single-shot.  A wait the earlier one's
 * value would not release (>= 2 after >= 1) waits for the next generation
 * and is not a reuse, even when that generation has already come. */
static void
reused(struct session *s, int r, const struct job *j, const struct uop *u,
    int32_t now)
{
	const struct diag_event *before = NULL;
	struct strbuf c = STRBUF_INIT;
	char a1[64], a2[64];
	int passes = wait_cmp_holds((enum wait_cmp)u->op, now, u->value);

	for (size_t i = 0; i < s->nhist; i++) {
		const struct diag_event *e = &s->hist[i];
		if (e->kind == UOP_WAIT && e->writer == r && e->off == u->dst)
			before = e;
	}
	if (before == NULL || now == 0 ||
	    !((passes &&
		  wait_cmp_holds((enum wait_cmp)u->op, before->value, u->value)) ||
		(u->op == CMP_EQ && now > u->value)) ||
	    !once(PAT_REUSED, r, u->dst))
		return;
	describe_cell(&s->view, u->dst, 1, &c);
	site_text(&j->site, a1, sizeof a1);
	out_warning("%s%s%s of rank %d holds %d and was waited on before%s: a raw signal is single-shot (use a fresh cell, or wait for the next generation); %s",
	    a1, a1[0] ? ": " : "", c.buf, r, now,
	    at(&before->site, a2, sizeof a2),
	    u->op == CMP_EQ && now > u->value ? "this == can never hold" :
						"this wait passes at once");
	strbuf_release(&c);
}

static void
lint_begin(struct session *s, int r, struct job *j, const struct coll_args *coll)
{
	const struct uop *u = coll == NULL ? one_op(j) : NULL;
	const struct job *o;

	if (u == NULL)
		return;
	if (u->kind == UOP_PUT) {
		put_after_notify(s, r, j, u);
	} else if (u->kind == UOP_NOTIFY) {
		set_shared(s, r, j, u);
		o = pending(s, u->peer, UOP_WAIT, u->dst, -1);
		if (o != NULL && u->op == NOTIFY_SET &&
		    !wait_cmp_holds((enum wait_cmp)one_op(o)->op, u->value,
			one_op(o)->value))
			say_set_awaited(s, r, &j->site, u->peer, one_op(o),
			    &o->site, u->value);
		for (int i = 0; i < lu.neq && u->op == NOTIFY_ADD; i++) {
			struct eqwait *w = &lu.eq[i];
			if (w->rank == u->peer && w->u.dst == u->dst &&
			    adders(s, u->peer, u->dst, r) + 1 >= 2)
				say_eq_shared(s, w->rank, &w->u, &w->site);
		}
	} else if (u->kind == UOP_WAIT) {
		const struct diag_event *lw = NULL;
		/* the cell when the call was made: by the time the shell
		 * reads it the rank may be rounds ahead */
		int32_t now = (j->flags & JOB_SEEN) ?
		    j->seen :
		    view_cell(&s->view, r, u->dst);

		for (size_t i = 0; i < s->nhist; i++) {
			const struct diag_event *e = &s->hist[i];
			if (e->kind == UOP_NOTIFY && e->target == r &&
			    e->off == u->dst)
				lw = e;
		}
		if (lw != NULL && lw->op == NOTIFY_SET && lw->value == now &&
		    !wait_cmp_holds((enum wait_cmp)u->op, now, u->value))
			say_set_awaited(s, lw->writer, &lw->site, r, u,
			    &j->site, now);
		/* a set announced, not done yet (its announcement came first,
		 * before this wait was) */
		for (int q = 0; q < s->nranks && lw == NULL; q++) {
			const struct job *p =
			    q != r ? pending(s, q, UOP_NOTIFY, u->dst, r) : NULL;
			const struct uop *n = p != NULL ? one_op(p) : NULL;

			if (n != NULL && n->op == NOTIFY_SET &&
			    !wait_cmp_holds((enum wait_cmp)u->op, n->value,
				u->value))
				say_set_awaited(s, q, &p->site, r, u, &j->site,
				    n->value);
		}
		if (u->op == CMP_EQ && adders(s, r, u->dst, r) >= 2)
			say_eq_shared(s, r, u, &j->site);
		reused(s, r, j, u, now);
		if (u->op == CMP_EQ && lu.neq < LINT_SAID_MAX)
			lu.eq[lu.neq++] = (struct eqwait){ r, *u, j->site };
	}
}

static void
lint_open(struct session *s)
{
	(void)s;
	lu.nsaid = lu.neq = 0;
}

const struct session_hook user_lint_session_hook = {
	.name = "user-lint",
	.open = lint_open,
	.job_begin = lint_begin,
};
