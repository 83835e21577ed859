/*
 * explore-hb.c - what the engine learns from each step: which earlier
 * steps it depends on (with the refined rule for waits, see explore.h),
 * its two vector clocks (the search's happens-before and the data-race
 * happens-before), the races the search must reverse, and the checks that
 * look at one step: data races and stale credits.
 *
 * Earlier steps are found through indexes rather than a scan of the whole
 * trace: every cell has the list of steps on it, every area the list of
 * its data steps.  Both are stacks that follow the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "explore-int.h"
#include "xmalloc.h"

/* A step's accesses, the cell of a notify or wait included. */
struct acc4 {
	int area;
	uint8_t write, atomic;
	uint64_t off, len;
};

static int
accesses(const struct xev *ev, struct acc4 *out)
{
	if (ev->kind != XEV_DATA) {
		out[0].area = ev->cell_area;
		out[0].off = ev->cell_off;
		out[0].len = 4;
		out[0].write = ev->kind == XEV_NOTIFY;
		out[0].atomic = 1;
		return 1;
	}
	for (int i = 0; i < ev->nacc; i++) {
		out[i].area = ev->acc[i].area;
		out[i].off = ev->acc[i].off;
		out[i].len = ev->acc[i].len;
		out[i].write = ev->acc[i].write;
		out[i].atomic = ev->acc[i].atomic;
	}
	return ev->nacc;
}

static int
overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* Any overlapping pair with a write: 1.  *plain: one such pair is not
 * atomic on both sides (a data race if unordered), its bytes in *r. */
static int
conflict(const struct xev *a, const struct xev *b, int *plain,
    struct acc4 *r, int *awrite, int *bwrite)
{
	struct acc4 x[2], y[2];
	int nx = accesses(a, x), ny = accesses(b, y), any = 0;

	if (plain != NULL)
		*plain = 0;
	for (int i = 0; i < nx; i++) {
		for (int j = 0; j < ny; j++) {
			if (x[i].area != y[j].area || !(x[i].write || y[j].write) ||
			    !overlaps(x[i].off, x[i].len, y[j].off, y[j].len))
				continue;
			any = 1;
			if (plain == NULL)
				return 1;
			if (!*plain && !(x[i].atomic && y[j].atomic)) {
				uint64_t lo = MAX(x[i].off, y[j].off);
				uint64_t hi = MIN(x[i].off + x[i].len, y[j].off + y[j].len);

				*plain = 1;
				r->area = x[i].area;
				r->off = lo;
				r->len = hi - lo;
				*awrite = x[i].write;
				*bwrite = y[j].write;
			}
		}
	}
	return any;
}

/* Whether ev writes the i32 cell (area, off). */
static int
writes_cell(const struct xev *ev, int area, uint64_t off)
{
	if (ev->kind == XEV_NOTIFY)
		return ev->cell_area == area && ev->cell_off == off;
	if (ev->kind == XEV_WAIT)
		return 0;
	for (int i = 0; i < ev->nacc; i++) {
		if (ev->acc[i].write && ev->acc[i].area == area &&
		    overlaps(ev->acc[i].off, ev->acc[i].len, off, 4))
			return 1;
	}
	return 0;
}

static int
holds(const struct xev *w, int32_t v)
{
	return wait_cmp_holds(w->op, v, w->value);
}

static void
push(uint32_t **v, size_t *n, size_t *a, uint32_t x)
{
	if (*n == *a) {
		*a = *a ? 2 * *a : 16;
		*v = xreallocarray(*v, *a, sizeof **v);
	}
	(*v)[(*n)++] = x;
}

/* ---- cells ---------------------------------------------------------------- */

static uint64_t
cell_key(int area, uint64_t off)
{
	return (((uint64_t)(unsigned)area << 48) ^ off) + 1;
}

static size_t
slot_of(uint64_t key, size_t cap)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (size_t)(key >> 17) & (cap - 1);
}

static void
rehash(struct xeng *e)
{
	size_t cap = e->hcap ? 2 * e->hcap : 256;
	uint64_t *k = xcalloc(cap, sizeof *k);
	uint32_t *v = xcalloc(cap, sizeof *v);

	for (size_t i = 0; i < e->hcap; i++) {
		size_t s;

		if (e->hkeys[i] == 0)
			continue;
		for (s = slot_of(e->hkeys[i], cap); k[s]; s = (s + 1) & (cap - 1))
			;
		k[s] = e->hkeys[i];
		v[s] = e->hvals[i];
	}
	free(e->hkeys);
	free(e->hvals);
	e->hkeys = k;
	e->hvals = v;
	e->hcap = cap;
}

