/*
 * cmd.c - the command table and everything derived from it: lookup
 * (alias, exact name, unique prefix), arity and rank-target checks done
 * once before exec, usage errors, and argument helpers for exec functions.
 * help (cmd-help.c) and completion (lineedit.c) walk the same table.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "shell.h"
#include "xmalloc.h"

extern const struct cmd_entry cmd_help_entry, cmd_world_entry,
    cmd_ranks_entry, cmd_info_entry, cmd_focus_entry, cmd_alloc_entry,
    cmd_free_entry, cmd_windows_entry, cmd_fill_entry, cmd_print_entry,
    cmd_set_entry, cmd_notify_entry, cmd_wait_entry, cmd_put_entry,
    cmd_get_entry, cmd_interrupt_entry, cmd_source_entry, cmd_expect_entry,
    cmd_sleep_entry, cmd_say_entry, cmd_pause_entry, cmd_quit_entry,
    cmd_kill_entry, cmd_allreduce_entry, cmd_barrier_entry,
    cmd_broadcast_entry, cmd_allgather_entry, cmd_reduce_scatter_entry,
    cmd_all_to_all_entry, cmd_plan_entry, cmd_start_entry, cmd_step_entry,
    cmd_continue_entry, cmd_where_entry, cmd_break_entry, cmd_delete_entry,
    cmd_tbreak_entry, cmd_until_entry, cmd_advance_entry,
    cmd_diagnose_entry, cmd_watch_entry, cmd_record_entry, cmd_bench_entry,
    cmd_tree_entry, cmd_trace_entry, cmd_load_entry, cmd_call_entry,
    cmd_reset_entry, cmd_repeat_entry, cmd_end_entry, cmd_remote_store_entry,
    cmd_remote_load_entry;

const struct cmd_entry *const cmd_table[] = {
	&cmd_help_entry,
	&cmd_world_entry,
	&cmd_ranks_entry,
	&cmd_info_entry,
	&cmd_focus_entry,
	&cmd_alloc_entry,
	&cmd_free_entry,
	&cmd_windows_entry,
	&cmd_reset_entry,
	&cmd_fill_entry,
	&cmd_print_entry,
	&cmd_set_entry,
	&cmd_notify_entry,
	&cmd_wait_entry,
	&cmd_put_entry,
	&cmd_get_entry,
	&cmd_remote_store_entry,
	&cmd_remote_load_entry,
	&cmd_interrupt_entry,
	&cmd_kill_entry,
	&cmd_allreduce_entry,
	&cmd_barrier_entry,
	&cmd_broadcast_entry,
	&cmd_allgather_entry,
	&cmd_reduce_scatter_entry,
	&cmd_all_to_all_entry,
	&cmd_plan_entry,
	&cmd_start_entry,
	&cmd_step_entry,
	&cmd_continue_entry,
	&cmd_break_entry,
	&cmd_tbreak_entry,
	&cmd_until_entry,
	&cmd_advance_entry,
	&cmd_delete_entry,
	&cmd_where_entry,
	&cmd_diagnose_entry,
	&cmd_watch_entry,
	&cmd_bench_entry,
	&cmd_tree_entry,
	&cmd_trace_entry,
	&cmd_load_entry,
	&cmd_call_entry,
	&cmd_source_entry,
	&cmd_repeat_entry,
	&cmd_end_entry,
	&cmd_expect_entry,
	&cmd_sleep_entry,
	&cmd_record_entry,
	&cmd_say_entry,
	&cmd_pause_entry,
	&cmd_quit_entry,
	NULL
};

const char *const cmd_group_names[GRP__COUNT] = {
	[GRP_WORLD] = "World and ranks",
	[GRP_WINDOWS] = "Windows and data",
	[GRP_SIGNALS] = "Signals and one-sided transfers",
	[GRP_COLL] = "Collectives",
	[GRP_CONTROL] = "Running and stopping",
	[GRP_OBSERVE] = "Observing",
	[GRP_BENCH] = "Benchmarks and traces",
	[GRP_CODE] = "Libraries in the ranks",
	[GRP_SCRIPT] = "Scripts",
	[GRP_SESSION] = "Session",
};

const struct cmd_entry *
cmd_find(const char *name, char **cause)
{
	const struct cmd_entry *found = NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(name);
	int nfound = 0;

	for (int i = 0; cmd_table[i] != NULL; i++) {
		const char *al = cmd_table[i]->alias;
		/* aliases are a comma-separated list */
		while (al != NULL && *al != '\0') {
			size_t n = strcspn(al, ",");
			if (n == len && strncmp(al, name, n) == 0)
				return cmd_table[i];
			al += n + (al[n] == ',');
		}
	}
	for (int i = 0; cmd_table[i] != NULL; i++) {
		if (strcmp(cmd_table[i]->name, name) == 0)
			return cmd_table[i];
	}
	for (int i = 0; cmd_table[i] != NULL; i++) {
		if (strncmp(cmd_table[i]->name, name, len) == 0) {
			found = cmd_table[i];
			strbuf_addf(&sb, "%s%s", nfound ? ", " : "", found->name);
			nfound++;
		}
	}
	if (nfound == 1) {
		strbuf_release(&sb);
		return found;
	}
	if (nfound > 1) {
		cause_set(cause, "ambiguous command '%s', could be: %s", name, sb.buf);
	} else {
		const char *best = NULL;
		size_t bestd = 3;
		for (int i = 0; cmd_table[i] != NULL; i++) {
			size_t d = edit_distance(name, cmd_table[i]->name);
			if (d < bestd) {
				bestd = d;
				best = cmd_table[i]->name;
			}
		}
		if (best != NULL)
			cause_set(cause, "unknown command '%s' (did you mean '%s'?)", name, best);
		else
			cause_set(cause, "unknown command '%s' (try 'help')", name);
	}
	strbuf_release(&sb);
	return NULL;
}










