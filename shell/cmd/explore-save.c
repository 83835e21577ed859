/*
 * explore-save.c - counterexamples: how a step is named, the replay
 * script (the calls issued with `start`, then `@R step K` lines through
 * the step gate in the failing order, then `expect` lines that check the
 * live world reached the same state), and `explore show N`.
 *
 * The live shell runs one collective at a time: a collective is issued
 * only once the one before it is done on every rank, and the per-rank
 * lines after it are issued with it (they queue behind it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explore.h"
#include "cmd/cmd.h"
#include "out/outfile.h"
#include "xmalloc.h"

#define EXPECT_MAX 16	/* elements an expect line checks */
#define SAVE_TRIES 1000 /* explore-N.coll names tried before giving up */

void
explore_step_text(const struct xrun *xr, const struct xstep *st, struct strbuf *sb)
{
	struct sim *sim = explore_sim(xr->x);
	const struct xorigin *o = &xr->orig[st->proc][st->seq];
	const struct xunit *u = &xr->units[o->unit];
	size_t len = sim_len(sim, st->proc, st->seq);
	const struct uop *op = sim_uop(sim, st->proc, st->seq, st->pc);

	strbuf_addstr(sb, u->coll ? u->title : o->desc);
	if (u->coll || len > 1) {
		strbuf_addf(sb, " step %u/%zu: ", st->pc + 1, len);
		describe_uop(&xr->s->view, op, st->proc, sb);
	}
	if (u->lineno != 0) {
		strbuf_addf(sb, " (line %lu", u->lineno);
		if (xr->repeat > 1)
			strbuf_addf(sb, ", pass %d", u->pass + 1);
		strbuf_addch(sb, ')');
	} else if (xr->repeat > 1) {
		strbuf_addf(sb, " (call %d)", u->pass + 1);
	}
}

/* ---- values as an expect line writes them ------------------------------------ */

static void
value_text(enum dtype dt, const uint8_t *base, uint64_t i, struct strbuf *sb)
{
	if (!dtype_is_float(dt))
		strbuf_addf(sb, "%lld", (long long)dtype_get_int(dt, base, i));
	else
		strbuf_addf(sb, dt == DT_F64 ? "%.17g" : "%.9g",
		    dtype_get(dt, base, i));
}

/* `expect @r REGION == V[,V...]` for bytes [off, off+len) of r's area
 * (at most EXPECT_MAX elements; nothing outside a window). */
static void
expect_line(struct session *s, int r, const uint8_t *area, uint64_t off,
    uint64_t len, struct strbuf *sb)
{
	struct seg_window *w = view_win_at(&s->view, off);
	struct strbuf v = STRBUF_INIT;
	uint64_t esz, first, count;
	int same = 1;

	if (w == NULL)
		return;
	esz = dtype_size(w->dtype);
	first = (off - w->off) / esz;
	count = MIN((len + esz - 1) / esz, w->count - first);
	for (uint64_t i = 1; i < count && same; i++)
		same = memcmp(area + w->off + (first + i) * esz,
			   area + w->off + first * esz, esz) == 0;
	if (!same)
		count = MIN(count, EXPECT_MAX);
	for (uint64_t i = 0; i < (same ? 1 : count); i++) {
		if (i)
			strbuf_addch(&v, ',');
		value_text(w->dtype, area + w->off, first + i, &v);
	}
	strbuf_addf(sb, "expect @%d ", r);
	describe_cell(&s->view, w->off + first * esz, count, sb);
	strbuf_addf(sb, " == %s\n", v.buf);
	strbuf_release(&v);
}

