/*
 * cmd-interrupt.c - interrupt: cancel a blocked wait, stop a running rank
 * at its next gate, or abandon the program of a stopped rank (core/rank.h
 * has the exact semantics).
 */
#include "cmd/cmd.h"

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
		if (!rankset_has(&live, r) || !s->kind->interrupt(s, r))
			continue;
		any = 1;
		rankset_add(&hit, r);
	}
	if (!any)
		out_printf(
		    "nothing to interrupt: no target rank is running, blocked or stopped\n");
	else
		report_moved(s, &hit); /* where each one ended up */
	return CMD_OK;
}

const struct cmd_entry cmd_interrupt_entry = {
	.name = "interrupt",
	.usage = "[@RANKS]",
	.summary = "cancel a blocked wait, or stop a running rank",
	.example = "interrupt @2",
	.group = GRP_CONTROL,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_TARGETS | CMD_NO_SETTLE,
	.exec = cmd_interrupt_exec,
};
