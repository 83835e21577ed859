/*
 * check_pane.c - snapshots, their text format, the panes and the watch
 * state machine (without a terminal: drawn into a screen model).
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pane.h"
#include "screen.h"
#include "snap.h"
#include "strbuf.h"
#include "viz.h"
#include "watch.h"
#include "xmalloc.h"

/* ---- a fake session ---- */

struct fake {
	struct snap snap; /* what snapshot() returns */
	int ended;
	int snapshots, steps, conts, diagnoses;
	const char *diag; /* NULL: diagnose returns NULL */
};

static int
fake_snapshot(void *arg, struct snap *out)
{
	struct fake *f = arg;

	f->snapshots++;
	if (f->ended)
		return -1;
	snap_copy(out, &f->snap);
	return 0;
}

static int
fake_step(void *arg, char **msg)
{
	struct fake *f = arg;

	f->steps++;
	*msg = xstrdup("stepped 4 ranks");
	return 0;
}

static int
fake_cont(void *arg, char **msg)
{
	struct fake *f = arg;

	f->conts++;
	return -1;
}

static char *
fake_diagnose(void *arg)
{
	struct fake *f = arg;

	f->diagnoses++;
	return f->diag != NULL ? xstrdup(f->diag) : NULL;
}

static const struct watch_source fake_source = {
	.snapshot = fake_snapshot,
	.step = fake_step,
	.cont = fake_cont,
	.diagnose = fake_diagnose,
};

static const struct watch_source bare_source = {
	.snapshot = fake_snapshot,
};

/* nranks ranks, window "sig" [nranks, 1] and window "flags" [ncells]. */
static void
fake_init(struct fake *f, int nranks, int ncells)
{
	memset(f, 0, sizeof *f);
	snap_init(&f->snap);
	snap_set_ranks(&f->snap, nranks);
	snprintf(f->snap.session, sizeof f->snap.session, "t");
	snap_add_win(&f->snap, "sig", 2, (int[]){ nranks, 1 });
	snap_add_win(&f->snap, "flags", 1, (int[]){ ncells });
}

static void
fake_release(struct fake *f)
{
	snap_release(&f->snap);
}

/* ---- screen helpers ---- */

static const char *
row(const struct screen *s, int y)
{
	static char buf[512];
	int x;

	for (x = 0; x < s->cols && x < (int)sizeof buf - 1; x++)
		buf[x] = screen_at(s, x, y)->ch;
	while (x > 0 && buf[x - 1] == ' ')
		x--;
	buf[x] = '\0';
	return buf;
}

/* The first row containing str, or -1. */
static int
find_row(const struct screen *s, const char *str)
{
	int y;

	for (y = 0; y < s->rows; y++)
		if (strstr(row(s, y), str) != NULL)
			return y;
	return -1;
}

static int
screen_has(const struct screen *s, const char *str)
{
	return find_row(s, str) >= 0;
}

/*
 * Style of the value of cell i of rank row r in the cells grid: finds the
 * grid row labelled "R X" and the column under the header label of i.
 */
static unsigned
cell_style(const struct screen *s, int r, int i, char *ch)
{
	char label[16], idx[16];
	const char *line;
	int y, hy, x;

	snprintf(idx, sizeof idx, " %d", i);
	hy = find_row(s, "rank  ");
	ck_assert_int_ge(hy, 0);
	line = row(s, hy);
	x = (int)(strstr(line, idx) - line) + (int)strlen(idx) - 1;
	ck_assert_int_gt(x, 0);
	snprintf(label, sizeof label, "%2d ", r);
	for (y = hy + 1; y < s->rows; y++)
		if (strncmp(row(s, y), label, strlen(label)) == 0)
			break;
	ck_assert_int_lt(y, s->rows);
	*ch = screen_at(s, x, y)->ch;
	return screen_at(s, x, y)->style;
}

/* ---- snapshots ---- */

START_TEST(snap_helpers_keep_invariants)
{
	struct snap s;
	struct snap_win *w;
	int32_t *cells;
	size_t k;

	snap_init(&s);
	ck_assert_int_eq(s.nranks, 0);
	snap_set_ranks(&s, 3);
	ck_assert_int_eq(s.world, 3);
	ck_assert_int_eq(s.ranks[2].rank, 2);
	ck_assert_int_eq(s.ranks[2].state, SNAP_IDLE);
	ck_assert_int_eq(s.ranks[2].win, -1);
	ck_assert_int_eq(s.ranks[2].cell, -1);
	w = snap_add_win(&s, "sig", 3, (int[]){ 2, 3, 4 });
	ck_assert_int_eq(w->ncells, 24);
	ck_assert_int_eq(w->nrows, 3);
	for (k = 0; k < 72; k++) {
		ck_assert_int_eq(w->cells[k], 0);
		ck_assert_int_eq(w->marks[k], 0);
		ck_assert_int_eq(w->owed_by[k], -1);
	}
	snap_row(w, 2)[23] = 7;
	ck_assert_int_eq(w->cells[snap_idx(w, 2, 23)], 7);
	ck_assert_int_eq(snap_find_win(&s, "sig"), 0);
	ck_assert_int_eq(snap_find_win(&s, "nope"), -1);

	/* Refilling at the same size reuses the storage and zeroes it. */
	cells = w->cells;
	snap_clear(&s);
	ck_assert_int_eq(s.nwins, 0);
	snap_set_ranks(&s, 3);
	w = snap_add_win(&s, "sig", 1, (int[]){ 24 });
	ck_assert_ptr_eq(w->cells, cells);
	ck_assert_int_eq(snap_row(w, 2)[23], 0);

	/* snap_set_ranks drops the windows. */
	snap_set_ranks(&s, 2);
	ck_assert_int_eq(s.nwins, 0);
	snap_release(&s);
	ck_assert_ptr_null(s.ranks);
	ck_assert_int_eq(s.nranks, 0);
}
END_TEST

