/*
 * settle.c - when the world is quiescent: after a command the shell pumps
 * rank messages until every rank is idle, stopped (and has acted on the
 * latest control), dead, or blocked on a cell that still does not satisfy
 * its wait; at most `set settle` (docs/design.md, "The asynchronous
 * model").
 */
#include "ctl.h"
#include "session-int.h"

volatile sig_atomic_t shell_interrupted;

int
rank_board_settled(struct session *s, int r)
{
	struct view_board b;

	view_board(&s->view, r, &b);
	if (b.pending)
		return 0; /* about to react to the shell */
	switch (b.state) {
	case RS_STOPPED:
		return b.acted;
	case RS_BLOCKED:
		return !wait_cmp_holds(b.wait_cmp,
		    view_cell(&s->view, r, b.wait_off), b.wait_expected);
	default:
		return 0; /* it runs, or it is leaving */
	}
}

int
session_quiescent(struct session *s)
{
	view_sample(&s->view); /* ranks elsewhere: their boards now */
	for (int r = 0; r < s->nranks; r++) {
		if (!s->kind->settled(s, r))
			return 0;
	}
	return 1;
}

int
session_settle(struct session *s)
{
	uint64_t deadline = mono_ns() + (uint64_t)s->set.settle_ms * 1000000u;
	/* A script waits for the world, however long the work takes (the
	 * hang watchdog and Ctrl-C still end the wait), so its output does
	 * not depend on the machine's speed; `set settle` makes it bounded,
	 * and so do ranks that run their own code (it may run for ever). */
	int bounded = !s->batch || s->set.settle_explicit || s->kind->own_code;
	int rc = -1;

	for (;;) {
		session_pump(s, 0);
		if (session_quiescent(s)) {
			rc = 0;
			break;
		}
		if ((bounded && mono_ns() >= deadline) || shell_interrupted ||
		    s->watchdog_fired)
			break;
		session_pump(s, 1);
	}
	/* One more pass: output written just before the last DONE. */
	session_pump(s, 0);
	return rc;
}

void
session_update_gate(struct session *s)
{
	int active = ctl_gate_needed(&s->seg);

	/* A program sent to start stopped has not set its mode yet. */
	for (int r = 0; r < s->nranks && !active; r++) {
		for (struct job *j = s->rp[r].jobs; j != NULL && !active;
		     j = j->next)
			active = (j->flags & JOB_START) != 0;
	}
	ctl_set_gate(&s->seg, active);
}
