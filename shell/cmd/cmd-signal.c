/* cmd-signal.c - notify and wait: the signal handshake. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
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
		return arg_error(ctx, i,
		    "value %s out of range for an i32 cell", arg(ctx, i));
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
	int *peers = NULL;
	enum notify_op op = NOTIFY_ADD;

	if (peer_syntax_ok(ctx, 0) != 0 || cell_arg(ctx, 1, &cell) != 0 ||
	    i32_arg(ctx, 2, &value) != 0)
		return CMD_ERROR;
	if (nargs(ctx) == 4) {
		if (strcmp(arg(ctx, 3), "set") == 0)
			op = NOTIFY_SET;
		else if (strcmp(arg(ctx, 3), "add") != 0) {
			arg_error(ctx, 3,
			    "bad notify op '%s' (expected add or set)",
			    arg(ctx, 3));
			return CMD_ERROR;
		}
	}
	if (targets_live(ctx, &live) != 0)
		return CMD_ERROR;
	if (s->nranks == 1 && strcmp(arg(ctx, 0), "all") == 0) {
		arg_error(ctx, 0,
		    "'all' means every peer but self, and a 1-rank world has none");
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
		if (peers == NULL)
			peers = xreallocarray(NULL, (size_t)s->nranks,
			    sizeof *peers);
		n = peer_list(ctx, 0, r, peers);
		for (int k = 0; k < n; k++) {
			u.peer = peers[k];
			prog_add(p, &u);
			lint_notify(s, r, u.peer, u.dst, op, value);
		}
		if (cmd_submit(ctx, r, p,
			xasprintf("notify %s %s %d%s", arg(ctx, 0), arg(ctx, 1),
			    value, op == NOTIFY_SET ? " set" : ""),
			0, 0) != 0) {
			free(peers);
			return CMD_ERROR;
		}
	}
	free(peers);
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
		arg_error(ctx, 1, "bad comparison '%s' (expected == or >=)",
		    arg(ctx, 1));
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
		if (cmd_submit(ctx, r, prog_one("wait", &u),
			xasprintf("wait %s %s %d", arg(ctx, 0), arg(ctx, 1), value),
			JOB_WAIT, 0) != 0)
			return CMD_ERROR;
	}
	return CMD_OK;
}

static enum cmd_retval
cmd_defer_wait_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct rankset live;
	struct region cell;
	struct strbuf sb = STRBUF_INIT;
	int32_t value;
	uint64_t off;
	char *cause = NULL, *who;
	int free_slots = 0;

	if (cell_arg(ctx, 0, &cell) != 0)
		return CMD_ERROR;
	if (strcmp(arg(ctx, 1), ">=") != 0) {
		arg_error(ctx, 1,
		    "defer_wait takes only >= (a deferred condition is cell >= value; PyPTO accepts only WaitCmp.Ge)");
		return CMD_ERROR;
	}
	if (i32_arg(ctx, 2, &value) != 0)
		return CMD_ERROR;
	if (value < 0) {
		arg_error(ctx, 2,
		    "defer_wait needs a value in 0..2147483647, got %d (the condition is polled unsigned)",
		    value);
		return CMD_ERROR;
	}
	if (targets_live(ctx, &live) != 0)
		return CMD_ERROR;
	off = cell.w->off + cell.first * 4;
	/* every target must have room, or none is changed */
	for (int i = 0; i < SEG_MAX_DEFERS; i++)
		free_slots += !s->defers[i].used;
	if (free_slots < rankset_count(&live)) {
		out_error("too many deferred conditions pending (at most %d in a session)",
		    SEG_MAX_DEFERS);
		return CMD_ERROR;
	}
	for (int r = 0; r < s->nranks; r++) {
		const struct seg_defer *d[DEFER_MAX];
		size_t n, pend = 0;

		if (!rankset_has(&live, r))
			continue;
		n = session_defers(s, r, d, DEFER_MAX);
		for (size_t k = 0; k < n; k++)
			pend += d[k]->tag == 0;
		if (pend >= DEFER_MAX) {
			out_error("rank %d already has %d deferred conditions waiting for its next command (at most %d per waiter)",
			    r, (int)pend, DEFER_MAX);
			return CMD_ERROR;
		}
	}
	for (int r = 0; r < s->nranks; r++) {
		if (!rankset_has(&live, r))
			continue;
		lint_defer(s, r, off, value);
		if (session_defer(s, r, off, value, &cause) != 0)
			BUG("defer refused after the checks: %s", cause);
	}
	describe_cell(&s->view, off, 1, &sb);
	who = rankset_format(&live, s->nranks);
	out_printf("deferred on %s: %s >= %d (unsigned); the next command of each completes only when it holds\n",
	    who, sb.buf, value);
	free(who);
	strbuf_release(&sb);
	return CMD_OK;
}

static const char *const notify_keywords[] = { "next", "prev", "all", "add",
	"set", NULL };
static const char *const wait_keywords[] = { "==", ">=", NULL };

const struct cmd_entry cmd_notify_entry = {
	.name = "notify",
	.usage = "PEER CELL VALUE [add|set]",
	.summary = "write a signal cell in the peer's window (add is atomic +=)",
	.example = "@0 notify 1 sig[0] 2 set",
	.group = GRP_SIGNALS,
	.min_args = 3,
	.max_args = 4,
	.flags = CMD_TARGETS | CMD_EXPLORE,
	.keywords = notify_keywords,
	.exec = cmd_notify_exec,
};

const struct cmd_entry cmd_defer_wait_entry = {
	.name = "defer_wait",
	.usage = "CELL >= VALUE",
	.summary = "the next command of each target completes once CELL >= VALUE",
	.example = "@1 defer_wait sig[0] >= 1",
	.group = GRP_SIGNALS,
	.min_args = 3,
	.max_args = 3,
	.flags = CMD_TARGETS | CMD_AGENTS_ONLY,
	.keywords = wait_keywords,
	.exec = cmd_defer_wait_exec,
};

const struct cmd_entry cmd_wait_entry = {
	.name = "wait",
	.usage = "CELL ==|>= VALUE",
	.summary = "block each target until its own cell compares true",
	.example = "@1 wait sig[0] >= 1",
	.group = GRP_SIGNALS,
	.min_args = 3,
	.max_args = 3,
	.flags = CMD_TARGETS | CMD_AGENTS_ONLY | CMD_EXPLORE,
	.keywords = wait_keywords,
	.agents_why = "only a rank can block, and these ranks run their program; "
		      "'break wait' stops them at the program's own waits",
	.exec = cmd_wait_exec,
};
