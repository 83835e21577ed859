/*
 * explore-dpor.c - the search: a depth-first walk over executions with
 * source sets and sleep sets (Abdulla et al., POPL 2014, Algorithm 1),
 * blocked waits as disabled steps, and the bounds; see explore.h.
 *
 * Node d is the state before step d.  Its backtrack set starts with one
 * enabled process; races found later add the processes that must be
 * tried first there (dpor_race).  Its sleep set holds what need not be
 * tried (inherited while independent, plus the children explored).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explore-int.h"
#include "xmalloc.h"

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
lowest(uint64_t m)
{
	return m ? __builtin_ctzll(m) : -1;
}

static void
grow(struct xeng *e, size_t need)
{
	size_t np = (size_t)e->np, cap = e->cap;

	if (need < cap)
		return;
	while (cap <= need)
		cap = cap ? 2 * cap : 256;
	e->t = xreallocarray(e->t, cap, sizeof *e->t);
	e->nd = xreallocarray(e->nd, cap + 1, sizeof *e->nd);
	e->next = xreallocarray(e->next, (cap + 1) * np, sizeof *e->next);
	e->vcd = xreallocarray(e->vcd, cap * np, sizeof *e->vcd);
	e->vcs = xreallocarray(e->vcs, cap * np, sizeof *e->vcs);
	e->cnt = xreallocarray(e->cnt, (cap + 1) * np, sizeof *e->cnt);
	e->cap = cap;
}

void
dpor_race(struct xeng *e, uint32_t j, uint32_t upto, int q, const uint32_t *vc)
{
	size_t np = (size_t)e->np;
	const uint32_t *cj = &e->cnt[(size_t)j * np];
	int pj = e->t[j].proc, qinit = 1;
	uint64_t init = 0;

	if (e->o.flags & EXPLORE_F_NAIVE)
		return;
	/* v = notdep(j).q: the steps after j that do not depend on it, then
	 * q's step; its initials are what node j must try */
	for (uint32_t k = j + 1; k < upto; k++) {
		const uint32_t *vk = &e->vcd[(size_t)k * np];
		int pk = e->t[k].proc, first = 1;

		if (vk[pj] >= e->t[j].own)
			continue; /* after j */
		if (vc[pk] >= e->t[k].own)
			qinit = 0; /* before q's step */
		if (vk[pk] != cj[pk] + 1)
			continue;
		for (size_t r = 0; r < np && first; r++)
			first = (int)r == pk || vk[r] <= cj[r];
		if (first)
			init |= 1ull << pk;
	}
	if (qinit)
		init |= 1ull << q;
	if (init & e->nd[j].backtrack)
		return;
	e->nd[j].backtrack |= 1ull << (qinit ? q : lowest(init));
}

/* Compute node d: what each process would do next.  Below the root only
 * the process that moved asks the system; a wait of another one is
 * enabled exactly when its cell holds (the contract of sys->next). */
static void
visit(struct xeng *e)
{
	struct node *n = &e->nd[e->d];
	size_t np = (size_t)e->np, d = e->d;
	int moved = d > 0 ? e->t[d - 1].proc : -1;

	n->enabled = n->blocked = 0;
	for (size_t p = 0; p < np; p++) {
		struct xev *ev = &e->next[d * np + p];
		enum xnext st;
		int32_t cell;

		if (moved >= 0 && (int)p != moved) {
			const struct node *up = &e->nd[d - 1];

			if (!bit(up->enabled | up->blocked, (int)p))
				continue; /* done */
			*ev = e->next[(d - 1) * np + p];
			st = XN_READY;
			if (ev->kind == XEV_WAIT) {
				cell = e->sys->cell(e->sys->arg, ev->cell_area,
				    ev->cell_off);
				st = hb_holds(ev, cell) ? XN_READY : XN_BLOCKED;
			}
		} else {
			st = e->sys->next(e->sys->arg, (int)p, ev);
		}
		if (st == XN_READY)
			n->enabled |= 1ull << p;
		else if (st == XN_BLOCKED)
			n->blocked |= 1ull << p;
	}
	n->visited = 1;
	hb_pending(e);
}

static int
last_proc(const struct xeng *e)
{
	return e->d > 0 ? e->t[e->d - 1].proc : -1;
}

