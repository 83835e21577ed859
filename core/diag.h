/*
 * diag.h - hang diagnosis in protocol terms: who waits on which cell, who
 * can still change it, the wait-for graph and its cycles, a verdict, and
 * the likely cause among the known failure patterns (docs/debugging.md).
 *
 * Pure analysis: the caller describes each rank (state, the wait it is on,
 * the micro-ops it will still run) and the writes it has seen complete;
 * diag_analyze() fills a result.  Formatting is the caller's.
 *
 * Rules:
 *  - a blocked rank's "owers" are the other ranks whose remaining micro-ops
 *    NOTIFY its cell; a dead rank's remaining micro-ops still count (it owed
 *    them), but it will never pay;
 *  - a blocked rank is releasable when its owed notifies could bring the
 *    cell to the expected value (adds summed, sets taken as given);
 *  - HANG when some blocked rank is not releasable, or every ower on every
 *    path of the wait-for graph is itself blocked (a cycle) or dead; SLOW
 *    when every blocked rank can still be released by a rank that runs or
 *    is stopped (stopped ranks move when the user says so); OK when nobody
 *    is blocked;
 *  - a stuck rank (stopped by a signal, or in a call that does not come
 *    back) pays nothing it owes, as if dead, and is HANG by itself: with
 *    nobody blocked the verdict is still HANG;
 *  - a rank marked open (a user program's rank running its own code, which
 *    colldb cannot see ahead) may still write any cell: while one lives,
 *    every blocked rank counts as releasable in time (SLOW, not HANG);
 *  - an exited or dead rank that owes a blocked rank a notify (one of its
 *    remaining micro-ops, or, for a user program's rank that ended before
 *    cdb_finalize, one its history points to: it notified the awaited
 *    cell before, or released an earlier wait of the blocked rank in the
 *    cell's window) is the likely cause, above every other;
 *  - a blocked rank nobody owes whose partner by that history is blocked
 *    too gets no "nobody will write it" cause: it waits behind the
 *    partner.
 *
 * Ownership: diag_result_release() frees what diag_analyze() allocated;
 * the input is borrowed and must outlive the result.
 */
#ifndef COLLDB_DIAG_H
#define COLLDB_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "prog.h"
#include "seg.h"

enum diag_verdict { DIAG_OK, DIAG_SLOW, DIAG_HANG };

enum diag_cause {
	CAUSE_TAG0,		/* Set with 0, a wait 0 does not satisfy */
	CAUSE_SET_SHARED,	/* set on a cell several ranks write */
	CAUSE_EQ_OVERSHOOT,	/* == on a counter that went past it */
	CAUSE_REUSED,		/* a single-shot raw signal used again */
	CAUSE_ROW_MISMATCH,	/* notifies land on another cell than awaited */
	CAUSE_WAIT_FIRST,	/* every rank waits before it notifies */
	CAUSE_DEAD_OWER,	/* a dead rank owed the notify */
	CAUSE_PUT_AFTER_NOTIFY, /* data written after the release */
	CAUSE_SHORT,		/* what is owed cannot reach the value */
	CAUSE_WRONG_PEER,	/* the cell was notified on another rank */
	CAUSE_NOBODY,		/* nobody will write the cell again */
	CAUSE__COUNT
};

/* Something that happened, oldest first (the shell's history). */
struct diag_event {
	uint8_t kind;	  /* UOP_NOTIFY, UOP_PUT or UOP_WAIT (completed) */
	uint8_t op;	  /* notify op / wait cmp */
	int writer;	  /* the rank that did it */
	int target;	  /* whose memory (== writer for a wait) */
	int32_t value;	  /* notify value / wait expected; for a put, 1
				 * when it was issued after the peer had been
				 * released (a stale-data suspect) */
	uint64_t off;	  /* cell, or start of the put region */
	uint64_t bytes;	  /* 4 for a cell; the put's size */
	struct site site; /* a user program's call that did it */
};

/* A run of micro-ops a rank will still execute. */
struct diag_prog {
	const struct prog *p; /* the whole program (prog.h accessors) */
	size_t nops;	      /* prog_len(p) */
	size_t pc;	      /* the first op still to run */
	const char *title;
	const struct site *site; /* a user program's call: its source line
				 * (file "" when unknown) */
};

struct diag_rank {
	enum rank_state state;
	double secs; /* time in state (0 if unknown) */
	int waiting; /* blocked on (or stopped before) a wait */
	uint64_t wait_off;
	uint8_t cmp; /* enum wait_cmp */
	int32_t expected, now;
	const struct diag_prog *progs; /* current program first, then queued */
	size_t nprogs;
	int open;	/* runs code colldb cannot see (a user program
				 * under `colldb run`, not blocked): it may
				 * still write any cell, so nobody is HANG */
	int ended_open; /* a user program's rank that exited or died
				 * before cdb_finalize: what it would still
				 * have sent is unknown, so it may have owed
				 * any notify */
	int stuck;	/* alive but not moving by itself: stopped by
				 * a signal, or inside a call that made no
				 * progress for the watchdog's time */
};

struct diag_in {
	/* The window holding area offset off, for a row mismatch's bounds
	 * (the caller's window table; may be NULL). */
	const struct seg_window *(*win_at)(void *arg, uint64_t off);
	void *win_arg;
	int nranks;
	const struct diag_rank *r;
	const struct diag_event *hist;
	size_t nhist;
};

/* Owed notifies to a blocked rank's cell: count of them, each op value. */
struct diag_owe {
	int rank;	    /* who owes it */
	size_t prog, index; /* where the first is: micro-op index of
				 * progs[prog] */
	size_t count;	    /* notifies (1 or more, equal op and value) */
	uint8_t op;	    /* notify op */
	int32_t value;	    /* of each */
};

struct diag_block {
	int rank;
	struct diag_owe *owes; /* all owed notifies, by rank then order */
	size_t nowes, aowes;
	int releasable;	  /* owed writes could satisfy the wait */
	int can_progress; /* a path reaches a running/stopped ower */
};

struct diag_found {
	enum diag_cause cause;
	int rank;      /* the blocked rank it concerns */
	int other;     /* the other rank involved, or -1 */
	uint64_t off;  /* the awaited cell */
	uint64_t off2; /* the cell actually written (row mismatch) */
	int32_t v;     /* the value involved (tag, overshoot...); for
				 * wrong peer, the rank notified instead */
};

struct diag_result {
	enum diag_verdict verdict;
	struct diag_block *blocked;
	size_t nblocked;
	int *cycle; /* [nranks + 1]: "0 -> 1 -> 0", ranks, the
				 * first repeated */
	int ncycle;
	struct diag_found found[8]; /* likely causes, most likely first */
	int nfound;
};

void diag_analyze(const struct diag_in *in, struct diag_result *out);
void diag_result_release(struct diag_result *out);
const char *diag_verdict_name(enum diag_verdict v);

#endif
