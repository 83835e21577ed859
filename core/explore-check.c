/*
 * explore-check.c - the checks on the trace: data races and stale credits
 * as each step is taken, the pending waits the search must also try
 * earlier, and at the end of a complete execution the signals the calls
 * left.  See explore.h for what each one means.
 */
#include "explore-int.h"

/* ---- the checks on one step -------------------------------------------------- */

static void
who(const struct tev *t, struct xwho *w, int write)
{
	w->at.proc = t->proc;
	w->at.seq = t->ev.seq;
	w->at.pc = t->ev.pc;
	w->at.call = t->ev.call;
	w->write = write;
}

/* Was step a of the first execution after step b there? */
static int
unusual(const struct xeng *e, const struct tev *a, const struct tev *b)
{
	uint64_t pa = a->own <= e->nfirst[a->proc] && e->first_done ?
	    e->first_pos[a->proc][a->own - 1] :
	    UINT64_MAX;
	uint64_t pb = b->own <= e->nfirst[b->proc] && e->first_done ?
	    e->first_pos[b->proc][b->own - 1] :
	    UINT64_MAX;

	return e->first_done && pa != UINT64_MAX && pa > pb;
}

void
hb_data_races(struct xeng *e, uint32_t d, size_t ncand)
{
	size_t np = (size_t)e->np;
	const struct tev *t = &e->t[d];
	const uint32_t *vs = &e->vcs[(size_t)d * np];

	for (size_t i = 0; i < ncand; i++) {
		uint32_t k = e->cand[i];
		const struct tev *a = &e->t[k];
		struct explore_finding *f;
		struct acc4 r;
		int plain, aw, bw;

		if (a->proc == t->proc || a->own <= vs[a->proc] ||
		    !hb_conflict(&a->ev, &t->ev, &plain, &r, &aw, &bw) || !plain)
			continue;
		/* rather the order the first execution did not take, and
		 * then a read that sees the write */
		f = min_found(e, XK_RACE, d + 1, k, d,
		    2 * unusual(e, a, t) + (aw && !bw));
		if (f == NULL)
			continue;
		who(a, &f->a, aw);
		who(t, &f->b, bw);
		f->area = r.area;
		f->off = r.off;
		f->len = r.len;
	}
}

/* A wait that passed only thanks to credit an earlier call left. */
void
hb_stale(struct xeng *e, uint32_t d)
{
	const struct tev *t = &e->t[d];
	const struct xcell *c = &e->cells[t->cell];
	uint32_t k = t->ev.call, lastprev = NO_EVENT, upto = t->ew;
	int32_t v, prev;
	struct explore_finding *f;
	size_t i;

	/* the value the wait first observes: at its enabling write, or from
	 * the start if the condition always held */
	for (i = 0; i < c->n && e->t[c->ev[i]].ev.kind != XEV_NOTIFY; i++)
		;
	v = i < c->n ?
	    e->t[c->ev[i]].old :
	    e->sys->cell(e->sys->arg, t->ev.cell_area, t->ev.cell_off);
	prev = v;
	if (upto != NO_EVENT) {
		for (; i < c->n && c->ev[i] <= upto; i++) {
			const struct tev *x = &e->t[c->ev[i]];

			if (x->ev.kind != XEV_NOTIFY)
				continue;
			if (x->ev.op == NOTIFY_SET) {
				v = x->ev.value;
				prev = x->ev.call < k ? v : 0;
			} else {
				v = (int32_t)((uint32_t)v + (uint32_t)x->ev.value);
				if (x->ev.call < k)
					prev = (int32_t)((uint32_t)prev +
					    (uint32_t)x->ev.value);
			}
			if (x->ev.call < k &&
			    (x->ev.op == NOTIFY_SET || x->ev.value > 0))
				lastprev = c->ev[i];
		}
	}
	if (prev == 0 || !hb_holds(&t->ev, v) ||
	    hb_holds(&t->ev, (int32_t)((uint32_t)v - (uint32_t)prev)))
		return;
	f = min_found(e, XK_STALE, d + 1, lastprev, d, 0);
	if (f == NULL)
		return;
	if (lastprev != NO_EVENT) {
		who(&e->t[lastprev], &f->a, 1);
		f->call = e->t[lastprev].ev.call;
	} else {
		f->a.at.proc = -1;
		f->call = NO_EVENT;
	}
	who(t, &f->b, 0);
	f->area = t->ev.cell_area;
	f->off = t->ev.cell_off;
	f->len = 4;
	f->value = v;
}

