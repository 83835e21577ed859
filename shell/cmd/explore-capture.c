/*
 * explore-capture.c - what explore explores: a script's lines run through
 * the command parser with the session's sink on (every command builds its
 * programs as usual and hands them here), or a collective repeated; then
 * the explorer (core/explore.h) built from them on a copy of the live
 * windows, with the script's expect lines as its predicate.
 *
 * An explored `notify` is exactly the program a typed one would be.  A
 * collective is one call; consecutive per-rank lines form one call; each
 * pass of repeat=N starts a new call.
 */
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

static uint32_t
new_call(struct xcapture *c, unsigned flags)
{
	c->flags = xrealloc(c->flags, c->ncalls + 1);
	c->flags[c->ncalls] = (uint8_t)flags;
	c->sigs = xreallocarray(c->sigs, c->ncalls + 1, sizeof *c->sigs);
	c->sigs[c->ncalls][0] = c->sigs[c->ncalls][1] = 0;
	if (flags & XEV_F_SELFCLEAR)
		c->xr->selfclear = 1;
	return c->ncalls++;
}

static struct xunit *
unit_for(struct xcapture *c, uint32_t call, int coll)
{
	struct xrun *xr = c->xr;
	struct xunit *u;

	if (c->unit >= 0)
		return &xr->units[c->unit];
	xr->units = xreallocarray(xr->units, xr->nunits + 1, sizeof *xr->units);
	u = &xr->units[xr->nunits];
	memset(u, 0, sizeof *u);
	u->text = c->line->text;
	u->lineno = xr->file != NULL ? c->line->lineno : 0;
	u->pass = c->pass;
	u->call = call;
	u->coll = coll;
	c->unit = (ssize_t)xr->nunits++;
	return u;
}

static void
add_prog(struct xcapture *c, int rank, uint32_t call, struct prog *p, char *desc)
{
	c->pend = xreallocarray(c->pend, c->npend + 1, sizeof *c->pend);
	c->pend[c->npend].rank = rank;
	c->pend[c->npend].call = call;
	c->pend[c->npend].unit = (size_t)c->unit;
	c->pend[c->npend].p = p;
	c->pend[c->npend].desc = desc;
	c->npend++;
}

static int
sink_prog(void *arg, int rank, struct prog *p, char *desc)
{
	struct xcapture *c = arg;

	if (!c->seg_open) {
		c->seg_call =
		    new_call(c, c->xr->repeat > 1 ? XEV_F_SELFCLEAR : 0);
		c->seg_open = 1;
	}
	unit_for(c, c->seg_call, 0);
	add_prog(c, rank, c->seg_call, p, desc);
	return 0;
}

int
xcap_coll(void *arg, const struct coll_call *cc)
{
	struct xcapture *c = arg;
	struct session *s = c->xr->s;
	struct xunit *u;
	uint32_t call;

	if (cc->check && c->xr->file != NULL) {
		out_error(
		    "'check' has no reference inside an explore script (its inputs depend on the schedule); write expect lines");
		return -1;
	}
	c->seg_open = 0;
	call = new_call(c, XEV_F_SELFCLEAR | XEV_F_EXCLUSIVE);
	c->sigs[call][0] = cc->a.sig.off; /* only the signal must clear */
	c->sigs[call][1] = cc->a.sig.off + cc->a.sig.count * 4;
	u = unit_for(c, call, 1);
	coll_title(&cc->a, u->title, sizeof u->title);
	if (c->pass == 0 && coll_warning(&cc->a, s->nranks) != NULL)
		out_warning("%s", coll_warning(&cc->a, s->nranks));
	for (int r = 0; r < s->nranks; r++) {
		if (coll_dense(&cc->a, r) >= 0) /* its domain's members */
			add_prog(c, r, call, coll_build(&cc->a, s->nranks, r),
			    xstrdup(u->title));
	}
	c->top = MAX(c->top, cc->a.sig.off + cc->a.sig.count * 4);
	c->seg_open = 0;
	return 0;
}

static int
sink_expect(void *arg, struct expect_spec *sp)
{
	struct xcapture *c = arg;
	struct xrun *xr = c->xr;

	if (c->pass > 0) {
		expect_spec_release(sp);
		return 0;
	}
	xr->expects =
	    xreallocarray(xr->expects, xr->nexpects + 1, sizeof *xr->expects);
	xr->expects[xr->nexpects++] = *sp;
	return 0;
}

