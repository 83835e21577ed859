/*
 * sim.h - in-process simulator of a world, for unit tests.
 *
 * N ranks share one process: each has a malloc'd, zero-filled window area
 * and a queue of programs.  Their transport (name "sim") reaches every
 * area directly; wait() never blocks (t->nonblock = 1) but reports
 * WAIT_PENDING, so the scheduler can interleave the ranks one micro-op at
 * a time in a chosen order and detect a deadlock: every rank that has
 * work left is pending on a wait whose cell nobody can change any more.
 *
 * Micro-ops run through core/exec.c exactly as in a rank agent, after
 * exec_check() against the area size and the world.
 *
 * Ownership: sim_new() returns a simulator freed with sim_free(); programs
 * given to sim_push() belong to the simulator from then on.  cause strings
 * are the caller's to free().
 */
#ifndef COLLDB_TESTS_SIM_H
#define COLLDB_TESTS_SIM_H

#include <stdint.h>

#include "prog.h"

struct sim;

enum sim_order {
	SIM_ROUND_ROBIN,	/* one micro-op per rank in turn */
	SIM_RANDOM,		/* a seeded random rank runs a random burst */
	SIM_GREEDY,		/* each rank in turn runs until it blocks */
	SIM_REVERSE,		/* greedy, highest rank first */
};

struct sim *sim_new(int nranks, uint64_t area_size);
/* splitmix64: the seeded random numbers the random order uses, for tests. */
uint64_t sim_rng(uint64_t *x);
void sim_free(struct sim *s);
int sim_nranks(const struct sim *s);
uint8_t *sim_area(struct sim *s, int rank);

/* Queue p after rank's other programs. */
void sim_push(struct sim *s, int rank, struct prog *p);
/* Whether rank has nothing left to run. */
int sim_done(const struct sim *s, int rank);
/* Micro-ops executed so far, over all ranks. */
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
int sim_run(struct sim *s, enum sim_order order, uint64_t seed,
    char **cause);

#endif
