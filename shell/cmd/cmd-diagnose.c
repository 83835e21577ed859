/*
 * cmd-diagnose.c - diagnose (alias why): why nothing moves, in protocol
 * terms (the analysis and its words are shell/diag/'s).
 */
#include "cmd/cmd.h"

static enum cmd_retval
cmd_diagnose_exec(struct cmdctx *ctx)
{
	struct diag_result res;
	struct diag_in in;
	struct strbuf sb = STRBUF_INIT;
	uint64_t t0 = mono_ns();

	diag_run(ctx->s, &res, &in);
	diag_format(ctx->s, &in, &res, &sb);
	out_printf("%s", sb.buf);
	diag_state_shown(ctx->s);
	if (ctx->s->set.times) /* what `make bench` reports */
		out_printf("diagnosed in %.1f ms\n",
		    (double)(mono_ns() - t0) / 1e6);
	strbuf_release(&sb);
	diag_result_release(&res);
	diag_in_release(&in);
	return CMD_OK;
}

const struct cmd_entry cmd_diagnose_entry = {
	.name = "diagnose",
	.alias = "why",
	.usage = "",
	.summary = "why nothing moves: who waits, who owes, the likely cause",
	.example = "diagnose",
	.group = GRP_OBSERVE,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_diagnose_exec,
};