static uint32_t
cell_find(struct xeng *e, int area, uint64_t off, int create)
{
	uint64_t key = cell_key(area, off);
	struct xarea *xa = &e->areas[area];
	struct xcell *c;
	size_t s;

	for (s = slot_of(key, e->hcap); e->hkeys[s]; s = (s + 1) & (e->hcap - 1)) {
		if (e->hkeys[s] == key)
			return e->hvals[s];
	}
	if (!create)
		return NO_EVENT;
	if (e->ncells == e->acells) {
		e->acells = e->acells ? 2 * e->acells : 64;
		e->cells = xreallocarray(e->cells, e->acells, sizeof *e->cells);
	}
	c = &e->cells[e->ncells];
	memset(c, 0, sizeof *c);
	c->area = area;
	c->off = off;
	e->hkeys[s] = key;
	e->hvals[s] = (uint32_t)e->ncells;
	push(&xa->cells, &xa->ncells, &xa->acells, (uint32_t)e->ncells);
	if (xa->ncells == 1 || off < xa->cell_lo)
		xa->cell_lo = off;
	if (xa->ncells == 1 || off + 4 > xa->cell_hi)
		xa->cell_hi = off + 4;
	if (2 * ++e->ncells > e->hcap)
		rehash(e);
	return (uint32_t)(e->ncells - 1);
}

void
hb_reset(struct xeng *e)
{
	e->areas = xcalloc((size_t)e->np, sizeof *e->areas);
	e->last = xcalloc((size_t)e->np, sizeof *e->last);
	for (int p = 0; p < e->np; p++)
		e->last[p] = NO_EVENT;
	rehash(e);
}

void
hb_release(struct xeng *e)
{
	for (size_t i = 0; i < e->ncells; i++)
		free(e->cells[i].ev);
	free(e->cells);
	for (int p = 0; p < e->np; p++) {
		free(e->areas[p].ev);
		free(e->areas[p].cells);
	}
	free(e->areas);
	free(e->last);
	free(e->hkeys);
	free(e->hvals);
	free(e->races);
}

/* ---- candidates: earlier steps that may depend on step d ----------------- */

static int
cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void
cand_add(struct xeng *e, size_t *n, uint32_t k)
{
	if (*n == e->acand) {
		e->acand = e->acand ? 2 * e->acand : 256;
		e->cand = xreallocarray(e->cand, e->acand, sizeof *e->cand);
	}
	e->cand[(*n)++] = k;
}

/* Steps before d touching what step d touches, newest first. */
static size_t
gather(struct xeng *e, uint32_t d)
{
	const struct tev *t = &e->t[d];
	struct acc4 a[2];
	int na = accesses(&t->ev, a);
	size_t n = 0, u = 0;

	for (int i = 0; i < na; i++) {
		struct xarea *xa = &e->areas[a[i].area];

		for (size_t k = 0; k < xa->n; k++) {
			struct acc4 b[2];
			int nb = accesses(&e->t[xa->ev[k]].ev, b);

			for (int j = 0; j < nb; j++) {
				if (b[j].area == a[i].area &&
				    overlaps(b[j].off, b[j].len, a[i].off, a[i].len)) {
					cand_add(e, &n, xa->ev[k]);
					break;
				}
			}
		}
		if (t->cell != NO_EVENT) {
			const struct xcell *c = &e->cells[t->cell];

			for (size_t k = 0; k < c->n; k++)
				cand_add(e, &n, c->ev[k]);
		} else if (xa->ncells && overlaps(a[i].off, a[i].len, xa->cell_lo,
		    xa->cell_hi - xa->cell_lo)) {
			for (size_t k = 0; k < xa->ncells; k++) {
				const struct xcell *c = &e->cells[xa->cells[k]];

				if (!overlaps(a[i].off, a[i].len, c->off, 4))
					continue;
				for (size_t m = 0; m < c->n; m++)
					cand_add(e, &n, c->ev[m]);
			}
		}
	}
	qsort(e->cand, n, sizeof *e->cand, cmp_desc);
	for (size_t k = 0; k < n; k++) {
		if (u == 0 || e->cand[u - 1] != e->cand[k])
			e->cand[u++] = e->cand[k];
	}
	return u;
}

