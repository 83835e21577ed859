/* snapfile.c - the snapshot text format; see snap.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"
#include "../core/xmalloc.h"
#include "snap.h"

struct snap_parser {
	struct snap *s;
	char *p; /* rest of the current line */
	int line;
	struct snap_win *w;	      /* window of row/await/owe lines */
	char (*onwin)[SNAP_NAME_MAX]; /* per row: window name of `on` */
	char **cause;
};

static char *snapfile_word(struct snap_parser *);
static int snapfile_int(struct snap_parser *, const char *, long, long, long *);
static int snapfile_row(struct snap_parser *, long *);
static int snapfile_rows(struct snap_parser *, long *, long *);
static int snapfile_value(struct snap_parser *, const char *, long *, long *);
static int snapfile_line(struct snap_parser *, const char *);
static int snapfile_resolve(struct snap_parser *);
static void snapfile_text(char *, size_t, const char *);

static char *
snapfile_word(struct snap_parser *ps)
{
	char *w;

	ps->p += strspn(ps->p, " \t");
	if (*ps->p == '\0')
		return NULL;
	w = ps->p;
	ps->p += strcspn(ps->p, " \t");
	if (*ps->p != '\0')
		*ps->p++ = '\0';
	return w;
}

static int
snapfile_int(struct snap_parser *ps, const char *what, long lo, long hi, long *out)
{
	char *w = snapfile_word(ps), *end;
	long v;

	if (w == NULL)
		return cause_set(ps->cause, "line %d: missing %s", ps->line,
		    what);
	errno = 0;
	v = strtol(w, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return cause_set(ps->cause, "line %d: bad %s '%s'", ps->line,
		    what, w);
	*out = v;
	return 0;
}

static int
snapfile_row(struct snap_parser *ps, long *r)
{
	if (ps->s->nranks == 0)
		return cause_set(ps->cause, "line %d: no 'ranks' line yet",
		    ps->line);
	return snapfile_int(ps, "row", 0, ps->s->nranks - 1, r);
}

/* A row or a range of rows "A-B". */
static int
snapfile_rows(struct snap_parser *ps, long *r0, long *r1)
{
	char *w, *dash, *end;

	if (ps->s->nranks == 0)
		return cause_set(ps->cause, "line %d: no 'ranks' line yet",
		    ps->line);
	if ((w = snapfile_word(ps)) == NULL)
		return cause_set(ps->cause, "line %d: missing row", ps->line);
	*r0 = strtol(w, &end, 10);
	*r1 = *r0;
	dash = end;
	if (*dash == '-' && dash != w)
		*r1 = strtol(dash + 1, &end, 10);
	if (end == w || *end != '\0' || *r0 < 0 || *r1 < *r0 ||
	    *r1 >= ps->s->nranks)
		return cause_set(ps->cause, "line %d: bad row '%s'", ps->line, w);
	return 0;
}

/* A value "V" or "V*K" (K copies). */
static int
snapfile_value(struct snap_parser *ps, const char *w, long *v, long *rep)
{
	char *end;

	errno = 0;
	*v = strtol(w, &end, 10);
	*rep = 1;
	if (*end == '*' && end != w)
		*rep = strtol(end + 1, &end, 10);
	if (errno != 0 || end == w || *end != '\0' || *v < INT32_MIN ||
	    *v > INT32_MAX || *rep < 1 || *rep > 1 << 24)
		return cause_set(ps->cause, "line %d: bad value '%s'", ps->line,
		    w);
	return 0;
}

static void
snapfile_text(char *dst, size_t size, const char *src)
{
	src += strspn(src, " \t");
	snprintf(dst, size, "%s", src);
}

/* One handler per directive; each reads the rest of its line from ps. */

static int
dir_session(struct snap_parser *ps, const char *kw)
{
	(void)kw;
	snapfile_text(ps->s->session, sizeof ps->s->session, ps->p);
	return 0;
}

static int
dir_status(struct snap_parser *ps, const char *kw)
{
	(void)kw;
	snapfile_text(ps->s->status, sizeof ps->s->status, ps->p);
	return 0;
}

static int
dir_world(struct snap_parser *ps, const char *kw)
{
	long v;

	(void)kw;
	if (snapfile_int(ps, "world size", 0, INT16_MAX, &v) != 0)
		return -1;
	ps->s->world = (int)v;
	return 0;
}

static int
dir_ranks(struct snap_parser *ps, const char *kw)
{
	long v;

	(void)kw;
	if (snapfile_int(ps, "rank count", 0, INT16_MAX, &v) != 0)
		return -1;
	snap_set_ranks(ps->s, (int)v);
	free(ps->onwin);
	ps->onwin = xcalloc(v + 1, sizeof *ps->onwin);
	ps->w = NULL;
	return 0;
}

static int
dir_flag(struct snap_parser *ps, const char *kw)
{
	long v;

	if (snapfile_int(ps, kw, 0, 1, &v) != 0)
		return -1;
	*(kw[0] == 'r' ? &ps->s->readonly : &ps->s->show_times) = (int)v;
	return 0;
}

static int
dir_rank(struct snap_parser *ps, const char *kw)
{
	struct snap *s = ps->s;
	long r = 0;
	int st;
	char *w, *end;

	(void)kw;
	if (snapfile_row(ps, &r) != 0)
		return -1;
	w = snapfile_word(ps);
	if (w == NULL || (st = snap_state_parse(w)) < 0)
		return cause_set(ps->cause, "line %d: bad state '%s'", ps->line,
		    w != NULL ? w : "");
	s->ranks[r].state = st;
	w = snapfile_word(ps);
	if (w != NULL) {
		s->ranks[r].secs = strtod(w, &end);
		if (*end != '\0')
			return cause_set(ps->cause, "line %d: bad seconds '%s'",
			    ps->line, w);
	}
	return 0;
}

static int
dir_op(struct snap_parser *ps, const char *kw)
{
	long r = 0;

	(void)kw;
	if (snapfile_row(ps, &r) != 0)
		return -1;
	snapfile_text(ps->s->ranks[r].op, sizeof ps->s->ranks[r].op, ps->p);
	return 0;
}

static int
dir_on(struct snap_parser *ps, const char *kw)
{
	struct snap *s = ps->s;
	long r = 0, i, v;
	char *w;

	(void)kw;
	if (snapfile_row(ps, &r) != 0)
		return -1;
	if ((w = snapfile_word(ps)) == NULL)
		return cause_set(ps->cause, "line %d: missing window", ps->line);
	snprintf(ps->onwin[r], sizeof ps->onwin[r], "%s", w);
	if (snapfile_int(ps, "cell", -1, INT_MAX, &i) != 0 ||
	    snapfile_int(ps, "value", INT32_MIN, INT32_MAX, &v) != 0)
		return -1;
	s->ranks[r].cell = (int)i;
	s->ranks[r].now = (int32_t)v;
	if (snapfile_int(ps, "value", INT32_MIN, INT32_MAX, &v) != 0)
		return -1;
	s->ranks[r].expected = (int32_t)v;
	snapfile_text(s->ranks[r].on, sizeof s->ranks[r].on, ps->p);
	return 0;
}

static int
dir_win(struct snap_parser *ps, const char *kw)
{
	struct snap *s = ps->s;
	long v, i, dims[SNAP_DIMS_MAX];
	int shape[SNAP_DIMS_MAX], nd;
	char *w;

	(void)kw;
	if ((w = snapfile_word(ps)) == NULL)
		return cause_set(ps->cause, "line %d: missing name", ps->line);
	for (nd = 0; nd < SNAP_DIMS_MAX && *ps->p != '\0'; nd++) {
		if (snapfile_int(ps, "dim", 1, 1 << 20, &dims[nd]) != 0)
			return -1;
		shape[nd] = (int)dims[nd];
		ps->p += strspn(ps->p, " \t");
	}
	if (nd == 0 || *ps->p != '\0')
		return cause_set(ps->cause, "line %d: want 1 to %d dims",
		    ps->line, SNAP_DIMS_MAX);
	if (s->nranks == 0)
		return cause_set(ps->cause, "line %d: no 'ranks' line yet",
		    ps->line);
	for (i = 0, v = s->nranks; i < nd; i++)
		if ((v *= shape[i]) > 1 << 24)
			return cause_set(ps->cause, "line %d: too many cells",
			    ps->line);
	ps->w = snap_add_win(s, w, nd, shape);
	return 0;
}

static int
dir_row(struct snap_parser *ps, const char *kw)
{
	long r = 0, r2 = 0, v, i, k, rep;
	char *w;

	(void)kw;
	if (snapfile_rows(ps, &r, &r2) != 0)
		return -1;
	for (i = 0; (w = snapfile_word(ps)) != NULL;) {
		if (snapfile_value(ps, w, &v, &rep) != 0)
			return -1;
		if (i + rep > ps->w->ncells)
			return cause_set(ps->cause,
			    "line %d: more than %d values", ps->line,
			    ps->w->ncells);
		for (; rep > 0; rep--, i++)
			for (k = r; k <= r2; k++)
				snap_row(ps->w, (int)k)[i] = (int32_t)v;
	}
	return 0;
}

/* absent R: the window is not on rank R (a comm domain's window) */
static int
dir_absent(struct snap_parser *ps, const char *kw)
{
	long r = 0;

	(void)kw;
	if (snapfile_row(ps, &r) != 0)
		return -1;
	snap_mark_absent(ps->w, (int)r);
	return 0;
}

static int
dir_mark(struct snap_parser *ps, const char *kw)
{
	long r = 0, i, by;
	char *w;

	if (snapfile_row(ps, &r) != 0 ||
	    snapfile_int(ps, "cell", 0, ps->w->ncells - 1, &i) != 0)
		return -1;
	if (kw[0] == 'a') {
		ps->w->marks[snap_idx(ps->w, (int)r, (int)i)] |= SNAP_AWAITED;
		return 0;
	}
	if (snapfile_int(ps, "owing rank", 0, INT16_MAX, &by) != 0)
		return -1;
	snap_mark_owed(ps->w, (int)r, (int)i, (int)by);
	if ((w = snapfile_word(ps)) != NULL && strcmp(w, "+") == 0)
		ps->w->marks[snap_idx(ps->w, (int)r, (int)i)] |= SNAP_OWED_MANY;
	else if (w != NULL)
		return cause_set(ps->cause, "line %d: junk '%s'", ps->line, w);
	return 0;
}

static const struct directive {
	const char *kw;
	int in_win; /* only after a 'win' line */
	int (*fn)(struct snap_parser *ps, const char *kw);
} directives[] = {
	{ "session", 0, dir_session },
	{ "status", 0, dir_status },
	{ "world", 0, dir_world },
	{ "ranks", 0, dir_ranks },
	{ "readonly", 0, dir_flag },
	{ "times", 0, dir_flag },
	{ "rank", 0, dir_rank },
	{ "op", 0, dir_op },
	{ "on", 0, dir_on },
	{ "win", 0, dir_win },
	{ "row", 1, dir_row },
	{ "await", 1, dir_mark },
	{ "owe", 1, dir_mark },
	{ "absent", 1, dir_absent },
};

static int
snapfile_line(struct snap_parser *ps, const char *kw)
{
	for (size_t i = 0; i < ARRAY_SIZE(directives); i++) {
		const struct directive *d = &directives[i];

		if (strcmp(kw, d->kw) != 0)
			continue;
		if (d->in_win && ps->w == NULL)
			return cause_set(ps->cause,
			    "line %d: %s before any 'win'", ps->line, kw);
		return d->fn(ps, kw);
	}
	return cause_set(ps->cause, "line %d: unknown directive '%s'", ps->line,
	    kw);
}

static int
snapfile_resolve(struct snap_parser *ps)
{
	struct snap *s = ps->s;
	int r, k;

	for (r = 0; r < s->nranks; r++) {
		if (ps->onwin[r][0] == '\0' || strcmp(ps->onwin[r], "-") == 0)
			continue;
		k = snap_find_win(s, ps->onwin[r]);
		if (k < 0)
			return cause_set(ps->cause,
			    "row %d is blocked on unknown window '%s'", r,
			    ps->onwin[r]);
		s->ranks[r].win = k;
	}
	if (s->world == 0)
		s->world = s->nranks; /* world 0: the default, the rows */
	snap_mark_awaited(s);
	return 0;
}

int
snap_parse(struct snap *s, const char *text, char **cause)
{
	struct snap_parser ps = { .s = s, .cause = cause };
	char *copy = xstrdup(text), *line, *next, *kw;
	int rc = 0;

	snap_clear(s);
	ps.onwin = xcalloc(1, sizeof *ps.onwin);
	for (line = copy; line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		ps.line++;
		ps.p = line;
		kw = snapfile_word(&ps);
		if (kw == NULL || kw[0] == '#')
			continue;
		if ((rc = snapfile_line(&ps, kw)) != 0)
			goto out;
	}
	rc = snapfile_resolve(&ps);
out:
	free(ps.onwin);
	free(copy);
	return rc;
}

void
snap_format(const struct snap *s, struct strbuf *out)
{
	const struct snap_rank *rk;
	const struct snap_win *w;
	size_t k;
	int r, i, d;

	strbuf_addf(out,
	    "session %s\nworld %d\nranks %d\nreadonly %d\n"
	    "times %d\n",
	    s->session, s->world, s->nranks, s->readonly, s->show_times);
	if (s->status[0] != '\0')
		strbuf_addf(out, "status %s\n", s->status);
	for (r = 0; r < s->nranks; r++) {
		rk = &s->ranks[r];
		strbuf_addf(out, "rank %d %s %.17g\n", r,
		    snap_state_name(rk->state), rk->secs);
		if (rk->op[0] != '\0')
			strbuf_addf(out, "op %d %s\n", r, rk->op);
		if (rk->win >= 0 || rk->on[0] != '\0' || rk->now != 0 ||
		    rk->expected != 0 || rk->cell >= 0)
			strbuf_addf(out, "on %d %s %d %d %d %s\n", r,
			    rk->win >= 0 && rk->win < s->nwins ?
				s->wins[rk->win].name :
				"-",
			    rk->cell, rk->now, rk->expected, rk->on);
	}
	for (i = 0; i < s->nwins; i++) {
		w = &s->wins[i];
		strbuf_addf(out, "win %s", w->name);
		for (d = 0; d < w->ndim; d++)
			strbuf_addf(out, " %d", w->shape[d]);
		strbuf_addch(out, '\n');
		for (r = 0; r < s->nranks; r++) {
			strbuf_addf(out, "row %d", r);
			for (k = 0; k < (size_t)w->ncells; k++)
				strbuf_addf(out, " %d", snap_row(w, r)[k]);
			strbuf_addch(out, '\n');
		}
		for (r = 0; r < s->nranks && w->ncells > 0; r++)
			if (w->marks[snap_idx(w, r, 0)] & SNAP_ABSENT)
				strbuf_addf(out, "absent %d\n", r);
		for (k = 0; k < (size_t)s->nranks * w->ncells; k++) {
			r = (int)(k / w->ncells);
			if (w->marks[k] & SNAP_AWAITED)
				strbuf_addf(out, "await %d %zu\n", r,
				    k % w->ncells);
			if (w->marks[k] & SNAP_OWED)
				strbuf_addf(out, "owe %d %zu %d%s\n", r,
				    k % w->ncells, w->owed_by[k],
				    w->marks[k] & SNAP_OWED_MANY ? " +" : "");
		}
	}
}