START_TEST(snap_bad_shape_is_a_bug)
{
	struct snap s;

	snap_init(&s);
	snap_set_ranks(&s, 2);
	snap_add_win(&s, "sig", 2, (int[]){ 4, 0 });
}
END_TEST

START_TEST(snap_copy_is_deep_and_equal)
{
	struct snap a, b;
	struct snap_win *w;

	snap_init(&a);
	snap_init(&b);
	snap_set_ranks(&a, 2);
	snprintf(a.status, sizeof a.status, "hello");
	a.ranks[1].state = SNAP_BLOCKED;
	a.ranks[1].secs = 1.5;
	snprintf(a.ranks[1].op, sizeof a.ranks[1].op, "wait sig[0] >= 1");
	w = snap_add_win(&a, "sig", 1, (int[]){ 4 });
	snap_row(w, 1)[3] = 9;
	snap_mark_owed(w, 1, 3, 0);
	snap_copy(&b, &a);
	ck_assert(snap_equal(&a, &b));
	ck_assert_str_eq(b.status, "hello");
	ck_assert_str_eq(b.ranks[1].op, "wait sig[0] >= 1");
	ck_assert_ptr_ne(b.wins[0].cells, a.wins[0].cells);

	/* Changing the source does not change the copy. */
	snap_row(w, 1)[3] = 10;
	ck_assert_int_eq(snap_row(&b.wins[0], 1)[3], 9);
	ck_assert(!snap_equal(&a, &b));
	snap_row(w, 1)[3] = 9;
	ck_assert(snap_equal(&a, &b));

	/* Seconds count only when times are shown. */
	a.ranks[1].secs = 2.5;
	ck_assert(snap_equal(&a, &b));
	a.show_times = b.show_times = 1;
	ck_assert(!snap_equal(&a, &b));
	a.show_times = b.show_times = 0;

	/* Marks count. */
	w->marks[snap_idx(w, 0, 0)] |= SNAP_AWAITED;
	ck_assert(!snap_equal(&a, &b));
	snap_release(&a);
	snap_release(&b);
}
END_TEST

START_TEST(snap_marks)
{
	struct snap s;
	struct snap_win *w;

	snap_init(&s);
	snap_set_ranks(&s, 3);
	w = snap_add_win(&s, "sig", 2, (int[]){ 3, 1 });
	s.ranks[1].state = SNAP_BLOCKED;
	s.ranks[1].win = 0;
	s.ranks[1].cell = 2;
	s.ranks[2].state = SNAP_RUNNING; /* not blocked: no mark */
	s.ranks[2].win = 0;
	s.ranks[2].cell = 0;
	s.ranks[0].state = SNAP_BLOCKED; /* out of range: skipped */
	s.ranks[0].win = 5;
	s.ranks[0].cell = 0;
	snap_mark_awaited(&s);
	ck_assert_int_eq(w->marks[snap_idx(w, 1, 2)], SNAP_AWAITED);
	ck_assert_int_eq(w->marks[snap_idx(w, 2, 0)], 0);
	ck_assert_int_eq(w->marks[snap_idx(w, 0, 0)], 0);

	snap_mark_owed(w, 1, 2, 0);
	ck_assert_int_eq(w->owed_by[snap_idx(w, 1, 2)], 0);
	snap_mark_owed(w, 1, 2, 0); /* same rank again: still one */
	ck_assert_int_eq(w->marks[snap_idx(w, 1, 2)], SNAP_AWAITED | SNAP_OWED);
	snap_mark_owed(w, 1, 2, 2);
	ck_assert_int_eq(w->marks[snap_idx(w, 1, 2)],
	    SNAP_AWAITED | SNAP_OWED | SNAP_OWED_MANY);
	ck_assert_int_eq(w->owed_by[snap_idx(w, 1, 2)], 0);
	snap_release(&s);
}
END_TEST

START_TEST(snap_owed_out_of_range_is_a_bug)
{
	struct snap s;
	struct snap_win *w;

	snap_init(&s);
	snap_set_ranks(&s, 2);
	w = snap_add_win(&s, "sig", 1, (int[]){ 4 });
	snap_mark_owed(w, 2, 0, 0);
}
END_TEST