/* Run the script's lines through the parser with the sink on. */
int
xcap_script(struct xcapture *c, const struct script_cmd *lines, size_t n)
{
	struct session *s = c->xr->s;
	struct prog_sink sink = { c, sink_prog, xcap_coll, sink_expect };
	struct rankset focus = s->focus;
	int rc = 0;

	rankset_all(&s->focus, s->nranks);
	s->sink = &sink;
	record_suppress(1);
	for (c->pass = 0; c->pass < c->xr->repeat && rc == 0; c->pass++) {
		c->seg_open = 0;
		for (size_t i = 0; i < n && rc == 0; i++) {
			char *where =
			    xasprintf("%s:%lu", c->xr->file, lines[i].lineno);
			int incomplete;

			c->line = &lines[i];
			c->unit = -1;
			out_set_origin(where);
			if (cmd_run_line(s, lines[i].text, &incomplete) != CMD_OK)
				rc = -1;
			out_set_origin(NULL);
			free(where);
		}
	}
	record_suppress(0);
	s->sink = NULL;
	s->focus = focus;
	return rc;
}

/* ---- running ------------------------------------------------------------- */

/* Bytes of the area in use: the live windows. */
static uint64_t
windows_top(struct session *s)
{
	struct seg_window *list[SEG_MAX_WINDOWS];
	int n = view_win_list(&s->view, list, SEG_MAX_WINDOWS);
	uint64_t top = 0;

	for (int i = 0; i < n; i++)
		top = MAX(top,
		    list[i]->off +
			(list[i]->bytes + SEG_ALIGN - 1) / SEG_ALIGN * SEG_ALIGN);
	return top;
}

static int
expects_hold(void *arg, int nranks, uint8_t *const *areas, char **why)
{
	struct xrun *xr = arg;

	for (size_t i = 0; i < xr->nexpects; i++) {
		for (int r = 0; r < nranks; r++) {
			if (rankset_has(&xr->expects[i].targets, r) &&
			    expect_spec_check(xr->s, &xr->expects[i], r,
				areas[r] + expect_spec_off(&xr->expects[i]),
				why) != 0)
				return -1;
		}
	}
	return 0;
}

void
xrun_release(struct xrun *xr)
{
	for (int r = 0; xr->orig != NULL && r < xr->s->nranks; r++) {
		for (size_t k = 0; k < xr->norig[r]; k++)
			free(xr->orig[r][k].desc);
		free(xr->orig[r]);
	}
	free(xr->orig);
	free(xr->norig);
	for (size_t i = 0; i < xr->nexpects; i++)
		expect_spec_release(&xr->expects[i]);
	free(xr->expects);
	free(xr->units);
	explore_free(xr->x);
}

/* The explorer from what was captured, started from the live windows. */
void
xcap_build(struct xrun *xr, struct xcapture *c)
{
	struct session *s = xr->s;
	uint64_t top = MAX(windows_top(s), c->top);

	xr->x = explore_new(s->nranks, top);
	view_sample(&s->view);
	for (int r = 0; r < s->nranks; r++)
		view_read(&s->view, r, 0, explore_area(xr->x, r), top);
	for (uint32_t k = 0; k < c->ncalls; k++) {
		explore_call(xr->x, c->flags[k]);
		if (c->sigs[k][1] > c->sigs[k][0])
			explore_call_signal(xr->x, k, c->sigs[k][0],
			    c->sigs[k][1] - c->sigs[k][0]);
	}
	xr->orig = xcalloc((size_t)s->nranks, sizeof *xr->orig);
	xr->norig = xcalloc((size_t)s->nranks, sizeof *xr->norig);
	for (size_t i = 0; i < c->npend; i++) {
		struct xpending *p = &c->pend[i];
		int r = p->rank;

		xr->orig[r] = xreallocarray(xr->orig[r], xr->norig[r] + 1,
		    sizeof **xr->orig);
		xr->orig[r][xr->norig[r]].unit = p->unit;
		xr->orig[r][xr->norig[r]].desc = p->desc;
		xr->norig[r]++;
		explore_push(xr->x, r, p->call, p->p);
	}
	c->npend = 0; /* the explorer and xr own them now */
	if (xr->nexpects > 0)
		explore_predicate(xr->x, expects_hold, xr);
	if (xr->check)
		explore_check_coll(xr->x, &xr->check_args, (uint32_t)xr->repeat);
}

void
xcap_release(struct xcapture *c)
{
	for (size_t i = 0; i < c->npend; i++) {
		prog_free(c->pend[i].p);
		free(c->pend[i].desc);
	}
	free(c->pend);
	free(c->flags);
	free(c->sigs);
}
