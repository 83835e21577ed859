/*
 * pane-demo.c - the real curses watch pane on a synthetic, changing
 * session (for tests/viz/tmux-pane.sh and for looking at the pane).
 *
 * usage: pane-demo [-Irt] [-n RANKS] [-c CELLS] [-i MS] [-e SNAPS]
 *                  [-S MS] [-p PIDFILE]
 *   -n  ranks (default 4)            -c  cells of the 1-D "flags" window
 *   -i  refresh period in ms         -r  read-only
 *   -t  show seconds in state        -e  the session ends after SNAPS
 *   -S  dereference NULL after MS ms (tests the SIGSEGV path)
 *   -p  write our pid to PIDFILE
 *   -I  install a SIGINT handler first, as the shell does
 *
 * A fake ring runs: every snapshot advances a tick while running; 's'
 * pauses and advances one tick, 'c' runs again.  The status line shows the
 * tick.  Exit: 0 after q, 3 when the session ended, 4 when interrupted
 * (-I and ^C), 2 on error; a line on stdout says which (printed after the
 * terminal is restored).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "snap.h"
#include "strbuf.h"
#include "watch.h"
#include "xmalloc.h"

struct demo {
	int nranks, ncells;
	long tick;
	int paused;
	long snaps, end_after;
	long segv_ms;
	struct timespec t0;
	int show_times;
};

static volatile sig_atomic_t demo_sigint;

static void
demo_on_sigint(int sig)
{
	demo_sigint = 1;
}

static long
demo_ms(const struct demo *d)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - d->t0.tv_sec) * 1000 +
	    (ts.tv_nsec - d->t0.tv_nsec) / 1000000;
}

static int
demo_snapshot(void *arg, struct snap *out)
{
	static const enum snap_state cycle[] = { SNAP_RUNNING, SNAP_BLOCKED,
		SNAP_STOPPED, SNAP_IDLE };
	struct demo *d = arg;
	struct snap_rank *rk;
	struct snap_win *sig, *flags;
	int n = d->nranks, steps = 2 * (n - 1), k, r, left, c;
	long t;

	if (d->segv_ms > 0 && demo_ms(d) >= d->segv_ms)
		raise(SIGSEGV); /* a crash, without undefined behaviour */
	if (d->end_after > 0 && d->snaps >= d->end_after)
		return -1;
	d->snaps++;
	if (!d->paused)
		d->tick++;
	t = d->tick;
	k = (int)(t % steps);

	snap_set_ranks(out, n);
	snprintf(out->session, sizeof out->session, "demo");
	snprintf(out->status, sizeof out->status, "demo tick %ld (%s)", t,
	    d->paused ? "paused" : "running");
	out->show_times = d->show_times;
	sig = snap_add_win(out, "sig", 2, (int[]){ steps, n });
	flags = snap_add_win(out, "flags", 1, (int[]){ d->ncells });
	for (r = 0; r < n; r++) {
		for (c = 0; c < steps * n; c++)
			snap_row(sig, r)[c] =
			    (int)((t + steps * n - c) / (steps * n) +
				(c % n == r));
		for (c = 0; c < d->ncells; c++)
			snap_row(flags, r)[c] =
			    c == (int)(t % d->ncells) ? (int)(t * (r + 1)) : 0;
		rk = &out->ranks[r];
		rk->state = d->paused ? SNAP_STOPPED :
					cycle[(r + t / 5) % ARRAY_SIZE(cycle)];
		rk->secs = (double)((t + r) % 50) / 10;
		left = (r + n - 1) % n;
		snprintf(rk->op, sizeof rk->op,
		    "ring step %d/%d notify "
		    "sig[%d,%d] -> %d",
		    k + 1, steps, k, r, (r + 1) % n);
		if (rk->state == SNAP_BLOCKED) {
			rk->win = 0;
			rk->cell = k * n + left;
			rk->now = snap_row(sig, r)[rk->cell];
			rk->expected = rk->now + 1;
			snprintf(rk->on, sizeof rk->on, "sig[%d,%d] >= %d", k,
			    left, rk->expected);
			snap_mark_owed(sig, r, rk->cell, left);
		}
	}
	snap_mark_awaited(out);
	return 0;
}

static int
demo_step(void *arg, char **msg)
{
	struct demo *d = arg;

	d->paused = 1;
	d->tick++;
	*msg = xasprintf("stepped to tick %ld", d->tick);
	return 0;
}

static int
demo_cont(void *arg, char **msg)
{
	struct demo *d = arg;

	d->paused = 0;
	*msg = xstrdup("running");
	return 0;
}

static char *
demo_diagnose(void *arg)
{
	struct demo *d = arg;
	struct strbuf sb = STRBUF_INIT;
	int i;

	strbuf_addf(&sb, "HANG: demo diagnosis at tick %ld\n", d->tick);
	for (i = 0; i < 30; i++)
		strbuf_addf(&sb, "  line %d of the demo diagnosis\n", i + 1);
	strbuf_addstr(&sb, "likely cause: this is a demo\n");
	return strbuf_detach(&sb, NULL);
}

static const struct watch_source demo_source = {
	.snapshot = demo_snapshot,
	.step = demo_step,
	.cont = demo_cont,
	.diagnose = demo_diagnose,
};

int
main(int argc, char **argv)
{
	struct watch_opts opts = WATCH_OPTS_INIT;
	struct demo d = { .nranks = 4, .ncells = 16 };
	const char *pidfile = NULL;
	FILE *f;
	int c, rc;

	while ((c = getopt(argc, argv, "n:c:i:e:S:p:Irt")) != -1) {
		switch (c) {
		case 'n':
			d.nranks = atoi(optarg);
			break;
		case 'c':
			d.ncells = atoi(optarg);
			break;
		case 'i':
			opts.interval_ms = atoi(optarg);
			break;
		case 'e':
			d.end_after = atol(optarg);
			break;
		case 'S':
			d.segv_ms = atol(optarg);
			break;
		case 'p':
			pidfile = optarg;
			break;
		case 'r':
			opts.readonly = 1;
			break;
		case 't':
			d.show_times = 1;
			break;
		case 'I':
			signal(SIGINT, demo_on_sigint);
			break;
		default:
			fprintf(stderr,
			    "usage: pane-demo [-Irt] [-n RANKS] "
			    "[-c CELLS] [-i MS] [-e SNAPS] [-S MS] "
			    "[-p PIDFILE]\n");
			return 2;
		}
	}
	if (d.nranks < 2 || d.nranks > 1024 || d.ncells < 1 ||
	    d.ncells > 1 << 16) {
		fprintf(stderr, "pane-demo: bad -n or -c\n");
		return 2;
	}
	if (pidfile != NULL) {
		if ((f = fopen(pidfile, "w")) == NULL) {
			perror(pidfile);
			return 2;
		}
		fprintf(f, "%ld\n", (long)getpid());
		fclose(f);
	}
	clock_gettime(CLOCK_MONOTONIC, &d.t0);
	rc = watch_run(&demo_source, &d, &opts);
	switch (rc) {
	case WATCH_QUIT:
		printf("pane-demo: quit after %ld snapshots\n", d.snaps);
		return 0;
	case WATCH_ENDED:
		printf("pane-demo: session ended\n");
		return 3;
	case WATCH_INTERRUPTED:
		printf("pane-demo: interrupted (our SIGINT handler %s)\n",
		    demo_sigint ? "ran" : "did not run");
		return 4;
	default:
		fprintf(stderr, "pane-demo: %s\n", watch_error());
		return 2;
	}
}