START_TEST(state_names)
{
	int st;

	for (st = 0; st < SNAP_NSTATES; st++)
		ck_assert_int_eq(snap_state_parse(snap_state_name(st)), st);
	ck_assert_str_eq(snap_state_name(SNAP_BLOCKED), "blocked");
	ck_assert_str_eq(snap_state_name(SNAP_NSTATES), "?");
	ck_assert_int_eq(snap_state_parse("sleeping"), -1);
}
END_TEST

/* ---- the text format ---- */

static const char ring_text[] = "# a comment\n"
				"session ring4\n"
				"ranks 4\n"
				"world 4\n"
				"times 1\n"
				"status stepping\n"
				"rank 0 blocked 2.5\n"
				"op 0 step 5/22  wait sig[1,2] >= 1\n"
				"on 0 sig 6 0 1 sig[1,2] >= 1\n"
				"rank 2 stopped\n"
				"win sig 6 4\n"
				"row 0 0 2 2 2  0 1 0 0\n"
				"row 1-3 1*3 2\n"
				"owe 0 6 2\n"
				"owe 1 6 2 +\n"
				"win flags 8\n"
				"absent 3\n";

START_TEST(parse_fills_the_model)
{
	struct snap s;
	const struct snap_win *w;
	char *cause = NULL;

	snap_init(&s);
	ck_assert_int_eq(snap_parse(&s, ring_text, &cause), 0);
	ck_assert_ptr_null(cause);
	ck_assert_str_eq(s.session, "ring4");
	ck_assert_int_eq(s.nranks, 4);
	ck_assert_int_eq(s.show_times, 1);
	ck_assert_str_eq(s.status, "stepping");
	ck_assert_int_eq(s.ranks[0].state, SNAP_BLOCKED);
	ck_assert(s.ranks[0].secs == 2.5);
	ck_assert_str_eq(s.ranks[0].op, "step 5/22  wait sig[1,2] >= 1");
	ck_assert_str_eq(s.ranks[0].on, "sig[1,2] >= 1");
	ck_assert_int_eq(s.ranks[0].win, 0);
	ck_assert_int_eq(s.ranks[0].cell, 6);
	ck_assert_int_eq(s.ranks[0].expected, 1);
	ck_assert_int_eq(s.ranks[2].state, SNAP_STOPPED);
	ck_assert_int_eq(s.nwins, 2);
	w = &s.wins[0];
	ck_assert_int_eq(w->ndim, 2);
	ck_assert_int_eq(w->ncells, 24);
	ck_assert_int_eq(snap_row(w, 0)[1], 2);
	ck_assert_int_eq(snap_row(w, 0)[5], 1);
	ck_assert_int_eq(snap_row(w, 3)[2], 1); /* range and repeat */
	ck_assert_int_eq(snap_row(w, 3)[3], 2);
	ck_assert_int_eq(snap_row(w, 3)[4], 0);
	/* Blocked rank 0's cell is marked awaited after parsing. */
	ck_assert_int_eq(w->marks[snap_idx(w, 0, 6)], SNAP_AWAITED | SNAP_OWED);
	ck_assert_int_eq(w->owed_by[snap_idx(w, 0, 6)], 2);
	ck_assert_int_eq(w->marks[snap_idx(w, 1, 6)], SNAP_OWED | SNAP_OWED_MANY);
	/* absent 3: flags is not on rank 3 (a domain's window), every cell */
	ck_assert_int_eq(s.wins[1].marks[snap_idx(&s.wins[1], 3, 0)],
	    SNAP_ABSENT);
	ck_assert_int_eq(s.wins[1].marks[snap_idx(&s.wins[1], 3, 7)],
	    SNAP_ABSENT);
	ck_assert_int_eq(s.wins[1].marks[snap_idx(&s.wins[1], 2, 0)], 0);
	snap_release(&s);
}
END_TEST

START_TEST(format_round_trips)
{
	struct snap a, b;
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;

	snap_init(&a);
	snap_init(&b);
	ck_assert_int_eq(snap_parse(&a, ring_text, &cause), 0);
	snap_format(&a, &sb);
	ck_assert_int_eq(snap_parse(&b, sb.buf, &cause), 0);
	ck_assert(snap_equal(&a, &b));
	ck_assert(a.ranks[0].secs == b.ranks[0].secs);
	/* world 0 after ranks (found by fuzz-snap): the default, the rows,
	 * whichever line comes first, so it reads back the same */
	strbuf_reset(&sb);
	ck_assert_int_eq(snap_parse(&a, "ranks 2\nworld 0\nwin sig 2\n", &cause),
	    0);
	ck_assert_int_eq(a.world, 2);
	snap_format(&a, &sb);
	ck_assert_int_eq(snap_parse(&b, sb.buf, &cause), 0);
	ck_assert(snap_equal(&a, &b));
	strbuf_release(&sb);
	snap_release(&a);
	snap_release(&b);
}
END_TEST

