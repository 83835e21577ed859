/* cmd-script.c - source, expect, sleep, say, pause. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

void print_region_values(struct session *s, int r, const struct region *rg,
    struct strbuf *sb);

static enum cmd_retval
cmd_source_exec(struct cmdctx *ctx)
{
	int expecting = script.expect_error, rc;

	/* "expect error" before "source FILE" is about the source command
	 * itself, not about the first line of FILE. */
	script.expect_error = 0;
	rc = script_run_file(ctx->s, arg(ctx, 0));
	if (expecting)
		script.expect_error = expecting;
	return rc == 0 ? (script.quit ? CMD_QUIT : CMD_OK) : CMD_ERROR;
}

static int expect_fail(const char *fmt, ...) printflike(1, 2);

static int
expect_fail(const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "expect failed: %s\n", msg);
	free(msg);
	return -1;
}

static int
expect_state(struct cmdctx *ctx)
{
	static const char *const ok[] = { "idle", "running", "blocked",
		"stopped", "exited", "dead", NULL };
	const char *want = arg(ctx, 1);
	int known = 0;

	for (int i = 0; ok[i] != NULL; i++)
		known |= strcmp(ok[i], want) == 0;
	if (!known)
		return arg_error(ctx, 1,
		    "bad state '%s' (expected idle, running, blocked, stopped, exited or dead)",
		    want);
	if (nargs(ctx) > 2)
		return arg_error(ctx, 2, "unexpected '%s' after the state",
		    arg(ctx, 2));
	for (int r = 0; r < ctx->s->nranks; r++) {
		const char *got;
		if (!rankset_has(&ctx->targets, r))
			continue;
		got = rank_state_name(rank_state_of(ctx->s, r));
		if (strcmp(got, want) != 0)
			return expect_fail("rank %d is %s, expected %s", r, got,
			    want);
	}
	return 0;
}

/*
 * One expected value as the window would hold it: a float is rounded to
 * the window's dtype (0.1 in an f32 window is the f32 nearest 0.1), an
 * integer written out is compared exactly (i64 beyond 2^53).
 */
static int
want_parse(const struct region *rg, char *text, struct expect_want *w,
    char **cause)
{
	enum dtype dt = rg->w->dtype;

	w->text = text;
	w->exact = 0;
	if (*text == '\0') {
		*cause = xstrdup("empty value in the list (expected V[,V...])");
		return -1;
	}
	if (parse_number(text, &w->v, cause) != 0)
		return -1;
	if (dtype_is_float(dt)) {
		uint8_t tmp[8];

		if (!isnan(w->v)) {
			double typed;

			dtype_put(dt, tmp, 0, w->v);
			typed = dtype_get(dt, tmp, 0);
			if (isinf(typed) && !isinf(w->v)) {
				*cause = xasprintf("value %s out of range for %s",
				    text, dtype_name(dt));
				return -1;
			}
			w->v = typed;
		}
	} else if (parse_int(text, &w->iv, 0, NULL) == 0) {
		w->exact = 1;
	}
	return 0;
}

static int
want_matches(const struct region *rg, const uint8_t *vals, uint64_t i,
    const struct expect_want *w)
{
	enum dtype dt = rg->w->dtype;
	double v;

	if (w->exact)
		return dtype_get_int(dt, vals, i) == w->iv;
	v = dtype_get(dt, vals, i);
	return v == w->v || (isnan(v) && isnan(w->v));
}

