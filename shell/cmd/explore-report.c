/*
 * explore-report.c - what explore says: the first line (executions, end
 * states, exhaustive or what cut it), one FAIL line per kind found (a hang
 * worded as diagnose words it) with its counterexample saved, or OK.
 */
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

/* ---- the report ------------------------------------------------------------ */

static void
bytes_text(struct session *s, uint64_t off, uint64_t len, struct strbuf *sb)
{
	struct seg_window *w = view_win_at(&s->view, off);
	uint64_t esz = w != NULL ? dtype_size(w->dtype) : 1;

	describe_cell(&s->view, off, (len + esz - 1) / esz, sb);
}

/* Where a call comes from: "call 2", "pass 1 (lines 2-5)", "line 3
 * (broadcast(root=0))". */
static void
call_text(const struct xrun *xr, uint32_t call, struct strbuf *sb)
{
	const struct xunit *first = NULL, *last = NULL;

	for (size_t i = 0; i < xr->nunits; i++) {
		if (xr->units[i].call != call)
			continue;
		if (first == NULL)
			first = &xr->units[i];
		last = &xr->units[i];
	}
	if (first == NULL) {
		strbuf_addf(sb, "call %u", call + 1);
		return;
	}
	if (first->lineno == 0) {
		strbuf_addf(sb, "call %d of %s", first->pass + 1, first->title);
		return;
	}
	if (xr->repeat > 1)
		strbuf_addf(sb, "pass %d ", first->pass + 1);
	if (first->coll)
		strbuf_addf(sb, "%sline %lu: %s%s", xr->repeat > 1 ? "(" : "",
		    first->lineno, first->title, xr->repeat > 1 ? ")" : "");
	else if (first == last)
		strbuf_addf(sb, "%sline %lu%s", xr->repeat > 1 ? "(" : "",
		    first->lineno, xr->repeat > 1 ? ")" : "");
	else
		strbuf_addf(sb, "%slines %lu-%lu%s", xr->repeat > 1 ? "(" : "",
		    first->lineno, last->lineno, xr->repeat > 1 ? ")" : "");
}

static const struct seg_window *
win_at(void *arg, uint64_t off)
{
	return view_win_at(arg, off);
}

static void
hang_text(struct xrun *xr, const struct explore_finding *f, struct strbuf *sb)
{
	struct session *s = xr->s;
	struct diag_result res;
	struct diag_in in;
	struct strbuf d = STRBUF_INIT;
	const char *p;

	if (explore_replay(xr->x, f, NULL) != 0) {
		strbuf_addstr(sb, "hang");
		return;
	}
	explore_diag(xr->x, f, &in);
	in.win_at = win_at;
	in.win_arg = &s->view;
	diag_analyze(&in, &res);
	diag_format(s, &in, &res, &d);
	p = strncmp(d.buf, "HANG: ", 6) == 0 ? d.buf + 6 : d.buf;
	strbuf_addf(sb, "hang: %s", p);
	while (sb->len > 0 && sb->buf[sb->len - 1] == '\n')
		strbuf_setlen(sb, sb->len - 1);
	strbuf_release(&d);
	diag_result_release(&res);
	explore_diag_release(&in);
	explore_rewind(xr->x);
}

/* What f says, after "FAIL: " (may span lines). */
static void
fail_text(struct xrun *xr, const struct explore_finding *f, struct strbuf *sb)
{
	struct session *s = xr->s;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	switch (f->kind) {
	case XK_HANG:
		hang_text(xr, f, sb);
		break;
	case XK_RACE:
		explore_step_text(xr, &f->a.at, &a);
		explore_step_text(xr, &f->b.at, &b);
		strbuf_addf(sb, "data race on rank %d ", f->area);
		bytes_text(s, f->off, f->len, sb);
		strbuf_addf(sb,
		    ": rank %d %s it with %s, then rank %d %s it with %s; no notify/wait orders them",
		    f->a.at.proc, f->a.write ? "writes" : "reads", a.buf,
		    f->b.at.proc, f->b.write ? "writes" : "reads", b.buf);
		break;
	case XK_WRONG: {
		const struct xunit *u = &xr->units[xr->nunits - 1];

		strbuf_addf(sb,
		    "wrong result: %llu element%s wrong after %d call%s of %s, rank %d the first",
		    (unsigned long long)f->wrong, f->wrong == 1 ? "" : "s",
		    xr->repeat, xr->repeat == 1 ? "" : "s", u->title, f->rank);
		break;
	}
	case XK_SIGNAL:
		strbuf_addf(sb, "signal not zero: rank %d ", f->area);
		bytes_text(s, f->off, 4, sb);
		strbuf_addf(sb, " is %d after ", f->value);
		call_text(xr, f->call, sb);
		strbuf_addstr(sb,
		    ": a call must take back every credit it gives");
		break;
	case XK_STALE:
		explore_step_text(xr, &f->b.at, &b);
		strbuf_addf(sb, "stale credit: rank %d's %s passed on ",
		    f->b.at.proc, b.buf);
		if (f->a.at.proc < 0) {
			strbuf_addstr(sb, "a credit left in ");
			bytes_text(s, f->off, 4, sb);
			strbuf_addstr(sb, " before explore started");
		} else {
			explore_step_text(xr, &f->a.at, &a);
			strbuf_addf(sb,
			    "the credit of rank %d's %s, left over from ",
			    f->a.at.proc, a.buf);
			call_text(xr, f->a.at.call, sb);
		}
		break;
	default:
		strbuf_addf(sb, "expect failed: %s",
		    f->text != NULL ? f->text : "?");
	}
	strbuf_release(&a);
	strbuf_release(&b);
}

