/*
 * trace-flow.c - the notify->wait arrows of a Chrome trace (trace save).
 *
 * Which notify released a wait: inside a collective, the credit barriers
 * count call-local generations (docs/protocols.md), so the wait for >= g
 * on the cell peer p writes is released by p's g-th positive notify to
 * that cell in the same call (the same collective instance and
 * iteration).  Anywhere else, or when that credit began after the wait
 * ended (credits left on the signal released it): the last notify to the
 * cell (a positive add or a set) that began before the wait ended (not
 * one that ended before it: the write lands inside the notify's span, and
 * a waiter it wakes may end its own span before the notifier reads its
 * clock, which under load left a released wait with no arrow).  Each
 * arrow is a flow pair:
 * "s" inside the notify's span, at its end (the write has landed), and
 * "f" (binding to the enclosing slice) at the end of the wait's span,
 * where the wait was satisfied.  A waiter can see the value before the
 * notifier's span ends (its futex wake still runs), so "s" moves back to
 * the wait's end then: an arrow never ends before it starts.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "span.h"
#include "trace/trace.h"
#include "xmalloc.h"

/* A notify or wait span, for the flow arrows. */
struct sig_ev {
	uint64_t coll; /* collective instance, 0 if none */
	uint64_t iter;
	uint64_t target;  /* rank whose cell it is */
	uint64_t cell;	  /* byte offset */
	uint64_t other;	  /* notify: its rank; wait: the rank owing it */
	uint64_t seq;	  /* record order; waits: expected value */
	uint64_t ts, end; /* the span (ns) */
	int positive;	  /* notify: a positive add or a set */
};

struct trace_flows {
	struct sig_ev *notes, *waits;
	size_t nnotes, anotes, nwaits, awaits;
};

struct trace_flows *
trace_flows_new(void)
{
	return xcalloc(1, sizeof(struct trace_flows));
}

void
trace_flows_free(struct trace_flows *f)
{
	if (f == NULL)
		return;
	free(f->notes);
	free(f->waits);
	free(f);
}

static struct sig_ev *
push_ev(struct sig_ev **v, size_t *n, size_t *alloc)
{
	if (*n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 1024;
		*v = xreallocarray(*v, *alloc, sizeof **v);
	}
	memset(&(*v)[*n], 0, sizeof **v);
	return &(*v)[(*n)++];
}

/* Remember notifies and waits for the arrows. */
void
trace_flows_note(struct trace_flows *c, const struct trace_span *sp)
{
	const struct uop *u = sp->op;
	const struct span_rec *rec = sp->rec;
	struct sig_ev *e;

	if (u == NULL || (u->kind != UOP_NOTIFY && u->kind != UOP_WAIT))
		return;
	if (u->kind == UOP_NOTIFY)
		e = push_ev(&c->notes, &c->nnotes, &c->anotes);
	else
		e = push_ev(&c->waits, &c->nwaits, &c->awaits);
	e->coll = (uint64_t)sp->coll;
	e->iter = rec->iter;
	e->cell = u->dst;
	e->ts = rec->ts;
	e->end = rec->ts + rec->dur;
	if (u->kind == UOP_NOTIFY) {
		e->target = (uint64_t)u->peer;
		e->other = rec->rank;
		e->seq = c->nnotes;
		e->positive = u->op == NOTIFY_SET || u->value > 0;
		if (u->op == NOTIFY_SET || u->value <= 0)
			e->coll = 0; /* not a credit: no generation */
	} else {
		e->target = rec->rank;
		e->other = (uint64_t)u->peer;
		e->seq = (uint64_t)(int64_t)u->value;
	}
}

/* Credits: by (coll, iter, target, cell, from) and then record order. */
static int
cmp_credit(const void *a, const void *b)
{
	const struct sig_ev *x = a, *y = b;
	const uint64_t kx[] = { x->coll, x->iter, x->target, x->cell, x->other,
		x->seq };
	const uint64_t ky[] = { y->coll, y->iter, y->target, y->cell, y->other,
		y->seq };

	for (size_t i = 0; i < ARRAY_SIZE(kx); i++) {
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	}
	return 0;
}