/* The bytes micro-op u of rank r writes in a window area, if any. */
static int
written(const struct uop *u, int r, int *area, uint64_t *off, uint64_t *len)
{
	*off = u->dst;
	*len = u->count * dtype_size(u->dtype);
	switch (u->kind) {
	case UOP_NOTIFY:
		*area = u->peer;
		*len = 4;
		return 1;
	case UOP_PUT:
		*area = u->peer;
		return 1;
	case UOP_GET:
	case UOP_FILL:
		*area = r;
		return 1;
	case UOP_COPY:
	case UOP_REDUCE:
		if (u->dsp == SP_ACC)
			return 0;
		*area = u->dsp == SP_PEER ? u->peer : r;
		return 1;
	default:
		return 0;
	}
}

/* What the live world must show at the end of the replay. */
static void
ending(struct xrun *xr, const struct explore_finding *f, const int *issued,
    struct strbuf *sb)
{
	struct session *s = xr->s;
	struct sim *sim = explore_sim(xr->x);
	const struct xstep *who[2] = { &f->a.at, &f->b.at };
	int area;
	uint64_t off, len;
	char *why = NULL;

	switch (f->kind) {
	case XK_HANG:
		for (int r = 0; r < s->nranks; r++) {
			const struct uop *u;
			size_t seq, pc;

			if (sim_state(sim, r, &u) != SIM_BLOCKED ||
			    sim_pos(sim, r, &seq, &pc) != 0 ||
			    !issued[xr->orig[r][seq].unit])
				continue;
			strbuf_addf(sb, "@%d step 1\n", r);
		}
		strbuf_addstr(sb, "diagnose\nexpect hang\n");
		break;
	case XK_RACE:
		for (int i = 0; i < 2; i++) {
			const struct uop *u;

			if (who[i]->proc < 0)
				continue;
			u = sim_uop(sim, who[i]->proc, who[i]->seq, who[i]->pc);
			if (written(u, who[i]->proc, &area, &off, &len))
				expect_line(s, area, sim_area(sim, area), off,
				    len, sb);
		}
		break;
	case XK_WRONG: {
		struct coll_output o;

		coll_output(&xr->check_args, s->nranks, f->rank, &o);
		expect_line(s, f->rank, sim_area(sim, f->rank), o.off,
		    o.count * dtype_size(o.dtype), sb);
		break;
	}
	case XK_SIGNAL:
	case XK_STALE:
		expect_line(s, f->area, sim_area(sim, f->area), f->off, 4, sb);
		break;
	default:
		for (size_t i = 0; i < xr->nexpects; i++) {
			const struct expect_spec *sp = &xr->expects[i];

			for (int r = 0; r < s->nranks; r++) {
				if (!rankset_has(&sp->targets, r) ||
				    expect_spec_check(s, sp, r,
					sim_area(sim, r) + expect_spec_off(sp),
					&why) == 0)
					continue;
				free(why);
				expect_line(s, r, sim_area(sim, r),
				    expect_spec_off(sp),
				    sp->rg.count * dtype_size(sp->rg.w->dtype),
				    sb);
				return;
			}
		}
	}
}

/* ---- the script ------------------------------------------------------------------ */

/* "@0 start fill buf 7" for "@0 fill buf 7". */
static void
issue_line(const struct xunit *u, struct strbuf *sb)
{
	const char *t = u->text + strspn(u->text, " \t");

	if (*t == '@') {
		size_t n = strcspn(t, " \t");

		strbuf_addf(sb, "%.*s start %s\n", (int)n, t,
		    t + n + strspn(t + n, " \t"));
	} else {
		strbuf_addf(sb, "start %s\n", t);
	}
}

struct replay {
	struct xrun *xr;
	int *issued;	/* per unit */
	uint64_t *left; /* per unit: micro-ops not stepped yet */
	size_t next;	/* the next unit to issue */
	size_t end;	/* units from here on have no step */
	ssize_t coll;	/* the last collective issued, or -1 */
};

/* Issue what can be: everything up to a collective whose predecessor is
 * not done yet. */
static void
issue(struct replay *rp, struct strbuf *sb)
{
	struct xrun *xr = rp->xr;

	while (rp->next < rp->end) {
		const struct xunit *u = &xr->units[rp->next];

		if (u->coll && rp->coll >= 0 && rp->left[rp->coll] > 0)
			return;
		if (u->coll)
			rp->coll = (ssize_t)rp->next;
		issue_line(u, sb);
		rp->issued[rp->next++] = 1;
	}
}

