/*
 * jobs.c - programs sent to the ranks, and their end: the job's own done
 * callback, then the session hooks.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "out/out.h"
#include "proto.h"
#include "session-int.h"
#include "xmalloc.h"

void
job_free(struct job *j)
{
	prog_free(j->prog);
	free(j->desc);
	free(j);
}

/* The bytes j's program touches: a collective's windows (when it has an
 * op at all), and what its materialised ops touch. */
static void
job_range(struct job *j, const struct coll_args *a)
{
	const struct prog *p = j->prog;

	j->lo = UINT64_MAX;
	j->hi = 0;
	if (a != NULL && p != NULL && p->ngen > 0)
		coll_footprint(a, &j->lo, &j->hi);
	for (size_t i = 0; p != NULL && i < p->nmops; i++) {
		const struct uop *u = &p->mops[i];
		uint64_t esz = dtype_size(u->dtype), n = u->count * esz;
		uint64_t d = u->dst, sr = u->src;
		int dspace = u->kind == UOP_COPY || u->kind == UOP_REDUCE ?
		    u->dsp :
		    SP_OWN;
		int sspace = u->kind == UOP_COPY || u->kind == UOP_REDUCE ?
		    u->ssp :
		    SP_OWN;
		int has_src = u->kind == UOP_PUT || u->kind == UOP_GET ||
		    u->kind == UOP_COPY || u->kind == UOP_REDUCE;

		if (u->kind == UOP_NOTIFY || u->kind == UOP_WAIT)
			n = 4;
		if (dspace != SP_ACC && n > 0) {
			j->lo = MIN(j->lo, d);
			j->hi = MAX(j->hi, d + n);
		}
		if (has_src && sspace != SP_ACC && n > 0) {
			j->lo = MIN(j->lo, sr);
			j->hi = MAX(j->hi, sr + n);
		}
	}
}

void
session_call_done(struct session *s, int r, const struct user_call *c,
    const struct job_end *e)
{
	struct rankproc *rp = &s->rp[r];

	for (int i = 0; i < s->ncall_hooks; i++)
		s->call_hooks[i]->call(s, r, c, NULL);
	strbuf_reset(&rp->last_op);
	strbuf_addstr(&rp->last_op, c->title);
	for (int i = 0; i < s->ncall_hooks; i++)
		s->call_hooks[i]->call(s, r, c, e);
}

int
session_range_busy(struct session *s, uint64_t lo, uint64_t hi, int *rank)
{
	for (int r = 0; r < s->nranks; r++) {
		for (struct job *j = s->rp[r].jobs; j != NULL; j = j->next) {
			if (j->lo < hi && lo < j->hi) {
				*rank = r;
				return 1;
			}
		}
	}
	return 0;
}

void
job_enqueue(struct session *s, int r, struct job *j)
{
	struct job **p = &s->rp[r].jobs;

	while (*p != NULL)
		p = &(*p)->next;
	*p = j;
}

static struct job *
job_new(int r, uint32_t tag, struct prog *p, char *desc, unsigned flags,
    const struct coll_args *a)
{
	struct job *j = xcalloc(1, sizeof *j);

	j->tag = tag;
	j->rank = r;
	j->prog = p;
	j->desc = desc;
	j->flags = flags;
	job_range(j, a);
	return j;
}

static int
send_or_fail(struct session *s, int r, const struct msg_hdr *h,
    const void *payload, char **cause)
{
	if (!rank_alive(s, r))
		return cause_set(cause, "rank %d is dead", r);
	if (proto_send(s->rp[r].sock, h, payload) != 0)
		return cause_set(cause, "cannot reach rank %d: %s", r,
		    strerror(errno));
	return 0;
}

int
session_queue_full(struct session *s, int r, char **cause)
{
	int n = 0;

	for (struct job *j = s->rp[r].jobs; j != NULL; j = j->next)
		n++;
	if (n < QUEUE_MAX)
		return 0;
	cause_set(cause,
	    "rank %d already has %d commands queued behind what it is doing; "
	    "let it catch up, or interrupt it",
	    r, n);
	return 1;
}

