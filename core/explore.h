/*
 * explore.h - the schedule explorer: every interleaving that matters of
 * the ranks' micro-op programs, checked in every execution.
 *
 * What it does.  Each rank runs a sequence of programs (calls).  The
 * explorer runs them on a simulated world (core/sim.h) over copies of the
 * window areas and explores one execution per equivalence class of
 * interleavings: dynamic partial-order reduction with source sets and
 * sleep sets (Abdulla, Aronis, Jonsson, Sagonas, "Optimal dynamic partial
 * order reduction", POPL 2014, Algorithm 1).  A wait whose cell does not
 * hold is a disabled step.  In every execution it checks:
 *
 *   hang          some rank is blocked and none can move;
 *   data race     two accesses to overlapping bytes, at least one a plain
 *                 (non-atomic) write, not ordered by happens-before;
 *   stale credit  a wait that passed on credit a previous call (or the
 *                 start state) left in its cell;
 *   signal        a call that must clear its signal (a collective, or a
 *                 repeated script pass) left a cell it used non-zero;
 *   wrong result  a collective's output differs from the reference
 *                 (explore_check_coll(), the shell's `check`);
 *   expect        a predicate of the caller (the shell's expect lines).
 *
 * Dependence.  Two steps of different ranks are dependent when they touch
 * overlapping bytes of one rank's area and one of them writes (a notify
 * writes its cell, put/get/copy/reduce/fill read and write regions); steps
 * of one rank always are.  Waits are refined: a wait depends only on the
 * write that made its condition true for it (its "enabling write": the
 * last write to the cell before which the condition failed, or the
 * waiting rank's own last write to the cell), and a later write depends on
 * an earlier wait only when it leaves the cell failing that wait.  Writes
 * to one cell stay totally ordered, so the value sequence of every cell is
 * fixed within a class and a wait may move freely between its enabling
 * write and the next write that would block it: a credit arriving before
 * or after a wait that no longer needs it is one execution, not two.
 *
 * Happens-before (for data races) is program order plus notify->wait
 * edges: a wait is ordered after the notifies its enabling write closes
 * (the notifies on the cell back to the last set, the release sequence of
 * the value it first observes).  A credit of a previous call in that
 * chain, without which the condition would not hold, is a stale credit.
 *
 * Bounds: max executions, depth (steps per execution), preemptions per
 * execution (CHESS-style preemption bounding: a switch away from a rank
 * that could have gone on), and a time limit.  Each one that cut the
 * search is reported in explore_stats.cut; a cut search is not exhaustive
 * and says how many branches it left ("at least" figures).
 *
 * Counterexamples.  For each kind, the explorer keeps one failing
 * execution: the prefix that shows it (for a race, what both accesses
 * depend on), relinearised with the fewest context switches it finds, and
 * preferring, for a race, the order of the two accesses that the first
 * execution explored did not take (the schedule that did not happen).
 *
 * The schedule interface (struct explore_sys) is what the engine
 * explores: any system that can say what each process's next step
 * touches, take it, and take it back (or start over: undo may be NULL,
 * then the engine resets and replays the prefix).  The micro-op world
 * below is one such system; a user program re-run through the step gate
 * would be another.
 *
 * Ownership: explore_new() returns a handle freed with explore_free();
 * programs given to explore_push() belong to it.  Findings, stats and the
 * simulator returned are borrowed until explore_free().  cause strings are
 * the caller's to free().
 */
#ifndef COLLDB_EXPLORE_H
#define COLLDB_EXPLORE_H

#include <stddef.h>
#include <stdint.h>

#include "coll.h"
#include "diag.h"
#include "prog.h"
#include "sim.h"

#define EXPLORE_MAX_RANKS 64

/* ---- the schedule interface ---------------------------------------------- */

enum xev_kind {
	XEV_DATA,   /* reads and writes regions (acc[]) */
	XEV_NOTIFY, /* atomic write of a cell: op, value */
	XEV_WAIT,   /* atomic read of own cell: op (cmp), value */
};

enum xev_flags {
	XEV_F_SELFCLEAR = 1 << 0, /* its call must leave its cells at zero */
	XEV_F_EXCLUSIVE = 1 << 1, /* its call may not overlap another such call
				   * in a replay (the live shell runs one
				   * collective at a time) */
};