static void
parse_fails(const char *text, const char *want)
{
	struct snap s;
	char *cause = NULL;

	snap_init(&s);
	ck_assert_int_eq(snap_parse(&s, text, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, want);
	free(cause);
	snap_release(&s);
}

START_TEST(parse_errors_name_the_line)
{
	parse_fails("rank 0 idle\n", "line 1: no 'ranks' line yet");
	parse_fails("ranks 2\nrank 2 idle\n", "line 2: bad row '2'");
	parse_fails("ranks 2\nrank 1 sleeping\n", "line 2: bad state 'sleeping'");
	parse_fails("ranks 2\nrow 0 1\n", "line 2: row before any 'win'");
	parse_fails("ranks 2\nwin a 2\nrow 0 1 2 3\n",
	    "line 3: more than 2 values");
	parse_fails("ranks 2\nwin a 2\nrow 0 1 x\n", "line 3: bad value 'x'");
	parse_fails("ranks 2\nwin a 2\nrow 0 5*3\n",
	    "line 3: more than 2 values");
	parse_fails("ranks 2\nwin a 2\nowe 0 2 1\n", "line 3: bad cell '2'");
	parse_fails("ranks 2\nwin a 0\n", "line 2: bad dim '0'");
	parse_fails("ranks 2\nwin a 1 2 3 4 5\n", "line 2: want 1 to 4 dims");
	parse_fails("ranks 2\nreadonly 2\n", "line 2: bad readonly '2'");
	parse_fails("ranks 2\nfrobnicate\n",
	    "line 2: unknown directive 'frobnicate'");
	parse_fails("ranks 2\non 1 nope 0 0 1 x\n",
	    "row 1 is blocked on unknown window 'nope'");
}
END_TEST

/* ---- the watch state machine ---- */

START_TEST(refresh_redraws_only_on_change)
{
	struct fake f;
	struct watch *w;
	struct watch_opts o = WATCH_OPTS_INIT;

	fake_init(&f, 4, 8);
	o.hold = 2;
	w = watch_new(&fake_source, &f, &o);
	ck_assert_int_eq(watch_refresh(w) & VIZ_REDRAW, VIZ_REDRAW);
	ck_assert_int_eq(watch_refresh(w), 0);
	ck_assert_int_eq(watch_refresh(w), 0);
	snap_row(&f.snap.wins[1], 2)[5] = 3;
	ck_assert_int_eq(watch_refresh(w) & VIZ_REDRAW, VIZ_REDRAW);
	/* The highlight fades over `hold` refreshes, each a redraw. */
	ck_assert_int_eq(watch_refresh(w) & VIZ_REDRAW, VIZ_REDRAW);
	ck_assert_int_eq(watch_refresh(w) & VIZ_REDRAW, VIZ_REDRAW);
	ck_assert_int_eq(watch_refresh(w), 0);
	/* A rank change and a status change redraw too. */
	f.snap.ranks[1].state = SNAP_RUNNING;
	ck_assert_int_eq(watch_refresh(w) & VIZ_REDRAW, VIZ_REDRAW);
	snprintf(f.snap.status, sizeof f.snap.status, "new");
	ck_assert_int_eq(watch_refresh(w) & VIZ_REDRAW, VIZ_REDRAW);
	ck_assert_int_eq(f.snapshots, 9);
	watch_free(w);
	fake_release(&f);
}
END_TEST

START_TEST(changed_cells_are_highlighted_then_fade)
{
	struct fake f;
	struct watch *w;
	struct watch_opts o = WATCH_OPTS_INIT;
	struct screen s;
	char ch;

	fake_init(&f, 4, 8);
	o.hold = 2;
	w = watch_new(&fake_source, &f, &o);
	screen_init(&s, 80, 24);
	watch_refresh(w);
	watch_key(w, '\t'); /* window "flags" */
	watch_draw(w, &s);
	ck_assert(screen_has(&s, " flags [8]  window 2/2"));
	ck_assert_uint_eq(cell_style(&s, 2, 5, &ch), SCREEN_DIM);
	ck_assert_int_eq(ch, '0');

	snap_row(&f.snap.wins[1], 2)[5] = 3;
	watch_refresh(w);
	watch_draw(w, &s);
	ck_assert_uint_eq(cell_style(&s, 2, 5, &ch),
	    SCREEN_BOLD | SCREEN_FG(SCREEN_YELLOW));
	ck_assert_int_eq(ch, '3');
	ck_assert_uint_eq(cell_style(&s, 1, 5, &ch), SCREEN_DIM);
	watch_refresh(w);
	watch_draw(w, &s);
	ck_assert_uint_eq(cell_style(&s, 2, 5, &ch),
	    SCREEN_BOLD | SCREEN_FG(SCREEN_YELLOW));
	watch_refresh(w);
	watch_draw(w, &s);
	ck_assert_uint_eq(cell_style(&s, 2, 5, &ch), 0);
	ck_assert_int_eq(ch, '3');
	screen_release(&s);
	watch_free(w);
	fake_release(&f);
}
END_TEST

START_TEST(awaited_and_owed_cells_are_marked)
{
	struct fake f;
	struct watch *w;
	struct screen s;
	struct snap_win *sig;
	char ch;
	int y;

	fake_init(&f, 4, 8);
	sig = &f.snap.wins[0];
	f.snap.ranks[1].state = SNAP_BLOCKED;
	f.snap.ranks[1].win = 0;
	f.snap.ranks[1].cell = 3;
	snap_mark_awaited(&f.snap);
	snap_mark_owed(sig, 1, 3, 2);
	snap_mark_owed(sig, 0, 1, 3);
	snap_mark_owed(sig, 0, 1, 2);
	w = watch_new(&fake_source, &f, NULL);
	screen_init(&s, 80, 24);
	watch_refresh(w);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, " sig [4,1]  window 1/2"));
	ck_assert_uint_eq(cell_style(&s, 1, 3, &ch), SCREEN_DIM | SCREEN_REVERSE);
	y = find_row(&s, " 1 B ");
	ck_assert_int_ge(y, 0);
	ck_assert_ptr_nonnull(strstr(row(&s, y), "0*<2"));
	y = find_row(&s, " 0 I ");
	ck_assert_ptr_nonnull(strstr(row(&s, y), "0 <+"));
	screen_release(&s);
	watch_free(w);
	fake_release(&f);
}
END_TEST

