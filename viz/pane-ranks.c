/* pane-ranks.c - a row per rank: state, op, blocked-on cell; see pane.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xmalloc.h"
#include "pane.h"
#include "viz.h"

struct ranks_data {
	uint8_t *age; /* per row: refreshes left to show a change */
	int n;
};

static void ranks_init(struct pane *);
static void ranks_free(struct pane *);
static int ranks_update(struct pane *);
static void ranks_draw(struct pane *, struct screen *,
    const struct screen_rect *);
static unsigned ranks_state_style(enum snap_state);
static void ranks_time(char *, size_t, double);

const struct pane_class pane_ranks_class = {
	.name = "ranks",
	.help = NULL,
	.init = ranks_init,
	.free = ranks_free,
	.update = ranks_update,
	.draw = ranks_draw,
	.key = NULL,
};

static void
ranks_init(struct pane *p)
{
	p->data = xcalloc(1, sizeof(struct ranks_data));
}

static void
ranks_free(struct pane *p)
{
	struct ranks_data *d = p->data;

	free(d->age);
	free(d);
}

int
pane_ranks_height(int nranks, int h)
{
	int want = nranks + 1;

	want = MIN(want, MAX(2, h * 2 / 5));
	if (h - want < 4)
		want = MAX(0, h - 4);
	return want;
}

static int
ranks_update(struct pane *p)
{
	struct ranks_data *d = p->data;
	const struct snap *s = p->view->snap, *o = p->view->prev;
	const struct snap_rank *a, *b;
	int r, redraw = 0;

	if (d->n != s->nranks || o == NULL || o->nranks != s->nranks) {
		free(d->age);
		d->n = s->nranks;
		d->age = xcalloc(d->n + 1, 1);
		return VIZ_REDRAW;
	}
	for (r = 0; r < s->nranks; r++) {
		a = &s->ranks[r];
		b = &o->ranks[r];
		if (a->state != b->state || a->now != b->now ||
		    a->expected != b->expected || a->rank != b->rank ||
		    strcmp(a->op, b->op) != 0 || strcmp(a->on, b->on) != 0) {
			d->age[r] = (uint8_t)MIN(p->view->hold, 255);
			redraw = 1;
		} else if (d->age[r] > 0) {
			d->age[r]--;
			redraw |= d->age[r] == 0;
		}
		if (s->show_times && a->secs != b->secs)
			redraw = 1;
	}
	return redraw ? VIZ_REDRAW : 0;
}

static unsigned
ranks_state_style(enum snap_state st)
{
	switch (st) {
	case SNAP_RUNNING:
		return SCREEN_FG(SCREEN_GREEN);
	case SNAP_STOPPED:
		return SCREEN_FG(SCREEN_YELLOW);
	case SNAP_BLOCKED:
		return SCREEN_BOLD | SCREEN_FG(SCREEN_RED);
	case SNAP_EXITED:
		return SCREEN_DIM;
	case SNAP_DEAD:
		return SCREEN_REVERSE | SCREEN_FG(SCREEN_RED);
	default:
		return 0;
	}
}

static void
ranks_time(char *buf, size_t size, double secs)
{
	long s = (long)secs;

	if (secs < 0)
		snprintf(buf, size, "-");
	else if (secs < 60)
		snprintf(buf, size, "%.1fs", secs);
	else if (secs < 3600)
		snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, size, "%ldh%02ldm", s / 3600, s / 60 % 60);
}

static void
ranks_draw(struct pane *p, struct screen *scr, const struct screen_rect *rc)
{
	struct ranks_data *d = p->data;
	const struct snap *s = p->view->snap;
	const struct snap_rank *rk;
	char buf[32];
	int rw, nw = 7, tw, opw, onw, avail, x, y, i, r;
	unsigned hl;

	rw = MAX(4,
	    pane_digits(s->nranks > 0 ? s->ranks[s->nranks - 1].rank : 0));
	for (r = 0; r < s->nranks; r++)
		if (s->ranks[r].state == SNAP_BLOCKED)
			nw = MAX(nw,
			    pane_digits(s->ranks[r].now) + 1 +
				pane_digits(s->ranks[r].expected));
	tw = s->show_times ? 8 : 0;
	avail = rc->w - (rw + 1) - 8 - (nw + 1) - tw;
	opw = avail < 24 ? avail : avail * 11 / 20;
	onw = avail < 24 ? 0 : avail - opw - 1;

	y = rc->y;
	x = screen_field(scr, rc->x, y, rw, "rank", 1, SCREEN_BOLD) + 1;
	x = screen_field(scr, x, y, 7, "state", -1, SCREEN_BOLD) + 1;
	x = screen_field(scr, x, y, opw, "op", -1, SCREEN_BOLD) + 1;
	if (onw > 0)
		x = screen_field(scr, x, y, onw, "blocked on", -1, SCREEN_BOLD) +
		    1;
	x = screen_field(scr, x, y, nw, "now/exp", 1, SCREEN_BOLD) + 1;
	if (tw > 0)
		screen_field(scr, x, y, tw - 1, "time", 1, SCREEN_BOLD);

	for (i = 0; i < rc->h - 1; i++) {
		r = p->view->top + i;
		if (r < 0 || r >= s->nranks)
			break;
		rk = &s->ranks[r];
		hl = r < d->n && d->age[r] > 0 ? SCREEN_BOLD : 0;
		y = rc->y + 1 + i;
		snprintf(buf, sizeof buf, "%d", rk->rank);
		x = screen_field(scr, rc->x, y, rw, buf, 1, hl) + 1;
		x = screen_field(scr, x, y, 7, snap_state_name(rk->state), -1,
			ranks_state_style(rk->state)) +
		    1;
		x = screen_field(scr, x, y, opw, rk->op, -1, hl) + 1;
		if (onw > 0)
			x = screen_field(scr, x, y, onw, rk->on, -1, 0) + 1;
		if (rk->state == SNAP_BLOCKED) {
			snprintf(buf, sizeof buf, "%d/%d", rk->now, rk->expected);
			screen_field(scr, x, y, nw, buf, 1,
			    hl ? SCREEN_BOLD | SCREEN_FG(SCREEN_YELLOW) : 0);
		}
		x += nw + 1;
		if (tw > 0) {
			ranks_time(buf, sizeof buf, rk->secs);
			screen_field(scr, x, y, tw - 1, buf, 1, SCREEN_DIM);
		}
	}
}
