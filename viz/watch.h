/*
 * watch.h - the live watch pane: its event loop and the state behind it.
 *
 * The caller (the shell's `watch` command, `colldb watch NAME`) supplies a
 * watch_source: callbacks that fill a snapshot from the session segment
 * and perform the few actions the pane offers.  Then:
 *
 *	static const struct watch_source src = {
 *		.snapshot = sess_snapshot,	(required)
 *		.step = sess_step,		(NULL: 's' unavailable)
 *		.cont = sess_continue,		(NULL: 'c' unavailable)
 *		.diagnose = sess_diagnose,	(NULL: 'd' unavailable)
 *	};
 *	struct watch_opts opts = WATCH_OPTS_INIT;
 *	opts.readonly = attached_from_outside;
 *	rc = watch_run(&src, sess, &opts);
 *	if (rc == WATCH_ERROR)
 *		error("watch: %s", watch_error());
 *	else if (rc == WATCH_ENDED)
 *		printf("session %s ended\n", name);
 *	(WATCH_QUIT: q; WATCH_INTERRUPTED: ^C went to the caller's handler)
 *
 * watch_run() owns the terminal until it returns (see viz.h for how it is
 * restored on every path).  Callbacks run on the caller's thread, inside
 * the loop, with the terminal in curses mode: they must not print.
 *
 * The loop (STYLE 20): poll the keyboard, opts->fd and a timer; handlers
 * return viz_flags bits; the screen model is drawn and painted at most
 * once per iteration, and only when a key arrived or the snapshot showed
 * something new.  A snapshot is taken every opts->interval_ms (10 Hz by
 * default) and right after s, c or a VIZ_REFRESH from fd_ready.
 *
 * The title says how many ranks are in each state ("64 ranks: 63
 * blocked, 1 running"); '/' shows only the blocked and stopped ones (and
 * again all), and opts->only limits the rows to a rank set, so a world of
 * 64 ranks and more fits one screen.
 * The same state machine runs without a terminal for tests and benchmarks:
 * watch_new(), watch_refresh(), watch_key(), watch_draw() into a struct
 * screen, then dump_screen() (viz.h).
 */
#ifndef COLLDB_VIZ_WATCH_H
#define COLLDB_VIZ_WATCH_H

#include "screen.h"
#include "snap.h"

struct watch_source {
	/*
	 * Fill out (already empty, see snap_clear(); its storage is reused
	 * from an older snapshot, so refilling at the same size does not
	 * allocate).  Return 0, or -1 when the session has ended: the pane
	 * then keeps the last snapshot on screen, says the session ended and
	 * returns WATCH_ENDED after opts->linger_ms or at the next key.
	 */
	int (*snapshot)(void *arg, struct snap *out);
	/*
	 * 's' and 'c': step every stopped rank one micro-op / let every rank
	 * run.  Return 0 or -1; either way *msg may be set to a one-line
	 * message for the status line (the pane frees it).  Not called when
	 * read-only (opts->readonly or the snapshot's readonly flag).
	 */
	int (*step)(void *arg, char **msg);
	int (*cont)(void *arg, char **msg);
	/*
	 * 'd': a diagnosis, shown in a scrollable overlay; lines split at
	 * '\n'.  Returns a heap string the pane frees, or NULL for none.
	 */
	char *(*diagnose)(void *arg);
	/*
	 * opts->fd is readable (or hung up).  Return viz_flags bits (viz.h):
	 * VIZ_REFRESH to take a snapshot now, VIZ_QUIT to leave.  When NULL,
	 * a readable fd just triggers a snapshot.  An fd reporting POLLHUP or
	 * POLLERR is not polled again.
	 */
	int (*fd_ready)(void *arg);
};

struct watch_opts {
	int interval_ms;     /* snapshot period; <= 0: 100 (10 Hz) */
	int readonly;	     /* 1: never offer s / c */
	int fd;		     /* extra fd to poll; <= 0: none (0 is the
			    keyboard, so a zeroed struct means none) */
	int hold;	     /* snapshots a change stays highlighted;
			    <= 0: 10 (one second at 10 Hz) */
	int linger_ms;	     /* after the session ended, return after
			    this long or at a key; 0: 3000, < 0: wait
			    for a key */
	int waiting_only;    /* start with the '/' filter on: only blocked
			     and stopped ranks are shown */
	const uint8_t *only; /* NULL, or only_n bytes: show rank r only
				when r < only_n and only[r] (borrowed) */
	int only_n;
	const char *only_label; /* the set as typed ("@0-7"), for the title */
};

#define WATCH_OPTS_INIT \
	{ \
		.interval_ms = 100, .readonly = 0, .fd = -1, .hold = 10, \
		.linger_ms = 3000, .waiting_only = 0, .only = NULL, \
		.only_n = 0, .only_label = NULL \
	}

/* watch_run() results. */
enum watch_result {
	WATCH_ERROR = -1, /* see watch_error() */
	WATCH_QUIT = 0,	  /* the user pressed q */
	WATCH_ENDED = 1,  /* the snapshot callback said the session ended */
	WATCH_INTERRUPTED = 2, /* SIGINT/SIGTERM/SIGHUP reached a handler
				  the caller had installed (e.g. ^C with
				  the shell's SIGINT handler): the terminal
				  was restored and that handler ran */
};

/*
 * Run the pane until q, the end of the session, or an error.  opts may be
 * NULL (defaults).  Returns an enum watch_result.
 */
int watch_run(const struct watch_source *src, void *arg,
    const struct watch_opts *opts);

/* Why the last watch_run() returned WATCH_ERROR; borrowed, static. */
const char *watch_error(void);

/* ---- the state machine behind watch_run() ---- */

struct watch;

/* src and arg are borrowed for the watch's life; opts is copied. */
struct watch *watch_new(const struct watch_source *src, void *arg,
    const struct watch_opts *opts);
void watch_free(struct watch *w);

/* Take a snapshot and update the panes; returns viz_flags (VIZ_REDRAW). */
int watch_refresh(struct watch *w);
/* Handle one key; returns viz_flags (VIZ_REDRAW, VIZ_QUIT, ...). */
int watch_key(struct watch *w, int key);
/* Draw everything into s (cleared first) at s's size. */
void watch_draw(struct watch *w, struct screen *s);
/* 1 once the snapshot callback reported the end of the session. */
int watch_ended(const struct watch *w);
/* The snapshot on screen; borrowed until the next watch_refresh(). */
const struct snap *watch_snap(const struct watch *w);

#endif