START_TEST(tab_cycles_windows_and_keeps_them_by_name)
{
	struct fake f;
	struct watch *w;
	struct screen s;

	fake_init(&f, 2, 8);
	snap_add_win(&f.snap, "third", 1, (int[]){ 2 });
	w = watch_new(&fake_source, &f, NULL);
	screen_init(&s, 80, 24);
	watch_refresh(w);
	ck_assert_int_eq(watch_key(w, '\t') & VIZ_REDRAW, VIZ_REDRAW);
	watch_key(w, '\t');
	watch_draw(w, &s);
	ck_assert(screen_has(&s, " third [2]  window 3/3"));
	watch_key(w, '\t');
	watch_draw(w, &s);
	ck_assert(screen_has(&s, " sig [2,1]  window 1/3"));
	watch_key(w, VIZ_KEY_BTAB);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, " third [2]  window 3/3"));

	/* A window before it is freed: the pane stays on "third". */
	snap_clear(&f.snap);
	snap_set_ranks(&f.snap, 2);
	snap_add_win(&f.snap, "flags", 1, (int[]){ 8 });
	snap_add_win(&f.snap, "third", 1, (int[]){ 2 });
	watch_refresh(w);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, " third [2]  window 2/2"));

	/* No windows at all. */
	snap_set_ranks(&f.snap, 2);
	watch_refresh(w);
	watch_key(w, '\t');
	watch_draw(w, &s);
	ck_assert(screen_has(&s, " no signal windows"));
	screen_release(&s);
	watch_free(w);
	fake_release(&f);
}
END_TEST

START_TEST(scrolling_64_ranks_256_cells_on_80x24)
{
	struct fake f;
	struct watch *w;
	struct screen s;
	int i, y, last;

	fake_init(&f, 64, 256);
	for (i = 0; i < 64; i++)
		snap_row(&f.snap.wins[1], i)[255] = 1000 + i;
	w = watch_new(&fake_source, &f, NULL);
	screen_init(&s, 80, 24);
	watch_refresh(w);
	watch_key(w, '\t');
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "ranks 0-"));
	ck_assert(screen_has(&s, "cells 0-"));
	/* Every row of the screen is used: title, panes, status. */
	ck_assert_int_eq(find_row(&s, " colldb watch  t  64 ranks"), 0);
	ck_assert(strlen(row(&s, 22)) > 0);
	ck_assert(screen_has(&s, " 0 I "));

	/* PgDn many times stops with rank 63 on the last grid row. */
	for (i = 0; i < 20; i++) {
		watch_key(w, VIZ_KEY_PGDN);
		watch_draw(w, &s);
	}
	last = find_row(&s, "63 I ");
	ck_assert_int_eq(last, 22);
	ck_assert(screen_has(&s, " of 64 "));
	watch_key(w, VIZ_KEY_DOWN);
	watch_draw(w, &s);
	ck_assert_int_eq(find_row(&s, "63 I "), 22);

	/* End shows the last cells; Home goes back. */
	watch_key(w, VIZ_KEY_END);
	watch_draw(w, &s);
	y = find_row(&s, "63 I ");
	ck_assert_ptr_nonnull(strstr(row(&s, y), "1063"));
	ck_assert(screen_has(&s, "-255 of 256"));
	watch_key(w, VIZ_KEY_HOME);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "ranks 0-"));
	ck_assert(screen_has(&s, "cells 0-"));
	ck_assert_int_eq(find_row(&s, "63 I "), -1);

	/* Right then Left; Up at the top stays. */
	watch_key(w, VIZ_KEY_RIGHT);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "cells < 1-"));
	watch_key(w, VIZ_KEY_LEFT);
	watch_key(w, VIZ_KEY_LEFT);
	watch_key(w, VIZ_KEY_UP);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "ranks 0-"));
	ck_assert(screen_has(&s, "cells 0-"));
	screen_release(&s);
	watch_free(w);
	fake_release(&f);
}
END_TEST

