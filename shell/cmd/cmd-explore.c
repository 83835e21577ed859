/*
 * cmd-explore.c - explore: every interleaving that matters of a
 * collective (repeated or not) or of a script of per-rank commands, run
 * on a simulated copy of the session's windows and cells (core/explore.h).
 * The live world is not touched.
 *
 * A script's lines are read with the real command parser: while s->sink
 * is set, the commands build their programs as usual and hand them here
 * (submit.c), so an explored `notify` is exactly the program a typed one
 * would be.  A collective is one call; consecutive per-rank lines form one
 * call; each pass of repeat=N starts a new call.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explore.h"
#include "shell.h"
#include "xmalloc.h"

extern volatile sig_atomic_t shell_interrupted;

struct pending {
	int rank;
	uint32_t call;
	size_t unit;
	struct prog *p;
	char *desc;
};

struct capture {
	struct xrun *xr;
	struct pending *pend;
	size_t npend;
	uint8_t *flags;		/* per call */
	uint32_t ncalls;
	int seg_open;		/* per-rank lines are adding to a call */
	uint32_t seg_call;
	int pass;
	const struct script_cmd *line;
	ssize_t unit;		/* the current line's unit, -1 before its first
				 * program */
	uint64_t top;		/* bytes the programs may touch */
};

static uint32_t
new_call(struct capture *c, unsigned flags)
{
	c->flags = xrealloc(c->flags, c->ncalls + 1);
	c->flags[c->ncalls] = (uint8_t)flags;
	if (flags & XEV_F_SELFCLEAR)
		c->xr->selfclear = 1;
	return c->ncalls++;
}

static struct xunit *
unit_for(struct capture *c, uint32_t call, int coll)
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
add_prog(struct capture *c, int rank, uint32_t call, struct prog *p,
    char *desc)
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
	struct capture *c = arg;

	if (!c->seg_open) {
		c->seg_call = new_call(c, c->xr->repeat > 1 ? XEV_F_SELFCLEAR : 0);
		c->seg_open = 1;
	}
	unit_for(c, c->seg_call, 0);
	add_prog(c, rank, c->seg_call, p, desc);
	return 0;
}

static int
sink_coll(void *arg, const struct coll_call *cc)
{
	struct capture *c = arg;
	struct session *s = c->xr->s;
	struct xunit *u;
	uint32_t call;

	if (cc->check && c->xr->file != NULL) {
		out_error("'check' has no reference inside an explore script (its inputs depend on the schedule); write expect lines");
		return -1;
	}
	c->seg_open = 0;
	call = new_call(c, XEV_F_SELFCLEAR | XEV_F_EXCLUSIVE);
	u = unit_for(c, call, 1);
	coll_title(&cc->a, u->title, sizeof u->title);
	for (int r = 0; r < s->nranks; r++)
		add_prog(c, r, call, coll_build(&cc->a, s->nranks, r), xstrdup(u->title));
	c->top = MAX(c->top, cc->a.sig.off + cc->a.sig.count * 4);
	c->seg_open = 0;
	return 0;
}

static int
sink_expect(void *arg, struct expect_spec *sp)
{
	struct capture *c = arg;
	struct xrun *xr = c->xr;

	if (c->pass > 0) {
		expect_spec_release(sp);
		return 0;
	}
	xr->expects = xreallocarray(xr->expects, xr->nexpects + 1, sizeof *xr->expects);
	xr->expects[xr->nexpects++] = *sp;
	return 0;
}

