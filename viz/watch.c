/*
 * watch.c - the watch pane's state: snapshots, panes, keys, layout; see
 * watch.h.  The terminal loop is in watch-run.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"
#include "../core/xmalloc.h"
#include "pane.h"
#include "viz.h"
#include "watch.h"

#define WATCH_MSG_TTL 30 /* snapshots a transient message stays */

struct watch {
	const struct watch_source *src;
	void *arg;
	struct watch_opts opts;
	struct snap snaps[2];
	int cur;    /* index of the snapshot on screen */
	int nsnaps; /* snapshots taken (0: none yet) */
	int ended;
	struct pane_view view;
	struct pane *ranks, *cells, *help, *diag;
	struct pane *overlay; /* help, diag or NULL */
	char *msg;	      /* transient message, or NULL */
	int msg_ttl;
	int waiting_only;	  /* '/': only blocked and stopped ranks */
	int counts[SNAP_NSTATES]; /* ranks per state, before filtering */
	int shown;		  /* rows left after filtering */
};

/* Keys the watch handles itself; the help overlay is built from this. */
struct watch_cmd {
	int key;
	const char *keys;
	const char *help;
	int writes; /* refused when read-only */
	int (*fn)(struct watch *, int);
};

static int watch_readonly(const struct watch *);
static printflike(2, 3) void watch_msg(struct watch *, const char *, ...);
static int watch_cmd_action(struct watch *, int);
static int watch_cmd_diagnose(struct watch *, int);
static int watch_cmd_help(struct watch *, int);
static int watch_cmd_redraw(struct watch *, int);
static int watch_cmd_quit(struct watch *, int);
static int watch_cmd_filter(struct watch *, int);
static void watch_help_text(struct watch *, struct strbuf *);
static void watch_title(struct watch *, struct screen *);
static void watch_status(struct watch *, struct screen *, int);

static const struct watch_cmd watch_cmds[] = {
	{ 's', "s", "step: every stopped rank runs one micro-op", 1,
	    watch_cmd_action },
	{ 'c', "c", "continue: every rank runs freely", 1, watch_cmd_action },
	{ 'd', "d", "diagnose: why nothing moves (overlay)", 0,
	    watch_cmd_diagnose },
	{ '/', "/", "show only blocked and stopped ranks (again: all)", 0,
	    watch_cmd_filter },
	{ '?', "?", "show / hide this help", 0, watch_cmd_help },
	{ VIZ_CTRL('l'), "C-l", "repaint the terminal", 0, watch_cmd_redraw },
	{ 'q', "q", "quit the pane (closes an overlay first)", 0, watch_cmd_quit },
};

struct watch *
watch_new(const struct watch_source *src, void *arg, const struct watch_opts *opts)
{
	struct watch *w = xcalloc(1, sizeof *w);
	struct watch_opts def = WATCH_OPTS_INIT;

	w->src = src;
	w->arg = arg;
	w->opts = opts != NULL ? *opts : def;
	if (w->opts.interval_ms <= 0)
		w->opts.interval_ms = def.interval_ms;
	if (w->opts.hold <= 0)
		w->opts.hold = def.hold;
	if (w->opts.linger_ms == 0)
		w->opts.linger_ms = def.linger_ms;
	snap_init(&w->snaps[0]);
	snap_init(&w->snaps[1]);
	w->view.snap = &w->snaps[0];
	w->view.page = 1;
	w->view.hold = w->opts.hold;
	w->waiting_only = w->opts.waiting_only;
	w->ranks = pane_new(&pane_ranks_class, &w->view);
	w->cells = pane_new(&pane_cells_class, &w->view);
	w->help = pane_new(&pane_text_class, &w->view);
	w->diag = pane_new(&pane_text_class, &w->view);
	return w;
}

void
watch_free(struct watch *w)
{
	if (w == NULL)
		return;
	pane_free(w->ranks);
	pane_free(w->cells);
	pane_free(w->help);
	pane_free(w->diag);
	snap_release(&w->snaps[0]);
	snap_release(&w->snaps[1]);
	free(w->msg);
	free(w);
}

int
watch_ended(const struct watch *w)
{
	return w->ended;
}

const struct snap *
watch_snap(const struct watch *w)
{
	return w->view.snap;
}

static int
watch_readonly(const struct watch *w)
{
	return w->opts.readonly || w->view.snap->readonly;
}