START_TEST(a_jumps_to_awaited_cells)
{
	struct fake f;
	struct watch *w;
	struct screen s;

	fake_init(&f, 64, 8);
	snap_clear(&f.snap);
	snap_set_ranks(&f.snap, 64);
	snap_add_win(&f.snap, "big", 1, (int[]){ 300 });
	f.snap.ranks[40].state = SNAP_BLOCKED;
	f.snap.ranks[40].win = 0;
	f.snap.ranks[40].cell = 250;
	snap_mark_awaited(&f.snap);
	w = watch_new(&fake_source, &f, NULL);
	screen_init(&s, 80, 24);
	watch_refresh(w);
	watch_draw(w, &s);
	ck_assert_int_eq(find_row(&s, "40 B "), -1);
	watch_key(w, 'a');
	watch_draw(w, &s);
	ck_assert_ptr_nonnull(strstr(row(&s, find_row(&s, "40 B ")), "0*"));
	screen_release(&s);
	watch_free(w);
	fake_release(&f);
}
END_TEST

START_TEST(step_continue_and_read_only)
{
	struct fake f;
	struct watch *w;
	struct screen s;
	struct watch_opts o = WATCH_OPTS_INIT;

	fake_init(&f, 2, 4);
	screen_init(&s, 80, 24);
	w = watch_new(&fake_source, &f, NULL);
	watch_refresh(w);
	ck_assert_int_eq(watch_key(w, 's'), VIZ_REDRAW | VIZ_REFRESH);
	ck_assert_int_eq(f.steps, 1);
	watch_draw(w, &s);
	ck_assert_int_eq(find_row(&s, "stepped 4 ranks"), 23);
	watch_key(w, 'c');
	ck_assert_int_eq(f.conts, 1);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "continue failed"));

	/* Read-only from the snapshot. */
	f.snap.readonly = 1;
	watch_refresh(w);
	ck_assert_int_eq(watch_key(w, 's'), VIZ_REDRAW);
	ck_assert_int_eq(watch_key(w, 'c'), VIZ_REDRAW);
	ck_assert_int_eq(f.steps, 1);
	ck_assert_int_eq(f.conts, 1);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "read-only: 'c' is not available"));
	ck_assert(screen_has(&s, "[read-only]"));
	watch_free(w);

	/* Read-only from the options. */
	f.snap.readonly = 0;
	o.readonly = 1;
	w = watch_new(&fake_source, &f, &o);
	watch_refresh(w);
	watch_key(w, 's');
	ck_assert_int_eq(f.steps, 1);
	watch_free(w);

	/* A source without actions. */
	w = watch_new(&bare_source, &f, NULL);
	watch_refresh(w);
	watch_key(w, 's');
	watch_key(w, 'd');
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "diagnose is not available here"));
	watch_key(w, 's');
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "step is not available here"));
	watch_free(w);
	screen_release(&s);
	fake_release(&f);
}
END_TEST

START_TEST(messages_expire)
{
	struct fake f;
	struct watch *w;
	struct screen s;
	int i;

	fake_init(&f, 2, 4);
	snprintf(f.snap.status, sizeof f.snap.status, "the status");
	screen_init(&s, 80, 24);
	w = watch_new(&fake_source, &f, NULL);
	watch_refresh(w);
	watch_key(w, 's');
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "stepped 4 ranks"));
	for (i = 0; i < 29; i++)
		watch_refresh(w);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "stepped 4 ranks"));
	ck_assert_int_eq(watch_refresh(w) & VIZ_REDRAW, VIZ_REDRAW);
	watch_draw(w, &s);
	ck_assert(!screen_has(&s, "stepped 4 ranks"));
	ck_assert(screen_has(&s, "the status"));
	watch_free(w);
	screen_release(&s);
	fake_release(&f);
}
END_TEST

START_TEST(overlays_help_and_diagnosis)
{
	struct fake f;
	struct watch *w;
	struct screen s;

	fake_init(&f, 2, 4);
	screen_init(&s, 80, 24);
	w = watch_new(&fake_source, &f, NULL);
	watch_refresh(w);

	watch_key(w, '?');
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "+- help "));
	ck_assert(screen_has(&s, "step: every stopped rank runs one"));
	ck_assert(screen_has(&s, "next / previous signal window"));
	/* '?' again closes it; so do q and Esc, without quitting. */
	watch_key(w, '?');
	watch_draw(w, &s);
	ck_assert(!screen_has(&s, "+- help "));
	watch_key(w, '?');
	ck_assert_int_eq(watch_key(w, 'q') & VIZ_QUIT, 0);
	watch_draw(w, &s);
	ck_assert(!screen_has(&s, "+- help "));

	/* Nothing to report: a message, no overlay. */
	watch_key(w, 'd');
	ck_assert_int_eq(f.diagnoses, 1);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "diagnose: nothing to report"));
	ck_assert(!screen_has(&s, "+- diagnose "));

	f.diag = "HANG: no rank can change sig[0] on rank 1\n"
		 "\trank 1  blocked\n";
	watch_key(w, 'd');
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "+- diagnose "));
	ck_assert(screen_has(&s, "| HANG: no rank can change sig[0] on rank 1"));
	ck_assert(screen_has(&s, "|         rank 1  blocked"));
	/* The panes keep refreshing behind the overlay. */
	snprintf(f.snap.ranks[1].op, sizeof f.snap.ranks[1].op, "behind");
	watch_refresh(w);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "   1 idle    behind"));
	ck_assert(screen_has(&s, "+- diagnose "));
	ck_assert_int_eq(watch_key(w, VIZ_KEY_ESC), VIZ_REDRAW);
	watch_draw(w, &s);
	ck_assert(!screen_has(&s, "+- diagnose "));
	ck_assert_int_eq(watch_key(w, 'q'), VIZ_QUIT);
	watch_free(w);
	screen_release(&s);
	fake_release(&f);
}
END_TEST