int
expect_spec_parse(struct cmdctx *ctx, struct expect_spec *sp)
{
	char *p, *cause = NULL;
	int rc = 0;

	memset(sp, 0, sizeof *sp);
	sp->targets = ctx->targets;
	if (region_arg(ctx, 0, &sp->rg) != 0)
		return -1;
	if (strcmp(arg(ctx, 1), "==") != 0)
		return arg_error(ctx, 1, "expected '==' after the region");
	if (nargs(ctx) != 3)
		return arg_error(ctx, nargs(ctx) > 3 ? 3 : 1,
		    "expected one value list like 1,2,3 (no spaces)");
	sp->list = xstrdup(arg(ctx, 2));
	for (p = sp->list;;) {
		char *comma = strchr(p, ',');

		if (comma != NULL)
			*comma = '\0';
		sp->want =
		    xreallocarray(sp->want, sp->nwant + 1, sizeof *sp->want);
		if (want_parse(&sp->rg, p, &sp->want[sp->nwant], &cause) != 0) {
			rc = arg_error(ctx, 2, "%s", cause);
			goto out;
		}
		sp->nwant++;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	if (sp->nwant != 1 && sp->nwant != sp->rg.count && sp->rg.count == 1)
		rc = arg_error(ctx, 2, "%zu values for 1 element (give 1)",
		    sp->nwant);
	else if (sp->nwant != 1 && sp->nwant != sp->rg.count)
		rc = arg_error(ctx, 2,
		    "%zu values for %llu elements (give 1 or %llu)", sp->nwant,
		    (unsigned long long)sp->rg.count,
		    (unsigned long long)sp->rg.count);
out:
	free(cause);
	if (rc != 0)
		expect_spec_release(sp);
	return rc;
}

void
expect_spec_release(struct expect_spec *sp)
{
	free(sp->want);
	free(sp->list);
	memset(sp, 0, sizeof *sp);
}

int
expect_spec_check(struct session *s, const struct expect_spec *sp, int r,
    const uint8_t *vals, char **why)
{
	const struct region *rg = &sp->rg;

	for (uint64_t i = 0; i < rg->count; i++) {
		const struct expect_want *w = &sp->want[sp->nwant == 1 ? 0 : i];
		struct strbuf cell = STRBUF_INIT, got = STRBUF_INIT;

		if (want_matches(rg, vals, i, w))
			continue;
		describe_cell(&s->view,
		    rg->w->off + (rg->first + i) * dtype_size(rg->w->dtype), 1,
		    &cell);
		dtype_format(rg->w->dtype, vals, i, &got);
		*why = xasprintf("rank %d %s = %s, expected %s", r, cell.buf,
		    got.buf, w->text);
		strbuf_release(&cell);
		strbuf_release(&got);
		return -1;
	}
	return 0;
}

static int
expect_values(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct expect_spec sp;
	uint8_t *vals;
	uint64_t esz;
	char *why = NULL;
	int rc = 0;

	if (expect_spec_parse(ctx, &sp) != 0)
		return -1;
	if (s->sink != NULL)
		return s->sink->expect(s->sink->arg, &sp);
	esz = dtype_size(sp.rg.w->dtype);
	vals = xmalloc(sp.rg.count * esz);
	view_sample(&s->view);
	for (int r = 0; r < s->nranks && rc == 0; r++) {
		if (!rankset_has(&ctx->targets, r))
			continue;
		if (!rank_alive(s, r)) {
			rc = expect_fail("rank %d is %s", r,
			    rank_state_name(rank_state_of(s, r)));
			break;
		}
		view_read(&s->view, r, sp.rg.w->off + sp.rg.first * esz, vals,
		    sp.rg.count * esz);
		if (expect_spec_check(s, &sp, r, vals, &why) != 0) {
			rc = expect_fail("%s", why);
			free(why);
		}
	}
	free(vals);
	expect_spec_release(&sp);
	return rc;
}

static enum cmd_retval
cmd_expect_exec(struct cmdctx *ctx)
{
	const char *what = arg(ctx, 0);
	int rc;

	/* REGION == V first: a window may be called "state" or "error". */
	if (nargs(ctx) >= 2 && strcmp(arg(ctx, 1), "==") == 0 &&
	    !ctx->w.v[1].quoted)
		return expect_values(ctx) == 0 ? CMD_OK : CMD_ERROR;
	if (ctx->s->sink != NULL) {
		arg_error(ctx, 0,
		    "an explore script takes 'expect REGION == V[,V...]' only, not 'expect %s'",
		    what);
		return CMD_ERROR;
	}
	if (strcmp(what, "error") == 0) {
		if (nargs(ctx) != 1) {
			arg_error(ctx, 1, "'expect error' takes nothing more");
			return CMD_ERROR;
		}
		script.expect_error = 1;
		return CMD_OK;
	}
	if (strcmp(what, "output") == 0) {
		if (nargs(ctx) != 2) {
			cmd_usage_error(ctx,
			    "'expect output' needs one quoted TEXT");
			return CMD_ERROR;
		}
		if (strstr(out_captured(), arg(ctx, 1)) == NULL) {
			const char *c = out_captured();
			size_t n = strcspn(c, "\n");
			expect_fail("output does not contain \"%s\" (first line: \"%.*s\")",
			    arg(ctx, 1), (int)n, c);
			return CMD_ERROR;
		}
		return CMD_OK;
	}
	if (strcmp(what, "hang") == 0 || strcmp(what, "nohang") == 0) {
		if (nargs(ctx) != 1) {
			arg_error(ctx, 1, "'expect %s' takes nothing more", what);
			return CMD_ERROR;
		}
		return diag_expect_hang(ctx->s, what[0] == 'h') == 0 ? CMD_OK :
								       CMD_ERROR;
	}
	if (strcmp(what, "state") == 0) {
		if (nargs(ctx) < 2) {
			cmd_usage_error(ctx, "'expect state' needs a state");
			return CMD_ERROR;
		}
		rc = expect_state(ctx);
		diag_state_shown(ctx->s);
	} else if (nargs(ctx) >= 2) {
		rc = expect_values(ctx); /* says what is wrong with it */
	} else {
		arg_error(ctx, 0,
		    "bad expect '%s' (expected REGION == V[,V...], state S, hang, nohang, error or output \"TEXT\")",
		    what);
		return CMD_ERROR;
	}
	return rc == 0 ? CMD_OK : CMD_ERROR;
}

static enum cmd_retval
cmd_sleep_exec(struct cmdctx *ctx)
{
	double secs;
	char *cause = NULL;
	uint64_t end;

	if (parse_number(arg(ctx, 0), &secs, &cause) != 0 ||
	    !(secs >= 0 && secs <= 3600)) {
		free(cause);
		arg_error(ctx, 0,
		    "bad duration '%s' (expected seconds, 0..3600)", arg(ctx, 0));
		return CMD_ERROR;
	}
	/* The hang watchdog fires during a sleep: its report shows at once,
	 * and in batch it ends the sleep (the script stops there). */
	end = mono_ns() + (uint64_t)(secs * 1e9);
	while (mono_ns() < end && !shell_interrupted &&
	    !ctx->s->watchdog_fired && ctx->s->over == NULL) {
		uint64_t left = (end - mono_ns()) / 1000000u;
		unsigned reports = ctx->s->wd_reports;

		session_pump(ctx->s, (int)MIN(left + 1, 50));
		if (ctx->s->wd_reports != reports)
			out_flush_events();
	}
	if (shell_interrupted) {
		/* Ctrl-C: consume it here (else the next prompt sees it too)
		 * and fail, so a script stops instead of running on. */
		shell_interrupted = 0;
		if (ctx->s->interactive)
			out_printf("\n");
		cmd_error(ctx, "sleep interrupted");
		return CMD_ERROR;
	}
	return CMD_OK;
}

static enum cmd_retval
cmd_say_exec(struct cmdctx *ctx)
{
	char *text;

	text = xstrdup(arg(ctx, 0)); /* the rest of the line (split_say) */
	out_printf("%s\n", text);
	free(text);
	return CMD_OK;
}

static enum cmd_retval
cmd_pause_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	const struct cmd_reader *in = cmd_reader;

	if (!s->interactive || in == NULL)
		return CMD_OK;
	for (;;) {
		char *line = in->read(script_block_open() ?
			"... " :
			"-- Enter to continue, or a command -- ");
		enum cmd_retval rv;
		int incomplete = 0;

		if (line == NULL) {
			/* Ctrl-D is quit, as at the prompt: on a line of its
			 * own, and asking first with ranks stopped or blocked
			 * (n: back at the pause) */
			out_printf("\n");
			if (cmd_run_line(s, "quit", &incomplete) == CMD_QUIT)
				return CMD_QUIT;
			continue;
		}
		if (in->cancelled()) {
			free(line);
			script_block_cancel();
			cmd_error(ctx,
			    "interrupted at a pause; the script stops");
			return CMD_ERROR;
		}
		if (line[strspn(line, " \t")] == '\0' && !script_block_open()) {
			free(line);
			return CMD_OK;
		}
		in->history_add(line);
		rv = script_run_whole(s, line);
		free(line);
		if (rv == CMD_QUIT)
			return CMD_QUIT;
	}
}