/* Observers read the conditions from the segment header. */
static void
defers_publish(struct session *s)
{
	memcpy(s->seg.h->defers, s->defers, sizeof s->defers);
}

size_t
session_defers(struct session *s, int r, const struct seg_defer **out, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < SEG_MAX_DEFERS && n < max; i++) {
		const struct seg_defer *d = &s->defers[i];
		if (d->used && d->rank == r)
			out[n++] = d;
	}
	return n;
}

int
session_defer(struct session *s, int r, uint64_t off, int32_t expected,
    char **cause)
{
	struct seg_defer *slot = NULL;
	int mine = 0;

	for (int i = 0; i < SEG_MAX_DEFERS; i++) {
		struct seg_defer *d = &s->defers[i];
		if (d->used && d->rank == r && d->tag == 0)
			mine++;
		else if (!d->used && slot == NULL)
			slot = d;
	}
	if (mine >= DEFER_MAX)
		return cause_set(cause,
		    "rank %d already has %d deferred conditions (at most %d per waiter)",
		    r, mine, DEFER_MAX);
	if (slot == NULL)
		return cause_set(cause,
		    "too many deferred conditions pending (at most %d in a session)",
		    SEG_MAX_DEFERS);
	slot->rank = r;
	slot->tag = 0;
	slot->off = off;
	slot->expected = expected;
	slot->used = 1;
	defers_publish(s);
	return 0;
}

/* Rank r's pending conditions into c, tagged with tag from now on. */
static size_t
defer_take(struct session *s, int r, uint32_t tag, struct defer_cond *c)
{
	size_t n = 0;

	for (int i = 0; i < SEG_MAX_DEFERS && n < DEFER_MAX; i++) {
		struct seg_defer *d = &s->defers[i];
		if (!d->used || d->rank != r || d->tag != 0)
			continue;
		memset(&c[n], 0, sizeof c[n]);
		c[n].off = d->off;
		c[n].expected = d->expected;
		d->tag = tag;
		s->ndefers_sent++;
		n++;
	}
	if (n > 0)
		defers_publish(s);
	return n;
}

/* The program tagged tag was not sent (back to pending), or ended. */
static void
defer_release(struct session *s, int r, uint32_t tag, int ended)
{
	int changed = 0;

	/* every job ends here: most have none (a user rank's calls never) */
	for (int i = 0; i < SEG_MAX_DEFERS && s->ndefers_sent > 0; i++) {
		struct seg_defer *d = &s->defers[i];
		if (!d->used || d->rank != r || d->tag != tag || tag == 0)
			continue;
		if (ended)
			d->used = 0;
		else
			d->tag = 0;
		s->ndefers_sent--;
		changed = 1;
	}
	if (changed)
		defers_publish(s);
}

struct job *
session_submit(struct session *s, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	struct msg_hdr h = { .type = MSG_PROG, .flags = pflags };
	struct job *j;

	if (session_queue_full(s, r, cause))
		goto fail;
	h.tag = s->next_tag++;
	{
		struct defer_cond c[DEFER_MAX];
		prog_add_deferred(p, c, defer_take(s, r, h.tag, c));
	}
	prog_encode(p, &sb);
	h.len = (uint32_t)sb.len;
	if (sb.len > PROTO_MAX_MSG) {
		cause_set(cause, "program too large (%zu bytes)", sb.len);
		defer_release(s, r, h.tag, 0);
		goto fail;
	}
	if (send_or_fail(s, r, &h, sb.buf, cause) != 0) {
		defer_release(s, r, h.tag, 0);
		goto fail;
	}
	strbuf_release(&sb);
	j = job_new(r, h.tag, p, desc,
	    flags | ((pflags & PROG_F_START) ? JOB_START : 0), NULL);
	job_enqueue(s, r, j);
	return j;
fail:
	strbuf_release(&sb);
	prog_free(p);
	free(desc);
	return NULL;
}

