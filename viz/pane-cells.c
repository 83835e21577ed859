/*
 * pane-cells.c - one signal window's cells, a row per rank; see pane.h.
 *
 * A cell is drawn as " VALUE*<R": the value right-aligned, then the
 * awaited slot ('*') and the owed slot ('<' and the owing rank, '+' when
 * several owe) once any cell of the window needed them.  The widths come
 * from the whole window, not the visible part, and never shrink while the
 * window exists, so columns do not move while scrolling or stepping.
 *
 * 2-D shapes [.., C] are cut into groups of C cells with a '|' between
 * groups and a header line naming each group's index.  When every rank and
 * cell fit on screen as bands (successive cell ranges stacked, each with
 * its header and every rank), they are drawn that way; otherwise one band
 * scrolls (arrows, PgUp/PgDn, '<' '>').
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xmalloc.h"
#include "pane.h"
#include "viz.h"

/* Highlight state and column widths of one window. */
struct cells_hist {
	char name[SNAP_NAME_MAX];
	int nrows, ncells;
	uint8_t *age; /* [nrows][ncells]: refreshes left to highlight */
	int live;     /* ages > 0 */
	int vw;	      /* value width */
	int aw;	      /* awaited slot width: 0 or 1 */
	int ow;	      /* owed slot width: 0 or 1 + owing rank digits */
};

struct cells_data {
	struct cells_hist *hist;
	int nhist;
	char cur[SNAP_NAME_MAX]; /* name of the window shown */
	int vis;		 /* cells visible at the last draw */
	size_t jump;		 /* flat index 'a' jumped to last */
};

/* Geometry of one draw. */
struct cells_geom {
	int x0;	    /* column of the first cell's leading space */
	int w;	    /* columns available for cells */
	int stride; /* columns per cell, its leading space included */
	int group;  /* cells per group (ncells when 1-D) */
};

static void cells_init(struct pane *);
static void cells_free(struct pane *);
static int cells_update(struct pane *);
static int cells_hist_update(struct cells_hist *, const struct snap_win *,
    const struct snap_win *, int);
static void cells_widths(struct cells_hist *, const struct snap_win *);
static void cells_draw(struct pane *, struct screen *,
    const struct screen_rect *);
static int cells_band(struct screen *, const struct snap *,
    const struct snap_win *, const struct cells_hist *,
    const struct cells_geom *, int, int, int, int, int, int);
static int cells_banded(const struct cells_geom *, const struct snap_win *, int,
    int);
static int cells_fit(const struct cells_geom *, int, int);
static int cells_max_left(const struct cells_geom *, int);
static void cells_group_label(const struct snap_win *, int, char *, size_t);
static void cells_header(struct screen *, const struct snap_win *,
    const struct cells_hist *, const struct cells_geom *, int, int, int);
static void cells_row(struct screen *, const struct snap_win *,
    const struct cells_hist *, const struct cells_geom *, int, int, int, int);
static int cells_group(const struct snap_win *);
static void cells_next_awaited(struct pane *);
static int cells_key(struct pane *, int);

static const struct pane_help cells_help[] = {
	{ "Tab S-Tab", "next / previous signal window" },
	{ "Up Down", "scroll ranks by one" },
	{ "PgUp PgDn", "scroll ranks by a page" },
	{ "Left Right", "scroll cells by one" },
	{ "< >", "scroll cells by a page" },
	{ "Home End", "first / last ranks and cells" },
	{ "a", "scroll to the next awaited cell" },
	{ NULL, NULL },
};

const struct pane_class pane_cells_class = {
	.name = "cells",
	.help = cells_help,
	.init = cells_init,
	.free = cells_free,
	.update = cells_update,
	.draw = cells_draw,
	.key = cells_key,
};

static void
cells_init(struct pane *p)
{
	struct cells_data *d = xcalloc(1, sizeof *d);

	d->jump = (size_t)-1;
	p->data = d;
}

static void
cells_free(struct pane *p)
{
	struct cells_data *d = p->data;
	int i;

	for (i = 0; i < d->nhist; i++)
		free(d->hist[i].age);
	free(d->hist);
	free(d);
}