static const char *const expect_keywords[] = { "error", "output", "state",
	"hang", "nohang", "idle", "blocked", "stopped", "exited", "dead",
	"running", "==", NULL };

const struct cmd_entry cmd_source_entry = {
	.name = "source",
	.usage = "FILE",
	.summary = "run the commands in FILE",
	.example = "source scripts/hangs/tag0.coll",
	.group = GRP_SCRIPT,
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_source_exec,
};

const struct cmd_entry cmd_expect_entry = {
	.name = "expect",
	.usage =
	    "REGION == V[,V...] | state S | hang | nohang | error | output \"TEXT\"",
	.summary = "assert for scripts: silent when true, one line when not",
	.example = "expect @1 buf[0:4] == 0,0,0,0",
	.group = GRP_SCRIPT,
	.min_args = 1,
	.max_args = 3,
	.flags = CMD_TARGETS | CMD_NO_SETTLE | CMD_NO_CAPTURE | CMD_EXPLORE,
	.keywords = expect_keywords,
	.exec = cmd_expect_exec,
};

const struct cmd_entry cmd_sleep_entry = {
	.name = "sleep",
	.usage = "SECS",
	.summary = "pause the script; ranks keep running and events still print",
	.example = "sleep 0.5",
	.group = GRP_SCRIPT,
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_sleep_exec,
};

const struct cmd_entry cmd_say_entry = {
	.name = "say",
	.usage = "TEXT",
	.summary = "print TEXT (narration for lessons)",
	.example = "say \"rank 0 notifies rank 1\"",
	.group = GRP_SCRIPT,
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_NO_SETTLE | CMD_RAW_REST,
	.exec = cmd_say_exec,
};

const struct cmd_entry cmd_pause_entry = {
	.name = "pause",
	.usage = "",
	.summary = "wait for Enter (interactive only; commands may be typed)",
	.example = "pause",
	.group = GRP_SCRIPT,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_pause_exec,
};