/* ---- dependence --------------------------------------------------------------- */

/* Executed steps k < d of different processes. */
static int
dep_exec(const struct xeng *e, uint32_t k, uint32_t d)
{
	const struct tev *a = &e->t[k], *b = &e->t[d];

	if (b->ev.kind == XEV_WAIT)
		return k == b->ew;
	if (a->ev.kind == XEV_WAIT) {
		if (!writes_cell(&b->ev, a->ev.cell_area, a->ev.cell_off))
			return 0;
		return b->ev.kind != XEV_NOTIFY || !holds(&a->ev, b->new);
	}
	return conflict(&a->ev, &b->ev, NULL, NULL, NULL, NULL);
}

int
hb_dependent_next(struct xeng *e, const struct tev *a, const struct xev *b,
    int bproc)
{
	(void)bproc;
	if (b->kind == XEV_WAIT) {
		if (!writes_cell(&a->ev, b->cell_area, b->cell_off))
			return 0;
		return a->ev.kind != XEV_NOTIFY || holds(b, a->old) != holds(b, a->new);
	}
	if (a->ev.kind == XEV_WAIT) {
		int32_t v;

		if (!writes_cell(b, a->ev.cell_area, a->ev.cell_off))
			return 0;
		if (b->kind != XEV_NOTIFY)
			return 1;
		v = e->sys->cell(e->sys->arg, a->ev.cell_area, a->ev.cell_off);
		v = b->op == NOTIFY_SET ? b->value : (int32_t)((uint32_t)v +
		    (uint32_t)b->value);
		return !holds(&a->ev, v);
	}
	return conflict(&a->ev, b, NULL, NULL, NULL, NULL);
}

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
	    e->first_pos[a->proc][a->own - 1] : UINT64_MAX;
	uint64_t pb = b->own <= e->nfirst[b->proc] && e->first_done ?
	    e->first_pos[b->proc][b->own - 1] : UINT64_MAX;

	return e->first_done && pa != UINT64_MAX && pa > pb;
}

static void
data_races(struct xeng *e, uint32_t d, size_t ncand)
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
		    !conflict(&a->ev, &t->ev, &plain, &r, &aw, &bw) || !plain)
			continue;
		/* rather the order the first execution did not take, and
		 * then a read that sees the write */
		f = min_found(e, XK_RACE, d + 1, k, d, 2 * unusual(e, a, t) +
		    (aw && !bw));
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
static void
stale(struct xeng *e, uint32_t d)
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
	v = i < c->n ? e->t[c->ev[i]].old :
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
					prev = (int32_t)((uint32_t)prev + (uint32_t)x->ev.value);
			}
			if (x->ev.call < k && (x->ev.op == NOTIFY_SET || x->ev.value > 0))
				lastprev = c->ev[i];
		}
	}
	if (prev == 0 || !holds(&t->ev, v) ||
	    holds(&t->ev, (int32_t)((uint32_t)v - (uint32_t)prev)))
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

/* ---- one step ------------------------------------------------------------------ */