/* Run the script's lines through the parser with the sink on. */
static int
capture_script(struct capture *c, const struct script_cmd *lines, size_t n)
{
	struct session *s = c->xr->s;
	struct prog_sink sink = { c, sink_prog, sink_coll, sink_expect };
	struct rankset focus = s->focus;
	int rc = 0;

	rankset_all(&s->focus, s->nranks);
	s->sink = &sink;
	record_suppress(1);
	for (c->pass = 0; c->pass < c->xr->repeat && rc == 0; c->pass++) {
		c->seg_open = 0;
		for (size_t i = 0; i < n && rc == 0; i++) {
			char *where = xasprintf("%s:%lu", c->xr->file, lines[i].lineno);
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

/* ---- options ------------------------------------------------------------- */

struct xopts {
	struct explore_opts o;
	int repeat;
	const char *save;
};

static const char *const opt_keys[] = { "repeat", "max", "depth", "preempt",
	"time", "save", NULL };

static int
opt_uint(struct cmdctx *ctx, size_t i, const char *v, uint64_t lo, uint64_t hi,
    uint64_t *out)
{
	const char *a = arg(ctx, i);
	char *cause = NULL;

	if (parse_uint(v, out, 0, &cause) == 0 && *out >= lo && *out <= hi)
		return 0;
	free(cause);
	if (hi >= UINT32_MAX)
		return arg_error(ctx, i, "bad value '%s' for %.*s (expected a positive number)",
		    v, (int)(strchr(a, '=') - a + 1), a);
	return arg_error(ctx, i, "bad value '%s' for %.*s (expected %llu..%llu)", v,
	    (int)(strchr(a, '=') - a + 1), a, (unsigned long long)lo,
	    (unsigned long long)hi);
}

/* Argument i is one of opt_keys: apply it. */
static int
opt_apply(struct cmdctx *ctx, size_t i, struct xopts *xo)
{
	const char *a = arg(ctx, i), *v = strchr(a, '=') + 1;
	uint64_t n;
	double secs;
	char *cause = NULL;

	if (strncmp(a, "save=", 5) == 0) {
		if (*v == '\0')
			return arg_error(ctx, i, "save= needs a directory");
		xo->save = v;
		return 0;
	}
	if (strncmp(a, "time=", 5) == 0) {
		if (parse_number(v, &secs, &cause) != 0 || !(secs > 0) || secs > 86400) {
			free(cause);
			return arg_error(ctx, i, "bad value '%s' for time= (expected seconds, more than 0 and at most 86400)", v);
		}
		xo->o.time = secs;
		return 0;
	}
	if (strncmp(a, "repeat=", 7) == 0) {
		if (opt_uint(ctx, i, v, 1, 64, &n) != 0)
			return -1;
		xo->repeat = (int)n;
	} else if (strncmp(a, "max=", 4) == 0) {
		if (opt_uint(ctx, i, v, 1, UINT64_MAX / 2, &n) != 0)
			return -1;
		xo->o.max = n;
	} else if (strncmp(a, "depth=", 6) == 0) {
		if (opt_uint(ctx, i, v, 1, UINT32_MAX, &n) != 0)
			return -1;
		xo->o.depth = (uint32_t)n;
	} else {
		if (opt_uint(ctx, i, v, 0, 1000, &n) != 0)
			return -1;
		xo->o.preempt = (int)n;
	}
	return 0;
}

static int
is_opt(const char *a)
{
	for (int k = 0; opt_keys[k] != NULL; k++) {
		size_t n = strlen(opt_keys[k]);

		if (strncmp(a, opt_keys[k], n) == 0 && a[n] == '=')
			return 1;
	}
	return 0;
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
		top = MAX(top, list[i]->off + (list[i]->bytes + SEG_ALIGN - 1) /
		    SEG_ALIGN * SEG_ALIGN);
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
			    areas[r] + expect_spec_off(&xr->expects[i]), why) != 0)
				return -1;
		}
	}
	return 0;
}

