/*
 * explore-hb.c - what the engine learns from each step: which earlier
 * steps it depends on (with the refined rule for waits, see explore.h),
 * its two vector clocks (the search's happens-before and the data-race
 * happens-before) and the races the search must reverse; the checks live
 * in explore-check.c.
 *
 * Earlier steps are found through indexes rather than a scan of the whole
 * trace: every cell has the list of steps on it, every area the list of
 * its data steps.  Both are stacks that follow the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "explore-int.h"
#include "xmalloc.h"

int
hb_accesses(const struct xev *ev, struct acc4 *out)
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
int
hb_conflict(const struct xev *a, const struct xev *b, int *plain,
    struct acc4 *r, int *awrite, int *bwrite)
{
	struct acc4 x[2], y[2];
	int nx = hb_accesses(a, x), ny = hb_accesses(b, y), any = 0;

	if (plain != NULL)
		*plain = 0;
	for (int i = 0; i < nx; i++) {
		for (int j = 0; j < ny; j++) {
			if (x[i].area != y[j].area ||
			    !(x[i].write || y[j].write) ||
			    !overlaps(x[i].off, x[i].len, y[j].off, y[j].len))
				continue;
			any = 1;
			if (plain == NULL)
				return 1;
			if (!*plain && !(x[i].atomic && y[j].atomic)) {
				uint64_t lo = MAX(x[i].off, y[j].off);
				uint64_t hi = MIN(x[i].off + x[i].len,
				    y[j].off + y[j].len);

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
int
hb_writes_cell(const struct xev *ev, int area, uint64_t off)
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

int
hb_holds(const struct xev *w, int32_t v)
{
	return wait_cmp_holds(w->op, v, w->value);
}

void
hb_push(uint32_t **v, size_t *n, size_t *a, uint32_t x)
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

uint32_t
hb_cell_find(struct xeng *e, int area, uint64_t off, int create)
{
	uint64_t key = cell_key(area, off), *v;
	struct xarea *xa = &e->areas[area];
	struct xcell *c;
	int fresh;

	if (!create) {
		v = u64map_find(&e->cellmap, key);
		return v != NULL ? (uint32_t)*v : NO_EVENT;
	}
	v = u64map_slot(&e->cellmap, key, &fresh);
	if (!fresh)
		return (uint32_t)*v;
	if (e->ncells == e->acells) {
		e->acells = e->acells ? 2 * e->acells : 64;
		e->cells = xreallocarray(e->cells, e->acells, sizeof *e->cells);
	}
	c = &e->cells[e->ncells];
	memset(c, 0, sizeof *c);
	c->area = area;
	c->off = off;
	*v = e->ncells;
	hb_push(&xa->cells, &xa->ncells, &xa->acells, (uint32_t)e->ncells);
	if (xa->ncells == 1 || off < xa->cell_lo)
		xa->cell_lo = off;
	if (xa->ncells == 1 || off + 4 > xa->cell_hi)
		xa->cell_hi = off + 4;
	return (uint32_t)e->ncells++;
}

void
hb_reset(struct xeng *e)
{
	e->areas = xcalloc((size_t)e->np, sizeof *e->areas);
	e->last = xcalloc((size_t)e->np, sizeof *e->last);
	for (int p = 0; p < e->np; p++)
		e->last[p] = NO_EVENT;
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
	u64map_release(&e->cellmap);
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
	int na = hb_accesses(&t->ev, a);
	size_t n = 0, u = 0;

	for (int i = 0; i < na; i++) {
		struct xarea *xa = &e->areas[a[i].area];

		/* data steps: only if their bytes come near */
		for (size_t k = 0; xa->data_hi > xa->data_lo &&
		     overlaps(a[i].off, a[i].len, xa->data_lo,
			 xa->data_hi - xa->data_lo) &&
		     k < xa->n;
		     k++) {
			struct acc4 b[2];
			int nb = hb_accesses(&e->t[xa->ev[k]].ev, b);

			for (int j = 0; j < nb; j++) {
				if (b[j].area == a[i].area &&
				    overlaps(b[j].off, b[j].len, a[i].off,
					a[i].len)) {
					cand_add(e, &n, xa->ev[k]);
					break;
				}
			}
		}
		if (t->cell != NO_EVENT) {
			const struct xcell *c = &e->cells[t->cell];

			for (size_t k = 0; k < c->n; k++)
				cand_add(e, &n, c->ev[k]);
		} else if (xa->ncells &&
		    overlaps(a[i].off, a[i].len, xa->cell_lo,
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
	if (n > 24) {
		qsort(e->cand, n, sizeof *e->cand, cmp_desc);
	} else {
		for (size_t k = 1; k < n; k++) {
			uint32_t v = e->cand[k];
			size_t m = k;

			for (; m > 0 && e->cand[m - 1] < v; m--)
				e->cand[m] = e->cand[m - 1];
			e->cand[m] = v;
		}
	}
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
		if (!hb_writes_cell(&b->ev, a->ev.cell_area, a->ev.cell_off))
			return 0;
		return b->ev.kind != XEV_NOTIFY || !hb_holds(&a->ev, b->new);
	}
	return hb_conflict(&a->ev, &b->ev, NULL, NULL, NULL, NULL);
}