static void
ctx_release(struct cmdctx *ctx)
{
	words_free(&ctx->w);
	free((char *)ctx->target_text);
	free(ctx->subs);
}

static void
push_word(struct words *w, const char *text, size_t len, size_t col,
    size_t span, int quoted)
{
	w->v = xreallocarray(w->v, w->n + 1, sizeof *w->v);
	w->v[w->n].s = xstrndup(text, len);
	w->v[w->n].col = col;
	w->v[w->n].len = span;
	w->v[w->n].quoted = quoted;
	w->n++;
}

/*
 * `say` takes the rest of its line verbatim: an apostrophe, a bracket or a
 * '#' is narration there, not syntax.  Returns 1 (and fills out) when line
 * is a say command; a text wholly in double quotes loses them.
 */
static int
split_say(const char *line, struct words *out)
{
	const struct cmd_entry *e;
	size_t i = strspn(line, " \t"), p0 = i, n, rest;
	char name[32];
	int has_prefix = 0;

	memset(out, 0, sizeof *out);
	if (line[i] == '@') {
		has_prefix = 1;
		i += strcspn(line + i, " \t");
		i += strspn(line + i, " \t");
	}
	n = strcspn(line + i, " \t");
	if (n == 0 || n >= sizeof name)
		return 0;
	memcpy(name, line + i, n);
	name[n] = '\0';
	if ((e = cmd_find(name, NULL)) == NULL || strcmp(e->name, "say") != 0)
		return 0;
	if (has_prefix)
		push_word(out, line + p0, strcspn(line + p0, " \t"), p0,
		    strcspn(line + p0, " \t"), 0);
	push_word(out, line + i, n, i, n, 0);
	rest = i + n + strspn(line + i + n, " \t");
	n = strlen(line + rest);
	if (line[rest] == '"' || line[rest] == '\'') {
		/* "text" or 'text', then nothing or a comment */
		const char *q = strchr(line + rest + 1, line[rest]);
		if (q != NULL) {
			const char *after = q + 1 + strspn(q + 1, " \t");
			if (*after == '\0' || *after == '#') {
				push_word(out, line + rest + 1, (size_t)(q - line) - rest - 1,
				    rest, (size_t)(q - line) - rest + 1, 1);
				return 1;
			}
		}
	} else {
		/* a " # " ends the text: a trailing comment */
		const char *c = strstr(line + rest, " # ");
		if (c == NULL && n >= 2 && strcmp(line + rest + n - 2, " #") == 0)
			c = line + rest + n - 2;
		if (c != NULL)
			n = (size_t)(c - (line + rest));
	}
	while (n > 0 && (line[rest + n - 1] == ' ' || line[rest + n - 1] == '\t'))
		n--;
	if (n > 0)
		push_word(out, line + rest, n, rest, n, 0);
	return 1;
}

static enum cmd_retval run_line(struct session *s, const char *line,
    int *incomplete);

enum cmd_retval
cmd_run_line(struct session *s, const char *line, int *incomplete)
{
	enum cmd_retval rv;

	record_begin();
	rv = run_line(s, line, incomplete);
	record_end();
	return rv;
}