static void
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
static void
build(struct xrun *xr, struct capture *c)
{
	struct session *s = xr->s;
	uint64_t top = MAX(windows_top(s), c->top);

	xr->x = explore_new(s->nranks, top);
	view_sample(&s->view);
	for (int r = 0; r < s->nranks; r++)
		view_read(&s->view, r, 0, explore_area(xr->x, r), top);
	for (uint32_t k = 0; k < c->ncalls; k++)
		explore_call(xr->x, c->flags[k]);
	xr->orig = xcalloc((size_t)s->nranks, sizeof *xr->orig);
	xr->norig = xcalloc((size_t)s->nranks, sizeof *xr->norig);
	for (size_t i = 0; i < c->npend; i++) {
		struct pending *p = &c->pend[i];
		int r = p->rank;

		xr->orig[r] = xreallocarray(xr->orig[r], xr->norig[r] + 1,
		    sizeof **xr->orig);
		xr->orig[r][xr->norig[r]].unit = p->unit;
		xr->orig[r][xr->norig[r]].desc = p->desc;
		xr->norig[r]++;
		explore_push(xr->x, r, p->call, p->p);
	}
	c->npend = 0;	/* the explorer and xr own them now */
	if (xr->nexpects > 0)
		explore_predicate(xr->x, expects_hold, xr);
	if (xr->check)
		explore_check_coll(xr->x, &xr->check_args, (uint32_t)xr->repeat);
}

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
		strbuf_addf(sb, ": rank %d %s it with %s, then rank %d %s it with %s; no notify/wait orders them",
		    f->a.at.proc, f->a.write ? "writes" : "reads", a.buf, f->b.at.proc,
		    f->b.write ? "writes" : "reads", b.buf);
		break;
	case XK_WRONG: {
		const struct xunit *u = &xr->units[xr->nunits - 1];

		strbuf_addf(sb, "wrong result: %llu element%s wrong after %d call%s of %s, rank %d the first",
		    (unsigned long long)f->wrong, f->wrong == 1 ? "" : "s", xr->repeat,
		    xr->repeat == 1 ? "" : "s", u->title, f->rank);
		break;
	}
	case XK_SIGNAL:
		strbuf_addf(sb, "signal not zero: rank %d ", f->area);
		bytes_text(s, f->off, 4, sb);
		strbuf_addf(sb, " is %d after ", f->value);
		call_text(xr, f->call, sb);
		strbuf_addstr(sb, ": a call must take back every credit it gives");
		break;
	case XK_STALE:
		explore_step_text(xr, &f->b.at, &b);
		strbuf_addf(sb, "stale credit: rank %d's %s passed on ", f->b.at.proc, b.buf);
		if (f->a.at.proc < 0) {
			strbuf_addstr(sb, "a credit left in ");
			bytes_text(s, f->off, 4, sb);
			strbuf_addstr(sb, " before explore started");
		} else {
			explore_step_text(xr, &f->a.at, &a);
			strbuf_addf(sb, "the credit of rank %d's %s, left over from ",
			    f->a.at.proc, a.buf);
			call_text(xr, f->a.at.call, sb);
		}
		break;
	default:
		strbuf_addf(sb, "expect failed: %s", f->text != NULL ? f->text : "?");
	}
	strbuf_release(&a);
	strbuf_release(&b);
}

