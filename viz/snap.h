/*
 * snap.h - one snapshot of a session, as the watch pane shows it.
 *
 * A snapshot is plain data: no pointers into shared memory, no handles.
 * Whoever watches a session (the shell's `watch`, `colldb watch NAME`)
 * fills one from the segment about ten times a second; the pane keeps the
 * previous one to highlight what changed.  Filling never messages a rank.
 *
 * Filling a snapshot (what a watch_source's snapshot callback does; the
 * snapshot it gets is already empty, see snap_clear()):
 *
 *	snap_set_ranks(out, n);		(rows: every rank, in order)
 *	out->world = n;
 *	snprintf(out->session, sizeof out->session, "%s", name);
 *	rk = &out->ranks[1];		(rank = 1, idle, win = cell = -1)
 *	rk->state = SNAP_BLOCKED;
 *	snprintf(rk->op, sizeof rk->op, "step 3/22 wait sig[1,0] >= 1");
 *	snprintf(rk->on, sizeof rk->on, "sig[1,0] >= 1");
 *	rk->now = 0, rk->expected = 1;
 *	rk->win = 0, rk->cell = 4;	(index in out->wins[], flat cell)
 *	w = snap_add_win(out, "sig", 2, (int[]){ 6, 4 });
 *					(every i32 window, in order)
 *	for (r = 0; r < n; r++)
 *		memcpy(snap_row(w, r), cells_of(r), w->ncells * 4);
 *	snap_mark_awaited(out);		(from ranks[].win and .cell)
 *	snap_mark_owed(w, 1, 4, 0);	(rank 0 will notify 1's cell 4)
 *
 * Invariants: ranks has nranks entries; every window's cells, marks and
 * owed_by have nranks * ncells entries (row r belongs to ranks[r]);
 * ncells is the product of shape[0..ndim-1]; strings are NUL-terminated
 * (longer text is cut, snprintf-style).  The helpers below keep these; set
 * the fields they do not manage (texts, states, values) directly.
 *
 * Cost: windows are copied whole on every refresh and the pane looks at
 * every cell (about 2 ns per cell; 64 ranks x 8320 cells cost about 1.3%
 * of a core at 10 Hz, see bench/pane-cost.c).  Signal windows are small;
 * a large i32 data window is better added as a prefix (name it, say,
 * "x[0:4096]") than whole.
 *
 * Ownership: a snapshot owns its arrays.  snap_release() frees them;
 * pointers into a snapshot (snap_row(), wins[], ranks[]) are borrowed until
 * the next snap_set_ranks(), snap_add_win(), snap_copy() into it,
 * snap_clear() or snap_release().
 */
#ifndef COLLDB_VIZ_SNAP_H
#define COLLDB_VIZ_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include "../core/common.h"

#define SNAP_NAME_MAX 64    /* session and window names, NUL included */
#define SNAP_TEXT_MAX 96    /* op and blocked-on texts, NUL included */
#define SNAP_STATUS_MAX 160 /* status line, NUL included */
#define SNAP_DIMS_MAX 4	    /* flatten leading dims of deeper shapes */

enum snap_state {
	SNAP_IDLE,    /* waiting for the user: nothing to run */
	SNAP_RUNNING, /* executing micro-ops */
	SNAP_STOPPED, /* at the step gate (step mode or a breakpoint) */
	SNAP_BLOCKED, /* inside a wait that is not satisfied */
	SNAP_EXITED,  /* the rank process ended normally */
	SNAP_DEAD,    /* killed or crashed; op says what it was doing */
	SNAP_NSTATES
};

struct snap_rank {
	int rank; /* rank number (snap_set_ranks sets row index) */
	enum snap_state state;
	char op[SNAP_TEXT_MAX]; /* current op, "" when none */
	char on[SNAP_TEXT_MAX]; /* blocked-on text, e.g. "sig[1,0] >= 1" */
	int32_t now;		/* blocked: the cell's current value */
	int32_t expected;	/* blocked: the value waited for */
	int win;		/* blocked: index in wins[] of the awaited */
	int cell;		/*   window and flat cell index, or -1 / -1 */
	double secs; /* seconds in this state (shown if show_times) */
};

/* Per-cell marks (struct snap_win.marks). */
enum snap_mark {
	SNAP_AWAITED = 1 << 0,	 /* the row's rank waits on this cell */
	SNAP_OWED = 1 << 1,	 /* a rank's remaining micro-ops notify it */
	SNAP_OWED_MANY = 1 << 2, /* more than one rank owes it */
	SNAP_ABSENT = 1 << 3,	 /* the window is not on the row's rank (a
				  * comm domain's window); the cell reads 0 */
};

struct snap_win {
	char name[SNAP_NAME_MAX];
	int ndim;		  /* 1 .. SNAP_DIMS_MAX */
	int shape[SNAP_DIMS_MAX]; /* row-major; shape[ndim-1] varies fastest */
	int ncells;		  /* product of the shape */
	int nrows;		  /* == the snapshot's nranks */
	int32_t *cells;		  /* [nranks][ncells]: values */
	uint8_t *marks;		  /* [nranks][ncells]: enum snap_mark bits */
	int16_t *owed_by;	  /* [nranks][ncells]: first owing rank, -1 */
	size_t alloc;		  /* private: capacity, in cells */
};

