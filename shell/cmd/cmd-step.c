/*
 * cmd-step.c - start, step, continue and where: run rank programs one
 * micro-op at a time.  Control goes through each rank's board slot (mode,
 * credits, skip_pc) and a kick of its ctl futex; see core/rank.h.
 */
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "ctl.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

void
where_line(struct session *s, int r, struct strbuf *sb)
{
	enum rank_state st = rank_state_of(s, r);
	size_t mark;

	if (s->rp[r].death != NULL) {
		/* "exited with status 0" says its state itself */
		const char *st_name = rank_state_name(st);
		if (strncmp(s->rp[r].death, st_name, strlen(st_name)) == 0)
			strbuf_addf(sb, "rank %d: %s", r, s->rp[r].death);
		else
			strbuf_addf(sb, "rank %d: %s  %s", r, st_name,
			    s->rp[r].death);
		return;
	}
	{
		/* on a domain's job, the rank is shown both ways */
		struct job *j = rank_job(s, r);
		describe_rank_name(&s->view, r, j != NULL ? j->domain : 0, sb);
	}
	strbuf_addf(sb, ": %s", rank_state_name(st));
	strbuf_addstr(sb, "  ");
	mark = sb->len;
	describe_rank(s, r, sb, 1);
	if (sb->len > mark)
		strbuf_addstr(sb, "  ");
	describe_defers(s, r, sb);
	if (sb->len == mark)
		strbuf_setlen(sb, mark - 2);
	else
		strbuf_rtrim(sb);
}

void
where_lines(struct session *s, const struct rankset *which, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct rank_lines rl;

	rank_lines_begin(&rl, s->nranks, GROUP_ALIKE, "", out);
	for (int r = 0; r < s->nranks; r++) {
		if (!rankset_has(which, r))
			continue;
		strbuf_reset(&sb);
		where_line(s, r, &sb);
		rank_lines_add(&rl, r, group_after_rank(sb.buf));
	}
	rank_lines_end(&rl);
	strbuf_release(&sb);
}

static const char *const startable[] = { "notify", "wait", "put", "get",
	"remote_store", "remote_load", "fill", "set", "allreduce", "barrier",
	"broadcast", "allgather", "reduce_scatter", "all_to_all",
	"all_to_all_v", NULL };

static enum cmd_retval
cmd_start_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	const struct cmd_entry *e;
	char *cause = NULL, *rest, *line;
	enum cmd_retval rv;
	int ok = 0, incomplete;

	e = cmd_find(arg(ctx, 0), &cause);
	if (e == NULL) {
		arg_error(ctx, 0, "%s", cause);
		free(cause);
		return CMD_ERROR;
	}
	for (int i = 0; startable[i] != NULL; i++)
		ok |= strcmp(startable[i], e->name) == 0;
	if (!ok) {
		arg_error(ctx, 0,
		    "start needs a rank operation or a collective (notify, wait, put, get, fill, set, allreduce, ...), not '%s'",
		    e->name);
		return CMD_ERROR;
	}
	if (ctx->explicit_targets && (e->flags & CMD_ALL_RANKS_ONLY)) {
		cmd_error(ctx, "'%s' always runs on all ranks; drop '%s'",
		    e->name, ctx->target_text);
		return CMD_ERROR;
	}
	rest = words_rest(&ctx->w, ctx->line, 0);
	line = ctx->explicit_targets ?
	    xasprintf("%s %s", ctx->target_text, rest) :
	    xstrdup(rest);
	s->start_pflags = PROG_F_START;
	record_suppress(1);
	rv = cmd_run_line(s, line, &incomplete);
	record_suppress(0);
	s->start_pflags = 0;
	out_set_line(ctx->line);
	free(line);
	free(rest);
	return rv;
}

int
ranks_release(struct session *s, const struct rankset *targets, int stepping,
    uint32_t n, struct rankset *moved, char **cause)
{
	int any = 0;

	rankset_clear(moved);
	for (int r = 0; r < s->nranks; r++) {
		if (!rankset_has(targets, r) || !rank_alive(s, r) ||
		    rank_state_of(s, r) != RS_STOPPED)
			continue;
		ctl_release(&s->seg, r, stepping, n);
		rankset_add(moved, r);
		any = 1;
	}
	if (!any) {
		int busy = 0, alive = 0;
		for (int r = 0; r < s->nranks; r++) {
			busy |= rankset_has(targets, r) && rank_job(s, r) != NULL;
			alive |= rankset_has(targets, r) && rank_alive(s, r);
		}
		if (!alive)
			return cause_set(cause,
			    "no target rank is alive (see 'ranks')");
		return cause_set(cause, "no target rank is stopped%s",
		    busy ?
			" (blocked ranks move when their cell changes; see 'where')" :
			s->kind->not_stopped_hint);
	}
	session_update_gate(s);
	for (int r = 0; r < s->nranks; r++) {
		if (rankset_has(moved, r))
			ctl_kick(&s->seg, r);
	}
	return 0;
}

