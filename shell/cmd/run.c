/*
 * run.c - running a line against the command table (table.c): its words,
 * the @ranks prefix, the entry's target rules, arity and preconditions
 * checked once before exec, and the settle and report after it.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

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
 * A CMD_RAW_REST command (say) takes the rest of its line verbatim: an
 * apostrophe, a bracket or a '#' is narration there, not syntax.  Returns
 * 1 (and fills out) when line is one; a text wholly in quotes loses them.
 */
static int
split_raw(const char *line, struct words *out)
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
	if ((e = cmd_find(name, NULL)) == NULL || !(e->flags & CMD_RAW_REST))
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
				push_word(out, line + rest + 1,
				    (size_t)(q - line) - rest - 1, rest,
				    (size_t)(q - line) - rest + 1, 1);
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

	/* What happened while the shell waited for this line (a rank that
	 * died meanwhile) is known before the command looks at the ranks. */
	if (s->rp != NULL)
		session_pump(s, 0);
	record_begin();
	rv = run_line(s, line, incomplete);
	record_end();
	return rv;
}

/* An error about word w of the line: the message, the caret under w. */
static int
word_error(struct cmdctx *ctx, const struct word *w, const char *msg)
{
	cmd_error(ctx, "%s", msg);
	out_caret(w->col, w->len);
	return -1;
}

/* Parse the targets after the name ("expect @1 buf == 0") into ctx. */
static int
target_after_name(struct cmdctx *ctx, struct words *all, size_t *first)
{
	struct word t = all->v[*first + 1];
	char *cause = NULL;

	if (parse_ranks(t.s, ctx->s->nranks, &ctx->targets, &cause) != 0) {
		word_error(ctx, &t, cause);
		free(cause);
		return -1;
	}
	ctx->explicit_targets = 1;
	free((char *)ctx->target_text);
	ctx->target_text = rankset_format(&ctx->targets, ctx->s->nranks);
	all->v[*first + 1] = all->v[*first];
	all->v[*first] = t;
	(*first)++;
	return 0;
}

/*
 * The @prefix, the command, and whether they go together.  On success
 * ctx->entry and ctx->targets are set and *first indexes the name.
 */
static int
resolve(struct cmdctx *ctx, struct words *all, size_t *first)
{
	struct session *s = ctx->s;
	const struct word *pre = &all->v[0], *name;
	const struct cmd_entry *e;
	char *cause = NULL, *msg;
	int at_next;

	ctx->targets = s->focus;
	*first = 0;
	if (pre->s[0] == '@' && !pre->quoted) {
		if (parse_ranks(pre->s, s->nranks, &ctx->targets, &cause) != 0) {
			word_error(ctx, pre, cause);
			free(cause);
			return -1;
		}
		ctx->explicit_targets = 1;
		*first = 1;
		if (all->n == 1) {
			msg = xasprintf("'%s' needs a command after it", pre->s);
			word_error(ctx, pre, msg);
			free(msg);
			return -1;
		}
	}
	ctx->target_text = rankset_format(&ctx->targets, s->nranks);
	name = &all->v[*first];
	if ((e = ctx->entry = cmd_find(name->s, &cause)) == NULL) {
		word_error(ctx, name, cause);
		free(cause);
		return -1;
	}
	if (s->sink != NULL && !(e->flags & CMD_EXPLORE)) {
		msg =
		    xasprintf("'%s' cannot be explored (an explore script takes notify, wait, put, get, remote_store, remote_load, fill, set, expect and collectives)",
			e->name);
		word_error(ctx, name, msg);
		free(msg);
		return -1;
	}
	if (ctx->explicit_targets && (e->flags & CMD_ALL_RANKS_ONLY)) {
		msg = xasprintf("'%s' always runs on all ranks; drop '%s'",
		    name->s, pre->s);
		word_error(ctx, pre, msg);
		free(msg);
		return -1;
	}
	if (s->kind->own_code && (e->flags & CMD_AGENTS_ONLY)) {
		msg = xasprintf("'%s' is not available under 'colldb run': %s",
		    e->name,
		    e->agents_why != NULL ?
			e->agents_why :
			"these ranks run their program's own collectives; the shell "
			"cannot issue one for them");
		word_error(ctx, name, msg);
		free(msg);
		return -1;
	}
	if (ctx->explicit_targets &&
	    !(e->flags & (CMD_TARGETS | CMD_ALL_RANKS_ONLY))) {
		msg = xasprintf("'%s' does not take a rank target; drop '%s'",
		    name->s, pre->s);
		word_error(ctx, pre, msg);
		free(msg);
		return -1;
	}
	at_next = all->n > *first + 1 && all->v[*first + 1].s[0] == '@' &&
	    !all->v[*first + 1].quoted;
	/* "expect @1 buf == 0" and "interrupt @2": a target right after the
	 * name of a targeted command means the same as a prefix. */
	if (!ctx->explicit_targets && (e->flags & CMD_TARGETS) && at_next)
		return target_after_name(ctx, all, first);
	if (!(e->flags & (CMD_TARGETS | CMD_ALL_RANKS_ONLY | CMD_RANKS_ARG)) &&
	    at_next) {
		msg = xasprintf("'%s' does not take a rank target; drop '%s'",
		    name->s, all->v[*first + 1].s);
		word_error(ctx, &all->v[*first + 1], msg);
		free(msg);
		return -1;
	}
	return 0;
}

