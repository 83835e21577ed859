/* snap.c - session snapshots for the watch pane; see snap.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xmalloc.h"
#include "snap.h"

static const char *const snap_state_names[SNAP_NSTATES] = {
	"idle",
	"running",
	"stopped",
	"blocked",
	"exited",
	"dead",
};

static void snap_win_reserve(struct snap_win *, size_t);
static int snap_rank_equal(const struct snap_rank *, const struct snap_rank *,
    int);
static int snap_win_equal(const struct snap_win *, const struct snap_win *, int);

void
snap_init(struct snap *s)
{
	memset(s, 0, sizeof *s);
}

void
snap_release(struct snap *s)
{
	int i;

	for (i = 0; i < s->wins_alloc; i++) {
		free(s->wins[i].cells);
		free(s->wins[i].marks);
		free(s->wins[i].owed_by);
	}
	free(s->wins);
	free(s->ranks);
	snap_init(s);
}

void
snap_clear(struct snap *s)
{
	s->session[0] = '\0';
	s->status[0] = '\0';
	s->world = 0;
	s->nranks = 0;
	s->nwins = 0;
	s->readonly = 0;
	s->show_times = 0;
}

void
snap_set_ranks(struct snap *s, int n)
{
	int r;

	if (n < 0)
		BUG("snap_set_ranks: %d ranks", n);
	if (n > s->ranks_alloc) {
		s->ranks = xreallocarray(s->ranks, n, sizeof *s->ranks);
		s->ranks_alloc = n;
	}
	s->nranks = n;
	s->nwins = 0;
	if (s->world == 0)
		s->world = n;
	for (r = 0; r < n; r++) {
		memset(&s->ranks[r], 0, sizeof s->ranks[r]);
		s->ranks[r].rank = r;
		s->ranks[r].state = SNAP_IDLE;
		s->ranks[r].win = -1;
		s->ranks[r].cell = -1;
	}
}

static void
snap_win_reserve(struct snap_win *w, size_t n)
{
	if (n <= w->alloc && w->cells != NULL)
		return;
	n = MAX(n, 1);
	free(w->cells);
	free(w->marks);
	free(w->owed_by);
	w->cells = xreallocarray(NULL, n, sizeof *w->cells);
	w->marks = xreallocarray(NULL, n, sizeof *w->marks);
	w->owed_by = xreallocarray(NULL, n, sizeof *w->owed_by);
	w->alloc = n;
}

struct snap_win *
snap_add_win(struct snap *s, const char *name, int ndim, const int *shape)
{
	struct snap_win *w;
	long long ncells = 1;
	size_t n, i;
	int d;

	if (ndim < 1 || ndim > SNAP_DIMS_MAX)
		BUG("snap_add_win: %d dims", ndim);
	for (d = 0; d < ndim; d++) {
		if (shape[d] < 1)
			BUG("snap_add_win: dim %d is %d", d, shape[d]);
		ncells *= shape[d];
		if (ncells > INT_MAX / 2)
			BUG("snap_add_win: window too large");
	}
	if (s->nwins == s->wins_alloc) {
		s->wins =
		    xreallocarray(s->wins, s->wins_alloc + 4, sizeof *s->wins);
		memset(s->wins + s->wins_alloc, 0, 4 * sizeof *s->wins);
		s->wins_alloc += 4;
	}
	w = &s->wins[s->nwins++];
	snprintf(w->name, sizeof w->name, "%s", name);
	w->ndim = ndim;
	memset(w->shape, 0, sizeof w->shape);
	memcpy(w->shape, shape, ndim * sizeof *shape);
	w->ncells = (int)ncells;
	w->nrows = s->nranks;
	n = (size_t)s->nranks * w->ncells;
	snap_win_reserve(w, n);
	memset(w->cells, 0, n * sizeof *w->cells);
	memset(w->marks, 0, n * sizeof *w->marks);
	for (i = 0; i < n; i++)
		w->owed_by[i] = -1;
	return w;
}

void
snap_copy(struct snap *dst, const struct snap *src)
{
	const struct snap_win *sw;
	struct snap_win *dw;
	size_t n;
	int i;

	if (dst == src)
		return;
	snap_clear(dst);
	snap_set_ranks(dst, src->nranks);
	if (src->nranks > 0) /* an empty snapshot's arrays are NULL */
		memcpy(dst->ranks, src->ranks, src->nranks * sizeof *src->ranks);
	for (i = 0; i < src->nwins; i++) {
		sw = &src->wins[i];
		dw = snap_add_win(dst, sw->name, sw->ndim, sw->shape);
		n = (size_t)src->nranks * sw->ncells;
		if (n == 0)
			continue;
		memcpy(dw->cells, sw->cells, n * sizeof *dw->cells);
		memcpy(dw->marks, sw->marks, n * sizeof *dw->marks);
		memcpy(dw->owed_by, sw->owed_by, n * sizeof *dw->owed_by);
	}
	memcpy(dst->session, src->session, sizeof dst->session);
	memcpy(dst->status, src->status, sizeof dst->status);
	dst->world = src->world;
	dst->readonly = src->readonly;
	dst->show_times = src->show_times;
}

