/*
 * explore-int.h - what the explorer's files share (not part of the API):
 * the handle, the engine's trace and search stack, and the helpers each
 * file exports to the others.
 *
 * explore-dpor.c   the search: nodes, backtrack and sleep sets, bounds
 * explore-hb.c     per step: the indexes, dependence, vector clocks
 * explore-check.c  data races, stale credits, pending waits, signals
 * explore-min.c    counterexamples: closure, relinearisation, keeping one
 * explore.c        the micro-op world on core/sim.c and its checks
 * explore-count.c  every interleaving, counted (the yardstick)
 */
#ifndef COLLDB_EXPLORE_INT_H
#define COLLDB_EXPLORE_INT_H

#include "common.h"
#include "explore.h"
#include "u64map.h"

#define NO_EVENT ((uint32_t)-1)

/* One executed step of the current execution. */
struct tev {
	int proc;
	struct xev ev;
	uint32_t own;	  /* 1 + steps of proc before it */
	int32_t old, new; /* notify: its cell before and after */
	uint32_t ew;	  /* wait: its enabling write, or NO_EVENT */
	uint32_t prev;	  /* proc's previous step, or NO_EVENT */
	uint32_t cell;	  /* notify/wait: cell index, else NO_EVENT */
	uint8_t ndata;	  /* data lists it was pushed on */
	int data_area[2];
};

/* A state on the search stack (the one before step d). */
struct node {
	uint64_t enabled, blocked;
	uint64_t backtrack; /* processes to explore from here */
	uint64_t sleep;	    /* processes not to (sleep set + explored) */
	uint64_t skip;	    /* cut by the preemption bound */
	int preempts;	    /* on the way here */
	int visited;	    /* enabled/next computed */
};

/* A cell: every step on it, in trace order. */
struct xcell {
	int area;
	uint64_t off;
	uint32_t *ev;
	size_t n, a;
};

/* Per area: data steps touching it, and its cells. */
struct xarea {
	uint32_t *ev;
	size_t n, a;
	uint32_t *cells;
	size_t ncells, acells;
	uint64_t cell_lo, cell_hi; /* span of its cells' bytes */
	uint64_t data_lo, data_hi; /* ... and of its data steps' */
};

struct xeng {
	struct explore *x;
	const struct explore_sys *sys;
	struct explore_opts o;
	int np;
	struct tev *t;
	struct node *nd;
	struct xev *next;    /* (d + 1) * np: next[d * np + p] */
	uint32_t *vcd, *vcs; /* d * np: happens-before for the search,
				 * and for data races */
	uint32_t *cnt;	     /* (d + 1) * np: steps of p before step d */
	size_t d, cap;
	struct xcell *cells;
	size_t ncells, acells;
	struct u64map cellmap; /* (area, off) -> cell */
	struct xarea *areas;
	uint32_t *last; /* per proc: its latest step, or NO_EVENT */
	uint32_t *cand; /* scratch */
	size_t acand;
	uint32_t *races; /* scratch */
	size_t araces;
	uint32_t **first_pos; /* per proc: position in the first execution */
	size_t *nfirst;
	int first_done;
	uint32_t upto_call; /* min_found(): only what calls up to this
				 * one need (NO_EVENT: not used) */
	uint64_t t0;
};

struct explore {
	int n;
	uint64_t area_size;
	struct sim *sim;
	uint8_t *flags;	     /* per call: enum xev_flags */
	uint64_t (*sigs)[2]; /* per call: its signal bytes [lo, hi), or 0 0 */
	uint32_t ncalls;
	struct explore_check {
		struct coll_args a;
		uint32_t times;
		uint8_t **want; /* per rank: expected area (output bytes) */
	} * checks;
	size_t nchecks;
	explore_pred_fn pred;
	void *pred_arg;
	struct explore_finding found[XK__COUNT];
	int have[XK__COUNT];
	unsigned tried[XK__COUNT];    /* candidates weighed */
	int found_unusual[XK__COUNT]; /* the kept one's preference */
	struct explore_stats st;
	struct u64map endmap; /* distinct end states, while running */
	uint64_t *ends;	      /* ... sorted, after */
	size_t nends;
	struct xeng *eng; /* during a run */
};

/* A step's accesses, the cell of a notify or wait included. */
struct acc4 {
	int area;
	uint8_t write, atomic;
	uint64_t off, len;
};

/* explore-hb.c */
int hb_accesses(const struct xev *ev, struct acc4 *out);
/* Any overlapping pair with a write: 1.  *plain: one such pair is not
 * atomic on both sides (a data race if unordered), its bytes in *r. */
int hb_conflict(const struct xev *a, const struct xev *b, int *plain,
    struct acc4 *r, int *awrite, int *bwrite);
/* Whether ev writes the i32 cell (area, off). */
int hb_writes_cell(const struct xev *ev, int area, uint64_t off);
/* Whether wait w holds on value v. */
int hb_holds(const struct xev *w, int32_t v);
/* The index of cell (area, off), made if create; else NO_EVENT. */
uint32_t hb_cell_find(struct xeng *e, int area, uint64_t off, int create);
void hb_push(uint32_t **v, size_t *n, size_t *a, uint32_t x);
void hb_reset(struct xeng *e);
void hb_release(struct xeng *e);
/* Index, clock and check step d (just executed and stored in e->t[d]). */
void hb_step(struct xeng *e);
/* Take step d (the last one) out of the indexes. */
void hb_unstep(struct xeng *e);
/* Whether executed step a and the next step b of another process are
 * dependent in the current state (sleep sets). */
int hb_dependent_next(struct xeng *e, const struct tev *a, const struct xev *b,
    int bproc);

/* explore-check.c */
/* Step d's data races with the earlier steps cand[0..ncand). */
void hb_data_races(struct xeng *e, uint32_t d, size_t ncand);
/* Step d, a wait: did it pass on a stale credit? */
void hb_stale(struct xeng *e, uint32_t d);
/* Node d was just reached: races of blocked waits with the writes that
 * disabled them. */
void hb_pending(struct xeng *e);
/* End of a complete execution: cells a self-clearing call left. */
void hb_signals(struct xeng *e);
/* explore-dpor.c: a race of step j with a later (or pending) step of
 * process q whose search clock is vc; steps before upto exist: add what
 * node j must try first. */
void dpor_race(struct xeng *e, uint32_t j, uint32_t upto, int q,
    const uint32_t *vc);

/* explore.c: the end state's hash (every area, where each rank is), and
 * h mixed with n bytes. */
uint64_t world_hash(struct explore *x);
uint64_t world_hash_bytes(uint64_t h, const uint8_t *b, size_t n);

/* explore-min.c: a finding of kind k in the current execution: steps
 * 0..nsteps-1 lead to it; i, j: steps whose closure is enough (NO_EVENT:
 * all nsteps).  unusual: a preference (higher is kept over lower; a race
 * in the order the first execution did not take scores 2).  Returns the finding to fill in when this one is kept (its old
 * contents released, steps set), else NULL. */
struct explore_finding *min_found(struct xeng *e, enum explore_kind k,
    uint32_t nsteps, uint32_t i, uint32_t j, int unusual);
void finding_release(struct explore_finding *f);

static inline int
bit(uint64_t m, int p)
{
	return (int)((m >> p) & 1);
}

#endif