/* Widths only grow while a window lives, so columns do not jump. */
static void
cells_widths(struct cells_hist *h, const struct snap_win *w)
{
	size_t k, n = (size_t)w->nrows * w->ncells;
	int32_t lo = 0, hi = 0;
	int by = -1, aw = 0;

	for (k = 0; k < n; k++) {
		lo = MIN(lo, w->cells[k]);
		hi = MAX(hi, w->cells[k]);
		if (w->marks[k] & SNAP_AWAITED)
			aw = 1;
		if (w->marks[k] & SNAP_OWED)
			by = MAX(by,
			    w->marks[k] & SNAP_OWED_MANY ? 0 : w->owed_by[k]);
	}
	h->vw = MAX(h->vw, MAX(pane_digits(lo), pane_digits(hi)));
	h->aw = MAX(h->aw, aw);
	if (by >= 0)
		h->ow = MAX(h->ow, 1 + pane_digits(by));
}

/* Returns 1 when anything shown for this window changed. */
static int
cells_hist_update(struct cells_hist *h, const struct snap_win *w,
    const struct snap_win *o, int hold)
{
	size_t k, n = (size_t)w->nrows * w->ncells;
	int vw = h->vw, aw = h->aw, ow = h->ow, changed = 0;

	if (strcmp(h->name, w->name) != 0 || h->nrows != w->nrows ||
	    h->ncells != w->ncells) {
		snprintf(h->name, sizeof h->name, "%s", w->name);
		h->nrows = w->nrows;
		h->ncells = w->ncells;
		free(h->age);
		h->age = xcalloc(n + 1, 1);
		h->live = 0;
		h->vw = h->aw = h->ow = 0;
		cells_widths(h, w);
		return 1;
	}
	if (o != NULL &&
	    (o->nrows != w->nrows || o->ncells != w->ncells ||
		strcmp(o->name, w->name) != 0))
		o = NULL;
	if (o != NULL && h->live == 0 &&
	    memcmp(o->cells, w->cells, n * sizeof *w->cells) == 0 &&
	    memcmp(o->marks, w->marks, n) == 0 &&
	    memcmp(o->owed_by, w->owed_by, n * sizeof *w->owed_by) == 0)
		return 0;
	for (k = 0; k < n; k++) {
		if (o != NULL && o->cells[k] != w->cells[k]) {
			h->live += h->age[k] == 0;
			h->age[k] = (uint8_t)MIN(hold, 255);
			changed = 1;
		} else if (h->age[k] > 0) {
			h->live -= --h->age[k] == 0;
			changed = 1;
		}
		if (o == NULL || o->marks[k] != w->marks[k] ||
		    o->owed_by[k] != w->owed_by[k])
			changed = 1;
	}
	cells_widths(h, w);
	return changed || vw != h->vw || aw != h->aw || ow != h->ow;
}

static int
cells_update(struct pane *p)
{
	struct cells_data *d = p->data;
	const struct snap *s = p->view->snap, *o = p->view->prev;
	const struct snap_win *ow;
	int i, k, changed = 0;

	if (s->nwins > d->nhist) {
		d->hist = xreallocarray(d->hist, s->nwins, sizeof *d->hist);
		memset(d->hist + d->nhist, 0,
		    (s->nwins - d->nhist) * sizeof *d->hist);
		d->nhist = s->nwins;
	}
	for (i = 0; i < s->nwins; i++) {
		ow = o != NULL && i < o->nwins ? &o->wins[i] : NULL;
		changed |= cells_hist_update(&d->hist[i], &s->wins[i], ow,
		    p->view->hold);
	}
	/* Keep showing the same window by name when the list changes. */
	if (s->nwins == 0)
		p->view->win = 0;
	else if (p->view->win >= s->nwins ||
	    strcmp(s->wins[p->view->win].name, d->cur) != 0) {
		k = snap_find_win(s, d->cur);
		p->view->win = k >= 0 ? k : MIN(p->view->win, s->nwins - 1);
		changed = 1;
	}
	if (s->nwins > 0)
		snprintf(d->cur, sizeof d->cur, "%s", s->wins[p->view->win].name);
	if (o == NULL || o->nwins != s->nwins || o->nranks != s->nranks)
		changed = 1;
	return changed ? VIZ_REDRAW : 0;
}

/* How many cells from `left` fit in g->w columns. */
static int
cells_fit(const struct cells_geom *g, int left, int ncells)
{
	int i, used = 0, add;

	for (i = left; i < ncells; i++) {
		add = g->stride + (i > left && i % g->group == 0);
		if (used + add > g->w)
			break;
		used += add;
	}
	return i - left;
}

