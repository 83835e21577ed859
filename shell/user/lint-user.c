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
 *
 * A program makes millions of calls: the history (shell/diag, up to 8192
 * events) is read through an index by cell and by (writer, target), kept
 * in step with it, so a call costs the writers of its cell, not a walk
 * of the history (the walks were most of the shell's time per call).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/out.h"
#include "u64map.h"
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

/* ---- the history, indexed ----------------------------------------------------
 * Events are numbered as s->hist_added counts them; the index keeps
 * number + 1 (0: none), and a number below the history's oldest is an
 * event the history let go, as if never seen. */

struct cell_writer {
	int rank;
	uint64_t any, add, set; /* its last notify, add, set */
};

struct cell_ix {
	uint64_t notify; /* the last notify to the cell, by anyone */
	uint64_t wait;	 /* the last wait on it (by its owner) */
	struct cell_writer *w;
	int nw, aw;
};

struct pair_ix {
	uint64_t last, before; /* the last two notifies or puts */
};

static struct {
	struct u64map cells; /* (target, off) -> index + 1 in cellv */
	struct cell_ix *cellv;
	size_t ncell, acell;
	struct u64map pairs; /* (writer, target) -> index + 1 in pairv */
	struct pair_ix *pairv;
	size_t npair, apair;
	uint64_t upto; /* s->hist_added when last in step */
	uint64_t gen;  /* s->hist_gen then */
	int valid;
} ix;

static uint64_t
cell_key(int target, uint64_t off)
{
	return ((off << 14) | (uint64_t)(target & (SEG_MAX_RANKS - 1))) + 1;
}

/* The index entry of (target, off); NULL when none and !make. */
static struct cell_ix *
cell_at(int target, uint64_t off, int make)
{
	uint64_t *v;
	int fresh = 0;

	if (!make) {
		v = u64map_find(&ix.cells, cell_key(target, off));
		return v != NULL ? &ix.cellv[*v - 1] : NULL;
	}
	v = u64map_slot(&ix.cells, cell_key(target, off), &fresh);
	if (fresh) {
		if (ix.ncell == ix.acell) {
			ix.acell = ix.acell ? 2 * ix.acell : 64;
			ix.cellv =
			    xreallocarray(ix.cellv, ix.acell, sizeof *ix.cellv);
		}
		memset(&ix.cellv[ix.ncell], 0, sizeof ix.cellv[ix.ncell]);
		*v = ++ix.ncell;
	}
	return &ix.cellv[*v - 1];
}

static struct pair_ix *
pair_at(int writer, int target, int make)
{
	uint64_t key = (uint64_t)writer * SEG_MAX_RANKS + (uint64_t)target + 1;
	uint64_t *v;
	int fresh = 0;

	if (!make) {
		v = u64map_find(&ix.pairs, key);
		return v != NULL ? &ix.pairv[*v - 1] : NULL;
	}
	v = u64map_slot(&ix.pairs, key, &fresh);
	if (fresh) {
		if (ix.npair == ix.apair) {
			ix.apair = ix.apair ? 2 * ix.apair : 64;
			ix.pairv =
			    xreallocarray(ix.pairv, ix.apair, sizeof *ix.pairv);
		}
		memset(&ix.pairv[ix.npair], 0, sizeof ix.pairv[ix.npair]);
		*v = ++ix.npair;
	}
	return &ix.pairv[*v - 1];
}

static void
ix_reset(void)
{
	for (size_t i = 0; i < ix.ncell; i++)
		free(ix.cellv[i].w);
	free(ix.cellv);
	free(ix.pairv);
	u64map_release(&ix.cells);
	u64map_release(&ix.pairs);
	memset(&ix, 0, sizeof ix);
}

static void
ix_add(const struct diag_event *e, uint64_t num)
{
	struct cell_ix *c;

	if (e->writer < 0 || e->target < 0 || e->writer >= SEG_MAX_RANKS ||
	    e->target >= SEG_MAX_RANKS)
		return;
	if (e->kind == UOP_NOTIFY || e->kind == UOP_PUT) {
		struct pair_ix *p = pair_at(e->writer, e->target, 1);

		p->before = p->last;
		p->last = num;
	}
	if (e->kind == UOP_WAIT) {
		cell_at(e->writer, e->off, 1)->wait = num;
	} else if (e->kind == UOP_NOTIFY) {
		struct cell_writer *w = NULL;

		c = cell_at(e->target, e->off, 1);
		c->notify = num;
		for (int i = 0; i < c->nw && w == NULL; i++)
			w = c->w[i].rank == e->writer ? &c->w[i] : NULL;
		if (w == NULL) {
			if (c->nw == c->aw) {
				c->aw = c->aw ? 2 * c->aw : 4;
				c->w = xreallocarray(c->w, (size_t)c->aw,
				    sizeof *c->w);
			}
			w = &c->w[c->nw++];
			memset(w, 0, sizeof *w);
			w->rank = e->writer;
		}
		w->any = num;
		if (e->op == NOTIFY_ADD)
			w->add = num;
		else if (e->op == NOTIFY_SET)
			w->set = num;
	}
}

/* Bring the index in step with the history. */
static void
ix_sync(struct session *s)
{
	uint64_t base = s->hist_added - s->nhist, from = base;

	if (!ix.valid || ix.gen != s->hist_gen) {
		ix_reset();
		ix.valid = 1;
		ix.gen = s->hist_gen;
	} else if (ix.upto > base) {
		from = ix.upto;
	}
	for (uint64_t n = from; n < s->hist_added; n++)
		ix_add(&s->hist[n - base], n + 1);
	ix.upto = s->hist_added;
}

/* The event an index entry names, or NULL when the history let it go. */
static const struct diag_event *
ix_event(struct session *s, uint64_t num)
{
	uint64_t base = s->hist_added - s->nhist;

	return num != 0 && num - 1 >= base ? &s->hist[num - 1 - base] : NULL;
}

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
put_after_notify(struct session *s, int r, const struct site *site,
    const struct uop *u)
{
	const struct diag_event *last = NULL, *before = NULL;
	struct strbuf c = STRBUF_INIT;
	char a1[64], a2[64];

	const struct pair_ix *p = pair_at(r, u->peer, 0);

	if (p != NULL) {
		last = ix_event(s, p->last);
		before = last != NULL ? ix_event(s, p->before) : NULL;
	}
	/* notify, then put: the notify released nothing (no put before it,
	 * or the put before it belongs to an earlier notify) */
	if (last == NULL || last->kind != UOP_NOTIFY ||
	    (before != NULL && before->kind == UOP_PUT) ||
	    !once(PAT_PUT_AFTER, u->peer, last->off))
		return;
	describe_cell(&s->view, last->off, 1, &c);
	site_text(site, a1, sizeof a1);
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
	const struct cell_ix *c = cell_at(target, off, 0);
	int n = 0;

	for (int i = 0; c != NULL && i < c->nw; i++) {
		const struct cell_writer *w = &c->w[i];
		if (ix_event(s, w->add) != NULL && w->rank != self &&
		    w->rank < s->nranks && !seen[w->rank]) {
			seen[w->rank] = 1;
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
set_shared(struct session *s, int r, const struct site *site, const struct uop *u)
{
	struct rankset writers;
	struct strbuf c = STRBUF_INIT;
	int sets = u->op == NOTIFY_SET, others = 0;
	char a1[64], *t;
	const struct cell_ix *ci = cell_at(u->peer, u->dst, 0);

	/* counted first, the set (2 KB) made only for a warning: the index
	 * has one entry per writer, so the history's writers are distinct */
	for (int i = 0; ci != NULL && i < ci->nw; i++) {
		const struct cell_writer *w = &ci->w[i];
		if (w->rank != r && ix_event(s, w->any) != NULL) {
			others++;
			sets |= ix_event(s, w->set) != NULL;
		}
	}
	for (int q = 0; q < s->nranks; q++) {
		const struct job *p =
		    q != r ? pending(s, q, UOP_NOTIFY, u->dst, u->peer) : NULL;
		int known = 0;

		if (p == NULL)
			continue;
		for (int i = 0; ci != NULL && i < ci->nw && !known; i++)
			known = ci->w[i].rank == q && ix_event(s, ci->w[i].any);
		others += !known;
		sets |= one_op(p)->op == NOTIFY_SET;
	}
	if (others == 0 || !sets || !once(PAT_SET_SHARED, u->peer, u->dst))
		return;
	rankset_clear(&writers);
	rankset_add(&writers, r);
	for (int i = 0; ci != NULL && i < ci->nw; i++) {
		if (ix_event(s, ci->w[i].any) != NULL)
			rankset_add(&writers, ci->w[i].rank);
	}
	for (int q = 0; q < s->nranks; q++) {
		if (q != r && pending(s, q, UOP_NOTIFY, u->dst, u->peer) != NULL)
			rankset_add(&writers, q);
	}
	describe_cell(&s->view, u->dst, 1, &c);
	site_text(site, a1, sizeof a1);
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
reused(struct session *s, int r, const struct site *site, const struct uop *u,
    int32_t now)
{
	const struct cell_ix *ci = cell_at(r, u->dst, 0);
	const struct diag_event *before =
	    ci != NULL ? ix_event(s, ci->wait) : NULL;
	struct strbuf c = STRBUF_INIT;
	char a1[64], a2[64];
	int passes = wait_cmp_holds((enum wait_cmp)u->op, now, u->value);
	if (before == NULL || now == 0 ||
	    !((passes &&
		  wait_cmp_holds((enum wait_cmp)u->op, before->value, u->value)) ||
		(u->op == CMP_EQ && now > u->value)) ||
	    !once(PAT_REUSED, r, u->dst))
		return;
	describe_cell(&s->view, u->dst, 1, &c);
	site_text(site, a1, sizeof a1);
	out_warning("%s%s%s of rank %d holds %d and was waited on before%s: a raw signal is single-shot (use a fresh cell, or wait for the next generation); %s",
	    a1, a1[0] ? ": " : "", c.buf, r, now,
	    at(&before->site, a2, sizeof a2),
	    u->op == CMP_EQ && now > u->value ? "this == can never hold" :
						"this wait passes at once");
	strbuf_release(&c);
}

/* Rank r's call of one op u, made at site, as it begins (seen_set: a
 * wait's cell held seen when the call was made). */
static void
lint_op(struct session *s, int r, const struct uop *u, const struct site *site,
    int seen_set, int32_t seen)
{
	const struct job *o;

	ix_sync(s);
	if (u->kind == UOP_PUT) {
		put_after_notify(s, r, site, u);
	} else if (u->kind == UOP_NOTIFY) {
		set_shared(s, r, site, u);
		o = pending(s, u->peer, UOP_WAIT, u->dst, -1);
		if (o != NULL && u->op == NOTIFY_SET &&
		    !wait_cmp_holds((enum wait_cmp)one_op(o)->op, u->value,
			one_op(o)->value))
			say_set_awaited(s, r, site, u->peer, one_op(o),
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
		int32_t now = seen_set ? seen : view_cell(&s->view, r, u->dst);
		const struct cell_ix *ci = cell_at(r, u->dst, 0);

		if (ci != NULL)
			lw = ix_event(s, ci->notify);
		if (lw != NULL && lw->op == NOTIFY_SET && lw->value == now &&
		    !wait_cmp_holds((enum wait_cmp)u->op, now, u->value))
			say_set_awaited(s, lw->writer, &lw->site, r, u, site,
			    now);
		/* a set announced, not done yet (its announcement came first,
		 * before this wait was) */
		for (int q = 0; q < s->nranks && lw == NULL; q++) {
			const struct job *p =
			    q != r ? pending(s, q, UOP_NOTIFY, u->dst, r) : NULL;
			const struct uop *n = p != NULL ? one_op(p) : NULL;

			if (n != NULL && n->op == NOTIFY_SET &&
			    !wait_cmp_holds((enum wait_cmp)u->op, n->value,
				u->value))
				say_set_awaited(s, q, &p->site, r, u, site,
				    n->value);
		}
		if (u->op == CMP_EQ && adders(s, r, u->dst, r) >= 2)
			say_eq_shared(s, r, u, site);
		reused(s, r, site, u, now);
		if (u->op == CMP_EQ && lu.neq < LINT_SAID_MAX)
			lu.eq[lu.neq++] = (struct eqwait){ r, *u, *site };
	}
}

static void
lint_begin(struct session *s, int r, struct job *j, const struct coll_args *coll)
{
	const struct uop *u = coll == NULL ? one_op(j) : NULL;

	if (u != NULL)
		lint_op(s, r, u, &j->site, (j->flags & JOB_SEEN) != 0, j->seen);
}

static void
lint_call(struct session *s, int r, const struct user_call *c,
    const struct job_end *e)
{
	if (e == NULL && c->op != NULL)
		lint_op(s, r, c->op, c->site, c->seen_set, c->seen);
}

static void
lint_open(struct session *s)
{
	(void)s;
	lu.nsaid = lu.neq = 0;
	ix_reset();
}

static void
lint_close(struct session *s)
{
	(void)s;
	ix_reset();
}

const struct session_hook user_lint_session_hook = {
	.name = "user-lint",
	.open = lint_open,
	.job_begin = lint_begin,
	.call = lint_call,
	.close = lint_close,
};