START_TEST(long_overlay_text_wraps_and_scrolls)
{
	struct fake f;
	struct watch *w;
	struct screen s;
	struct strbuf sb = STRBUF_INIT;
	int i;

	fake_init(&f, 2, 4);
	for (i = 1; i <= 40; i++)
		strbuf_addf(&sb, "line %d\n", i);
	strbuf_addstr(&sb,
	    "a very long line that does not fit in forty "
	    "columns at all, so it wraps\n");
	f.diag = sb.buf;
	screen_init(&s, 40, 12);
	w = watch_new(&fake_source, &f, NULL);
	watch_refresh(w);
	watch_key(w, 'd');
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "| line 1 "));
	ck_assert(screen_has(&s, " 1-8 of 43 "));
	watch_key(w, VIZ_KEY_END);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, " 36-43 of 43 "));
	/* Wrapped at spaces, continuations indented. */
	ck_assert(screen_has(&s, "| a very long line that does not fit   |"));
	ck_assert(screen_has(&s, "|     in forty columns at all, so it   |"));
	ck_assert(screen_has(&s, "|     wraps                            |"));
	watch_key(w, VIZ_KEY_HOME);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, " 1-8 of 43 "));
	watch_free(w);
	screen_release(&s);
	strbuf_release(&sb);
	fake_release(&f);
}
END_TEST

START_TEST(session_end)
{
	struct fake f;
	struct watch *w;
	struct screen s;

	fake_init(&f, 2, 4);
	screen_init(&s, 80, 24);
	w = watch_new(&fake_source, &f, NULL);
	watch_refresh(w);
	ck_assert(!watch_ended(w));
	f.ended = 1;
	ck_assert_int_eq(watch_refresh(w), VIZ_REDRAW);
	ck_assert(watch_ended(w));
	/* The last snapshot stays on screen. */
	ck_assert_int_eq(watch_snap(w)->nranks, 2);
	watch_draw(w, &s);
	ck_assert(screen_has(&s, "session t ended; press any key"));
	ck_assert(screen_has(&s, "[ended]"));
	/* No more snapshots are taken; any key quits. */
	ck_assert_int_eq(watch_refresh(w), 0);
	ck_assert_int_eq(f.snapshots, 2);
	ck_assert_int_eq(watch_key(w, 'x'), VIZ_QUIT);
	ck_assert_int_eq(watch_key(w, VIZ_KEY_RESIZE), VIZ_RESIZE | VIZ_REDRAW);
	watch_free(w);
	screen_release(&s);
	fake_release(&f);
}
END_TEST

START_TEST(tiny_and_resized_screens)
{
	struct fake f;
	struct watch *w;
	struct screen s;
	int cols, rows;

	fake_init(&f, 8, 64);
	w = watch_new(&fake_source, &f, NULL);
	watch_refresh(w);
	/* Too small: the message wraps to the width, never cut mid-word. */
	screen_init(&s, 20, 5);
	watch_draw(w, &s);
	ck_assert_str_eq(row(&s, 0), "colldb watch:");
	ck_assert_str_eq(row(&s, 1), "terminal too small");
	ck_assert_str_eq(row(&s, 2), "(30x8 at least; q");
	ck_assert_str_eq(row(&s, 3), "quits)");
	screen_resize(&s, 31, 7);
	watch_draw(w, &s);
	ck_assert_str_eq(row(&s, 0), "colldb watch: terminal too");
	ck_assert_str_eq(row(&s, 1), "small");
	ck_assert_str_eq(row(&s, 2), "(30x8 at least; q quits)");
	/* Fewer rows than the long wording takes: a shorter one. */
	screen_resize(&s, 12, 3);
	watch_draw(w, &s);
	ck_assert_str_eq(row(&s, 0), "too small");
	ck_assert_str_eq(row(&s, 1), "(30x8); q");
	ck_assert_str_eq(row(&s, 2), "quits");
	screen_resize(&s, 100, 1);
	watch_draw(w, &s);
	ck_assert_str_eq(row(&s, 0), "too small (30x8); q quits");
	/* Every tiny size draws without writing out of bounds (ASan). */
	for (cols = 1; cols < 30; cols++)
		for (rows = 1; rows < 8; rows++) {
			screen_resize(&s, cols, rows);
			watch_draw(w, &s);
		}
	/* Every size draws without writing out of bounds (ASan checks). */
	for (cols = 30; cols <= 140; cols += 7)
		for (rows = 8; rows <= 50; rows += 3) {
			screen_resize(&s, cols, rows);
			watch_key(w, VIZ_KEY_RESIZE);
			watch_draw(w, &s);
			ck_assert_int_eq(find_row(&s, " colldb watch"), 0);
			ck_assert(screen_has(&s, " sig [8,1]"));
		}
	watch_free(w);
	screen_release(&s);
	fake_release(&f);
}
END_TEST