/* The smallest left that still fills the width up to the last cell. */
static int
cells_max_left(const struct cells_geom *g, int ncells)
{
	int i, used = 0, add, best = ncells - 1;

	for (i = ncells - 1; i >= 0; i--) {
		add = g->stride + (i + 1 < ncells && (i + 1) % g->group == 0);
		if (used + add > g->w)
			break;
		used += add;
		best = i;
	}
	return MAX(best, 0);
}

static void
cells_group_label(const struct snap_win *w, int g, char *buf, size_t size)
{
	size_t len = 0;
	int idx[SNAP_DIMS_MAX], d;

	for (d = w->ndim - 2; d >= 0; d--) {
		idx[d] = g % w->shape[d];
		g /= w->shape[d];
	}
	buf[0] = '\0';
	for (d = 0; d <= w->ndim - 2 && len + 1 < size; d++)
		len += (size_t)snprintf(buf + len, size - len, "%s%d",
		    d == 0 ? "[" : ",", idx[d]);
	if (len + 2 < size)
		snprintf(buf + len, size - len, "]");
}

static void
cells_header(struct screen *scr, const struct snap_win *w,
    const struct cells_hist *h, const struct cells_geom *g, int y, int left,
    int vis)
{
	char buf[48];
	int i, x, lx, len, room, end0 = -1, end1 = -1;
	int two = g->group < w->ncells;

	for (i = left, x = g->x0; i < left + vis; i++, x += g->stride) {
		if (i > left && i % g->group == 0) {
			screen_putc(scr, x, y, '|', SCREEN_DIM);
			if (two)
				screen_putc(scr, x, y + 1, '|', SCREEN_DIM);
			x++;
		}
		if (two && (i == left || i % g->group == 0)) {
			/* Label the group if it fits before the next '|'. */
			cells_group_label(w, i / g->group, buf, sizeof buf);
			room = (g->group - i % g->group) * g->stride - 1;
			len = (int)strlen(buf);
			if (x + 1 > end0 && len <= room)
				end0 =
				    screen_puts(scr, x + 1, y, buf, SCREEN_BOLD);
		}
		snprintf(buf, sizeof buf, "%d", two ? i % g->group : i);
		len = (int)strlen(buf);
		/* Right-aligned on the value; wide labels thin themselves. */
		lx = x + 1 + h->vw - len;
		if (lx > end1 && lx >= g->x0 && lx + len <= g->x0 + g->w)
			end1 = screen_puts(scr, lx, y + two, buf, SCREEN_DIM);
	}
}

static void
cells_row(struct screen *scr, const struct snap_win *w,
    const struct cells_hist *h, const struct cells_geom *g, int y, int r,
    int left, int vis)
{
	char buf[16];
	size_t k;
	int i, x, by;
	unsigned st;
	uint8_t m;

	for (i = left, x = g->x0; i < left + vis; i++, x += g->stride) {
		if (i > left && i % g->group == 0)
			screen_putc(scr, x++, y, '|', SCREEN_DIM);
		k = snap_idx(w, r, i);
		m = w->marks[k];
		if (m & SNAP_ABSENT) {
			/* not a member of the window's domain */
			screen_field(scr, x + 1, y, h->vw, "-", 1, SCREEN_DIM);
			continue;
		}
		st = w->cells[k] == 0 ? SCREEN_DIM : 0;
		if (h->age[k] > 0)
			st = SCREEN_BOLD | SCREEN_FG(SCREEN_YELLOW);
		if (m & SNAP_AWAITED)
			st |= SCREEN_REVERSE;
		snprintf(buf, sizeof buf, "%d", w->cells[k]);
		screen_field(scr, x + 1, y, h->vw, buf, 1, st);
		if (h->aw && (m & SNAP_AWAITED))
			screen_putc(scr, x + 1 + h->vw, y, '*',
			    SCREEN_BOLD | SCREEN_FG(SCREEN_RED));
		if (h->ow && (m & SNAP_OWED)) {
			by = w->owed_by[k];
			if (m & SNAP_OWED_MANY)
				snprintf(buf, sizeof buf, "<+");
			else
				snprintf(buf, sizeof buf, "<%d", by);
			screen_puts(scr, x + 1 + h->vw + h->aw, y, buf,
			    SCREEN_FG(SCREEN_CYAN));
		}
	}
}