static void
watch_msg(struct watch *w, const char *fmt, ...)
{
	va_list ap;

	free(w->msg);
	va_start(ap, fmt);
	w->msg = xvasprintf(fmt, ap);
	va_end(ap);
	w->msg_ttl = WATCH_MSG_TTL;
}

/* Count the ranks per state, then drop the rows the filters hide. */
static void
watch_filter(struct watch *w, struct snap *sn)
{
	uint8_t *keep;

	memset(w->counts, 0, sizeof w->counts);
	for (int r = 0; r < sn->nranks; r++) {
		if ((unsigned)sn->ranks[r].state < SNAP_NSTATES)
			w->counts[sn->ranks[r].state]++;
	}
	w->shown = sn->nranks;
	if (!w->waiting_only && w->opts.only == NULL)
		return;
	keep = xcalloc((size_t)sn->nranks + 1, 1);
	for (int r = 0; r < sn->nranks; r++) {
		const struct snap_rank *rk = &sn->ranks[r];
		int ok = 1;

		if (w->opts.only != NULL)
			ok = rk->rank >= 0 && rk->rank < w->opts.only_n &&
			    w->opts.only[rk->rank];
		if (w->waiting_only)
			ok &= rk->state == SNAP_BLOCKED ||
			    rk->state == SNAP_STOPPED;
		keep[r] = (uint8_t)ok;
	}
	snap_keep_rows(sn, keep);
	w->shown = sn->nranks;
	free(keep);
}

int
watch_refresh(struct watch *w)
{
	struct snap *next = &w->snaps[!w->cur], *old = &w->snaps[w->cur];
	int bits = 0;

	if (w->ended)
		return 0;
	snap_clear(next);
	if (w->src->snapshot(w->arg, next) != 0) {
		w->ended = 1;
		watch_msg(w, "session%s%s ended; press any key",
		    old->session[0] != '\0' ? " " : "", old->session);
		return VIZ_REDRAW;
	}
	watch_filter(w, next);
	w->view.snap = next;
	w->view.prev = w->nsnaps > 0 ? old : NULL;
	w->nsnaps++;
	w->cur = !w->cur;
	bits |= pane_update(w->ranks);
	bits |= pane_update(w->cells);
	if (w->view.prev == NULL || strcmp(next->session, old->session) != 0 ||
	    strcmp(next->status, old->status) != 0 ||
	    next->world != old->world || next->readonly != old->readonly)
		bits |= VIZ_REDRAW;
	if (w->msg_ttl > 0 && --w->msg_ttl == 0) {
		free(w->msg);
		w->msg = NULL;
		bits |= VIZ_REDRAW;
	}
	return bits;
}

static int
watch_cmd_action(struct watch *w, int key)
{
	int (*fn)(void *, char **) = key == 's' ? w->src->step : w->src->cont;
	const char *what = key == 's' ? "step" : "continue";
	char *msg = NULL;
	int rc;

	if (fn == NULL) {
		watch_msg(w, "%s is not available here", what);
		return VIZ_REDRAW;
	}
	rc = fn(w->arg, &msg);
	if (msg != NULL)
		watch_msg(w, "%s", msg);
	else
		watch_msg(w, rc == 0 ? "%s" : "%s failed", what);
	free(msg);
	return VIZ_REDRAW | VIZ_REFRESH;
}

static int
watch_cmd_diagnose(struct watch *w, int key)
{
	char *text;

	if (w->src->diagnose == NULL) {
		watch_msg(w, "diagnose is not available here");
		return VIZ_REDRAW;
	}
	text = w->src->diagnose(w->arg);
	if (text == NULL || text[0] == '\0') {
		watch_msg(w, "diagnose: nothing to report");
	} else {
		pane_text_set(w->diag, "diagnose", text);
		w->overlay = w->diag;
	}
	free(text);
	return VIZ_REDRAW;
}

