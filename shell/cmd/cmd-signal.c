/* cmd-signal.c - notify and wait: the signal handshake. */
#include <stdlib.h>
#include <string.h>

#include "shell.h"
#include "xmalloc.h"

static int
i32_arg(struct cmdctx *ctx, size_t i, int32_t *out)
{
	int64_t v;
	char *cause = NULL;

	if (parse_int(arg(ctx, i), &v, 0, &cause) != 0) {
		arg_error(ctx, i, "%s", cause);
		free(cause);
		return -1;
	}
	if (v < INT32_MIN || v > INT32_MAX)
		return arg_error(ctx, i, "value %s out of range for an i32 cell", arg(ctx, i));
	*out = (int32_t)v;
	return 0;
}

static enum cmd_retval
cmd_notify_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct rankset live;
	struct region cell;
	struct uop u;
	int32_t value;
	int peers[SEG_MAX_RANKS];
	enum notify_op op = NOTIFY_ADD;

	if (peer_syntax_ok(ctx, 0) != 0 || cell_arg(ctx, 1, &cell) != 0 ||
	    i32_arg(ctx, 2, &value) != 0)
		return CMD_ERROR;
	if (nargs(ctx) == 4) {
		if (strcmp(arg(ctx, 3), "set") == 0)
			op = NOTIFY_SET;
		else if (strcmp(arg(ctx, 3), "add") != 0) {
			arg_error(ctx, 3, "bad notify op '%s' (expected add or set)", arg(ctx, 3));
			return CMD_ERROR;
		}
	}
	if (targets_live(ctx, &live) != 0)
		return CMD_ERROR;
	if (s->nranks == 1 && strcmp(arg(ctx, 0), "all") == 0) {
		arg_error(ctx, 0, "'all' means every peer but self, and a 1-rank world has none");
		return CMD_ERROR;
	}
	memset(&u, 0, sizeof u);
	u.kind = UOP_NOTIFY;
	u.dtype = DT_I32;
	u.op = (uint8_t)op;
	u.value = value;
	u.dst = cell.w->off + cell.first * 4;
	u.count = 1;
	for (int r = 0; r < s->nranks; r++) {
		struct prog *p;
		int n;

		if (!rankset_has(&live, r))
			continue;
		p = prog_new("notify");
		n = peer_list(ctx, 0, r, peers);
		for (int k = 0; k < n; k++) {
			u.peer = peers[k];
			prog_add(p, &u);
			lint_notify(s, r, u.peer, u.dst, op, value);
		}
		if (cmd_submit(ctx, r, p, xasprintf("notify %s %s %d%s", arg(ctx, 0),
			arg(ctx, 1), value, op == NOTIFY_SET ? " set" : ""), 0, 0) != 0)
			return CMD_ERROR;
	}
	return CMD_OK;
}

static enum cmd_retval
cmd_wait_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct rankset live;
	struct region cell;
	struct uop u;
	int32_t value;
	enum wait_cmp cmp;

	if (cell_arg(ctx, 0, &cell) != 0)
		return CMD_ERROR;
	if (strcmp(arg(ctx, 1), "==") == 0)
		cmp = CMP_EQ;
	else if (strcmp(arg(ctx, 1), ">=") == 0)
		cmp = CMP_GE;
	else {
		arg_error(ctx, 1, "bad comparison '%s' (expected == or >=)", arg(ctx, 1));
		return CMD_ERROR;
	}
	if (i32_arg(ctx, 2, &value) != 0 || targets_live(ctx, &live) != 0)
		return CMD_ERROR;
	memset(&u, 0, sizeof u);
	u.kind = UOP_WAIT;
	u.dtype = DT_I32;
	u.op = (uint8_t)cmp;
	u.value = value;
	u.dst = cell.w->off + cell.first * 4;
	u.count = 1;
	for (int r = 0; r < s->nranks; r++) {
		if (!rankset_has(&live, r))
			continue;
		lint_wait(s, r, u.dst, cmp, value);
		if (cmd_submit(ctx, r, prog_one("wait", &u), xasprintf("wait %s %s %d",
			arg(ctx, 0), arg(ctx, 1), value), JOB_WAIT, 0) != 0)
			return CMD_ERROR;
	}
	return CMD_OK;
}

static const char *const notify_keywords[] = { "next", "prev", "all", "add",
	"set", NULL };
static const char *const wait_keywords[] = { "==", ">=", NULL };

const struct cmd_entry cmd_notify_entry = {
	.name = "notify", .usage = "PEER CELL VALUE [add|set]",
	.summary = "write a signal cell in the peer's window (add is atomic +=)",
	.example = "@0 notify 1 sig[0] 2 set", .group = GRP_SIGNALS,
	.min_args = 3, .max_args = 4, .flags = CMD_TARGETS,
	.keywords = notify_keywords, .exec = cmd_notify_exec,
};

const struct cmd_entry cmd_wait_entry = {
	.name = "wait", .usage = "CELL ==|>= VALUE",
	.summary = "block each target until its own cell compares true",
	.example = "@1 wait sig[0] >= 1", .group = GRP_SIGNALS, .min_args = 3,
	.max_args = 3, .flags = CMD_TARGETS | CMD_AGENTS_ONLY, .keywords = wait_keywords,
	.agents_why = "only a rank can block, and these ranks run their program; "
	    "'break wait' stops them at the program's own waits",
	.exec = cmd_wait_exec,
};