static int
snap_rank_equal(const struct snap_rank *a, const struct snap_rank *b, int times)
{
	return a->rank == b->rank && a->state == b->state &&
	    strcmp(a->op, b->op) == 0 && strcmp(a->on, b->on) == 0 &&
	    a->now == b->now && a->expected == b->expected && a->win == b->win &&
	    a->cell == b->cell && (!times || a->secs == b->secs);
}

static int
snap_win_equal(const struct snap_win *a, const struct snap_win *b, int nranks)
{
	size_t n = (size_t)nranks * a->ncells;

	return strcmp(a->name, b->name) == 0 && a->ndim == b->ndim &&
	    a->nrows == b->nrows &&
	    memcmp(a->shape, b->shape, sizeof a->shape) == 0 &&
	    memcmp(a->cells, b->cells, n * sizeof *a->cells) == 0 &&
	    memcmp(a->marks, b->marks, n * sizeof *a->marks) == 0 &&
	    memcmp(a->owed_by, b->owed_by, n * sizeof *a->owed_by) == 0;
}

int
snap_equal(const struct snap *a, const struct snap *b)
{
	int i, times = a->show_times || b->show_times;

	if (strcmp(a->session, b->session) != 0 ||
	    strcmp(a->status, b->status) != 0 || a->world != b->world ||
	    a->nranks != b->nranks || a->nwins != b->nwins ||
	    a->readonly != b->readonly || a->show_times != b->show_times)
		return 0;
	for (i = 0; i < a->nranks; i++)
		if (!snap_rank_equal(&a->ranks[i], &b->ranks[i], times))
			return 0;
	for (i = 0; i < a->nwins; i++)
		if (!snap_win_equal(&a->wins[i], &b->wins[i], a->nranks))
			return 0;
	return 1;
}

int
snap_find_win(const struct snap *s, const char *name)
{
	int i;

	for (i = 0; i < s->nwins; i++)
		if (strcmp(s->wins[i].name, name) == 0)
			return i;
	return -1;
}

void
snap_mark_awaited(struct snap *s)
{
	const struct snap_rank *rk;
	struct snap_win *w;
	int r;

	for (r = 0; r < s->nranks; r++) {
		rk = &s->ranks[r];
		if (rk->state != SNAP_BLOCKED || rk->win < 0 ||
		    rk->win >= s->nwins)
			continue;
		w = &s->wins[rk->win];
		if (rk->cell < 0 || rk->cell >= w->ncells)
			continue;
		w->marks[snap_idx(w, r, rk->cell)] |= SNAP_AWAITED;
	}
}

void
snap_mark_owed(struct snap_win *w, int r, int i, int by)
{
	size_t k;

	if (r < 0 || r >= w->nrows || i < 0 || i >= w->ncells || by < 0 ||
	    by > INT16_MAX)
		BUG("snap_mark_owed: row %d cell %d by %d", r, i, by);
	k = snap_idx(w, r, i);
	if (!(w->marks[k] & SNAP_OWED)) {
		w->marks[k] |= SNAP_OWED;
		w->owed_by[k] = (int16_t)by;
	} else if (w->owed_by[k] != by)
		w->marks[k] |= SNAP_OWED_MANY;
}

void
snap_mark_absent(struct snap_win *w, int r)
{
	if (r < 0 || r >= w->nrows)
		BUG("snap_mark_absent: row %d", r);
	for (int i = 0; i < w->ncells; i++)
		w->marks[snap_idx(w, r, i)] |= SNAP_ABSENT;
}

const char *
snap_state_name(enum snap_state st)
{
	if ((int)st < 0 || st >= SNAP_NSTATES)
		return "?";
	return snap_state_names[st];
}

int
snap_state_parse(const char *name)
{
	int i;

	for (i = 0; i < SNAP_NSTATES; i++)
		if (strcmp(snap_state_names[i], name) == 0)
			return i;
	return -1;
}

void
snap_keep_rows(struct snap *s, const uint8_t *keep)
{
	int n = 0;

	for (int i = 0; i < s->nwins; i++) {
		struct snap_win *w = &s->wins[i];
		int k = 0;

		for (int r = 0; r < s->nranks; r++) {
			if (!keep[r])
				continue;
			if (k != r) {
				size_t to = snap_idx(w, k, 0),
				       from = snap_idx(w, r, 0);
				memmove(w->cells + to, w->cells + from,
				    (size_t)w->ncells * sizeof *w->cells);
				memmove(w->marks + to, w->marks + from,
				    (size_t)w->ncells * sizeof *w->marks);
				memmove(w->owed_by + to, w->owed_by + from,
				    (size_t)w->ncells * sizeof *w->owed_by);
			}
			k++;
		}
		w->nrows = k;
	}
	for (int r = 0; r < s->nranks; r++) {
		if (keep[r])
			s->ranks[n++] = s->ranks[r];
	}
	s->nranks = n;
}
