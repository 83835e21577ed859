/*
 * coll-match.c - collective matching for user programs (what MUST checks
 * for MPI): the k-th collective every rank enters must be the same call,
 * with the same buffers (so size and dtype), op, root, mode and signal.
 * A user rank announces each call before it runs it (a session hook's
 * job_begin); when the ranks' k-th calls differ, a warning names each
 * group of ranks, its call and its source line, at once:
 *
 *   warning: collective mismatch on sig: rank 0 entered allreduce(buf, sig)
 *   at ring.c:40; ranks 1-3 entered barrier(sig) at ring.c:52
 *
 * and diagnose names it as the cause.  The warning waits until every rank
 * entered its k-th call, or until those that did not are blocked, dead or
 * gone (they may never get there), so each group is complete.
 */
#include <stdlib.h>
#include <string.h>

#include "out/out.h"
#include "outbox.h"
#include "user/user.h"
#include "xmalloc.h"

/*
 * Instances not yet complete, at most: a rank far ahead of a silent one
 * makes the oldest go.  Ranks queue their announcements (core/outbox.h)
 * and the shell reads one rank's queue, then the next's, so a rank may be
 * read as far ahead as its outbox holds collectives: keep that many.
 */
#define MATCH_KEEP_MIN 64

/* What a call is compared and worded by (a struct coll_args is 2.5 KB,
 * most of it a domain's member set, and copying it per rank per call was
 * a good part of the shell's time). */
struct wref {
	uint64_t off, count;
	enum dtype dtype;
};

struct call {
	enum coll_kind kind;
	enum coll_impl impl;
	enum coll_mode mode;
	enum reduce_op op;
	int root;
	struct wref buf, src, sig;
};

struct entry {
	int set;
	struct call a;
	struct site site;
};

struct inst {
	uint64_t k;	 /* the k-th collective of every rank */
	struct entry *e; /* per rank */
	int nset;	 /* ranks that entered it */
	int said;
	int clean_at; /* nset when the entries were last found to agree */
};

struct coll_match {
	uint64_t *count;    /* per rank: collectives entered */
	struct inst *insts; /* k ascending, consecutive */
	int ninsts, keep;
	char *said; /* the last mismatch, for diagnose (owned) */
};

static int
same_ref(const struct wref *x, const struct wref *y)
{
	return x->off == y->off && x->count == y->count && x->dtype == y->dtype;
}

static void
call_of(const struct coll_args *a, struct call *c)
{
	memset(c, 0, sizeof *c);
	c->kind = a->kind;
	c->impl = a->impl;
	c->mode = a->mode;
	c->op = a->op;
	c->root = a->root;
	c->buf = (struct wref){ a->buf.off, a->buf.count, a->buf.dtype };
	c->src = (struct wref){ a->src.off, a->src.count, a->src.dtype };
	c->sig = (struct wref){ a->sig.off, a->sig.count, a->sig.dtype };
}

static int
same_call(const struct call *x, const struct call *y)
{
	if (x->kind != y->kind || x->impl != y->impl ||
	    !same_ref(&x->sig, &y->sig))
		return 0;
	switch (x->kind) {
	case COLL_ALLREDUCE:
		return x->mode == y->mode && x->op == y->op &&
		    same_ref(&x->buf, &y->buf);
	case COLL_BROADCAST:
		return x->root == y->root && same_ref(&x->buf, &y->buf);
	case COLL_REDUCE_SCATTER:
		return x->op == y->op && same_ref(&x->buf, &y->buf);
	case COLL_ALLGATHER:
	case COLL_ALL_TO_ALL:
		return same_ref(&x->src, &y->src) && same_ref(&x->buf, &y->buf);
	default:
		return 1;
	}
}

static void
win_name(struct session *s, const struct wref *w, struct strbuf *sb)
{
	struct seg_window *sw = view_win_at(&s->view, w->off);

	if (sw == NULL) {
		strbuf_addf(sb, "@%llu", (unsigned long long)w->off);
		return;
	}
	strbuf_addstr(sb, sw->name);
	if (sw->off != w->off || sw->count != w->count)
		strbuf_addf(sb, "[%llu elements from %llu]",
		    (unsigned long long)w->count,
		    (unsigned long long)((w->off - sw->off) /
			dtype_size(w->dtype)));
}