static int
script_text(struct xrun *xr, const struct explore_finding *f, struct strbuf *sb,
    int **issued_out)
{
	struct session *s = xr->s;
	struct sim *sim = explore_sim(xr->x);
	struct replay rp = { xr, NULL, NULL, 0, 0, -1 };

	for (size_t i = 0; i < f->nsteps; i++)
		rp.end = MAX(rp.end,
		    xr->orig[f->steps[i].proc][f->steps[i].seq].unit + 1);
	/* a hang ends with ranks entering the waits they block on, and
	 * what they would do next queued behind them: diagnose words a
	 * hang by who still owes a notify (a cycle of waits, not a missing
	 * notify), so the replay's must be the one explore gave */
	if (f->kind == XK_HANG)
		rp.end = xr->nunits;
	rp.issued = xcalloc(xr->nunits + 1, sizeof *rp.issued);
	rp.left = xcalloc(xr->nunits + 1, sizeof *rp.left);
	for (int r = 0; r < s->nranks; r++) {
		for (size_t k = 0; k < xr->norig[r]; k++)
			rp.left[xr->orig[r][k].unit] += sim_len(sim, r, k);
	}
	issue(&rp, sb);
	for (size_t i = 0; i < f->nsteps;) {
		const struct xstep *st = &f->steps[i];
		size_t unit = xr->orig[st->proc][st->seq].unit, n = 0;

		if (!rp.issued[unit]) {
			strbuf_addf(sb,
			    "# the replay stops here: %s waits for the collective before it to finish on every rank\n",
			    xr->units[unit].text);
			break;
		}
		while (i + n < f->nsteps && f->steps[i + n].proc == st->proc &&
		    f->steps[i + n].seq == st->seq)
			n++;
		strbuf_addf(sb, "pause\n@%d step %zu\n", st->proc, n);
		rp.left[unit] -= n;
		i += n;
		issue(&rp, sb);
	}
	free(rp.left);
	*issued_out = rp.issued;
	return 0;
}

/* A hang's end, while the simulator is there: each blocked rank's wait,
 * as rows of explore show after the steps (a cycle of waits that block
 * at once has no step at all). */
static void
blocked_rows(struct xrun *xr, const struct explore_finding *f, int **rank,
    char ***desc, size_t *n)
{
	struct session *s = xr->s;
	struct sim *sim = explore_sim(xr->x);

	*rank = NULL;
	*desc = NULL;
	*n = 0;
	for (int r = 0; f->kind == XK_HANG && r < s->nranks; r++) {
		struct strbuf d = STRBUF_INIT;
		const struct uop *u;

		if (sim_state(sim, r, &u) != SIM_BLOCKED)
			continue;
		strbuf_addstr(&d, "blocked: ");
		describe_uop(&s->view, u, r, &d);
		*rank = xreallocarray(*rank, *n + 1, sizeof **rank);
		*desc = xreallocarray(*desc, *n + 1, sizeof **desc);
		(*rank)[*n] = r;
		(*desc)[(*n)++] = strbuf_detach(&d, NULL);
	}
}