/* One region a step touches in rank `area`'s window area. */
struct xacc {
	int area;
	uint8_t write;
	uint8_t atomic;	   /* an atomic add (put with add) */
	uint64_t off, len; /* bytes */
};

/* What a process's next step is. */
struct xev {
	uint8_t kind;  /* enum xev_kind */
	uint8_t nacc;  /* XEV_DATA: regions in acc[] */
	uint8_t op;    /* notify: enum notify_op; wait: enum wait_cmp */
	uint8_t flags; /* enum xev_flags */
	int32_t value; /* notify amount / wait operand */
	int cell_area; /* notify/wait: the cell's rank and offset */
	uint64_t cell_off;
	struct xacc acc[2];
	uint32_t call;	  /* which call it belongs to (increasing in
				 * program order on every process) */
	uint32_t seq, pc; /* the process's position (for naming) */
};

enum xnext { XN_DONE, XN_READY, XN_BLOCKED };

struct explore;

struct explore_sys {
	void *arg;
	int nprocs; /* processes = areas, <= EXPLORE_MAX_RANKS */
	/* p's next step (ev filled unless XN_DONE).  Only a XEV_WAIT step is
	 * ever XN_BLOCKED, exactly when its condition fails on its cell: the
	 * engine asks again only for the process that moved. */
	enum xnext (*next)(void *arg, int p, struct xev *ev);
	/* take p's next step: 0, or -1 + cause */
	int (*step)(void *arg, int p, char **cause);
	/* take back the last step; NULL: the engine resets and replays */
	void (*undo)(void *arg);
	/* back to the start state (used when undo is NULL) */
	void (*reset)(void *arg);
	int32_t (*cell)(void *arg, int area, uint64_t off);
	/* a cell just before step `step` of the current execution */
	int32_t (*cell_before)(void *arg, size_t step, int area, uint64_t off);
	/* checks at the end of a complete execution: report with
	 * explore_report(); may be NULL */
	void (*final)(void *arg, struct explore *x);
	/* a hash of the current state (distinct final states) */
	uint64_t (*hash)(void *arg);
};

/* ---- options, results ---------------------------------------------------- */

enum explore_flags {
	EXPLORE_F_NAIVE = 1 << 0, /* no reduction: every interleaving (the
					 * brute force the tests compare with) */
};

struct explore_opts {
	uint64_t max;	/* executions; 0 = no limit */
	uint32_t depth; /* steps per execution; 0 = no limit */
	int preempt;	/* preemptions per execution; < 0 = no bound */
	double time;	/* seconds; 0 = no limit */
	unsigned flags; /* enum explore_flags */
	const volatile int *stop; /* stop when it becomes non-zero (an
					 * interrupt); may be NULL */
};

enum explore_kind {
	XK_HANG,
	XK_RACE,
	XK_WRONG,
	XK_SIGNAL,
	XK_STALE,
	XK_EXPECT,
	XK__COUNT
};

enum explore_cut {
	XCUT_MAX = 1 << 0,
	XCUT_DEPTH = 1 << 1,
	XCUT_PREEMPT = 1 << 2,
	XCUT_TIME = 1 << 3,
	XCUT_STOP = 1 << 4,
};

/* One step of a schedule: micro-op pc of program seq of process proc. */
struct xstep {
	int proc;
	uint32_t seq, pc;
	uint32_t call;
};

/* Who did what, in a finding. */
struct xwho {
	struct xstep at; /* proc -1: nobody (the start state) */
	int write;	 /* the access writes */
};

struct explore_finding {
	enum explore_kind kind;
	struct xstep *steps; /* the counterexample */
	size_t nsteps;
	unsigned switches; /* context switches in it */
	int replayable;	   /* respects XEV_F_EXCLUSIVE */
	/* race: a = earlier access, b = later; stale: a = the notify whose
	 * credit was stale (proc -1: left in the start state), b = the wait */
	struct xwho a, b;
	int area;	   /* race: whose bytes; signal/stale: cell's rank */
	uint64_t off, len; /* race: the overlap; signal/stale: the cell */
	int32_t value;	   /* signal: left in the cell; stale: seen */
	uint32_t call;	   /* signal: after this call; stale: the stale
				 * credit's call */
	int rank;	   /* wrong: first rank with a wrong element */
	uint64_t wrong;	   /* wrong: elements wrong over all ranks */
	char *text;	   /* expect: what the predicate said */
};