struct job *
session_track(struct session *s, int r, uint32_t tag, struct prog *p,
    char *desc, unsigned flags, const struct coll_args *a)
{
	struct job *j = job_new(r, tag, p, desc, flags, a);

	job_enqueue(s, r, j);
	return j;
}

int
session_submit_coll(struct session *s, const struct coll_args *a,
    unsigned pflags, int coll_id, job_done_fn done, char **cause)
{
	return session_submit_coll_repeat(s, a, pflags, coll_id, 1, 0, done,
	    cause);
}

/* Can rank r be told something now?  A rank that died while the shell
 * was not looking (a batch shell blocked on its next line) is noticed
 * here, before any rank is told. */
static int
rank_reachable(struct session *s, int r, char **cause)
{
	struct pollfd pfd = { .fd = s->rp[r].sock, .events = POLLOUT };

	if (!rank_alive(s, r))
		return cause_set(cause, "rank %d is %s", r,
		    rank_state_name(rank_state_of(s, r)));
	if (pfd.fd < 0 ||
	    (poll(&pfd, 1, 0) == 1 &&
		(pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0))
		return cause_set(cause,
		    "cannot reach rank %d: its connection is closed", r);
	return 0;
}

int
session_coll_ready(struct session *s, const struct coll_args *a, char **cause)
{
	struct prog_gen *g;
	int rc = 0, first = -1;

	for (int r = 0; r < s->nranks; r++) {
		if (coll_dense(a, r) < 0)
			continue; /* outside its domain: not involved */
		if (first < 0)
			first = r;
		if (rank_reachable(s, r, cause) != 0 ||
		    session_queue_full(s, r, cause))
			return -1;
	}
	if (first < 0)
		return cause_set(cause, "the collective's domain has no rank");
	/* Nothing is materialised; only a rank's position must fit the
	 * board's 32-bit pc. */
	g = coll_describe(a, s->nranks);
	for (int r = 0; r < s->nranks && rc == 0; r++) {
		struct prog *p;
		uint64_t len;

		if (coll_dense(a, r) < 0)
			continue;
		p = coll_prog(g, r);
		len = prog_len(p);
		if (len >= UINT32_MAX - DEFER_MAX)
			rc = cause_set(cause,
			    "%s on %d ranks is %llu micro-ops on rank %d; "
			    "a rank counts at most %u (a smaller buffer, mode=mesh or fewer ranks)",
			    p->title, coll_size(a, s->nranks),
			    (unsigned long long)len, r,
			    UINT32_MAX - DEFER_MAX - 1);
		prog_free(p);
	}
	prog_gen_put(g);
	return rc;
}

/* Take back what ranks [0, upto) were sent of a collective whose send to
 * rank upto failed: each part is cancelled as soon as it is what its rank
 * runs (now, or when the work queued before it ends). */
static void
coll_withdraw(struct session *s, int upto)
{
	for (int r = 0; r < upto; r++) {
		struct job *j = s->rp[r].jobs;

		while (j != NULL && j->next != NULL)
			j = j->next;
		if (j == NULL || !(j->flags & JOB_COLL))
			continue; /* outside the collective's domain */
		j = s->rp[r].jobs;

		while (j != NULL && j->next != NULL)
			j = j->next; /* the collective: the tail */
		if (j == NULL)
			continue;
		j->flags |= JOB_WITHDRAWN;
		j->done = NULL; /* the collective is not reported */
		defer_release(s, r, j->tag, 0); /* its conditions wait again */
	}
	session_withdraw_tick(s);
}

void
session_withdraw_tick(struct session *s)
{
	for (int r = 0; r < s->nranks; r++) {
		struct job *j = s->rp[r].jobs;
		struct view_board b;

		if (j == NULL ||
		    (j->flags & (JOB_WITHDRAWN | JOB_CANCELLED)) != JOB_WITHDRAWN)
			continue;
		/* a program clears the flags when it starts: cancel it once
		 * the rank runs it */
		view_board(&s->view, r, &b);
		if (b.prog_tag == j->tag && b.state != RS_IDLE) {
			ctl_cancel(&s->seg, r);
			j->flags |= JOB_CANCELLED;
		}
	}
}

int
session_submit_coll_repeat(struct session *s, const struct coll_args *a,
    unsigned pflags, int coll_id, uint32_t repeat, uint32_t first_iter,
    job_done_fn done, char **cause)
{
	struct coll_msg cm;
	struct msg_hdr h = { .type = MSG_COLL, .flags = pflags, .len = sizeof cm };
	struct prog_gen *g;
	char *why = NULL;

	memset(&cm, 0, sizeof cm);
	cm.args = *a;
	cm.repeat = repeat;
	cm.first_iter = first_iter;
	coll_args_unname(&cm.args);
	/* Everything that can refuse is checked before any rank is told. */
	if (session_coll_ready(s, a, cause) != 0)
		return -1;
	g = coll_describe(a, s->nranks); /* one for every rank's job */
	for (int r = 0; r < s->nranks; r++) {
		struct prog *p;
		struct job *j;

		if (coll_dense(a, r) < 0)
			continue; /* outside its domain */
		h.tag = s->next_tag++;
		cm.ndefer = (uint32_t)defer_take(s, r, h.tag, cm.defer);
		if (send_or_fail(s, r, &h, &cm, &why) != 0) {
			/* it died just now: every rank runs it, or none does */
			defer_release(s, r, h.tag, 0);
			coll_withdraw(s, r);
			cause_set(cause,
			    "%s; %s withdrawn from the ranks before it", why,
			    r == 0 ? "nothing" : "the collective is");
			free(why);
			prog_gen_put(g);
			return -1;
		}
		p = coll_prog(g, r);
		prog_add_deferred(p, cm.defer, cm.ndefer);
		j = job_new(r, h.tag, p, xstrdup(p->title),
		    JOB_COLL | ((pflags & PROG_F_START) ? JOB_START : 0), a);
		j->coll = coll_id;
		j->domain = a->domain;
		j->done = done;
		job_enqueue(s, r, j);
	}
	prog_gen_put(g);
	return 0;
}

void
job_report_done(struct session *s, struct job *j, const struct job_end *e)
{
	int r = j->rank;

	(void)s;
	if (e->status == JOB_DIED)
		return; /* the death is reported */
	if (e->status == DONE_ERROR)
		out_event(r, "[rank %d] %s failed: %s", r, j->desc,
		    e->text[0] ? e->text : "unknown error");
	else if (j->flags & JOB_COLL)
		return; /* the collective reports its end */
	else if (j->flags & JOB_WAIT)
		out_event(r, "[rank %d] %s %s (value %d)", r, j->desc,
		    e->status == DONE_ABORTED ? "interrupted" :
			e->di->gaveup	      ? "gave up (wait-giveup)" :
						"satisfied",
		    e->di->seen);
	else if (e->status == DONE_ABORTED)
		out_event(r, "[rank %d] %s interrupted", r, j->desc);
	else if (j->flags & JOB_ANNOUNCE)
		out_event(r, "[rank %d] %s done", r, j->desc);
}

void
session_job_end(struct session *s, int r, uint32_t tag, const struct job_end *e)
{
	struct rankproc *rp = &s->rp[r];
	struct job **pp = &rp->jobs, *j;

	while (*pp != NULL && (*pp)->tag != tag)
		pp = &(*pp)->next;
	if ((j = *pp) == NULL)
		return;
	*pp = j->next;
	defer_release(s, r, tag, 1);
	strbuf_reset(&rp->last_op); /* its room is kept: no malloc a call */
	strbuf_addstr(&rp->last_op, j->desc);
	if (j->done != NULL)
		j->done(s, j, e);
	else if (!(j->flags & JOB_WITHDRAWN))
		job_report_done(s, j, e);
	for (int i = 0; i < s->nhooks; i++) {
		if (s->hooks[i]->job_end != NULL)
			s->hooks[i]->job_end(s, r, j, e);
	}
	job_free(j);
}