/* ---- waits that did not run -------------------------------------------------- */

void
hb_pending(struct xeng *e)
{
	size_t np = (size_t)e->np, D = e->d;
	const struct node *n = &e->nd[D];
	static const uint32_t zero[EXPLORE_MAX_RANKS];

	if (D == 0 || (e->o.flags & EXPLORE_F_NAIVE))
		return;
	for (size_t q = 0; q < np; q++) {
		const struct xev *w = &e->next[D * np + q];
		uint32_t lq = e->last[q], c, x = NO_EVENT;
		int phase;

		if (!bit(n->enabled | n->blocked, (int)q) || w->kind != XEV_WAIT)
			continue;
		/* only when something changed for it: it just arrived, or
		 * the last step wrote its cell */
		if (lq != D - 1 &&
		    !hb_writes_cell(&e->t[D - 1].ev, w->cell_area, w->cell_off))
			continue;
		if ((c = hb_cell_find(e, w->cell_area, w->cell_off, 0)) ==
		    NO_EVENT)
			continue;
		/* the latest write that took the condition away (for an
		 * enabled wait: before the window it is in now) */
		phase = bit(n->enabled, (int)q);
		for (size_t i = e->cells[c].n; i-- > 0;) {
			const struct tev *y = &e->t[e->cells[c].ev[i]];
			int h;

			if (y->ev.kind != XEV_NOTIFY)
				continue;
			if (y->proc == (int)q)
				break;
			h = hb_holds(w, y->old);
			if (phase == 1) {
				/* the window it is in now: back to the write
				 * that opened it */
				phase = h;
				continue;
			}
			if (h) {
				x = e->cells[c].ev[i];
				break;
			}
		}
		if (x == NO_EVENT ||
		    (lq != NO_EVENT &&
			e->t[x].own <=
			    e->vcd[(size_t)lq * np + (size_t)e->t[x].proc]))
			continue;
		dpor_race(e, x, (uint32_t)D, (int)q,
		    lq != NO_EVENT ? &e->vcd[(size_t)lq * np] : zero);
	}
}

/* ---- at the end of a complete execution ------------------------------------- */

void
hb_signals(struct xeng *e)
{
	for (size_t ci = 0; ci < e->ncells; ci++) {
		const struct xcell *c = &e->cells[ci];
		uint32_t done = NO_EVENT;

		for (size_t i = 0; i < c->n; i++) {
			const struct tev *t = &e->t[c->ev[i]];
			uint32_t k = t->ev.call;
			int32_t v;
			size_t j;
			struct explore_finding *f;

			if (!(t->ev.flags & XEV_F_SELFCLEAR) || k == done ||
			    (k < e->x->ncalls &&
				e->x->sigs[k][1] > e->x->sigs[k][0] &&
				(c->off < e->x->sigs[k][0] ||
				    c->off >= e->x->sigs[k][1])))
				continue;
			done = k;
			/* the cell as call k and the ones before it left it */
			for (j = 0;
			     j < c->n && e->t[c->ev[j]].ev.kind != XEV_NOTIFY;
			     j++)
				;
			v = j < c->n ?
			    e->t[c->ev[j]].old :
			    e->sys->cell(e->sys->arg, c->area, c->off);
			for (; j < c->n; j++) {
				const struct tev *x = &e->t[c->ev[j]];

				if (x->ev.kind != XEV_NOTIFY || x->ev.call > k)
					continue;
				v = x->ev.op == NOTIFY_SET ?
				    x->ev.value :
				    (int32_t)((uint32_t)v + (uint32_t)x->ev.value);
			}
			if (v == 0)
				continue;
			e->upto_call = k;
			f = min_found(e, XK_SIGNAL, (uint32_t)e->d, NO_EVENT,
			    NO_EVENT, 0);
			e->upto_call = NO_EVENT;
			if (f != NULL) {
				f->area = c->area;
				f->off = c->off;
				f->len = 4;
				f->value = v;
				f->call = k;
			}
			return;
		}
	}
}
