/*
 * cmd-interrupt.c - interrupt: cancel a blocked wait, stop a running rank
 * at its next gate, or abandon the program of a stopped rank (core/rank.h
 * has the exact semantics).
 */
#include "futex.h"
#include "shell.h"

static enum cmd_retval
cmd_interrupt_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct rankset live, hit;
	int any = 0;

	/* A dead rank named explicitly is an error, as for every command. */
	if (targets_alive(ctx, &live) != 0)
		return CMD_ERROR;
	rankset_clear(&hit);
	for (int r = 0; r < s->nranks; r++) {
		struct seg_rank *b = seg_board(&s->seg, r);
		enum rank_state st;

		/* a user rank is always somewhere in its program */
		if (!rankset_has(&live, r) || (rank_job(s, r) == NULL && !s->user))
			continue;
		st = rank_state_of(s, r);
		if (st == RS_STOPPED && !s->user)
			atomic_store(&b->abort, 1);
		else
			atomic_store(&b->interrupt, 1);
		any = 1;
		rankset_add(&hit, r);
		session_update_gate(s);
		/* Wake its wait cell whatever state we read: it may have
		 * blocked since, after checking the flag (the flag is set
		 * first, so it sees it on waking). */
		futex_wake(seg_area(&s->seg, r) + atomic_load(&b->wait_off), 1 << 30);
		seg_ctl_kick(b);
	}
	if (!any)
		out_printf("nothing to interrupt: no target rank is running, blocked or stopped\n");
	else
		report_moved(s, &hit);	/* where each one ended up */
	return CMD_OK;
}

const struct cmd_entry cmd_interrupt_entry = {
	.name = "interrupt", .usage = "[@RANKS]",
	.summary = "cancel a blocked wait, or stop a running rank",
	.example = "interrupt @2", .group = GRP_CONTROL, .min_args = 0,
	.max_args = 0, .flags = CMD_TARGETS | CMD_NO_SETTLE, .exec = cmd_interrupt_exec,
};