/*
 * Draw cells [left, left + vis) of rank rows top .. top + nrows - 1 with
 * their header at y; returns the row after the last.
 */
static int
cells_band(struct screen *scr, const struct snap *s, const struct snap_win *w,
    const struct cells_hist *h, const struct cells_geom *g, int lw, int y,
    int left, int vis, int top, int nrows)
{
	char buf[16];
	int hdr = g->group < w->ncells ? 2 : 1, i, r;

	screen_field(scr, g->x0 - lw - 3, y + hdr - 1, lw + 2, "rank", 1,
	    SCREEN_DIM);
	cells_header(scr, w, h, g, y, left, vis);
	y += hdr;
	for (i = 0; i < nrows; i++, y++) {
		r = top + i;
		if (r >= s->nranks || r >= w->nrows)
			break;
		snprintf(buf, sizeof buf, "%d", s->ranks[r].rank);
		screen_field(scr, g->x0 - lw - 3, y, lw, buf, 1,
		    s->ranks[r].state == SNAP_BLOCKED ?
			SCREEN_BOLD | SCREEN_FG(SCREEN_RED) :
			SCREEN_BOLD);
		screen_putc(scr, g->x0 - 2, y,
		    "IRSBXD"[s->ranks[r].state % SNAP_NSTATES], SCREEN_DIM);
		cells_row(scr, w, h, g, y, r, left, vis);
	}
	return y;
}

/*
 * Cells per band when every rank and every cell fit on screen as bands
 * (successive cell ranges, each with its header and all ranks), or 0.
 * A 2-D band holds whole groups.
 */
static int
cells_banded(const struct cells_geom *g, const struct snap_win *w, int nranks,
    int rows)
{
	int hdr = g->group < w->ncells ? 2 : 1, per, bands;

	per = cells_fit(g, 0, w->ncells);
	if (per >= w->ncells)
		return 0;
	if (g->group < w->ncells)
		per -= per % g->group;
	if (per == 0)
		return 0;
	bands = (w->ncells + per - 1) / per;
	return bands * (hdr + nranks) <= rows ? per : 0;
}

static void
cells_draw(struct pane *p, struct screen *scr, const struct screen_rect *rc)
{
	struct cells_data *d = p->data;
	struct pane_view *v = p->view;
	const struct snap *s = v->snap;
	const struct snap_win *w;
	const struct cells_hist *h;
	struct cells_geom g;
	char shape[64], buf[320];
	size_t len;
	int lw, hdr, rows, vis, per, i, y, dd;

	screen_fill(scr, &(struct screen_rect){ rc->x, rc->y, rc->w, 1 }, ' ',
	    SCREEN_REVERSE);
	if (s->nwins == 0 || v->win >= s->nwins || v->win >= d->nhist) {
		screen_puts(scr, rc->x + 1, rc->y, "no signal windows",
		    SCREEN_REVERSE);
		screen_puts(scr, rc->x + 1, rc->y + 1,
		    "(every i32 window shows here once allocated)", SCREEN_DIM);
		return;
	}
	w = &s->wins[v->win];
	h = &d->hist[v->win];

	lw = MAX(2,
	    pane_digits(s->nranks > 0 ? s->ranks[s->nranks - 1].rank : 0));
	g.x0 = rc->x + lw + 3;
	g.w = rc->x + rc->w - g.x0;
	g.stride = 1 + h->vw + h->aw + h->ow;
	g.group = cells_group(w);
	hdr = g.group < w->ncells ? 2 : 1;
	per = cells_banded(&g, w, s->nranks, rc->h - 1);
	rows = per > 0 ? s->nranks : MAX(rc->h - 1 - hdr, 0);
	v->page = MAX(rows, 1);
	v->top = MAX(MIN(v->top, s->nranks - rows), 0);
	v->left =
	    per > 0 ? 0 : MAX(MIN(v->left, cells_max_left(&g, w->ncells)), 0);
	vis = per > 0 ? w->ncells : cells_fit(&g, v->left, w->ncells);
	d->vis = MAX(vis, 1);

	len = 0;
	for (dd = 0; dd < w->ndim; dd++)
		len += (size_t)snprintf(shape + len, sizeof shape - len, "%s%d",
		    dd == 0 ? "[" : ",", w->shape[dd]);
	snprintf(shape + len, sizeof shape - len, "]");
	snprintf(buf, sizeof buf,
	    " %s %s  window %d/%d   ranks %d-%d of %d"
	    "   cells %s%d-%d of %d%s",
	    w->name, shape, v->win + 1, s->nwins, s->nranks > 0 ? v->top : 0,
	    MAX(MIN(v->top + rows, s->nranks) - 1, 0), s->nranks,
	    v->left > 0 ? "< " : "", v->left, v->left + vis - 1, w->ncells,
	    v->left + vis < w->ncells ? " >" : "");
	screen_puts(scr, rc->x, rc->y, buf, SCREEN_REVERSE | SCREEN_BOLD);
	if (s->nwins > 1 && (int)strlen(buf) + 12 <= rc->w)
		screen_puts(scr, rc->x + rc->w - 11, rc->y, "Tab: next",
		    SCREEN_REVERSE);

	y = rc->y + 1;
	if (per == 0) {
		cells_band(scr, s, w, h, &g, lw, y, v->left, vis, v->top, rows);
		return;
	}
	for (i = 0; i < w->ncells; i += per)
		y = cells_band(scr, s, w, h, &g, lw, y, i,
		    MIN(per, w->ncells - i), 0, s->nranks);
}