START_TEST(text_pane_splits_lines)
{
	struct pane_view v = { 0 };
	struct pane *p = pane_new(&pane_text_class, &v);
	struct screen s;

	screen_init(&s, 30, 8);
	pane_text_set(p, "t", "a\n\nb\tc\n");
	pane_draw(p, &s, &(struct screen_rect){ 0, 0, 30, 8 });
	/* 3 lines (no empty 4th for the final newline), centred in 8 rows. */
	ck_assert_str_eq(row(&s, 1), "        +- t -------+");
	ck_assert_str_eq(row(&s, 2), "        | a         |");
	ck_assert_str_eq(row(&s, 3), "        |           |");
	ck_assert_str_eq(row(&s, 4), "        | b       c |");
	ck_assert_str_eq(row(&s, 5), "        +-----------+");
	pane_text_set(p, "", "");
	screen_clear(&s);
	pane_draw(p, &s, &(struct screen_rect){ 0, 0, 30, 8 });
	ck_assert_int_eq(find_row(&s, "+---"), 3);
	ck_assert_int_eq(find_row(&s, "|"), -1);
	pane_free(p);
	screen_release(&s);
}
END_TEST

START_TEST(ranks_pane_rows)
{
	struct fake f;
	struct watch *w;
	struct screen s;
	int y;

	fake_init(&f, 3, 4);
	f.snap.show_times = 1;
	f.snap.ranks[0].state = SNAP_DEAD;
	snprintf(f.snap.ranks[0].op, sizeof f.snap.ranks[0].op,
	    "notify 1 sig[0] 1 (killed by SIGKILL)");
	f.snap.ranks[1].state = SNAP_BLOCKED;
	f.snap.ranks[1].now = -3;
	f.snap.ranks[1].expected = 12;
	f.snap.ranks[1].secs = 3725;
	snprintf(f.snap.ranks[1].on, sizeof f.snap.ranks[1].on, "sig[1] == 12");
	f.snap.ranks[2].state = SNAP_EXITED;
	f.snap.ranks[2].secs = 61;
	w = watch_new(&fake_source, &f, NULL);
	screen_init(&s, 100, 24);
	watch_refresh(w);
	watch_draw(w, &s);
	y = find_row(&s, "   0 dead    notify 1 sig[0] 1 (killed by SIGKILL)");
	ck_assert_int_eq(y, 2);
	ck_assert_uint_eq(screen_at(&s, 5, y)->style,
	    SCREEN_REVERSE | SCREEN_FG(SCREEN_RED));
	y = find_row(&s, "   1 blocked ");
	ck_assert_ptr_nonnull(strstr(row(&s, y), "sig[1] == 12"));
	ck_assert_ptr_nonnull(strstr(row(&s, y), " -3/12   1h02m"));
	ck_assert_ptr_nonnull(strstr(row(&s, 4), "   2 exited"));
	ck_assert_ptr_nonnull(strstr(row(&s, 4), "1m01s"));
	watch_free(w);
	screen_release(&s);
	fake_release(&f);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("pane");
	TCase *snap = tcase_create("snap"), *fmt = tcase_create("format");
	TCase *wt = tcase_create("watch");
	const char *ck_fork = getenv("CK_FORK");
	SRunner *sr;
	int failed;

	tcase_add_test(snap, snap_helpers_keep_invariants);
	tcase_add_test(snap, snap_copy_is_deep_and_equal);
	tcase_add_test(snap, snap_marks);
	/* BUG() aborts: testable only in a forked child (not CK_FORK=no). */
	if (ck_fork == NULL || strcmp(ck_fork, "no") != 0) {
		tcase_add_test_raise_signal(snap, snap_bad_shape_is_a_bug,
		    SIGABRT);
		tcase_add_test_raise_signal(snap,
		    snap_owed_out_of_range_is_a_bug, SIGABRT);
	}
	tcase_add_test(snap, state_names);
	tcase_add_test(fmt, parse_fills_the_model);
	tcase_add_test(fmt, format_round_trips);
	tcase_add_test(fmt, parse_errors_name_the_line);
	tcase_add_test(wt, refresh_redraws_only_on_change);
	tcase_add_test(wt, changed_cells_are_highlighted_then_fade);
	tcase_add_test(wt, awaited_and_owed_cells_are_marked);
	tcase_add_test(wt, tab_cycles_windows_and_keeps_them_by_name);
	tcase_add_test(wt, scrolling_64_ranks_256_cells_on_80x24);
	tcase_add_test(wt, a_jumps_to_awaited_cells);
	tcase_add_test(wt, step_continue_and_read_only);
	tcase_add_test(wt, messages_expire);
	tcase_add_test(wt, overlays_help_and_diagnosis);
	tcase_add_test(wt, long_overlay_text_wraps_and_scrolls);
	tcase_add_test(wt, session_end);
	tcase_add_test(wt, tiny_and_resized_screens);
	tcase_add_test(wt, text_pane_splits_lines);
	tcase_add_test(wt, ranks_pane_rows);
	suite_add_tcase(s, snap);
	suite_add_tcase(s, fmt);
	suite_add_tcase(s, wt);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
