/*
 * pane-cost.c - what the watch pane costs: 64 ranks x 256 cells sampled at
 * 10 Hz, without a terminal (not part of make check).
 *
 * usage: pane-cost [-a] [-s SECS] [-r RANKS] [-c CELLS] [-g COLSxROWS]
 *   -a  every cell changes every sample (worst case; default: 16 cells
 *       per rank change per sample, the rest stay)
 *
 * Each sample does what watch_run() does minus the terminal: the snapshot
 * callback copies a fake status board and signal window (a heap block
 * standing in for the shm segment) into the snapshot, the panes update,
 * and on a change the screen model is drawn and then either dropped
 * ("null" backend) or formatted as text ("dump" backend).  CPU time is
 * getrusage(RUSAGE_SELF) user + system over the run, against wall time.
 * A second, unthrottled run gives the time per sample.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "snap.h"
#include "strbuf.h"
#include "viz.h"
#include "watch.h"

struct fake_seg {
	int nranks, ncells;
	int32_t *cells; /* [nranks][ncells], "in shm" */
	long tick;
	int all;
};

static int
seg_snapshot(void *arg, struct snap *out)
{
	struct fake_seg *g = arg;
	struct snap_win *w;
	struct snap_rank *rk;
	int r, k, n = g->ncells;

	/* The ranks move on. */
	g->tick++;
	for (r = 0; r < g->nranks; r++)
		for (k = 0; k < (g->all ? n : 16); k++)
			g->cells[(size_t)r * n +
			    (g->all ? k : (g->tick * 16 + k) % n)]++;

	/* What the shell's callback does: copy the board and the window. */
	snap_set_ranks(out, g->nranks);
	snprintf(out->session, sizeof out->session, "bench");
	snprintf(out->status, sizeof out->status, "sample %ld", g->tick);
	w = snap_add_win(out, "sig", 1, &g->ncells);
	for (r = 0; r < g->nranks; r++) {
		rk = &out->ranks[r];
		rk->state = r % 3 == 0 ? SNAP_BLOCKED : SNAP_RUNNING;
		snprintf(rk->op, sizeof rk->op,
		    "step %ld/22 wait sig[%d] >= %d", g->tick % 22, r, 3);
		if (rk->state == SNAP_BLOCKED) {
			rk->win = 0;
			rk->cell = r % n;
			rk->now = g->cells[(size_t)r * n + rk->cell];
			rk->expected = rk->now + 1;
			snprintf(rk->on, sizeof rk->on, "sig[%d] >= %d",
			    rk->cell, rk->expected);
			snap_mark_owed(w, r, rk->cell, (r + 1) % g->nranks);
		}
		memcpy(snap_row(w, r), g->cells + (size_t)r * n,
		    n * sizeof *g->cells);
	}
	snap_mark_awaited(out);
	return 0;
}

static const struct watch_source seg_source = { .snapshot = seg_snapshot };

static int
usage(void)
{
	fprintf(stderr,
	    "usage: pane-cost [-a] [-s SECS] [-r RANKS] "
	    "[-c CELLS] [-g COLSxROWS]\n");
	return 2;
}

static double
cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double
wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One sample; returns 1 when it drew. */
static int
sample(struct watch *w, struct screen *scr, int dump, struct strbuf *sb)
{
	if (!(watch_refresh(w) & VIZ_REDRAW))
		return 0;
	watch_draw(w, scr);
	if (dump) {
		strbuf_reset(sb);
		dump_screen(scr, sb, DUMP_STYLES);
	}
	return 1;
}

static void
run(struct fake_seg *g, int cols, int rows, int dump, double secs)
{
	struct watch_opts o = WATCH_OPTS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct screen scr;
	struct watch *w;
	struct timespec next;
	double c0, t0, c1, t1;
	long i, n = (long)(secs * 10), drawn = 0, fast = 2000;

	screen_init(&scr, cols, rows);
	w = watch_new(&seg_source, g, &o);
	sample(w, &scr, dump, &sb);

	/* 10 Hz, as the pane samples. */
	clock_gettime(CLOCK_MONOTONIC, &next);
	c0 = cpu_seconds();
	t0 = wall_seconds();
	for (i = 0; i < n; i++) {
		next.tv_nsec += 100 * 1000 * 1000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		drawn += sample(w, &scr, dump, &sb);
	}
	c1 = cpu_seconds();
	t1 = wall_seconds();
	printf("%-4s %dx%d  10 Hz for %.1f s: %ld samples, %ld drawn, "
	       "cpu %.4f s = %.3f%% of one core\n",
	    dump ? "dump" : "null", cols, rows, t1 - t0, n, drawn, c1 - c0,
	    100 * (c1 - c0) / (t1 - t0));

	/* Unthrottled: the cost of one sample. */
	c0 = cpu_seconds();
	t0 = wall_seconds();
	for (i = 0; i < fast; i++)
		sample(w, &scr, dump, &sb);
	t1 = wall_seconds();
	c1 = cpu_seconds();
	printf("%-4s %dx%d  per sample (%ld unthrottled): %.1f us cpu, "
	       "%.1f us wall\n",
	    dump ? "dump" : "null", cols, rows, fast, 1e6 * (c1 - c0) / fast,
	    1e6 * (t1 - t0) / fast);
	watch_free(w);
	screen_release(&scr);
	strbuf_release(&sb);
}

int
main(int argc, char **argv)
{
	struct fake_seg g = { .nranks = 64, .ncells = 256 };
	double secs = 3;
	int c, cols = 80, rows = 24;

	while ((c = getopt(argc, argv, "as:r:c:g:")) != -1) {
		switch (c) {
		case 'a':
			g.all = 1;
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'r':
			g.nranks = atoi(optarg);
			break;
		case 'c':
			g.ncells = atoi(optarg);
			break;
		case 'g':
			if (sscanf(optarg, "%dx%d", &cols, &rows) != 2)
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (g.nranks < 1 || g.ncells < 1 || secs <= 0 || cols < 1 || rows < 1)
		return usage();
	g.cells = calloc((size_t)g.nranks * g.ncells, sizeof *g.cells);
	if (g.cells == NULL)
		return 1;
	printf("pane-cost: %d ranks x %d cells, %s\n", g.nranks, g.ncells,
	    g.all ? "every cell changes every sample" :
		    "16 cells per rank change per sample");
	run(&g, cols, rows, 0, secs);
	run(&g, cols, rows, 1, secs);
	free(g.cells);
	return 0;
}