/* Let stopped targets go: n credits in step mode, or free running. */
static int
release(struct cmdctx *ctx, int stepping, uint32_t n, struct rankset *moved)
{
	char *cause = NULL;

	if (ranks_release(ctx->s, &ctx->targets, stepping, n, moved, &cause) !=
	    0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return -1;
	}
	return 0;
}

void
report_moved(struct session *s, const struct rankset *released)
{
	struct strbuf sb = STRBUF_INIT;
	struct rankset had, set = *released, *moved = &set;

	/* ranks that finish because the released ones moved are shown too */
	rankset_clear(&had);
	for (int r = 0; r < s->nranks; r++) {
		if (rank_job(s, r) != NULL)
			rankset_add(&had, r);
	}
	session_settle(s);
	for (int r = 0; r < s->nranks; r++) {
		if (rankset_has(&had, r) && rank_job(s, r) == NULL)
			rankset_add(moved, r);
	}
	out_flush_events();
	session_update_gate(s);
	where_lines(s, moved, &sb);
	out_printf("%s", sb.buf);
	for (int r = 0; r < s->nranks; r++) {
		struct job *j = rank_job(s, r);
		if (!rankset_has(moved, r))
			continue;
		break_stop_said(s, r);
		if (j != NULL && rank_state_of(s, r) == RS_BLOCKED)
			j->flags |= JOB_SAID_BLOCKED; /* the line just said it */
	}
	strbuf_release(&sb);
	report_break_stops(s); /* ranks the released ones let run */
	out_flush_events();
}

static enum cmd_retval
cmd_step_exec(struct cmdctx *ctx)
{
	struct rankset moved;
	uint64_t n = 1;
	char *cause = NULL;

	if (nargs(ctx) == 1 &&
	    (parse_uint(arg(ctx, 0), &n, 0, &cause) != 0 || n == 0 ||
		n > UINT32_MAX)) {
		free(cause);
		arg_error(ctx, 0,
		    "bad step count '%s' (expected a positive number)",
		    arg(ctx, 0));
		return CMD_ERROR;
	}
	if (release(ctx, 1, (uint32_t)n, &moved) != 0)
		return CMD_ERROR;
	report_moved(ctx->s, &moved);
	return CMD_OK;
}

static enum cmd_retval
cmd_continue_exec(struct cmdctx *ctx)
{
	struct rankset moved;

	if (release(ctx, 0, 0, &moved) != 0)
		return CMD_ERROR;
	report_moved(ctx->s, &moved);
	return CMD_OK;
}

static enum cmd_retval
cmd_where_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct strbuf sb = STRBUF_INIT;

	where_lines(s, &ctx->targets, &sb);
	out_printf("%s", sb.buf);
	strbuf_release(&sb);
	diag_state_shown(s);
	return CMD_OK;
}

const struct cmd_entry cmd_start_entry = {
	.name = "start",
	.usage = "COMMAND...",
	.summary = "issue a command with every target stopped before op 1",
	.example = "start allreduce buf sig mode=ring",
	.group = GRP_CONTROL,
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_TARGETS | CMD_NO_SETTLE | CMD_AGENTS_ONLY,
	.keywords = startable,
	.agents_why = "these ranks run their program's own calls; 'step' and "
		      "'break' stop them before those",
	.exec = cmd_start_exec,
};

const struct cmd_entry cmd_step_entry = {
	.name = "step",
	.alias = "s",
	.usage = "[N]",
	.summary = "each stopped target executes N micro-ops (default 1)",
	.example = "step 3",
	.group = GRP_CONTROL,
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_TARGETS | CMD_NO_SETTLE | CMD_REPEAT,
	.exec = cmd_step_exec,
};

const struct cmd_entry cmd_continue_entry = {
	.name = "continue",
	.alias = "c",
	.usage = "",
	.summary = "stopped targets run until done, a breakpoint, or blocked",
	.example = "continue",
	.group = GRP_CONTROL,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_TARGETS | CMD_NO_SETTLE | CMD_REPEAT,
	.exec = cmd_continue_exec,
};

const struct cmd_entry cmd_where_entry = {
	.name = "where",
	.alias = "bt",
	.usage = "",
	.summary = "each rank's program, step k/K, phase and micro-op",
	.example = "where",
	.group = GRP_OBSERVE,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_TARGETS | CMD_NO_SETTLE,
	.exec = cmd_where_exec,
};