static void
watch_help_text(struct watch *w, struct strbuf *sb)
{
	const struct pane_class *classes[] = { &pane_cells_class,
		&pane_ranks_class, &pane_text_class };
	const struct pane_help *h;
	size_t i;
	int kw = 0;

	for (i = 0; i < ARRAY_SIZE(watch_cmds); i++)
		kw = MAX(kw, (int)strlen(watch_cmds[i].keys));
	for (i = 0; i < ARRAY_SIZE(classes); i++)
		for (h = classes[i]->help; h != NULL && h->keys != NULL; h++)
			kw = MAX(kw, (int)strlen(h->keys));
	strbuf_addstr(sb, "Keys\n");
	for (i = 0; i < ARRAY_SIZE(watch_cmds); i++)
		strbuf_addf(sb, "  %-*s  %s%s\n", kw, watch_cmds[i].keys,
		    watch_cmds[i].help,
		    watch_cmds[i].writes && watch_readonly(w) ?
			" (off: read-only)" :
			"");
	for (i = 0; i < ARRAY_SIZE(classes); i++)
		for (h = classes[i]->help; h != NULL && h->keys != NULL; h++)
			strbuf_addf(sb, "  %-*s  %s\n", kw, h->keys, h->text);
	strbuf_addstr(sb,
	    "\nCells\n"
	    "  bold yellow    changed in the last second\n"
	    "  5*   reverse   awaited: this rank waits on the cell\n"
	    "  0<2            owed: rank 2 will still notify it (<+: several)\n"
	    "  row label      rank and state: I idle R running S stopped\n"
	    "                 B blocked X exited D dead\n"
	    "\nTitle\n"
	    "  R45 S1 B2      ranks per state, in the row labels' letters\n"
	    "  [S+B: 3 shown] '/' shows only the stopped and blocked ranks\n");
}

static int
watch_cmd_help(struct watch *w, int key)
{
	struct strbuf sb = STRBUF_INIT;

	if (w->overlay == w->help) {
		w->overlay = NULL;
		return VIZ_REDRAW;
	}
	watch_help_text(w, &sb);
	pane_text_set(w->help, "help", sb.buf);
	strbuf_release(&sb);
	w->overlay = w->help;
	return VIZ_REDRAW;
}

static int
watch_cmd_redraw(struct watch *w, int key)
{
	return VIZ_REDRAW | VIZ_RESIZE;
}

static int
watch_cmd_quit(struct watch *w, int key)
{
	return VIZ_QUIT;
}

static int
watch_cmd_filter(struct watch *w, int key)
{
	w->waiting_only = !w->waiting_only;
	watch_msg(w,
	    w->waiting_only ? "showing blocked and stopped ranks only (/: all)" :
			      "showing every rank");
	if (!w->ended && w->nsnaps > 0) {
		/* a fresh picture, filtered anew; no row counts as changed */
		watch_refresh(w);
		w->view.prev = NULL;
		pane_update(w->ranks);
		pane_update(w->cells);
		w->view.top = 0;
	}
	return VIZ_REDRAW;
}

int
watch_key(struct watch *w, int key)
{
	const struct watch_cmd *c;
	size_t i;
	int bits;

	if (key == VIZ_KEY_RESIZE)
		return VIZ_RESIZE | VIZ_REDRAW;
	if (w->ended)
		return VIZ_QUIT;
	if (w->overlay != NULL && key != '?') {
		bits = pane_key(w->overlay, key);
		if (bits & VIZ_CLOSE)
			w->overlay = NULL;
		if (bits != 0)
			return (bits & ~VIZ_CLOSE) | VIZ_REDRAW;
	}
	for (i = 0; i < ARRAY_SIZE(watch_cmds); i++) {
		c = &watch_cmds[i];
		if (c->key != key)
			continue;
		if (c->writes && watch_readonly(w)) {
			watch_msg(w, "read-only: '%s' is not available", c->keys);
			return VIZ_REDRAW;
		}
		return c->fn(w, key);
	}
	if ((bits = pane_key(w->cells, key)) != 0 ||
	    (bits = pane_key(w->ranks, key)) != 0)
		return bits;
	if (key >= ' ' && key < 0x7f) {
		watch_msg(w, "unknown key '%c'; ? for help", key);
		return VIZ_REDRAW;
	}
	return 0;
}