int
hb_dependent_next(struct xeng *e, const struct tev *a, const struct xev *b,
    int bproc)
{
	(void)bproc;
	if (b->kind == XEV_WAIT) {
		if (!hb_writes_cell(&a->ev, b->cell_area, b->cell_off))
			return 0;
		return a->ev.kind != XEV_NOTIFY ||
		    hb_holds(b, a->old) != hb_holds(b, a->new);
	}
	if (a->ev.kind == XEV_WAIT) {
		int32_t v;

		if (!hb_writes_cell(b, a->ev.cell_area, a->ev.cell_off))
			return 0;
		if (b->kind != XEV_NOTIFY)
			return 1;
		v = e->sys->cell(e->sys->arg, a->ev.cell_area, a->ev.cell_off);
		v = b->op == NOTIFY_SET ?
		    b->value :
		    (int32_t)((uint32_t)v + (uint32_t)b->value);
		return !hb_holds(&a->ev, v);
	}
	return hb_conflict(&a->ev, b, NULL, NULL, NULL, NULL);
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
	t->cell = t->ev.kind == XEV_DATA ?
	    NO_EVENT :
	    hb_cell_find(e, t->ev.cell_area, t->ev.cell_off, 1);
	ncand = gather(e, d);
	t->ew = NO_EVENT;
	if (t->ev.kind == XEV_WAIT) {
		for (size_t i = 0; i < ncand; i++) {
			const struct tev *x = &e->t[e->cand[i]];

			if (!hb_writes_cell(&x->ev, t->ev.cell_area,
				t->ev.cell_off))
				continue;
			if (x->ev.kind != XEV_NOTIFY || x->proc == p ||
			    !hb_holds(&t->ev, x->old)) {
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
			    !hb_writes_cell(&x->ev, t->ev.cell_area,
				t->ev.cell_off))
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
		if (t->ev.kind != XEV_WAIT ||
		    hb_holds(&t->ev,
			a->ev.kind == XEV_NOTIFY ?
			    a->old :
			    e->sys->cell_before(e->sys->arg, k, t->ev.cell_area,
				t->ev.cell_off)))
			hb_push(&e->races, &nraces, &e->araces, k);
		for (size_t r = 0; r < np; r++)
			vd[r] = MAX(vd[r], ka[r]);
	}
	vd[p] = t->own;
	for (size_t i = 0; i < nraces; i++)
		dpor_race(e, e->races[i], d, p, vd);
	hb_data_races(e, d, ncand);
	if (t->ev.kind == XEV_WAIT)
		hb_stale(e, d);
	/* index it */
	e->last[p] = d;
	if (t->cell != NO_EVENT) {
		struct xcell *c = &e->cells[t->cell];
		hb_push(&c->ev, &c->n, &c->a, d);
	}
	t->ndata = 0;
	for (int i = 0; t->ev.kind == XEV_DATA && i < t->ev.nacc; i++) {
		int a = t->ev.acc[i].area;
		struct xarea *xa = &e->areas[a];

		if (i == 1 && t->ev.acc[0].area == a)
			continue;
		hb_push(&xa->ev, &xa->n, &xa->a, d);
		t->data_area[t->ndata++] = a;
	}
	/* the span of the data steps' bytes, per area (it never shrinks) */
	for (int i = 0; t->ev.kind == XEV_DATA && i < t->ev.nacc; i++) {
		const struct xacc *x = &t->ev.acc[i];
		struct xarea *xa = &e->areas[x->area];

		if (xa->data_hi == xa->data_lo) {
			xa->data_lo = x->off;
			xa->data_hi = x->off + x->len;
		}
		xa->data_lo = MIN(xa->data_lo, x->off);
		xa->data_hi = MAX(xa->data_hi, x->off + x->len);
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