void
hb_step(struct xeng *e)
{
	size_t np = (size_t)e->np;
	uint32_t d = (uint32_t)e->d;
	struct tev *t = &e->t[d];
	int p = t->proc;
	uint32_t *vd = &e->vcd[(size_t)d * np], *vs = &e->vcs[(size_t)d * np];
	size_t ncand, nraces = 0;

	t->prev = e->last[p];
	t->cell = t->ev.kind == XEV_DATA ? NO_EVENT :
	    cell_find(e, t->ev.cell_area, t->ev.cell_off, 1);
	ncand = gather(e, d);
	t->ew = NO_EVENT;
	if (t->ev.kind == XEV_WAIT) {
		for (size_t i = 0; i < ncand; i++) {
			const struct tev *x = &e->t[e->cand[i]];

			if (!writes_cell(&x->ev, t->ev.cell_area, t->ev.cell_off))
				continue;
			if (x->ev.kind != XEV_NOTIFY || x->proc == p ||
			    !holds(&t->ev, x->old)) {
				t->ew = e->cand[i];
				break;
			}
		}
	}
	if (t->prev != NO_EVENT) {
		memcpy(vd, &e->vcd[(size_t)t->prev * np], np * sizeof *vd);
		memcpy(vs, &e->vcs[(size_t)t->prev * np], np * sizeof *vs);
	} else {
		memset(vd, 0, np * sizeof *vd);
		memset(vs, 0, np * sizeof *vs);
	}
	/* a wait acquires the release sequence its enabling write closes */
	if (t->ew != NO_EVENT && e->t[t->ew].ev.kind == XEV_NOTIFY) {
		for (size_t i = 0; i < ncand; i++) {
			const struct tev *x = &e->t[e->cand[i]];
			const uint32_t *xs = &e->vcs[(size_t)e->cand[i] * np];

			if (e->cand[i] > t->ew ||
			    !writes_cell(&x->ev, t->ev.cell_area, t->ev.cell_off))
				continue;
			if (x->ev.kind != XEV_NOTIFY)
				break;
			for (size_t r = 0; r < np; r++)
				vs[r] = MAX(vs[r], xs[r]);
			if (x->ev.op == NOTIFY_SET)
				break;
		}
	}
	vs[p] = t->own;
	/* the search's clock, and the races it must reverse */
	for (size_t i = 0; i < ncand; i++) {
		uint32_t k = e->cand[i];
		const struct tev *a = &e->t[k];
		const uint32_t *ka = &e->vcd[(size_t)k * np];

		if (a->proc == p || !dep_exec(e, k, d) || a->own <= vd[a->proc])
			continue;
		if (t->ev.kind != XEV_WAIT || holds(&t->ev, a->ev.kind == XEV_NOTIFY ?
		    a->old : e->sys->cell_before(e->sys->arg, k, t->ev.cell_area,
		    t->ev.cell_off)))
			push(&e->races, &nraces, &e->araces, k);
		for (size_t r = 0; r < np; r++)
			vd[r] = MAX(vd[r], ka[r]);
	}
	vd[p] = t->own;
	for (size_t i = 0; i < nraces; i++)
		dpor_race(e, e->races[i], d, p, vd);
	data_races(e, d, ncand);
	if (t->ev.kind == XEV_WAIT)
		stale(e, d);
	/* index it */
	e->last[p] = d;
	if (t->cell != NO_EVENT) {
		struct xcell *c = &e->cells[t->cell];
		push(&c->ev, &c->n, &c->a, d);
	}
	t->ndata = 0;
	for (int i = 0; t->ev.kind == XEV_DATA && i < t->ev.nacc; i++) {
		int a = t->ev.acc[i].area;
		struct xarea *xa = &e->areas[a];

		if (i == 1 && t->ev.acc[0].area == a)
			continue;
		push(&xa->ev, &xa->n, &xa->a, d);
		t->data_area[t->ndata++] = a;
	}
}

void
hb_unstep(struct xeng *e)
{
	struct tev *t = &e->t[e->d - 1];

	e->last[t->proc] = t->prev;
	if (t->cell != NO_EVENT)
		e->cells[t->cell].n--;
	for (int i = 0; i < t->ndata; i++)
		e->areas[t->data_area[i]].n--;
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
		if (lq != D - 1 && !writes_cell(&e->t[D - 1].ev, w->cell_area,
		    w->cell_off))
			continue;
		if ((c = cell_find(e, w->cell_area, w->cell_off, 0)) == NO_EVENT)
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
			h = holds(w, y->old);
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
		if (x == NO_EVENT || (lq != NO_EVENT &&
		    e->t[x].own <= e->vcd[(size_t)lq * np + (size_t)e->t[x].proc]))
			continue;
		dpor_race(e, x, (uint32_t)D, (int)q, lq != NO_EVENT ?
		    &e->vcd[(size_t)lq * np] : zero);
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

			if (!(t->ev.flags & XEV_F_SELFCLEAR) || k == done)
				continue;
			done = k;
			/* the cell as call k and the ones before it left it */
			for (j = 0; j < c->n && e->t[c->ev[j]].ev.kind != XEV_NOTIFY; j++)
				;
			v = j < c->n ? e->t[c->ev[j]].old :
			    e->sys->cell(e->sys->arg, c->area, c->off);
			for (; j < c->n; j++) {
				const struct tev *x = &e->t[c->ev[j]];

				if (x->ev.kind != XEV_NOTIFY || x->ev.call > k)
					continue;
				v = x->ev.op == NOTIFY_SET ? x->ev.value :
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