/* The process to try next at node d, or -1. */
static int
pick(struct xeng *e)
{
	struct node *n = &e->nd[e->d];
	int last = last_proc(e);

	for (;;) {
		uint64_t c = n->backtrack & n->enabled & ~n->sleep & ~n->skip;
		int p = last >= 0 && bit(c, last) ? last : lowest(c);
		int pre;

		if (p < 0)
			return -1;
		pre = n->preempts +
		    (last >= 0 && p != last && bit(n->enabled, last));
		if (e->o.preempt >= 0 && pre > e->o.preempt) {
			n->skip |= 1ull << p;
			e->x->st.cut |= XCUT_PREEMPT;
			continue;
		}
		return p;
	}
}

static void
end_state(struct xeng *e)
{
	uint64_t h = e->sys->hash(e->sys->arg);
	int fresh;

	u64map_slot(&e->x->endmap, h ? h : 1, &fresh);
}

/* Node d has no enabled process. */
static void
terminal(struct xeng *e)
{
	struct explore *x = e->x;
	struct node *n = &e->nd[e->d];

	x->st.executions++;
	if (n->blocked) {
		x->st.hung++;
		min_found(e, XK_HANG, (uint32_t)e->d, NO_EVENT, NO_EVENT, 0);
	} else {
		hb_signals(e);
		if (e->sys->final != NULL)
			e->sys->final(e->sys->arg, x);
	}
	end_state(e);
	e->first_done = 1;
}

/* Take step p at node d; 0 or -1 + cause. */
static int
take(struct xeng *e, int p, char **cause)
{
	size_t np = (size_t)e->np, d = e->d;
	struct node *n = &e->nd[d], *c;
	const struct xev *ev = &e->next[d * np + (size_t)p];
	struct tev *t;
	int last = last_proc(e);

	grow(e, d + 1);
	n = &e->nd[d];
	ev = &e->next[d * np + (size_t)p];
	t = &e->t[d];
	memset(t, 0, sizeof *t);
	t->proc = p;
	t->ev = *ev;
	t->own = e->cnt[d * np + (size_t)p] + 1;
	if (ev->kind == XEV_NOTIFY)
		t->old = e->sys->cell(e->sys->arg, ev->cell_area, ev->cell_off);
	if (e->sys->step(e->sys->arg, p, cause) != 0)
		return -1;
	e->x->st.steps++;
	if (ev->kind == XEV_NOTIFY)
		t->new = e->sys->cell(e->sys->arg, ev->cell_area, ev->cell_off);
	if (!e->first_done) {
		if (e->nfirst[p] < t->own) {
			e->first_pos[p] = xreallocarray(e->first_pos[p],
			    t->own + 64, sizeof **e->first_pos);
			e->nfirst[p] = t->own + 64;
		}
		e->first_pos[p][t->own - 1] = (uint32_t)d;
	}
	memcpy(&e->cnt[(d + 1) * np], &e->cnt[d * np], np * sizeof *e->cnt);
	e->cnt[(d + 1) * np + (size_t)p]++;
	hb_step(e);
	c = &e->nd[d + 1];
	memset(c, 0, sizeof *c);
	c->preempts =
	    n->preempts + (last >= 0 && p != last && bit(n->enabled, last));
	if (!(e->o.flags & EXPLORE_F_NAIVE)) {
		for (uint64_t m = n->sleep; m; m &= m - 1) {
			int q = lowest(m);

			if (!hb_dependent_next(e, t,
				&e->next[d * np + (size_t)q], q))
				c->sleep |= 1ull << q;
		}
		n->sleep |= 1ull << p;
	} else {
		n->skip |= 1ull << p; /* explored: never again from here */
	}
	e->d = d + 1;
	return 0;
}

/* Take the last step back. */
static void
untake(struct xeng *e)
{
	hb_unstep(e);
	e->d--;
	if (e->sys->undo != NULL) {
		e->sys->undo(e->sys->arg);
		return;
	}
	e->sys->reset(e->sys->arg);
	for (size_t i = 0; i < e->d; i++) {
		if (e->sys->step(e->sys->arg, e->t[i].proc, NULL) != 0)
			BUG("replay of step %zu failed", i);
		e->x->st.steps++;
	}
}