/*
 * Cells per group: the last dim of a 2-D or deeper shape, unless that is
 * 1 ([N,1] reads best as a flat list) or the whole window.
 */
static int
cells_group(const struct snap_win *w)
{
	int c = w->shape[w->ndim - 1];

	return w->ndim > 1 && c > 1 ? c : w->ncells;
}

/*
 * Scroll to the next awaited cell after the last one jumped to, in row
 * order, wrapping; the awaited cell is drawn reverse, so no cursor.
 */
static void
cells_next_awaited(struct pane *p)
{
	struct cells_data *d = p->data;
	struct pane_view *v = p->view;
	const struct snap_win *w;
	size_t n, k, j;

	if (v->win >= v->snap->nwins)
		return;
	w = &v->snap->wins[v->win];
	n = (size_t)w->nrows * w->ncells;
	k = d->jump < n ? d->jump : n - 1;
	for (j = 1; j <= n; j++) {
		if (!(w->marks[(k + j) % n] & SNAP_AWAITED))
			continue;
		k = (k + j) % n;
		d->jump = k;
		v->top = (int)(k / w->ncells);
		if (v->top > v->page / 2)
			v->top -= v->page / 2;
		else
			v->top = 0;
		v->left = MAX((int)(k % w->ncells) - MAX(d->vis / 2, 1), 0);
		return;
	}
}

static int
cells_key(struct pane *p, int key)
{
	struct cells_data *d = p->data;
	struct pane_view *v = p->view;
	const struct snap *s = v->snap;
	int n = s->nwins;

	switch (key) {
	case '\t':
	case VIZ_KEY_BTAB:
		if (n == 0)
			return VIZ_REDRAW;
		v->win = (v->win + (key == '\t' ? 1 : n - 1)) % n;
		d->jump = (size_t)-1;
		snprintf(d->cur, sizeof d->cur, "%s", s->wins[v->win].name);
		v->left = 0;
		break;
	case VIZ_KEY_UP:
		v->top--;
		break;
	case VIZ_KEY_DOWN:
		v->top++;
		break;
	case VIZ_KEY_PGUP:
		v->top -= v->page;
		break;
	case VIZ_KEY_PGDN:
		v->top += v->page;
		break;
	case VIZ_KEY_LEFT:
		v->left--;
		break;
	case VIZ_KEY_RIGHT:
		v->left++;
		break;
	case '<':
		v->left -= d->vis;
		break;
	case '>':
		v->left += d->vis;
		break;
	case 'a':
		cells_next_awaited(p);
		break;
	case VIZ_KEY_HOME:
		v->top = v->left = 0;
		break;
	case VIZ_KEY_END:
		v->top = s->nranks;
		v->left = n > 0 && v->win < n ? s->wins[v->win].ncells : 0;
		break;
	default:
		return 0;
	}
	/* The upper bounds depend on the page; cells_draw() clamps them. */
	v->top = MAX(MIN(v->top, s->nranks - v->page), 0);
	v->left = MAX(v->left, 0);
	return VIZ_REDRAW;
}
