/*
 * cmd-gdb.c - `gdb @R`: gdb attached to rank R while it is stopped at its
 * step gate.  Inside tmux it opens in a new window and the prompt stays
 * usable; otherwise it runs in the foreground until it exits.  gdb selects
 * the frame of the user's own call: the frame at the call site the rank
 * published (file:line, core/site.h), else the caller of the first cdb_*
 * frame.  The rank sleeps in its gate (a futex on its board slot), so
 * gdb's attach and detach change nothing colldb sees: detached, the rank
 * is where it was, under colldb's control.  While gdb holds it (a tracing
 * stop, rank_frozen()) diagnose counts it as stopped at its gate, as it
 * was: SLOW, and no watchdog HANG.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

/* gdb's python: select the user's frame, then say what this is. */
static char *
frame_script(const struct site *st)
{
	return xasprintf("python exec(\"import gdb, os\\n"
			 "f = gdb.newest_frame(); pick = None; api = None\\n"
			 "while f is not None:\\n"
			 "  sal = f.find_sal()\\n"
			 "  name = f.name() or ''\\n"
			 "  if sal.symtab is not None and os.path.basename(sal.symtab.filename) == '%s' and sal.line == %d:\\n"
			 "    pick = f; break\\n"
			 "  if api is None and name.startswith('cdb_') and f.older() is not None:\\n"
			 "    api = f.older()\\n"
			 "  f = f.older()\\n"
			 "pick = pick or api\\n"
			 "if pick is not None:\\n"
			 "  pick.select()\\n"
			 "\")",
	    st->file, (int)st->line);
}

static int
have_gdb(void)
{
	const char *path = getenv("PATH");
	char *dup, *dir, *save = NULL;
	int found = 0;

	dup = xstrdup(path != NULL ? path : "/usr/bin:/bin");
	for (dir = strtok_r(dup, ":", &save); dir != NULL && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/gdb", dir);
		found = access(f, X_OK) == 0;
		free(f);
	}
	free(dup);
	return found;
}

static enum cmd_retval
cmd_gdb_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct view_board b;
	struct strbuf where = STRBUF_INIT;
	char pid[16], title[32], *gscript, *banner;
	const char *argv[16];
	int r = rankset_first(&ctx->targets), n = 0, in_tmux;
	enum cmd_retval rv = CMD_ERROR;
	pid_t child;

	if (rankset_count(&ctx->targets) != 1)
		return cmd_error(ctx, "gdb attaches to one rank (gdb @R)"),
		       CMD_ERROR;
	if (!rank_alive(s, r))
		return cmd_error(ctx, "rank %d is not alive (see 'ranks')", r),
		       CMD_ERROR;
	view_board(&s->view, r, &b);
	if (b.state != RS_STOPPED)
		return cmd_error(ctx,
			   "rank %d is %s; gdb attaches to a rank stopped at its gate ('break', 'step' or 'interrupt @%d' first)",
			   r, rank_state_name(b.state), r),
		       CMD_ERROR;
	if (s->rp[r].pid <= 0) /* an MPI job's rank: not our child */
		return cmd_error(ctx,
			   "rank %d is a rank of the MPI job, not a process colldb started here: attach gdb to it on its host (gdb -p)",
			   r),
		       CMD_ERROR;
	if (!have_gdb())
		return cmd_error(ctx,
			   "gdb is not installed (apt-get install gdb)"),
		       CMD_ERROR;
	in_tmux = getenv("TMUX") != NULL && getenv("TMUX")[0] != '\0';
	if (!in_tmux && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)))
		return cmd_error(ctx,
			   "gdb needs a terminal: run colldb inside tmux (a new window) or at a terminal"),
		       CMD_ERROR;
	describe_rank(s, r, &where, 0);
	snprintf(pid, sizeof pid, "%d", (int)s->rp[r].pid);
	snprintf(title, sizeof title, "gdb-rank%d", r);
	gscript = frame_script(&b.site);
	banner =
	    xasprintf("echo colldb: rank %d, stopped at its gate: %s\\n"
		      "colldb: 'detach' (or quit) gives it back to colldb where it was\\n",
		r, where.buf);
	if (in_tmux) {
		argv[n++] = "tmux";
		argv[n++] = "new-window";
		argv[n++] = "-n";
		argv[n++] = title;
		argv[n++] = "--";
	}
	argv[n++] = "gdb";
	argv[n++] = "-q";
	argv[n++] = "-p";
	argv[n++] = pid;
	argv[n++] = "-ex";
	argv[n++] = gscript;
	argv[n++] = "-ex";
	argv[n++] = "frame";
	argv[n++] = "-ex";
	argv[n++] = banner;
	argv[n] = NULL;
	fflush(stdout);
	fflush(stderr);
	if ((child = fork()) < 0) {
		cmd_error(ctx, "fork: %s", strerror(errno));
		goto out;
	}
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "colldb: cannot run %s: %s\n", argv[0],
		    strerror(errno));
		_exit(127);
	}
	if (!in_tmux) {
		void (*was)(int) = signal(SIGINT, SIG_IGN); /* gdb's ^C */
		int st = 0;

		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
		signal(SIGINT, was);
		out_printf("gdb detached from rank %d\n", r);
	} else {
		int st = 0;

		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			cmd_error(ctx, "tmux could not open a window for gdb");
			goto out;
		}
		out_printf("gdb attached to rank %d in tmux window '%s'; 'detach' there gives it back\n",
		    r, title);
	}
	rv = CMD_OK;
out:
	free(gscript);
	free(banner);
	strbuf_release(&where);
	return rv;
}

const struct cmd_entry cmd_gdb_entry = {
	.name = "gdb",
	.usage = "@R",
	.summary = "attach gdb to a rank stopped at its gate (tmux: new window)",
	.example = "gdb @2",
	.group = GRP_CONTROL,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_TARGETS | CMD_NO_SETTLE,
	.exec = cmd_gdb_exec,
};