static void
count_pending(struct xeng *e)
{
	uint64_t n = 0;

	for (size_t k = 0; k <= e->d; k++) {
		const struct node *v = &e->nd[k];

		if (v->visited)
			n += (uint64_t)__builtin_popcountll(
			    v->backtrack & v->enabled & ~v->sleep & ~v->skip);
	}
	e->x->st.pending = n;
}

static void
eng_release(struct xeng *e)
{
	hb_release(e);
	for (int p = 0; p < e->np; p++)
		free(e->first_pos[p]);
	free(e->first_pos);
	free(e->nfirst);
	free(e->t);
	free(e->nd);
	free(e->next);
	free(e->vcd);
	free(e->vcs);
	free(e->cnt);
	free(e->cand);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
explore_sys_run(struct explore *x, const struct explore_sys *sys,
    const struct explore_opts *o, char **cause)
{
	struct xeng e;
	int rc = 0, stop = 0;
	uint64_t tick = 0;

	if (sys->nprocs < 1 || sys->nprocs > EXPLORE_MAX_RANKS)
		return cause_set(cause,
		    "the explorer takes 1 to %d ranks, not %d",
		    EXPLORE_MAX_RANKS, sys->nprocs);
	memset(&e, 0, sizeof e);
	e.x = x;
	e.sys = sys;
	e.o = *o;
	e.np = sys->nprocs;
	e.upto_call = NO_EVENT;
	e.first_pos = xcalloc((size_t)e.np, sizeof *e.first_pos);
	e.nfirst = xcalloc((size_t)e.np, sizeof *e.nfirst);
	e.t0 = now_ns();
	grow(&e, 0);
	memset(&e.nd[0], 0, sizeof e.nd[0]);
	memset(e.cnt, 0, (size_t)e.np * sizeof *e.cnt);
	hb_reset(&e);
	x->eng = &e;
	memset(&x->st, 0, sizeof x->st);
	for (int k = 0; k < XK__COUNT; k++) {
		finding_release(&x->found[k]);
		x->have[k] = 0;
		x->tried[k] = 0;
		x->found_unusual[k] = 0;
	}
	free(x->ends);
	x->ends = NULL;
	x->nends = 0;
	u64map_release(&x->endmap);
	for (;;) {
		struct node *n = &e.nd[e.d];
		int p;

		if (!n->visited) {
			visit(&e);
			n = &e.nd[e.d];
			if (n->enabled == 0) {
				terminal(&e);
				stop = o->max && x->st.executions >= o->max;
				if (stop)
					x->st.cut |= XCUT_MAX;
			} else if (o->depth && e.d >= o->depth) {
				x->st.cut |= XCUT_DEPTH;
			} else if (o->flags & EXPLORE_F_NAIVE) {
				n->backtrack = n->enabled;
			} else {
				uint64_t c = n->enabled & ~n->sleep;
				int last = last_proc(&e);

				if (c == 0)
					x->st.redundant++;
				else
					n->backtrack |= 1ull
					    << (last >= 0 && bit(c, last) ?
						       last :
						       lowest(c));
			}
		}
		if (!stop && (++tick & 255) == 0) {
			if (o->stop != NULL && *o->stop) {
				x->st.cut |= XCUT_STOP;
				stop = 1;
			} else if (o->time > 0 &&
			    (double)(now_ns() - e.t0) / 1e9 > o->time) {
				x->st.cut |= XCUT_TIME;
				stop = 1;
			}
		}
		if (stop) {
			count_pending(&e);
			break;
		}
		p = (o->depth && e.d >= o->depth) ? -1 : pick(&e);
		if (p >= 0) {
			if (take(&e, p, cause) != 0) {
				rc = -1;
				break;
			}
			continue;
		}
		if (e.d == 0)
			break;
		untake(&e);
	}
	while (e.d > 0)
		untake(&e);
	x->eng = NULL;
	x->st.seconds = (double)(now_ns() - e.t0) / 1e9;
	x->st.exhaustive = rc == 0 && x->st.cut == 0;
	x->ends = xcalloc(x->endmap.n + 1, sizeof *x->ends);
	for (size_t i = 0; i < x->endmap.cap; i++) {
		if (x->endmap.keys[i] != 0)
			x->ends[x->nends++] = x->endmap.keys[i];
	}
	qsort(x->ends, x->nends, sizeof *x->ends, cmp_u64);
	x->st.distinct = x->nends;
	u64map_release(&x->endmap);
	eng_release(&e);
	return rc;
}