/* The command's own words, without prefix and name (all is emptied). */
static void
take_words(struct cmdctx *ctx, struct words *all, size_t first)
{
	ctx->w.n = all->n - first - 1;
	ctx->w.alloc = ctx->w.n;
	ctx->w.v = xreallocarray(NULL, ctx->w.n ? ctx->w.n : 1, sizeof *ctx->w.v);
	memcpy(ctx->w.v, all->v + first + 1, ctx->w.n * sizeof *ctx->w.v);
	for (size_t i = 0; i <= first; i++)
		free(all->v[i].s);
	free(all->v);
	memset(all, 0, sizeof *all);
}

static int
arity(struct cmdctx *ctx)
{
	const struct cmd_entry *e = ctx->entry;

	if ((int)ctx->w.n < e->min_args) {
		cmd_usage_error(ctx, "'%s' needs more arguments", e->name);
		return -1;
	}
	if (e->max_args >= 0 && (int)ctx->w.n > e->max_args) {
		size_t extra = (size_t)e->max_args;

		/* "domain=d1 domain=d2" is one option given twice, not an
		 * argument too many: name it (KEY an identifier, so that
		 * "== 1 == 2" is not a key "") */
		for (size_t i = 1; i < ctx->w.n; i++) {
			const char *a = ctx->w.v[i].s, *eq = strchr(a, '=');
			size_t k = 0;

			if (eq == NULL || isdigit((unsigned char)a[0]))
				continue;
			while (a + k < eq &&
			    (isalnum((unsigned char)a[k]) || a[k] == '_'))
				k++;
			if (k > 0 && a + k == eq &&
			    arg_key_repeated(ctx, 0, i) != 0)
				return -1;
		}
		cmd_usage_error(ctx, "too many arguments to '%s'", e->name);
		out_caret(ctx->w.v[extra].col, ctx->w.v[extra].len);
		return -1;
	}
	return 0;
}

/* The entry's CMD_NEEDS_* flags, in their order, one wording each. */
static int
preconditions(struct cmdctx *ctx)
{
	const struct cmd_entry *e = ctx->entry;
	struct session *s = ctx->s;
	const char *what;

	if ((e->flags & CMD_NEEDS_TARGETS) && !ctx->explicit_targets)
		return cmd_error(ctx, "'%s' needs explicit ranks, e.g. '@2 %s'",
		    e->name, e->name);
	if ((e->flags & CMD_NEEDS_NO_COLL) && coll_in_progress(s, &what))
		return cmd_error(ctx,
		    "%s is still in progress; wait for it to finish (or interrupt it) before %s",
		    what, e->group == GRP_COLL ? "another collective" : e->name);
	for (int i = 0; (e->flags & CMD_NEEDS_NO_BREAKS) && i < SEG_MAX_BREAKS;
	     i++) {
		if (s->seg.h->breaks[i].id != 0)
			return cmd_error(ctx,
			    "%s runs free of breakpoints; delete breakpoint %u first (see 'info breaks')",
			    e->name, s->seg.h->breaks[i].id);
	}
	for (int r = 0; (e->flags & CMD_NEEDS_ALL_IDLE) && r < s->nranks; r++) {
		struct strbuf sb = STRBUF_INIT;

		if (!rank_alive(s, r))
			return cmd_error(ctx,
			    "%s needs every rank; rank %d is %s", e->name, r,
			    rank_state_name(rank_state_of(s, r)));
		if (rank_job(s, r) == NULL)
			continue;
		describe_rank(s, r, &sb, 0);
		cmd_error(ctx, "%s needs every rank idle; rank %d is %s in %s",
		    e->name, r, rank_state_name(rank_state_of(s, r)),
		    sb.len ? sb.buf : rank_job(s, r)->desc);
		strbuf_release(&sb);
		return -1;
	}
	return 0;
}

/* After a command: the world settles, and what it did is reported. */
static void
settle_and_report(struct cmdctx *ctx)
{
	struct session *s = ctx->s;

	if ((ctx->entry->flags & CMD_NO_SETTLE) || s->rp == NULL)
		return;
	session_settle(s);
	cmd_report(ctx);
	report_break_stops(s);
	out_flush_events();
	session_update_gate(s);
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
	prc = split_raw(line, &all) ? PARSE_OK :
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
	if (resolve(&ctx, &all, &first) != 0) {
		words_free(&all);
		ctx_release(&ctx);
		return CMD_ERROR;
	}
	take_words(&ctx, &all, first);
	if (arity(&ctx) != 0 || preconditions(&ctx) != 0) {
		ctx_release(&ctx);
		return CMD_ERROR;
	}
	rv = ctx.entry->exec(&ctx);
	if (rv != CMD_ERROR)
		record_command(&ctx);
	settle_and_report(&ctx);
	if (ctx.entry->flags & CMD_NO_CAPTURE)
		out_capture_restore();
	ctx_release(&ctx);
	return rv;
}
