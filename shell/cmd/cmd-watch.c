/*
 * cmd-watch.c - `watch` (the live pane on this session; q returns to the
 * prompt) and `colldb watch [NAME]` (list running sessions, or watch one
 * read-only from another terminal).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/registry.h"
#include "cmd/cmd.h"
#include "watch-src.h"
#include "viz.h"
#include "watch.h"
#include "xmalloc.h"

static int
src_snapshot(void *arg, struct snap *out)
{
	return watch_src_fill(arg, out);
}

static int
src_release(struct watch_src *ws, int stepping, char **msg)
{
	struct rankset all, moved;
	char *cause = NULL;
	int rc;

	rankset_all(&all, ws->sess->nranks);
	rc = ranks_release(ws->sess, &all, stepping, 1, &moved, &cause);
	if (rc != 0) {
		*msg = cause;
		return -1;
	}
	session_settle(ws->sess);
	*msg = xasprintf("%s %d rank%s", stepping ? "stepped" : "continued",
	    rankset_count(&moved), rankset_count(&moved) == 1 ? "" : "s");
	return 0;
}

static int
src_step(void *arg, char **msg)
{
	return src_release(arg, 1, msg);
}

static int
src_cont(void *arg, char **msg)
{
	return src_release(arg, 0, msg);
}

static char *
src_diagnose(void *arg)
{
	struct watch_src *ws = arg;
	struct diag_result res;
	struct diag_in in;
	struct strbuf sb = STRBUF_INIT;
	int color = ws->sess->set.color;

	ws->sess->set.color = 0; /* the pane draws plain text */
	diag_run(ws->sess, &res, &in);
	diag_format(ws->sess, &in, &res, &sb);
	ws->sess->set.color = color;
	diag_result_release(&res);
	diag_in_release(&in);
	return strbuf_detach(&sb, NULL);
}

/* Targets short of every rank (@RANKS or the focus): the pane shows only
 * those rows (the map is the caller's to free). */
static uint8_t *
only_map(struct cmdctx *ctx, struct watch_opts *opts)
{
	uint8_t *map;

	if (rankset_count(&ctx->targets) == ctx->s->nranks)
		return NULL;
	map = xcalloc((size_t)ctx->s->nranks, 1);
	for (int r = 0; r < ctx->s->nranks; r++)
		map[r] = (uint8_t)rankset_has(&ctx->targets, r);
	opts->only = map;
	opts->only_n = ctx->s->nranks;
	opts->only_label = ctx->target_text;
	return map;
}

/* `watch dump [WxH] [styles]`: the pane as text, for scripts and tests. */
static enum cmd_retval
watch_dump(struct cmdctx *ctx)
{
	static const struct watch_source src = { .snapshot = src_snapshot };
	struct watch_opts opts = WATCH_OPTS_INIT;
	struct watch_src ws;
	struct watch *w;
	struct screen scr;
	struct strbuf sb = STRBUF_INIT;
	int cols = 80, rows = 24, flags = 0;
	uint8_t *map;

	for (size_t i = 1; i < nargs(ctx); i++) {
		const char *a = arg(ctx, i);
		if (strcmp(a, "styles") == 0)
			flags |= DUMP_STYLES;
		else if (sscanf(a, "%dx%d", &cols, &rows) != 2 || cols < 20 ||
		    rows < 5 || cols > 500 || rows > 500) {
			arg_error(ctx, i,
			    "bad size '%s' (expected COLSxROWS, 20x5 to 500x500, or styles)",
			    a);
			return CMD_ERROR;
		}
	}
	memset(&ws, 0, sizeof ws);
	ws.view = &ctx->s->view;
	ws.sess = ctx->s;
	map = only_map(ctx, &opts);
	w = watch_new(&src, &ws, &opts);
	watch_refresh(w);
	screen_init(&scr, cols, rows);
	watch_draw(w, &scr);
	dump_screen(&scr, &sb, flags);
	out_printf("%s", sb.buf);
	strbuf_release(&sb);
	screen_release(&scr);
	watch_free(w);
	watch_src_release(&ws);
	free(map);
	return CMD_OK;
}