static enum cmd_retval
run_line(struct session *s, const char *line, int *incomplete)
{
	struct cmdctx ctx;
	struct words all;
	char *cause = NULL;
	size_t err_col = 0, first = 0;
	enum cmd_retval rv = CMD_ERROR;
	int prc;

	*incomplete = 0;
	memset(&ctx, 0, sizeof ctx);
	ctx.s = s;
	ctx.line = line;
	out_set_line(line);
	prc = split_say(line, &all) ? PARSE_OK :
	    parse_line(line, &all, &cause, &err_col);
	if (prc == PARSE_INCOMPLETE) {
		*incomplete = 1;
		free(cause);
		return CMD_OK;
	}
	if (prc != PARSE_OK) {
		out_capture_begin();
		out_error("%s", cause);
		out_caret(err_col, 1);
		free(cause);
		return CMD_ERROR;
	}
	if (all.n == 0) {
		words_free(&all);
		return CMD_OK;
	}
	out_capture_begin();
	ctx.targets = s->focus;
	if (all.v[0].s[0] == '@' && !all.v[0].quoted) {
		if (parse_ranks(all.v[0].s, s->nranks, &ctx.targets, &cause) != 0) {
			out_error("%s", cause);
			out_caret(all.v[0].col, all.v[0].len);
			goto fail;
		}
		ctx.explicit_targets = 1;
		first = 1;
		if (all.n == 1) {
			out_error("'%s' needs a command after it", all.v[0].s);
			out_caret(all.v[0].col, all.v[0].len);
			goto fail;
		}
	}
	ctx.target_text = rankset_format(&ctx.targets, s->nranks);
	ctx.entry = cmd_find(all.v[first].s, &cause);
	if (ctx.entry == NULL) {
		out_error("%s", cause);
		out_caret(all.v[first].col, all.v[first].len);
		goto fail;
	}
	if (ctx.explicit_targets && (ctx.entry->flags & CMD_ALL_RANKS_ONLY)) {
		out_error("'%s' always runs on all ranks; drop '%s'", all.v[first].s,
		    all.v[0].s);
		out_caret(all.v[0].col, all.v[0].len);
		goto fail;
	}
	if (s->kind->own_code && (ctx.entry->flags & CMD_AGENTS_ONLY)) {
		out_error("'%s' is not available under 'colldb run': %s",
		    ctx.entry->name, run_refusal(ctx.entry));
		out_caret(all.v[first].col, all.v[first].len);
		goto fail;
	}
	if (ctx.explicit_targets && !(ctx.entry->flags & (CMD_TARGETS | CMD_ALL_RANKS_ONLY))) {
		out_error("'%s' does not take a rank target; drop '%s'",
		    all.v[first].s, all.v[0].s);
		out_caret(all.v[0].col, all.v[0].len);
		goto fail;
	}
	/* "expect @1 buf == 0" and "interrupt @2": a target right after the
	 * name of a targeted command means the same as a prefix. */
	if (!ctx.explicit_targets && (ctx.entry->flags & CMD_TARGETS) &&
	    all.n > first + 1 && all.v[first + 1].s[0] == '@' &&
	    !all.v[first + 1].quoted) {
		struct word t = all.v[first + 1];
		if (parse_ranks(t.s, s->nranks, &ctx.targets, &cause) != 0) {
			out_error("%s", cause);
			out_caret(t.col, t.len);
			goto fail;
		}
		ctx.explicit_targets = 1;
		free((char *)ctx.target_text);
		ctx.target_text = rankset_format(&ctx.targets, s->nranks);
		all.v[first + 1] = all.v[first];
		all.v[first] = t;
		first++;
	}
	if (!(ctx.entry->flags & (CMD_TARGETS | CMD_ALL_RANKS_ONLY)) &&
	    all.n > first + 1 && all.v[first + 1].s[0] == '@' &&
	    !all.v[first + 1].quoted && strcmp(ctx.entry->name, "focus") != 0) {
		out_error("'%s' does not take a rank target; drop '%s'",
		    all.v[first].s, all.v[first + 1].s);
		out_caret(all.v[first + 1].col, all.v[first + 1].len);
		goto fail;
	}
	/* The command's own words, without prefix and name. */
	ctx.w.n = all.n - first - 1;
	ctx.w.alloc = ctx.w.n;
	ctx.w.v = xreallocarray(NULL, ctx.w.n ? ctx.w.n : 1, sizeof *ctx.w.v);
	memcpy(ctx.w.v, all.v + first + 1, ctx.w.n * sizeof *ctx.w.v);
	for (size_t i = 0; i <= first; i++)
		free(all.v[i].s);
	free(all.v);
	memset(&all, 0, sizeof all);

	if ((int)ctx.w.n < ctx.entry->min_args) {
		cmd_usage_error(&ctx, "'%s' needs more arguments", ctx.entry->name);
		goto fail;
	}
	if (ctx.entry->max_args >= 0 && (int)ctx.w.n > ctx.entry->max_args) {
		size_t extra = (size_t)ctx.entry->max_args;
		cmd_usage_error(&ctx, "too many arguments to '%s'", ctx.entry->name);
		out_caret(ctx.w.v[extra].col, ctx.w.v[extra].len);
		goto fail;
	}
	rv = ctx.entry->exec(&ctx);
	if (rv != CMD_ERROR)
		record_command(&ctx);
	if (!(ctx.entry->flags & CMD_NO_SETTLE) && s->rp != NULL) {
		session_settle(s);
		cmd_report(&ctx);
		report_break_stops(s);
		out_flush_events();
		session_update_gate(s);
	}
	if (ctx.entry->flags & CMD_NO_CAPTURE)
		out_capture_restore();
	ctx_release(&ctx);
	free(cause);
	return rv;
fail:
	words_free(&all);
	ctx_release(&ctx);
	free(cause);
	return CMD_ERROR;
}