static void
watch_title(struct watch *w, struct screen *s)
{
	const struct snap *sn = w->view.snap;
	struct strbuf sb = STRBUF_INIT;
	const char *right = " ? help  q quit ";
	int rl = (int)strlen(right);

	screen_fill(s, &(struct screen_rect){ 0, 0, s->cols, 1 }, ' ',
	    SCREEN_REVERSE);
	strbuf_addstr(&sb, " colldb watch");
	if (sn->session[0] != '\0')
		strbuf_addf(&sb, "  %s", sn->session);
	strbuf_addf(&sb, "  %d rank%s", sn->world, sn->world == 1 ? "" : "s");
	if (w->nsnaps > 0) {
		/* ranks per state, in the cells pane's row letters */
		const char *sep = ": ";

		for (int st = 0; st < SNAP_NSTATES; st++) {
			if (w->counts[st] == 0)
				continue;
			strbuf_addf(&sb, "%s%c%d", sep, "IRSBXD"[st],
			    w -> counts[st]);
			sep = " ";
		}
	}
	if (w->waiting_only || w->opts.only != NULL)
		strbuf_addf(&sb, "  [%s%s%s: %d shown]",
		    w->opts.only != NULL && w->opts.only_label != NULL ?
			w->opts.only_label :
			"",
		    w->opts.only != NULL && w->waiting_only ? " " : "",
		    w->waiting_only ? "S+B" : "", w->shown);
	if (watch_readonly(w))
		strbuf_addstr(&sb, "  [read-only]");
	if (w->ended)
		strbuf_addstr(&sb, "  [ended]");
	screen_puts(s, 0, 0, sb.buf, SCREEN_REVERSE | SCREEN_BOLD);
	if ((int)sb.len + rl <= s->cols)
		screen_puts(s, s->cols - rl, 0, right, SCREEN_REVERSE);
	strbuf_release(&sb);
}

static void
watch_status(struct watch *w, struct screen *s, int y)
{
	const char *legend = "* awaited  <R owed by rank R";
	const char *text = w->msg != NULL ? w->msg : w->view.snap->status;
	int ll = (int)strlen(legend), end;

	end = screen_puts(s, 0, y, text, w->msg != NULL ? SCREEN_BOLD : 0);
	if (end + 2 + ll <= s->cols)
		screen_puts(s, s->cols - ll, y, legend, SCREEN_DIM);
}

/*
 * Word-wrap text from the top left; a newline breaks the line and a word
 * longer than the width is split.  Draws only when draw is set; returns
 * the rows the text takes.
 */
static int
watch_wrap(struct screen *s, const char *text, int draw)
{
	const char *p = text;
	int x = 0, y = 0, n, k;

	if (s->cols < 1)
		return 1;
	while (*p != '\0') {
		if (*p == '\n' || *p == ' ') {
			if (*p++ == '\n')
				x = 0, y++;
			continue;
		}
		n = (int)strcspn(p, " \n");
		if (x > 0 && x + 1 + n > s->cols)
			x = 0, y++;
		else if (x > 0)
			x++;
		while (n > 0) {
			k = n < s->cols - x ? n : s->cols - x;
			if (draw)
				screen_putn(s, x, y, p, k, 0);
			p += k, n -= k, x += k;
			if (n > 0)
				x = 0, y++;
		}
	}
	return y + 1;
}

/* The pane's minimum size, in the longest wording that fits. */
static void
watch_too_small(struct screen *s)
{
	static const char *const text[] = {
		"colldb watch: terminal too small\n(30x8 at least; q quits)",
		"too small (30x8); q quits",
		"too small; q quits",
	};
	size_t i;

	for (i = 0; i + 1 < ARRAY_SIZE(text); i++)
		if (watch_wrap(s, text[i], 0) <= s->rows)
			break;
	watch_wrap(s, text[i], 1);
}

void
watch_draw(struct watch *w, struct screen *s)
{
	struct screen_rect ranks, cells, over;
	int avail, rh;

	screen_clear(s);
	if (s->cols < 30 || s->rows < 8) {
		watch_too_small(s);
		return;
	}
	watch_title(w, s);
	avail = s->rows - 2;
	rh = pane_ranks_height(w->view.snap->nranks, avail);
	ranks = (struct screen_rect){ 0, 1, s->cols, rh };
	cells = (struct screen_rect){ 0, 1 + rh, s->cols, avail - rh };
	/* Cells first: it clamps the scroll position both panes share. */
	pane_draw(w->cells, s, &cells);
	pane_draw(w->ranks, s, &ranks);
	watch_status(w, s, s->rows - 1);
	if (w->overlay != NULL) {
		over = (struct screen_rect){ 0, 1, s->cols, s->rows - 2 };
		pane_draw(w->overlay, s, &over);
	}
}