static void
keep(struct xrun *xr, const struct explore_finding *f, const char *fail,
    const char *path, int id, int *brank, char **bdesc, size_t nblocked)
{
	struct session *s = xr->s;
	struct sim *sim = explore_sim(xr->x);
	struct explore_saved *v = xcalloc(1, sizeof *v), **pp = &s->explored;

	v->id = id;
	v->headline = xstrndup(fail, strcspn(fail, "\n"));
	v->path = xstrdup(path);
	v->nranks = s->nranks;
	v->nsteps = f->nsteps;
	v->nrows = f->nsteps + nblocked;
	v->rank = xcalloc(v->nrows + 1, sizeof *v->rank);
	v->desc = xcalloc(v->nrows + 1, sizeof *v->desc);
	for (size_t i = 0; i < nblocked; i++) {
		v->rank[f->nsteps + i] = brank[i];
		v->desc[f->nsteps + i] = bdesc[i]; /* taken */
	}
	for (size_t i = 0; i < f->nsteps; i++) {
		struct strbuf d = STRBUF_INIT;
		const struct xstep *st = &f->steps[i];

		describe_uop(&s->view, sim_uop(sim, st->proc, st->seq, st->pc),
		    st->proc, &d);
		v->rank[i] = st->proc;
		v->desc[i] = strbuf_detach(&d, NULL);
	}
	while (*pp != NULL)
		pp = &(*pp)->next;
	*pp = v;
}

/* mkdir -p: dir is made when the first counterexample goes into it
 * (cmd-explore.c checked before the run that it can be) */
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
	if (rc == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
		errno = ENOTDIR;
		rc = -1;
	}
	return rc;
}

/* The first free name explore-N.coll in dir, N from *n on: the file is
 * created there (never over a file, never through a symlink) and its
 * descriptor returned, or -1 (said). */
static int
create_free(const char *dir, int *n, char **path)
{
	char *cause = NULL;
	int fd = -1;

	for (int tries = 0; tries < SAVE_TRIES; tries++, (*n)++) {
		*path = strcmp(dir, ".") == 0 ?
		    xasprintf("explore-%d.coll", *n) :
		    xasprintf("%s/explore-%d.coll", dir, *n);
		fd = outfile_create(*path, 0666, &cause);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
		free(cause);
		cause = NULL;
		free(*path);
		*path = NULL;
	}
	if (*path == NULL)
		out_error("cannot save a counterexample in '%s': explore-%d.coll and the %d names after it are taken",
		    dir, *n - SAVE_TRIES, SAVE_TRIES - 1);
	else
		out_error("cannot write %s: %s", *path, cause);
	free(cause);
	free(*path);
	*path = NULL;
	return -1;
}

char *
explore_save(struct xrun *xr, const struct explore_finding *f, const char *fail,
    const char *dir, int *id, int *fileno)
{
	struct session *s = xr->s;
	struct strbuf sb = STRBUF_INIT;
	char *path = NULL, *cause = NULL, **bdesc = NULL;
	int *issued = NULL, *brank = NULL, fd, wrote, err;
	size_t nblocked = 0;
	FILE *fp;

	*id = s->next_explore + 1;
	strbuf_addf(&sb,
	    "# colldb explore, counterexample %d (%d ranks, %zu steps, %u context switch%s)\n",
	    *id, s->nranks, f->nsteps, f->switches, f->switches == 1 ? "" : "es");
	for (const char *p = fail; *p != '\0';) {
		size_t n = strcspn(p, "\n");

		strbuf_addf(&sb, "# %s%.*s\n", p == fail ? "FAIL: " : "",
		    (int)n, p);
		p += n + (p[n] == '\n');
	}
	strbuf_addstr(&sb,
	    "# Source it in the state explore started from: each call starts\n"
	    "# stopped, and `@R step K` runs K micro-ops of rank R, in the failing order.\n"
	    "# At a terminal each pause waits for Enter: type `watch` there to follow.\n");
	/* the simulator at the end of the counterexample says how it ends */
	if (explore_replay(xr->x, f, &cause) != 0) {
		out_error("counterexample %d does not replay: %s", *id, cause);
		free(cause);
		strbuf_release(&sb);
		return NULL;
	}
	script_text(xr, f, &sb, &issued);
	ending(xr, f, issued, &sb);
	blocked_rows(xr, f, &brank, &bdesc, &nblocked);
	explore_rewind(xr->x);
	free(issued);
	if (outfile_check(dir, &cause) != 0 || make_dir(dir) != 0) {
		out_error("cannot save counterexamples in '%s': %s", dir,
		    cause != NULL ? cause : strerror(errno));
		free(cause);
		goto fail;
	}
	*fileno = *id;
	fd = create_free(dir, fileno, &path);
	if (fd < 0)
		goto fail;
	fp = fdopen(fd, "w");
	if (fp == NULL) {
		err = errno;
		close(fd);
		wrote = -1;
		errno = err;
	} else {
		wrote = fwrite(sb.buf, 1, sb.len, fp) == sb.len ? 0 : -1;
		err = errno;
		if (fclose(fp) != 0 && wrote == 0)
			wrote = -1;
		else if (wrote != 0)
			errno = err;
	}
	if (wrote != 0) {
		out_error("cannot write %s: %s", path, strerror(errno));
		unlink(path); /* ours: made above, empty or cut short */
		goto fail;
	}
	s->next_explore = *id;
	keep(xr, f, fail, path, *id, brank, bdesc, nblocked);
	free(brank);
	free(bdesc);
	strbuf_release(&sb);
	return path;
fail:
	for (size_t i = 0; i < nblocked; i++)
		free(bdesc[i]);
	free(brank);
	free(bdesc);
	strbuf_release(&sb);
	free(path);
	return NULL;
}

