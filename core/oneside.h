/*
 * oneside.h - what the shell carries out itself, as a rank, on the
 * segment: under `colldb run` the ranks run their own program, so a
 * notify, put, get, fill or set aimed at one of them at the prompt is done
 * by the shell there and then (docs/design.md, "User programs").
 *
 * Also the one entry point of an agent process (`colldb --agent`), so the
 * shell's main() needs no private header of core's.
 */
#ifndef COLLDB_ONESIDE_H
#define COLLDB_ONESIDE_H

#include "prog.h"
#include "seg.h"

/*
 * Run p as rank r of sg in this process, without blocking: a wait that
 * does not hold at once is an error ("the shell cannot wait for rank r").
 * After a plain store (set, fill) the rank's wait cell is woken if the
 * store may satisfy the wait it sleeps in (a notify wakes by itself).
 * Every micro-op is checked before any runs.  0, or -1 + cause.
 */
int oneside_run(struct seg *sg, int r, const struct prog *p, char **cause);

/* Every micro-op of p valid for a world of nranks ranks with windows of
 * area_size bytes (what oneside_run() checks first); 0 or -1 + cause. */
int oneside_check(const struct prog *p, int nranks, uint64_t area_size,
    char **cause);

/* `colldb --agent SEGFD SOCKFD RANK`: the body of an agent process
 * (core/rank.c); returns its exit status. */
int rank_agent_main(int argc, char **argv);

#endif
