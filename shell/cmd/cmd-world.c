/* cmd-world.c - world, ranks, info, focus, windows, quit. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

static void
format_shape(const struct seg_window *w, struct strbuf *sb)
{
	strbuf_addch(sb, '[');
	for (int d = 0; d < w->ndim; d++)
		strbuf_addf(sb, "%s%llu", d ? "," : "",
		    (unsigned long long)w->shape[d]);
	strbuf_addch(sb, ']');
}

static void
print_windows(struct session *s)
{
	struct seg_window *list[SEG_MAX_WINDOWS];
	int n = view_win_list(&s->view, list, SEG_MAX_WINDOWS);
	size_t wn = 4, ws = 5, wb = 5, wo = 6;
	struct strbuf sb = STRBUF_INIT;
	int domains = 0;

	if (n == 0) {
		out_printf("no windows (see 'alloc')\n");
		return;
	}
	for (int i = 0; i < n; i++) {
		char num[32];
		strbuf_reset(&sb);
		format_shape(list[i], &sb);
		wn = MAX(wn, strlen(list[i]->name));
		ws = MAX(ws, sb.len);
		wb = MAX(wb,
		    (size_t)snprintf(num, sizeof num, "%llu",
			(unsigned long long)list[i]->bytes));
		wo = MAX(wo,
		    (size_t)snprintf(num, sizeof num, "%llu",
			(unsigned long long)list[i]->doff));
	}
	/* with domains, a window's offset is in its domain's own layout */
	for (int i = 0; i < n; i++)
		domains |= list[i]->domain != 0;
	out_printf("%-*s  %-*s  %-5s  %*s  %*s%s\n", (int)wn, "name", (int)ws,
	    "shape", "dtype", (int)wb, "bytes", (int)wo, "offset",
	    domains ? "  domain" : "");
	for (int i = 0; i < n; i++) {
		const struct seg_domain *d =
		    view_domain(&s->view, list[i]->domain);

		struct strbuf line = STRBUF_INIT;

		strbuf_reset(&sb);
		format_shape(list[i], &sb);
		strbuf_addf(&line, "%-*s  %-*s  %-5s  %*llu  %*llu", (int)wn,
		    list[i]->name, (int)ws, sb.buf, dtype_name(list[i]->dtype),
		    (int)wb, (unsigned long long)list[i]->bytes, (int)wo,
		    (unsigned long long)list[i]->doff);
		if (domains)
			strbuf_addf(&line, "  %-6s",
			    d != NULL ? d->name : "world");
		if (list[i]->flags & WIN_SYNTH)
			strbuf_addstr(&line, "  (synthesized signal)");
		strbuf_rtrim(&line);
		out_printf("%s\n", line.buf);
		strbuf_release(&line);
	}
	strbuf_release(&sb);
}

static enum cmd_retval
cmd_windows_exec(struct cmdctx *ctx)
{
	print_windows(ctx->s);
	return CMD_OK;
}

const char *
session_name_shown(const struct session *s)
{
	char def[32];

	snprintf(def, sizeof def, "colldb-%d", (int)getpid());
	if (!s->interactive && !s->set.times && strcmp(s->name, def) == 0)
		return "colldb-*";
	return s->name;
}

static enum cmd_retval
cmd_world_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct seg_window *list[SEG_MAX_WINDOWS];
	int n = view_win_list(&s->view, list, SEG_MAX_WINDOWS), live = 0;
	uint64_t used = 0;

	for (int r = 0; r < s->nranks; r++)
		live += rank_alive(s, r);
	for (int i = 0; i < n; i++)
		used = MAX(used,
		    list[i]->off +
			(list[i]->bytes + SEG_ALIGN - 1) / SEG_ALIGN * SEG_ALIGN);
	out_printf("ranks      %d", s->nranks);
	if (live != s->nranks)
		out_printf(" (%d alive)", live);
	out_printf("\ntransport  %s\nsession    %s\nfocus      %s\n",
	    s->transport, session_name_shown(s), ctx->target_text);
	out_printf("windows    %d, %llu of %llu bytes per rank in use\n", n,
	    (unsigned long long)used,
	    (unsigned long long)view_area_size(&s->view));
	if (n > 0)
		print_windows(s);
	return CMD_OK;
}

static void
print_ranks(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT, out = STRBUF_INIT;
	struct rank_lines rl;

	view_sample(&s->view);
	rank_lines_begin(&rl, s->nranks, GROUP_ALIKE, "", &out);
	for (int r = 0; r < s->nranks; r++) {
		struct view_board b;
		enum rank_state st;
		int queued = 0;

		view_board(&s->view, r, &b);
		st = b.state;
		if (!rankset_has(&ctx->targets, r))
			continue;
		strbuf_reset(&sb);
		if (s->rp[r].death != NULL)
			strbuf_addstr(&sb, s->rp[r].death);
		else
			describe_rank(s, r, &sb, 0);
		for (struct job *j = rank_job(s, r); j != NULL; j = j->next)
			queued++;
		strbuf_reset(&line);
		if (s->rp[r].death != NULL &&
		    strncmp(sb.buf, rank_state_name(st),
			strlen(rank_state_name(st))) == 0)
			strbuf_addf(&line, ": %s", sb.buf); /* "exited with ..." */
		else
			strbuf_addf(&line, ": %s%s%s", rank_state_name(st),
			    sb.len ? "  " : "", sb.buf);
		if (queued > 1)
			strbuf_addf(&line, " (+%d queued)", queued - 1);
		if (s->set.times)
			strbuf_addf(&line, "  [%.1fs]",
			    (double)(mono_ns() - b.state_ns) / 1e9);
		rank_lines_add(&rl, r, line.buf);
	}
	rank_lines_end(&rl);
	out_printf("%s", out.buf);
	strbuf_release(&sb);
	strbuf_release(&line);
	strbuf_release(&out);
	diag_state_shown(ctx->s);
}

