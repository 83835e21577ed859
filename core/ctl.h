/*
 * ctl.h - the shell's side of the step gate: the one writer of a rank's
 * control fields (core/seg.h, struct seg_rank "written by the shell", and
 * the header's gate_active, breakpoint table and wait-giveup words).  The
 * one reader is the gate in core/rank.c (and the wait in core/shm.c, for
 * interrupt and wait-giveup); nothing else writes these words.
 *
 * The protocol, written once:
 *
 * 1. The rank samples before it reads.  Each pass of the gate loads `ctl`,
 *    stores it in `ctl_seen`, then reads abort, interrupt, skip_pc, the
 *    breakpoints, mode and credits, and if it stops it sleeps on `ctl`
 *    until the value changes.  So the shell writes fields first and bumps
 *    `ctl` last (ctl_kick()): a change made after the rank's sample wakes
 *    it, a change made before is read by that very pass.  A stopped rank
 *    with ctl_seen != ctl has a reaction pending (ctl_acted() is 0): the
 *    shell must not call it settled.
 *
 * 2. gate_active is raised before the event it guards and lowered only
 *    from the whole state.  While it is 0 a rank skips the gate with one
 *    relaxed load, so it must already be 1 when a rank could first need
 *    the gate: before a program sent to start stopped is sent, before an
 *    interrupt or abort flag is acted on (ctl_interrupt() and ctl_abandon()
 *    raise it themselves).  Lowering it is ctl_set_gate(seg, 0) after
 *    ctl_gate_needed() found no breakpoint, no stepping rank and no flag
 *    (the shell adds what only it knows: programs queued to start stopped).
 *
 * 3. Interrupt sets the flag first, then wakes the rank's wait cell, then
 *    kicks `ctl`.  A rank that blocks after it checked the flag sleeps on
 *    the cell and sees the flag on waking; one that is stopped sees it on
 *    its next gate pass.  A stop forced by an interrupt is sticky until
 *    the shell releases that pc (skip_pc = pc + 1, as for a breakpoint),
 *    because the kick can reach a rank that already stopped there.
 *
 * 4. Release (step, continue) writes credits and mode and sets skip_pc to
 *    the stopped pc + 1, so the breakpoint or interrupt that stopped it
 *    does not stop it again at once; the caller publishes the gate word
 *    and then kicks each released rank.
 *
 * 5. A breakpoint's body is written first and its id last (release
 *    order; ranks skip id 0); clearing one stores id 0.  Every change
 *    bumps break_seq, then the gate word follows.
 *
 * Every function takes a mapped segment and a rank in range; none fails.
 *
 * Ranks elsewhere (the mpi transport).  Every change is one struct
 * ctl_op, applied here by ctl_apply() and handed to the segment's sync
 * hook (seg.h), which sends it to the rank (or to every rank, for the
 * session's words: rank -1).  The rank's control thread applies the same
 * op to its own segment with ctl_apply(), so both sides run the one
 * protocol above, each on its copy; ctl_release() reads the stopped pc on
 * the rank's side.
 */
#ifndef COLLDB_CTL_H
#define COLLDB_CTL_H

#include <stdint.h>

#include "seg.h"

enum ctl_kind {
	CTL_KICK,
	CTL_INTERRUPT,
	CTL_ABANDON,
	CTL_CANCEL,
	CTL_CANCEL_CLEAR,
	CTL_RELEASE, /* a: stepping, b: credits */
	CTL_STEP_MODE,
	CTL_GATE,	    /* a: active (session) */
	CTL_BREAK_SET,	    /* a: slot, brk: the body (session) */
	CTL_BREAK_CLEAR,    /* a: slot (session) */
	CTL_BREAKS_CHANGED, /* (session) */
	CTL_WAIT_GIVEUP,    /* a: polls (session) */
	CTL__COUNT
};

struct ctl_op {
	uint32_t kind; /* enum ctl_kind */
	int32_t rank;  /* -1 for the session's words */
	uint32_t a, b;
	struct seg_break brk;
};

/* Carry out op on sg (nothing for a malformed one); does not call sync. */
void ctl_apply(struct seg *sg, const struct ctl_op *op);

/* Bump rank r's ctl word and wake it if it sleeps at its gate. */
void ctl_kick(struct seg *sg, int r);
/* Whether rank r's gate has seen the latest ctl (1: no reaction pending). */
int ctl_acted(struct seg *sg, int r);

/* Interrupt rank r: a blocked wait returns, a running program stops at its
 * next gate (rank.h has the exact semantics).  Raises the gate, wakes the
 * wait cell, kicks. */
void ctl_interrupt(struct seg *sg, int r);
/* Abandon the program of stopped rank r (the same steps with `abort`). */
void ctl_abandon(struct seg *sg, int r);
/* Both at once, for a shell that gives up on what r runs (bench). */
void ctl_cancel(struct seg *sg, int r);
/* Forget a cancel that found nothing to cancel (r idle). */
void ctl_cancel_clear(struct seg *sg, int r);

/* Let stopped rank r go: stepping with n credits, or free running.  The
 * caller updates the gate word, then kicks r (rule 4). */
void ctl_release(struct seg *sg, int r, int stepping, uint32_t n);
/* Before rank r starts: stop it at its first gate (a user program's
 * cdb_init). */
void ctl_step_mode(struct seg *sg, int r);

/* Whether any rank needs the gate: a breakpoint, a stepping rank, an
 * interrupt or abort flag. */
int ctl_gate_needed(struct seg *sg);
void ctl_set_gate(struct seg *sg, int active);

/* Publish breakpoint nb (its id non-zero) in slot (rule 5). */
void ctl_break_set(struct seg *sg, struct seg_break *slot,
    const struct seg_break *nb);
void ctl_break_clear(struct seg *sg, struct seg_break *slot);
/* After one or more ctl_break_* calls. */
void ctl_breaks_changed(struct seg *sg);

/* Rank r is elsewhere and theirs is its board slot as it was, after it
 * had applied every change sent to it: take its side of the control words
 * (what its gate consumed: credits, interrupt, abort, skip_pc; the mode
 * its programs set). */
void ctl_adopt(struct seg *sg, int r, const struct seg_rank *theirs);

/* `set wait-giveup N`: waits give up after n polls (0 = never). */
void ctl_set_wait_giveup(struct seg *sg, uint32_t n);

#endif