/* "allreduce(buf, sig)", "broadcast(buf, sig, root=1)" ... */
static void
call_text(struct session *s, const struct call *a, struct strbuf *sb)
{
	strbuf_addf(sb, "%s(", coll_kind_name(a->kind));
	if (a->kind == COLL_ALLGATHER || a->kind == COLL_ALL_TO_ALL) {
		win_name(s, &a->src, sb);
		strbuf_addstr(sb, ", ");
	}
	if (a->kind != COLL_BARRIER) {
		win_name(s, &a->buf, sb);
		strbuf_addstr(sb, ", ");
	}
	win_name(s, &a->sig, sb);
	if (a->kind == COLL_ALLREDUCE && a->mode == MODE_RING)
		strbuf_addstr(sb, ", ring");
	if ((a->kind == COLL_ALLREDUCE || a->kind == COLL_REDUCE_SCATTER) &&
	    a->op != RED_SUM)
		strbuf_addf(sb, ", op=%s", reduce_op_name(a->op));
	if (a->kind == COLL_BROADCAST)
		strbuf_addf(sb, ", root=%d", a->root);
	if (a->impl == IMPL_BUILTIN)
		strbuf_addstr(sb, ", builtin");
	strbuf_addch(sb, ')');
}

/* The mismatch of instance in as text, or "" if the calls agree. */
static void
mismatch_text(struct session *s, const struct inst *in, struct strbuf *sb)
{
	uint8_t *done = xcalloc((size_t)s->nranks, 1);
	int groups = 0, first = -1;
	struct strbuf body = STRBUF_INIT, sigs = STRBUF_INIT;

	for (int r = 0; r < s->nranks; r++) {
		struct rankset set;
		char *t, loc[SITE_FILE_MAX + 16];

		if (!in->e[r].set || done[r])
			continue;
		if (first < 0)
			first = r;
		rankset_clear(&set);
		for (int q = r; q < s->nranks; q++) {
			if (in->e[q].set && !done[q] &&
			    same_call(&in->e[r].a, &in->e[q].a)) {
				rankset_add(&set, q);
				done[q] = 1;
			}
		}
		t = rankset_format(&set, s->nranks);
		strbuf_addf(&body, "%s%s %s entered ", groups ? "; " : "",
		    rankset_count(&set) == 1 ? "rank" : "ranks", t + 1);
		free(t);
		call_text(s, &in->e[r].a, &body);
		site_text(&in->e[r].site, loc, sizeof loc);
		if (loc[0] != '\0')
			strbuf_addf(&body, " at %s", loc);
		if (!same_ref(&in->e[r].a.sig, &in->e[first].a.sig) ||
		    groups == 0) {
			strbuf_addstr(&sigs, sigs.len ? " and " : "");
			win_name(s, &in->e[r].a.sig, &sigs);
		}
		groups++;
	}
	if (groups > 1)
		strbuf_addf(sb, "collective mismatch on %s: %s", sigs.buf,
		    body.buf);
	strbuf_release(&body);
	strbuf_release(&sigs);
	free(done);
}

/* Instance k: made when the first rank enters it; NULL when it was let
 * go already (its rank comes too late to be compared). */
static struct inst *
inst_get(struct session *s, struct coll_match *m, uint64_t k)
{
	struct inst *in;

	if (m->ninsts > 0 && k < m->insts[0].k)
		return NULL;
	if (m->ninsts > 0 && k - m->insts[0].k < (uint64_t)m->ninsts)
		return &m->insts[k - m->insts[0].k];
	if (m->ninsts == m->keep) {
		/* a rank far ahead of a silent one: forget the oldest */
		free(m->insts[0].e);
		memmove(m->insts, m->insts + 1,
		    (size_t)(m->keep - 1) * sizeof *m->insts);
		m->ninsts--;
	}
	in = &m->insts[m->ninsts++];
	memset(in, 0, sizeof *in);
	in->k = k;
	in->e = xcalloc((size_t)s->nranks, sizeof *in->e);
	in->clean_at = -1;
	return in;
}

/* Rank r will not announce another call by itself: gone, or blocked in
 * the call the shell last heard of (a rank blocked in a call whose
 * announcement is still unread is not). */