/* Any notify: by (target, cell, start). */
static int
cmp_cell_start(const void *a, const void *b)
{
	const struct sig_ev *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The g-th credit of the group (coll, iter, target, cell, from), or NULL. */
static const struct sig_ev *
find_credit(const struct sig_ev *v, size_t n, const struct sig_ev *w)
{
	struct sig_ev key = *w;
	size_t lo = 0, hi = n;

	if (w->coll == 0 || (int64_t)w->seq < 1)
		return NULL;
	key.seq = 0; /* first of the group */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_credit(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	lo += w->seq - 1;
	if (lo >= n || v[lo].coll != w->coll || v[lo].iter != w->iter ||
	    v[lo].target != w->target || v[lo].cell != w->cell ||
	    v[lo].other != w->other)
		return NULL;
	return &v[lo];
}

/* The last positive notify to the wait's cell that began before it
 * ended. */
static const struct sig_ev *
find_last(const struct sig_ev *v, size_t n, const struct sig_ev *w)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sig_ev *e = &v[mid];
		int before = e->target < w->target ||
		    (e->target == w->target &&
			(e->cell < w->cell ||
			    (e->cell == w->cell && e->ts <= w->end)));

		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0) {
		const struct sig_ev *e = &v[--lo];

		if (e->target != w->target || e->cell != w->cell)
			return NULL;
		if (e->positive)
			return e;
	}
	return NULL;
}

/* The arrow from notify `from` to wait `to`; 0 when it cannot be drawn
 * forwards inside both spans (a wait that ended before the notify began
 * was not released by it). */
static int
json_flow(struct strbuf *sb, uint64_t id, const struct sig_ev *from,
    const struct sig_ev *to)
{
	uint64_t s = MIN(from->end, to->end), f = to->end;

	if (to->end < from->ts)
		return 0;
	strbuf_addf(sb,
	    ",\n{\"name\": \"signal\", \"cat\": \"signal\", "
	    "\"ph\": \"s\", \"id\": %" PRIu64 ", \"pid\": %" PRIu64
	    ", \"tid\": 0, \"ts\": ",
	    id, from->other);
	trace_json_us(sb, s);
	strbuf_addch(sb, '}');
	strbuf_addf(sb,
	    ",\n{\"name\": \"signal\", \"cat\": \"signal\", "
	    "\"ph\": \"f\", \"bp\": \"e\", \"id\": %" PRIu64
	    ", \"pid\": %" PRIu64 ", \"tid\": 0, \"ts\": ",
	    id, to->target);
	trace_json_us(sb, f);
	strbuf_addch(sb, '}');
	return 1;
}

void
trace_flows_json(struct trace_flows *c, struct strbuf *sb, FILE *fp)
{
	struct sig_ev *credits =
	    xreallocarray(NULL, c->nnotes + 1, sizeof *credits);
	struct sig_ev *bycell =
	    xreallocarray(NULL, c->nnotes + 1, sizeof *bycell);
	size_t ncred = 0;
	uint64_t id = 0;

	for (size_t i = 0; i < c->nnotes; i++) {
		if (c->notes[i].coll != 0)
			credits[ncred++] = c->notes[i];
	}
	if (c->nnotes > 0) /* notes is NULL when there are none */
		memcpy(bycell, c->notes, c->nnotes * sizeof *bycell);
	qsort(credits, ncred, sizeof *credits, cmp_credit);
	qsort(bycell, c->nnotes, sizeof *bycell, cmp_cell_start);
	for (size_t i = 0; i < c->nwaits; i++) {
		const struct sig_ev *w = &c->waits[i];
		const struct sig_ev *n = find_credit(credits, ncred, w);

		/* a credit that began after the wait ended did not release it
		 * (credits left on the signal did): the last notify did */
		if (n == NULL || n->ts > w->end)
			n = find_last(bycell, c->nnotes, w);
		if (n == NULL)
			continue;
		if (json_flow(sb, id + 1, n, w))
			id++;
		if (sb->len > 1 << 16) {
			fwrite(sb->buf, 1, sb->len, fp);
			strbuf_reset(sb);
		}
	}
	free(credits);
	free(bycell);
}

void
trace_json_us(struct strbuf *sb, uint64_t ns)
{
	strbuf_addf(sb, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}