/* ---- explore show ---------------------------------------------------------------- */

#define COL_MAX 30

int
explore_show(struct session *s, int id)
{
	struct explore_saved *v;
	struct strbuf sb = STRBUF_INIT;
	size_t width = 6;

	for (v = s->explored; v != NULL && v->id != id; v = v->next)
		;
	if (v == NULL) {
		if (s->explored == NULL)
			out_error("no counterexample %d: explore has saved none in this session",
			    id);
		else if (s->next_explore == 1)
			out_error("no counterexample %d (this session saved only 1)",
			    id);
		else
			out_error("no counterexample %d (this session saved 1 to %d)",
			    id, s->next_explore);
		return -1;
	}
	for (size_t i = 0; i < v->nrows; i++)
		width = MAX(width, MIN(strlen(v->desc[i]), COL_MAX));
	out_printf("counterexample %d: %s (%s)\n", v->id, v->headline, v->path);
	strbuf_addstr(&sb, " step");
	for (int r = 0; r < v->nranks; r++)
		strbuf_addf(&sb, "  %-*s", (int)width, "");
	for (int r = 0; r < v->nranks; r++) {
		char head[32];

		snprintf(head, sizeof head, "rank %d", r);
		memcpy(sb.buf + 5 + (size_t)r * (width + 2) + 2, head,
		    strlen(head));
	}
	while (sb.len > 0 && sb.buf[sb.len - 1] == ' ')
		strbuf_setlen(&sb, sb.len - 1);
	out_printf("%s\n", sb.buf);
	for (size_t i = 0; i < v->nrows; i++) {
		strbuf_reset(&sb);
		if (i < v->nsteps)
			strbuf_addf(&sb, "%5zu", i + 1);
		else /* where a hang leaves each blocked rank */
			strbuf_addstr(&sb, "    -");
		for (int r = 0; r < v->rank[i]; r++)
			strbuf_addf(&sb, "  %-*s", (int)width, "");
		if (strlen(v->desc[i]) > COL_MAX)
			strbuf_addf(&sb, "  %.*s...", COL_MAX - 3, v->desc[i]);
		else
			strbuf_addf(&sb, "  %s", v->desc[i]);
		out_printf("%s\n", sb.buf);
	}
	strbuf_release(&sb);
	return 0;
}

static void
saved_free(struct session *s)
{
	while (s->explored != NULL) {
		struct explore_saved *v = s->explored;

		s->explored = v->next;
		for (size_t i = 0; i < v->nrows; i++)
			free(v->desc[i]);
		free(v->desc);
		free(v->rank);
		free(v->headline);
		free(v->path);
		free(v);
	}
}

const struct session_hook explore_session_hook = {
	.name = "explore",
	.close = saved_free,
};