static int
stuck(struct session *s, int r)
{
	struct view_board b;
	struct job *j;

	if (!rank_alive(s, r))
		return 1;
	j = rank_job(s, r);

	view_board(&s->view, r, &b);
	return b.state == RS_BLOCKED && j != NULL && b.prog_tag == j->tag;
}

/* Whether the entries of in all make the same call (so no text). */
static int
all_agree(struct session *s, struct inst *in)
{
	int first = -1;

	if (in->clean_at == in->nset)
		return 1;
	for (int r = 0; r < s->nranks; r++) {
		if (!in->e[r].set)
			continue;
		if (first < 0)
			first = r;
		else if (!same_call(&in->e[first].a, &in->e[r].a))
			return 0;
	}
	in->clean_at = in->nset;
	return 1;
}

/* Say in's mismatch once every rank that can still enter it did. */
static void
settle_inst(struct session *s, struct coll_match *m, struct inst *in)
{
	struct strbuf sb = STRBUF_INIT;

	if (in->said || all_agree(s, in))
		return;
	for (int r = 0; r < s->nranks; r++) {
		if (!in->e[r].set && !stuck(s, r))
			return; /* it may still enter */
	}
	mismatch_text(s, in, &sb);
	if (sb.len > 0) {
		out_warning("%s", sb.buf);
		free(m->said);
		m->said = strbuf_detach(&sb, NULL);
		in->said = 1;
	}
	strbuf_release(&sb);
}

/* Drop the instances every rank entered (the oldest go first: a rank
 * enters them in order). */
static void
drop_complete(struct session *s, struct coll_match *m)
{
	int n = 0;

	while (n < m->ninsts && m->insts[n].nset == s->nranks)
		free(m->insts[n++].e);
	if (n > 0) {
		memmove(m->insts, m->insts + n,
		    (size_t)(m->ninsts - n) * sizeof *m->insts);
		m->ninsts -= n;
	}
}

/* Rank r enters the collective coll, called at site. */
static void
match_enter(struct session *s, int r, const struct coll_args *coll,
    const struct site *site)
{
	struct coll_match *m = s->match;
	struct inst *in;

	if (coll == NULL || m == NULL)
		return;
	if ((in = inst_get(s, m, m->count[r]++)) == NULL)
		return;
	if (!in->e[r].set)
		in->nset++;
	in->e[r].set = 1;
	call_of(coll, &in->e[r].a);
	in->e[r].site = *site;
	settle_inst(s, m, in);
	drop_complete(s, m);
}

static void
match_begin(struct session *s, int r, struct job *j, const struct coll_args *coll)
{
	match_enter(s, r, coll, &j->site);
}

static void
match_call(struct session *s, int r, const struct user_call *c,
    const struct job_end *e)
{
	if (e == NULL)
		match_enter(s, r, c->coll, c->site);
}

/* Ranks that blocked or went since: the instances they left open. */
static void
match_pump(struct session *s)
{
	struct coll_match *m = s->match;

	if (m == NULL)
		return;
	for (int i = 0; i < m->ninsts; i++)
		settle_inst(s, m, &m->insts[i]);
}

static void
match_open(struct session *s)
{
	struct coll_match *m = xcalloc(1, sizeof *m);
	size_t per = 2 * outbox_bytes(s->nranks) / sizeof(struct coll_msg);

	m->count = xcalloc((size_t)s->nranks, sizeof *m->count);
	m->keep = per > MATCH_KEEP_MIN ? (int)per : MATCH_KEEP_MIN;
	m->insts = xcalloc((size_t)m->keep, sizeof *m->insts);
	s->match = m;
}

static void
match_close(struct session *s)
{
	struct coll_match *m = s->match;

	if (m == NULL)
		return;
	for (int i = 0; i < m->ninsts; i++)
		free(m->insts[i].e);
	free(m->insts);
	free(m->count);
	free(m->said);
	free(m);
	s->match = NULL;
}

const char *
coll_match_said(struct session *s)
{
	return s->match != NULL ? s->match->said : NULL;
}

const struct session_hook match_session_hook = {
	.name = "coll-match",
	.open = match_open,
	.pump = match_pump,
	.job_begin = match_begin,
	.call = match_call,
	.close = match_close,
};