static void
stats_line(struct xrun *xr, const struct xopts *xo)
{
	const struct explore_stats *st = explore_stats(xr->x);
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "explore: %d ranks, %llu execution%s (%llu distinct end state%s)",
	    xr->s->nranks, (unsigned long long)st->executions,
	    st->executions == 1 ? "" : "s", (unsigned long long)st->distinct,
	    st->distinct == 1 ? "" : "s");
	if (bench_figures(xr->s))
		strbuf_addf(&sb, ", %.2f s", st->seconds);
	if (st->exhaustive) {
		strbuf_addstr(&sb, ", exhaustive");
	} else {
		const char *sep = "";

		strbuf_addstr(&sb, ", not exhaustive: cut by ");
		if (st->cut & XCUT_MAX) {
			strbuf_addf(&sb, "max=%llu", (unsigned long long)xo->o.max);
			sep = ", ";
		}
		if (st->cut & XCUT_DEPTH) {
			strbuf_addf(&sb, "%sdepth=%u", sep, xo->o.depth);
			sep = ", ";
		}
		if (st->cut & XCUT_PREEMPT) {
			strbuf_addf(&sb, "%spreempt=%d", sep, xo->o.preempt);
			sep = ", ";
		}
		if (st->cut & XCUT_TIME) {
			strbuf_addf(&sb, "%stime=%g", sep, xo->o.time);
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

static int
report(struct xrun *xr, const struct xopts *xo)
{
	const struct explore_stats *st = explore_stats(xr->x);
	struct strbuf sb = STRBUF_INIT;
	int failed = 0;

	stats_line(xr, xo);
	for (int k = 0; k < XK__COUNT; k++) {
		const struct explore_finding *f = explore_finding(xr->x, k);
		char *path;
		int id;

		if (f == NULL)
			continue;
		failed = 1;
		strbuf_reset(&sb);
		fail_text(xr, f, &sb);
		out_printf("FAIL: %s\n", sb.buf);
		path = explore_save(xr, f, sb.buf, xo->save, &id);
		if (path == NULL)
			continue;
		out_printf("counterexample %d (%zu step%s, %u context switch%s) saved as %s; %s\n",
		    id, f->nsteps, f->nsteps == 1 ? "" : "s", f->switches,
		    f->switches == 1 ? "" : "es", path, f->replayable ?
		    "`source` it to replay it here" :
		    "it overlaps two collectives, which the live shell cannot: replay it only up to where they meet");
		free(path);
	}
	if (!failed) {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "OK: no hang, no data race, no stale credit");
		if (xr->selfclear)
			strbuf_addstr(&sb, ", signal back to zero after every call");
		if (xr->check)
			strbuf_addstr(&sb, ", result correct on every rank");
		if (xr->nexpects > 0)
			strbuf_addstr(&sb, ", every expect holds");
		out_printf("%s %s\n", sb.buf, st->exhaustive ? "in every execution" :
		    "in the executions explored");
	}
	strbuf_release(&sb);
	return failed ? -1 : 0;
}

/* ---- the command ------------------------------------------------------------ */

static int
idle_world(struct cmdctx *ctx)
{
	struct session *s = ctx->s;

	for (int r = 0; r < s->nranks; r++) {
		struct strbuf sb = STRBUF_INIT;

		if (!rank_alive(s, r)) {
			out_error("explore needs every rank; rank %d is %s", r,
			    rank_state_name(rank_state_of(s, r)));
			return -1;
		}
		if (rank_job(s, r) == NULL)
			continue;
		describe_rank(s, r, &sb, 0);
		out_error("explore starts from the windows as they are, with every rank idle; rank %d is %s in %s (let it finish, or interrupt it)",
		    r, rank_state_name(rank_state_of(s, r)), sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	return 0;
}

/* FILE as given, or next to the script that says `explore script FILE`
 * (a lesson and its explore scripts travel together). */
static char *
script_path(const char *file)
{
	const char *slash;
	char *p;

	if (file[0] == '/' || access(file, F_OK) == 0 || script.file == NULL ||
	    (slash = strrchr(script.file, '/')) == NULL)
		return xstrdup(file);
	p = xasprintf("%.*s/%s", (int)(slash - script.file), script.file, file);
	if (access(p, F_OK) == 0)
		return p;
	free(p);
	return xstrdup(file);
}

/* mkdir -p */
static int
make_dir(const char *dir)
{
	char *p = xstrdup(dir), c;
	struct stat st;
	int rc = 0;

	for (char *q = p + 1; rc == 0; q++) {
		if (*q != '/' && *q != '\0')
			continue;
		c = *q;
		*q = '\0';
		if (stat(p, &st) != 0 && mkdir(p, 0777) != 0 && errno != EEXIST)
			rc = -1;
		*q = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc == 0 && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

static int
run(struct cmdctx *ctx, struct xrun *xr, struct capture *c, struct xopts *xo)
{
	char *cause = NULL;
	int rc;

	errno = 0;
	if (make_dir(xo->save) != 0) {
		out_error("cannot save counterexamples in '%s': %s", xo->save,
		    errno ? strerror(errno) : "not a directory");
		return -1;
	}
	build(xr, c);
	xo->o.stop = &shell_interrupted;
	if (explore_run(xr->x, &xo->o, &cause) != 0) {
		out_error("cannot explore: %s", cause);
		free(cause);
		return -1;
	}
	rc = report(xr, xo);
	(void)ctx;
	return rc;
}

static void
capture_release(struct capture *c)
{
	for (size_t i = 0; i < c->npend; i++) {
		prog_free(c->pend[i].p);
		free(c->pend[i].desc);
	}
	free(c->pend);
	free(c->flags);
}

static enum cmd_retval
explore_coll(struct cmdctx *ctx, struct xopts *xo)
{
	struct session *s = ctx->s;
	struct xrun xr = { .s = s };
	struct capture c = { .xr = &xr };
	struct script_cmd line = { NULL, 0 };
	struct strbuf text = STRBUF_INIT;
	struct coll_call cc;
	enum coll_kind kind;
	uint64_t extra = 0;
	int rc;

	if (coll_kind_from_name(arg(ctx, 0), &kind) != 0) {
		arg_error(ctx, 0, "explore what? '%s' is not a collective (expected allreduce, barrier, broadcast, allgather, reduce_scatter, all_to_all, script FILE or show N)",
		    arg(ctx, 0));
		return CMD_ERROR;
	}
	if (coll_parse(ctx, kind, 1, &cc, opt_keys, &extra) != 0)
		return CMD_ERROR;
	if (cc.json) {
		for (size_t i = 1; i < nargs(ctx); i++) {
			if (strcmp(arg(ctx, i), "json") == 0) {
				arg_error(ctx, i, "explore does not take 'json' (bench does)");
				return CMD_ERROR;
			}
		}
	}
	/* the call as a replay issues it: without explore's own options */
	strbuf_addstr(&text, arg(ctx, 0));
	for (size_t i = 1; i < nargs(ctx); i++) {
		if (i < 64 && (extra >> i & 1)) {
			if (opt_apply(ctx, i, xo) != 0) {
				strbuf_release(&text);
				return CMD_ERROR;
			}
		} else {
			strbuf_addf(&text, " %s", arg(ctx, i));
		}
	}
	if (idle_world(ctx) != 0 || coll_synth_signal(ctx, &cc, 1) != 0) {
		strbuf_release(&text);
		return CMD_ERROR;
	}
	xr.repeat = xo->repeat;
	xr.check = cc.check;
	xr.check_args = cc.a;
	line.text = text.buf;
	c.line = &line;
	for (c.pass = 0; c.pass < xo->repeat; c.pass++) {
		c.unit = -1;
		sink_coll(&c, &cc);
	}
	rc = run(ctx, &xr, &c, xo);
	xrun_release(&xr);
	capture_release(&c);
	strbuf_release(&text);
	return rc == 0 ? CMD_OK : CMD_ERROR;
}

static enum cmd_retval
explore_script(struct cmdctx *ctx, struct xopts *xo)
{
	struct xrun xr = { .s = ctx->s };
	struct capture c = { .xr = &xr };
	struct script_cmd *lines;
	size_t n;
	char *path;
	int rc;

	if (nargs(ctx) < 2) {
		cmd_usage_error(ctx, "'explore script' needs a FILE");
		return CMD_ERROR;
	}
	for (size_t i = 2; i < nargs(ctx); i++) {
		if (!is_opt(arg(ctx, i))) {
			arg_error(ctx, i, "unknown option '%s' for explore script (expected repeat=, max=, depth=, preempt=, time= or save=)",
			    arg(ctx, i));
			return CMD_ERROR;
		}
		if (arg_key_repeated(ctx, 2, i) != 0 || opt_apply(ctx, i, xo) != 0)
			return CMD_ERROR;
	}
	path = script_path(arg(ctx, 1));
	if (idle_world(ctx) != 0 || script_read(path, &lines, &n) != 0) {
		free(path);
		return CMD_ERROR;
	}
	xr.file = arg(ctx, 1);
	xr.repeat = xo->repeat;
	rc = capture_script(&c, lines, n);
	if (rc == 0 && c.npend == 0) {
		out_error("%s has nothing to explore (no notify, wait, put, get, fill, set or collective)",
		    xr.file);
		rc = -1;
	}
	if (rc == 0)
		rc = run(ctx, &xr, &c, xo);
	xrun_release(&xr);
	capture_release(&c);
	script_cmds_free(lines, n);
	free(path);
	return rc == 0 ? CMD_OK : CMD_ERROR;
}

static enum cmd_retval
cmd_explore_exec(struct cmdctx *ctx)
{
	struct xopts xo;

	memset(&xo, 0, sizeof xo);
	xo.o.preempt = -1;
	xo.o.time = 60;
	xo.repeat = 1;
	xo.save = ".";
	if (strcmp(arg(ctx, 0), "show") == 0) {
		uint64_t id;
		char *cause = NULL;

		if (nargs(ctx) != 2) {
			cmd_usage_error(ctx, "'explore show' needs one counterexample number");
			return CMD_ERROR;
		}
		if (parse_uint(arg(ctx, 1), &id, 0, &cause) != 0 || id == 0 || id > INT32_MAX) {
			free(cause);
			arg_error(ctx, 1, "bad counterexample number '%s' (expected 1, 2, ...)", arg(ctx, 1));
			return CMD_ERROR;
		}
		return explore_show(ctx->s, (int)id) == 0 ? CMD_OK : CMD_ERROR;
	}
	if (strcmp(arg(ctx, 0), "script") == 0)
		return explore_script(ctx, &xo);
	return explore_coll(ctx, &xo);
}

static const char *const explore_keywords[] = { "script", "show", "allreduce",
	"barrier", "broadcast", "allgather", "reduce_scatter", "all_to_all",
	"check", "repeat=", "max=", "depth=", "preempt=", "time=", "save=", NULL };

const struct cmd_entry cmd_explore_entry = {
	.name = "explore",
	.usage = "COLLECTIVE ARGS... [check] [repeat=N] [max=N] [depth=N] [preempt=K] [time=SECS] [save=DIR] | script FILE [repeat=N] [...] | show N",
	.summary = "check every interleaving that matters: hangs, races, credits",
	.example = "explore allreduce buf sig mode=ring check repeat=2",
	.group = GRP_OBSERVE, .min_args = 1, .max_args = -1,
	.flags = CMD_AGENTS_ONLY, .keywords = explore_keywords,
	.exec = cmd_explore_exec,
};
