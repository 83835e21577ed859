/*
 * cmd-reset.c - reset: re-zero windows between calls, as PyPTO's
 * reset_persistent_windows does before each reuse of a persistent run;
 * `set reset-windows` does it before every iteration of a repeat.  Also
 * the table entries of repeat and end, whose blocks script.c collects and
 * runs (shell/lang/loop.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

/*
 * Zero the windows named in words (or all of them): every name must exist
 * and no rank may be using any of them, or nothing is zeroed.  The
 * history forgets their cells, so a reused signal is not blamed on them.
 */
static int
reset_names(struct cmdctx *ctx, char **names, size_t n, size_t argi)
{
	struct session *s = ctx->s;
	struct seg_window *list[SEG_MAX_WINDOWS];
	int nw = 0;

	if (n == 1 && strcmp(names[0], "all") == 0) {
		nw = seg_win_list(&s->seg, list, SEG_MAX_WINDOWS);
	} else {
		for (size_t i = 0; i < n; i++) {
			struct seg_window *w =
			    win_lookup(ctx, argi + i, names[i]);
			if (w == NULL)
				return -1;
			list[nw++] = w;
		}
	}
	for (int i = 0; i < nw; i++) {
		if (window_busy(ctx, argi + (n > 1 ? (size_t)i : 0), list[i]) != 0)
			return -1;
	}
	seg_lock(&s->seg);
	for (int i = 0; i < nw; i++)
		seg_win_zero(&s->seg, list[i], -1);
	seg_unlock(&s->seg);
	for (int i = 0; i < nw; i++)
		hist_forget(s, list[i]->off, list[i]->off + list[i]->bytes);
	return 0;
}

static enum cmd_retval
cmd_reset_exec(struct cmdctx *ctx)
{
	char *names[SEG_MAX_WINDOWS];
	size_t n = nargs(ctx);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(arg(ctx, i), "all") == 0 && n > 1) {
			arg_error(ctx, i,
			    "'all' resets every window; give it alone");
			return CMD_ERROR;
		}
		if (i >= SEG_MAX_WINDOWS) {
			arg_error(ctx, i, "at most %d windows", SEG_MAX_WINDOWS);
			return CMD_ERROR;
		}
		names[i] = ctx->w.v[i].s;
	}
	return reset_names(ctx, names, n, 0) == 0 ? CMD_OK : CMD_ERROR;
}

int
windows_reset_each(struct session *s)
{
	struct cmdctx ctx;
	char *names[SEG_MAX_WINDOWS], *list, *save = NULL;
	size_t n = 0;
	int rc;

	if (s->set.reset_windows[0] == '\0')
		return 0;
	list = xstrdup(s->set.reset_windows);
	for (char *t = strtok_r(list, ",", &save);
	     t != NULL && n < SEG_MAX_WINDOWS; t = strtok_r(NULL, ",", &save))
		names[n++] = t;
	memset(&ctx, 0, sizeof ctx);
	ctx.s = s;
	out_set_line("");
	rc = reset_names(&ctx, names, n, 0);
	if (rc != 0)
		out_error("set reset-windows %s: the windows were not reset; the repeat stops",
		    s->set.reset_windows);
	free(list);
	return rc;
}

static enum cmd_retval
cmd_repeat_exec(struct cmdctx *ctx)
{
	(void)ctx;
	cmd_error(ctx,
	    "'repeat' opens a block: write it on a line of its own, the commands on the lines after it, then 'end'");
	return CMD_ERROR;
}

static enum cmd_retval
cmd_end_exec(struct cmdctx *ctx)
{
	(void)ctx;
	cmd_error(ctx,
	    "'end' closes a repeat block and goes on a line of its own");
	return CMD_ERROR;
}

static const char *const reset_keywords[] = { "all", NULL };

const struct cmd_entry cmd_reset_entry = {
	.name = "reset",
	.usage = "WINDOW... | all",
	.summary = "re-zero windows on every rank (reset_persistent_windows)",
	.example = "reset sig",
	.group = GRP_WINDOWS,
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_ALL_RANKS_ONLY | CMD_NO_SETTLE,
	.keywords = reset_keywords,
	.exec = cmd_reset_exec,
};

const struct cmd_entry cmd_repeat_entry = {
	.name = "repeat",
	.usage = "N",
	.summary = "run the lines up to the matching 'end' N times (blocks nest)",
	.example = "repeat 3",
	.group = GRP_SCRIPT,
	.min_args = 0,
	.max_args = -1,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_repeat_exec,
};

const struct cmd_entry cmd_end_entry = {
	.name = "end",
	.usage = "",
	.summary = "close a repeat block",
	.example = "end",
	.group = GRP_SCRIPT,
	.min_args = 0,
	.max_args = -1,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_end_exec,
};