struct explore_stats {
	uint64_t executions; /* complete + hung */
	uint64_t hung;
	uint64_t redundant; /* stopped by sleep sets */
	uint64_t distinct;  /* distinct end states */
	uint64_t steps;	    /* micro-ops executed (replays included) */
	uint64_t pending;   /* branches left when cut */
	double seconds;
	unsigned cut; /* enum explore_cut */
	int exhaustive;
};

/* ---- the engine -------------------------------------------------------------- */

/* Explore sys; findings and stats are kept in x (see explore_run()). */
int explore_sys_run(struct explore *x, const struct explore_sys *sys,
    const struct explore_opts *o, char **cause);
/* From sys->final: the current execution fails.  area/off/len/... as in
 * struct explore_finding (text is copied). */
void explore_report(struct explore *x, enum explore_kind kind, int rank,
    uint64_t wrong, const char *text);

/* ---- the micro-op world ------------------------------------------------------ */

/* A world of nranks whose areas are area_size bytes, all zero. */
struct explore *explore_new(int nranks, uint64_t area_size);
void explore_free(struct explore *x);
/* Rank's area in the start state (write it before explore_run()). */
uint8_t *explore_area(struct explore *x, int rank);
/* A new call number (increasing); flags: enum xev_flags. */
uint32_t explore_call(struct explore *x, unsigned flags);
/* The cells a XEV_F_SELFCLEAR call must leave at zero: bytes [off,
 * off+len) of every area (a collective's signal window; its other cells,
 * such as all_to_all_v's RECV_COUNTS, are data).  Without it, every cell
 * the call notifies or waits on. */
void explore_call_signal(struct explore *x, uint32_t call, uint64_t off,
    uint64_t len);
/* Append p to rank's sequence as part of call (takes p). */
void explore_push(struct explore *x, int rank, uint32_t call, struct prog *p);
/* Check, after every complete execution, the output of collective a
 * applied `times` times to the start state (coll_expect/coll_wrong). */
void explore_check_coll(struct explore *x, const struct coll_args *a,
    uint32_t times);
/* A predicate on the final areas: 0 holds, else -1 with *why. */
typedef int (
    *explore_pred_fn)(void *arg, int nranks, uint8_t *const *areas, char **why);
void explore_predicate(struct explore *x, explore_pred_fn fn, void *arg);

/* Explore the world.  0 (findings or not), or -1 + cause when it cannot
 * run (a program that does not fit the world, a call or load op). */
int explore_run(struct explore *x, const struct explore_opts *o, char **cause);
const struct explore_stats *explore_stats(const struct explore *x);
/* The finding of kind k, or NULL. */
const struct explore_finding *explore_finding(const struct explore *x,
    enum explore_kind k);
/* Distinct end-state hashes, sorted (for tests). */
const uint64_t *explore_end_states(const struct explore *x, size_t *n);

/*
 * Replay f's schedule from the start state: the simulator (explore_sim())
 * is then at the end of the counterexample; explore_rewind() takes it back
 * to the start.  0, or -1 + cause if the schedule does not replay.
 */
int explore_replay(struct explore *x, const struct explore_finding *f,
    char **cause);
void explore_rewind(struct explore *x);
struct sim *explore_sim(struct explore *x);
/* After explore_replay() of a hang: the world as diagnose sees it (the
 * writes and waits of the schedule as its history); release with
 * explore_diag_release(). */
void explore_diag(struct explore *x, const struct explore_finding *f,
    struct diag_in *in);
void explore_diag_release(struct diag_in *in);

/* Every interleaving of the world, counted (memoised over states; at most
 * max_states states, else -1): the reduction's yardstick for `make bench`. */
double explore_count_all(struct explore *x, uint64_t max_states, char **cause);

#endif