static enum cmd_retval
cmd_ranks_exec(struct cmdctx *ctx)
{
	print_ranks(ctx);
	return CMD_OK;
}

static const char *const info_keywords[] = { "ranks", "windows", "breaks", NULL };

static enum cmd_retval
cmd_info_exec(struct cmdctx *ctx)
{
	const char *what = arg(ctx, 0);
	size_t n = strlen(what);

	/* a topic, or any start of one (gdb's `info b`, `i r`) */
	if (strncmp(what, "ranks", n) == 0) {
		print_ranks(ctx);
		return CMD_OK;
	}
	if (strncmp(what, "windows", n) == 0) {
		print_windows(ctx->s);
		return CMD_OK;
	}
	if (strncmp(what, "breaks", n) == 0 || strcmp(what, "break") == 0 ||
	    strcmp(what, "breakpoints") == 0) {
		breaks_list(ctx->s);
		return CMD_OK;
	}
	arg_error(ctx, 0,
	    "unknown info topic '%s' (expected ranks, windows or breaks)", what);
	return CMD_ERROR;
}

static enum cmd_retval
cmd_focus_exec(struct cmdctx *ctx)
{
	struct rankset set;
	char *cause = NULL, *text;

	if (nargs(ctx) == 0) {
		text = rankset_format(&ctx->s->focus, ctx->s->nranks);
		out_printf("focus %s\n", text);
		free(text);
		return CMD_OK;
	}
	if (parse_ranks(arg(ctx, 0), ctx->s->nranks, &set, &cause) != 0) {
		arg_error(ctx, 0, "%s", cause);
		free(cause);
		return CMD_ERROR;
	}
	ctx->s->focus = set;
	return CMD_OK;
}

/*
 * quit: with ranks still stopped or blocked, a person at the prompt is
 * asked once (y ends the session, as does Ctrl-D; anything else, Ctrl-C
 * too, goes back to the prompt).  Scripts and batch runs never ask.
 */
static enum cmd_retval
cmd_quit_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	const struct cmd_reader *in = cmd_reader;
	int stopped = 0, blocked = 0, yes;
	char *prompt, *answer;

	if (!s->interactive || in == NULL || s->rp == NULL)
		return CMD_QUIT;
	for (int r = 0; r < s->nranks; r++) {
		if (!rank_alive(s, r))
			continue;
		stopped += rank_state_of(s, r) == RS_STOPPED;
		blocked += rank_state_of(s, r) == RS_BLOCKED;
	}
	if (stopped + blocked == 0)
		return CMD_QUIT;
	if (stopped > 0 && blocked > 0)
		prompt =
		    xasprintf("%d rank%s stopped and %d blocked; quit anyway? (y or n) ",
			stopped, stopped == 1 ? "" : "s", blocked);
	else
		prompt = xasprintf("%d rank%s %s; quit anyway? (y or n) ",
		    stopped + blocked, stopped + blocked == 1 ? "" : "s",
		    stopped > 0 ? "stopped" : "blocked");
	answer = in->read(prompt);
	free(prompt);
	if (answer == NULL) {
		out_printf("\n"); /* Ctrl-D: yes, as gdb takes it */
		return CMD_QUIT;
	}
	yes = !in->cancelled() &&
	    (strcmp(answer, "y") == 0 || strcmp(answer, "yes") == 0 ||
		strcmp(answer, "Y") == 0);
	free(answer);
	if (yes)
		return CMD_QUIT;
	out_printf("not quitting\n");
	return CMD_OK;
}

const struct cmd_entry cmd_world_entry = {
	.name = "world",
	.usage = "",
	.summary = "show the world: ranks, transport, session name, windows",
	.example = "world",
	.group = GRP_WORLD,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_world_exec,
};

const struct cmd_entry cmd_ranks_entry = {
	.name = "ranks",
	.usage = "",
	.summary = "each target rank's state and current operation",
	.example = "@1-2 ranks",
	.group = GRP_WORLD,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_TARGETS,
	.exec = cmd_ranks_exec,
};

const struct cmd_entry cmd_info_entry = {
	.name = "info",
	.alias = "i",
	.usage = "ranks|windows|breaks",
	.summary = "information about ranks, windows or breakpoints",
	.example = "info b",
	.group = GRP_WORLD,
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_TARGETS,
	.keywords = info_keywords,
	.exec = cmd_info_exec,
};

const struct cmd_entry cmd_focus_entry = {
	.name = "focus",
	.usage = "[@RANKS]",
	.summary = "set (or show) the ranks commands apply to by default",
	.example = "focus @1,3",
	.group = GRP_WORLD,
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_NO_SETTLE | CMD_RANKS_ARG,
	.exec = cmd_focus_exec,
};

const struct cmd_entry cmd_windows_entry = {
	.name = "windows",
	.usage = "",
	.summary = "list windows: name, shape, dtype, bytes, offset",
	.example = "windows",
	.group = GRP_WINDOWS,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_windows_exec,
};

const struct cmd_entry cmd_quit_entry = {
	.name = "quit",
	.alias = "q,exit",
	.usage = "",
	.summary = "end the session (asks first if ranks are stopped or blocked)",
	.example = "quit",
	.group = GRP_SESSION,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_quit_exec,
};