static void
stats_line(struct xrun *xr, const struct explore_opts *o)
{
	const struct explore_stats *st = explore_stats(xr->x);
	struct strbuf sb = STRBUF_INIT;
	int n = 0;

	/* the ranks that run something: a domain's members, or the ranks a
	 * script names */
	for (int r = 0; r < xr->s->nranks; r++)
		n += xr->norig[r] > 0;
	if (n > 0 && n < xr->s->nranks)
		strbuf_addf(&sb, "explore: %d of %d ranks", n, xr->s->nranks);
	else
		strbuf_addf(&sb, "explore: %d rank%s", xr->s->nranks,
		    xr->s->nranks == 1 ? "" : "s");
	strbuf_addf(&sb, ", %llu execution%s (%llu distinct end state%s)",
	    (unsigned long long)st->executions, st->executions == 1 ? "" : "s",
	    (unsigned long long)st->distinct, st->distinct == 1 ? "" : "s");
	if (xr->s->interactive || xr->s->set.times) /* as bench's figures */
		strbuf_addf(&sb, ", %.2f s", st->seconds);
	if (st->exhaustive) {
		strbuf_addstr(&sb, ", exhaustive");
	} else {
		const char *sep = "";

		strbuf_addstr(&sb, ", not exhaustive: cut by ");
		if (st->cut & XCUT_MAX) {
			strbuf_addf(&sb, "max=%llu", (unsigned long long)o->max);
			sep = ", ";
		}
		if (st->cut & XCUT_DEPTH) {
			strbuf_addf(&sb, "%sdepth=%u", sep, o->depth);
			sep = ", ";
		}
		if (st->cut & XCUT_PREEMPT) {
			strbuf_addf(&sb, "%spreempt=%d", sep, o->preempt);
			sep = ", ";
		}
		if (st->cut & XCUT_TIME) {
			strbuf_addf(&sb, "%stime=%g", sep, o->time);
			sep = ", ";
		}
		if (st->cut & XCUT_STOP)
			strbuf_addf(&sb, "%san interrupt", sep);
		if (st->pending > 0)
			strbuf_addf(&sb, " (at least %llu more to go)",
			    (unsigned long long)st->pending);
	}
	out_printf("%s\n", sb.buf);
	strbuf_release(&sb);
}

int
explore_report_all(struct xrun *xr, const struct explore_opts *o, const char *save)
{
	const struct explore_stats *st = explore_stats(xr->x);
	struct strbuf sb = STRBUF_INIT;
	int failed = 0;

	stats_line(xr, o);
	for (int k = 0; k < XK__COUNT; k++) {
		const struct explore_finding *f = explore_finding(xr->x, k);
		struct strbuf taken = STRBUF_INIT;
		char *path;
		int id, fileno;

		if (f == NULL)
			continue;
		failed = 1;
		strbuf_reset(&sb);
		fail_text(xr, f, &sb);
		out_printf("FAIL: %s\n", sb.buf);
		path = explore_save(xr, f, sb.buf, save, &id, &fileno);
		if (path == NULL)
			continue;
		/* a name already there is never written over: say why this
		 * one is not explore-<id>.coll */
		if (fileno == id + 1)
			strbuf_addf(&taken,
			    " (explore-%d.coll is taken: explore never overwrites a file)",
			    id);
		else if (fileno > id)
			strbuf_addf(&taken,
			    " (explore-%d.coll to explore-%d.coll are taken: explore never overwrites a file)",
			    id, fileno - 1);
		out_printf("counterexample %d (%zu step%s, %u context switch%s) saved as %s%s; %s\n",
		    id, f->nsteps, f->nsteps == 1 ? "" : "s", f->switches,
		    f->switches == 1 ? "" : "es", path, taken.buf,
		    f->replayable ?
			"`source` it to replay it here" :
			"it overlaps two collectives, which the live shell cannot: replay it only up to where they meet");
		strbuf_release(&taken);
		free(path);
	}
	if (!failed && st->executions == 0) {
		out_printf(
		    "OK so far: no data race and no stale credit in the steps taken, but no execution ended within the bounds\n");
	} else if (!failed) {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "OK: no hang, no data race, no stale credit");
		if (xr->selfclear)
			strbuf_addstr(&sb,
			    ", signal back to zero after every call");
		if (xr->check)
			strbuf_addstr(&sb, ", result correct on every rank");
		if (xr->nexpects > 0)
			strbuf_addstr(&sb, ", every expect holds");
		out_printf("%s %s\n", sb.buf,
		    st->exhaustive ? "in every execution" :
				     "in the executions explored");
	}
	strbuf_release(&sb);
	return failed ? -1 : 0;
}