static enum cmd_retval
cmd_watch_exec(struct cmdctx *ctx)
{
	static const struct watch_source src = { .snapshot = src_snapshot,
		.step = src_step,
		.cont = src_cont,
		.diagnose = src_diagnose };
	struct watch_opts opts = WATCH_OPTS_INIT;
	struct watch_src ws;
	uint8_t *map;
	int rc;

	if (nargs(ctx) > 0) {
		if (strcmp(arg(ctx, 0), "dump") != 0) {
			arg_error(ctx, 0,
			    "unknown watch mode '%s' (expected dump)",
			    arg(ctx, 0));
			return CMD_ERROR;
		}
		return watch_dump(ctx);
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cmd_error(ctx,
		    "watch needs a terminal (in scripts: 'watch dump', 'where', 'print')");
		return CMD_ERROR;
	}
	memset(&ws, 0, sizeof ws);
	ws.view = &ctx->s->view;
	ws.sess = ctx->s;
	map = only_map(ctx, &opts);
	rc = watch_run(&src, &ws, &opts);
	watch_src_release(&ws);
	if (rc == WATCH_INTERRUPTED)
		shell_interrupted = 0; /* Ctrl-C closed the pane: that was all
					 * (else the prompt would see it too) */
	free(map);
	out_flush_events(); /* what happened while the pane was up */
	if (rc == WATCH_ERROR) {
		cmd_error(ctx, "watch: %s", watch_error());
		return CMD_ERROR;
	}
	return CMD_OK;
}

/* colldb watch [NAME [@RANKS]] */
int
watch_main(int argc, char **argv)
{
	static const struct watch_source src = { .snapshot = src_snapshot };
	struct watch_opts opts = WATCH_OPTS_INIT;
	struct watch_src ws;
	struct seg sg;
	struct view v;
	char *cause = NULL;
	uint8_t *map = NULL;
	pid_t pid = 0;
	int fd, rc;

	if (argc == 1) {
		registry_list(stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		printf("usage: colldb watch [SESSION [@RANKS]]\n");
		return 0;
	}
	if (argc < 2 || argc > 3 || argv[1][0] == '-' ||
	    (argc == 3 && argv[2][0] != '@')) {
		if (argv[1][0] == '-')
			fprintf(stderr,
			    "error: unknown option '%s' (usage: colldb watch [SESSION [@RANKS]])\n",
			    argv[1]);
		else if (argc == 3)
			fprintf(stderr,
			    "error: '%s' is not a rank target (usage: colldb watch [SESSION [@RANKS]])\n",
			    argv[2]);
		else
			fprintf(stderr,
			    "error: too many arguments (usage: colldb watch [SESSION [@RANKS]])\n");
		return 2;
	}
	fd = registry_open(argv[1], &pid, &cause);
	if (fd < 0 || seg_attach_fd(&sg, fd, 0, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		free(cause);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (argc == 3) {
		struct rankset set;
		int n = (int)sg.h->nranks;

		if (parse_ranks(argv[2], n, &set, &cause) != 0) {
			fprintf(stderr,
			    "error: %s: %s (usage: colldb watch [SESSION [@RANKS]])\n",
			    argv[2], cause);
			free(cause);
			seg_close(&sg);
			return 2;
		}
		map = xcalloc((size_t)n, 1);
		for (int r = 0; r < n; r++)
			map[r] = (uint8_t)rankset_has(&set, r);
		opts.only = map;
		opts.only_n = n;
		opts.only_label = argv[2];
	}
	memset(&ws, 0, sizeof ws);
	view_seg_init(&v, &sg);
	ws.view = &v;
	ws.pid = pid;
	ws.readonly = 1;
	opts.readonly = 1;
	snprintf(ws.status, sizeof ws.status, "watching %s read-only (q quits)",
	    argv[1]);
	rc = watch_run(&src, &ws, &opts);
	watch_src_release(&ws);
	seg_close(&sg);
	free(map);
	if (rc == WATCH_ERROR) {
		fprintf(stderr, "error: watch: %s\n", watch_error());
		return 1;
	}
	if (rc == WATCH_ENDED)
		printf("session %s ended\n", argv[1]);
	return 0;
}

const struct cmd_entry cmd_watch_entry = {
	.name = "watch",
	.usage = "[dump [COLSxROWS] [styles]]",
	.summary = "full-screen live pane of ranks and signal cells",
	.example = "@0-7 watch",
	.group = GRP_OBSERVE,
	.min_args = 0,
	.max_args = 3,
	.flags = CMD_TARGETS | CMD_NO_SETTLE,
	.exec = cmd_watch_exec,
};