struct snap {
	char session[SNAP_NAME_MAX]; /* session name, "" if unknown */
	int world;		     /* world size shown in the title */
	int nranks;		     /* rows in ranks[] and in each window */
	struct snap_rank *ranks;
	int nwins;
	struct snap_win *wins;
	char status[SNAP_STATUS_MAX]; /* one-line status/message, or "" */
	int readonly;		      /* 1: the pane must not offer s / c */
	int show_times;		      /* 1: show ranks[].secs */
	int ranks_alloc, wins_alloc;  /* private: capacities */
};

/* An empty snapshot (no ranks, no windows); no allocation. */
void snap_init(struct snap *s);
/* Free everything and leave s empty, as after snap_init(). */
void snap_release(struct snap *s);
/*
 * Make s empty (no ranks, no windows, empty strings, flags 0) but keep its
 * storage, so refilling at the same size does not allocate.
 */
void snap_clear(struct snap *s);

/*
 * Set the number of rank rows to n and drop every window.  Each row is
 * reset: rank = row index, SNAP_IDLE, empty texts, now = expected = 0,
 * win = cell = -1, secs = 0.  world is set to n if it was 0.
 */
void snap_set_ranks(struct snap *s, int n);

/*
 * Append a window of ndim dims (1 .. SNAP_DIMS_MAX, each >= 1) after
 * snap_set_ranks().  Its cells are 0, marks 0 and owed_by -1.  Returns the
 * window, borrowed (see the header comment).  Invalid shapes are a BUG().
 */
struct snap_win *snap_add_win(struct snap *s, const char *name, int ndim,
    const int *shape);

/* Mark row r of w absent: its rank is outside the window's domain. */
void snap_mark_absent(struct snap_win *w, int r);

/* Make dst a deep copy of src (dst must be initialised; storage reused). */
void snap_copy(struct snap *dst, const struct snap *src);

/*
 * 1 if a and b show the same thing: every field except secs (when neither
 * shows times) and the private capacities.
 */
int snap_equal(const struct snap *a, const struct snap *b);

/*
 * Keep only the rows r with keep[r] != 0 (keep has nranks entries), in
 * order: ranks[] and every window's rows move up together, so the
 * invariants hold; ranks[].rank still names each row's rank.
 */
void snap_keep_rows(struct snap *s, const uint8_t *keep);

/* Index of the window called name, or -1. */
int snap_find_win(const struct snap *s, const char *name);

/* Row r of window w: w->ncells values. */
static inline int32_t *
snap_row(const struct snap_win *w, int r)
{
	return w->cells + (size_t)r * w->ncells;
}

/* Flat index of (row r, cell i) in cells, marks and owed_by. */
static inline size_t
snap_idx(const struct snap_win *w, int r, int i)
{
	return (size_t)r * w->ncells + i;
}

/*
 * Set SNAP_AWAITED on the cell each blocked rank waits on (ranks[r].win
 * and .cell, in row r).  Rows whose win or cell are out of range are
 * skipped.
 */
void snap_mark_awaited(struct snap *s);

/*
 * Record that rank `by` still owes a notify to row r's cell i of w.  The
 * first owing rank is kept in owed_by; a second, different one adds
 * SNAP_OWED_MANY.  Out-of-range r or i is a BUG().
 */
void snap_mark_owed(struct snap_win *w, int r, int i, int by);

/* "idle", "running", ... ; "?" for an out-of-range state. */
const char *snap_state_name(enum snap_state st);
/* The state called name, or -1. */
int snap_state_parse(const char *name);

/*
 * Text format (used by the pane tests, tests/viz/ *.snap, and handy for
 * saving what the pane saw).  One directive per line, '#' starts a
 * comment line, TEXT runs to the end of the line:
 *
 *	session NAME
 *	world N			world size (default: the number of rows)
 *	ranks N			number of rows; must precede rank/win lines
 *	readonly 0|1
 *	times 0|1
 *	status TEXT
 *	rank R STATE [SECS]	row R's state (idle, running, ...)
 *	op R TEXT
 *	on R WIN CELL NOW EXPECTED TEXT
 *				row R is blocked on window WIN ('-': none)
 *				flat cell CELL; TEXT is the blocked-on text
 *	win NAME D0 [D1 ...]	start a window; later row/await/owe lines
 *				refer to it
 *	row R V0 V1 ...		row R's values (fewer than ncells: rest 0);
 *				R may be a range A-B (same values for each),
 *				a value V*K stands for K copies of V
 *	await R CELL		mark row R's CELL awaited
 *	owe R CELL BY [+]	rank BY owes row R's CELL ('+': and others)
 *	absent R		the window is not on row R's rank (a domain's)
 *
 * After parsing, snap_mark_awaited() is applied, so blocked ranks' cells
 * need no await line.
 */
struct strbuf;

/*
 * Parse text into s (cleared first).  Returns 0, or -1 with *cause set to
 * "line N: ..." (caller frees).
 */
int snap_parse(struct snap *s, const char *text, char **cause);
/* Append s to out in the text format; snap_parse() reads it back equal. */
void snap_format(const struct snap *s, struct strbuf *out);

#endif
