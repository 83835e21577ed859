/*
 * sim.h - a simulated world in one process: N ranks, each with a private
 * copy of a window area and a queue of programs, run one micro-op at a
 * time in whatever order the caller picks.
 *
 * The explorer (core/explore.h) runs on it, and so do the collective unit
 * tests.  The transport ("sim") reaches every area directly; its wait()
 * never blocks (t->nonblock = 1) but reports WAIT_PENDING, so a rank whose
 * wait does not hold is simply not runnable.  Micro-ops run through
 * core/exec.c exactly as in a rank agent, after exec_check() against the
 * area size and the world (once per program, when it is queued).
 *
 * Positions.  Rank r's queue holds programs 0..sim_nseq(r)-1; its
 * position is (seq, pc): the next micro-op is micro-op pc of program seq.
 * Finished programs are skipped; a rank with no micro-op left is done.
 * Micro-ops are reached through sim_uop() and sim_len() only, so a
 * program computed on demand instead of stored (a generator) changes
 * those two functions and nothing that uses them.
 *
 * Undo.  With sim_record(s, 1) every step keeps what it overwrote (the
 * bytes of its destination, in an area or the rank's accumulator) and the
 * rank's previous position; sim_undo() takes the last step back exactly.
 * The explorer walks its search tree this way instead of re-running each
 * schedule from the start.
 *
 * Ownership: sim_new() returns a simulator freed with sim_free(); programs
 * given to sim_push() belong to the simulator from then on.  cause strings
 * are the caller's to free().  const pointers returned are borrowed until
 * the simulator is freed.
 */
#ifndef COLLDB_SIM_H
#define COLLDB_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "prog.h"

struct sim;

enum sim_order {
	SIM_ROUND_ROBIN, /* one micro-op per rank in turn */
	SIM_RANDOM,	 /* a seeded random rank runs a random burst */
	SIM_GREEDY,	 /* each rank in turn runs until it blocks */
	SIM_REVERSE,	 /* greedy, highest rank first */
};

/* What sim_state() says about a rank's next micro-op. */
enum sim_state { SIM_DONE, SIM_READY, SIM_BLOCKED };

struct sim *sim_new(int nranks, uint64_t area_size);
/* splitmix64: the seeded random numbers the random order uses, for tests. */
uint64_t sim_rng(uint64_t *x);
void sim_free(struct sim *s);
int sim_nranks(const struct sim *s);
uint64_t sim_area_size(const struct sim *s);
uint8_t *sim_area(struct sim *s, int rank);
/* The rank's accumulator (SP_ACC), valid once sim_check() ran. */
uint8_t *sim_acc(struct sim *s, int rank);

/* Queue p after rank's other programs; tag is the caller's (the explorer
 * keeps its call number there). */
void sim_push(struct sim *s, int rank, struct prog *p);
void sim_push_tag(struct sim *s, int rank, struct prog *p, uint32_t tag);
/* Check every queued micro-op against the world and reserve each rank's
 * accumulator for its largest program.  0, or -1 with *cause naming the
 * rank, program and op. */
int sim_check(struct sim *s, char **cause);

/* The queue and the micro-op accessor. */
size_t sim_nseq(const struct sim *s, int rank);
const struct prog *sim_prog(const struct sim *s, int rank, size_t seq);
uint32_t sim_tag(const struct sim *s, int rank, size_t seq);
size_t sim_len(const struct sim *s, int rank, size_t seq);
const struct uop *sim_uop(const struct sim *s, int rank, size_t seq, size_t pc);

/* Where rank is: 0 with seq and pc set, or -1 when it is done. */
int sim_pos(const struct sim *s, int rank, size_t *seq, size_t *pc);
/* The next micro-op and whether it can run (a wait whose cell does not
 * hold is SIM_BLOCKED).  *u is NULL when done. */
enum sim_state sim_state(const struct sim *s, int rank, const struct uop **u);
/* Whether rank has nothing left to run. */
int sim_done(const struct sim *s, int rank);
/* Micro-ops executed so far, over all ranks (undone ones included). */
uint64_t sim_ops(const struct sim *s);

/*
 * Execute rank's next micro-op.  1 = executed, 0 = nothing to do or its
 * wait is not satisfied yet, -1 = error (*cause set).
 */
int sim_step(struct sim *s, int rank, char **cause);
/* Run rank until it blocks or finishes; ops executed, or -1 on error. */
long sim_run_rank(struct sim *s, int rank, char **cause);
/*
 * Run every rank to the end of its queue.  0, or -1 with *cause: an exec
 * error, or "deadlock: ..." listing each stuck rank's wait (cell offset,
 * expected and current value, span name).
 */
int sim_run(struct sim *s, enum sim_order order, uint64_t seed, char **cause);

/* The undo log (see above).  Turning it on or off forgets what was kept. */
void sim_record(struct sim *s, int on);
/* Steps kept since recording started. */
size_t sim_depth(const struct sim *s);
/* Take back the last kept step. */
void sim_undo(struct sim *s);
/* The i32 cell at off of area `area` as it was just before kept step
 * `step` (0 = when recording started). */
int32_t sim_cell_before(const struct sim *s, size_t step, int area, uint64_t off);

/*
 * The world as diag_analyze() wants it (core/diag.h), for a simulator
 * whose ranks are done or blocked: states, waits, remaining programs, and
 * hist[0..nhist) as the completed writes and waits.  The caller releases
 * it with sim_diag_release(); in->win_at is NULL.
 */
void sim_diag(const struct sim *s, const struct diag_event *hist, size_t nhist,
    struct diag_in *in);
void sim_diag_release(struct diag_in *in);

#endif
