/*
 * cmd-explore.c - explore: every interleaving that matters of a
 * collective (repeated or not) or of a script of per-rank commands, run
 * on a simulated copy of the session's windows and cells (core/explore.h).
 * The live world is not touched.  Its options and forms are here; what is
 * explored is captured in explore-capture.c, reported in explore-report.c
 * and saved as replayable scripts in explore-save.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explore.h"
#include "cmd/cmd.h"
#include "out/outfile.h"
#include "xmalloc.h"

/* ---- options ------------------------------------------------------------- */

struct xopts {
	struct explore_opts o;
	int repeat;
	const char *save;
};

static const char *const opt_keys[] = { "repeat", "max", "depth", "preempt",
	"time", "save", NULL };

static int
opt_uint(struct cmdctx *ctx, size_t i, const char *v, uint64_t lo, uint64_t hi,
    uint64_t *out)
{
	const char *a = arg(ctx, i);
	char *cause = NULL;

	if (parse_uint(v, out, 0, &cause) == 0 && *out >= lo && *out <= hi)
		return 0;
	free(cause);
	if (hi >= UINT32_MAX)
		return arg_error(ctx, i,
		    "bad value '%s' for %.*s (expected a positive number)", v,
		    (int)(strchr(a, '=') - a + 1), a);
	return arg_error(ctx, i, "bad value '%s' for %.*s (expected %llu..%llu)",
	    v, (int)(strchr(a, '=') - a + 1), a, (unsigned long long)lo,
	    (unsigned long long)hi);
}

/* Argument i is one of opt_keys: apply it. */
static int
opt_apply(struct cmdctx *ctx, size_t i, struct xopts *xo)
{
	const char *a = arg(ctx, i), *v = strchr(a, '=') + 1;
	uint64_t n;
	double secs;
	char *cause = NULL;

	if (strncmp(a, "save=", 5) == 0) {
		if (*v == '\0')
			return arg_error(ctx, i, "save= needs a directory");
		xo->save = v;
		return 0;
	}
	if (strncmp(a, "time=", 5) == 0) {
		if (parse_number(v, &secs, &cause) != 0 || !(secs > 0) ||
		    secs > 86400) {
			free(cause);
			return arg_error(ctx, i,
			    "bad value '%s' for time= (expected seconds, more than 0 and at most 86400)",
			    v);
		}
		xo->o.time = secs;
		return 0;
	}
	if (strncmp(a, "repeat=", 7) == 0) {
		if (opt_uint(ctx, i, v, 1, 64, &n) != 0)
			return -1;
		xo->repeat = (int)n;
	} else if (strncmp(a, "max=", 4) == 0) {
		if (opt_uint(ctx, i, v, 1, UINT64_MAX / 2, &n) != 0)
			return -1;
		xo->o.max = n;
	} else if (strncmp(a, "depth=", 6) == 0) {
		if (opt_uint(ctx, i, v, 1, UINT32_MAX, &n) != 0)
			return -1;
		xo->o.depth = (uint32_t)n;
	} else {
		if (opt_uint(ctx, i, v, 0, 1000, &n) != 0)
			return -1;
		xo->o.preempt = (int)n;
	}
	return 0;
}

static int
is_opt(const char *a)
{
	for (int k = 0; opt_keys[k] != NULL; k++) {
		size_t n = strlen(opt_keys[k]);

		if (strncmp(a, opt_keys[k], n) == 0 && a[n] == '=')
			return 1;
	}
	return 0;
}

static int
idle_world(struct cmdctx *ctx)
{
	struct session *s = ctx->s;

	for (int r = 0; r < s->nranks; r++) {
		struct strbuf sb = STRBUF_INIT;

		if (!rank_alive(s, r)) {
			out_error("explore needs every rank; rank %d is %s", r,
			    rank_state_name(rank_state_of(s, r)));
			return -1;
		}
		if (rank_job(s, r) == NULL)
			continue;
		describe_rank(s, r, &sb, 0);
		out_error("explore starts from the windows as they are, with every rank idle; rank %d is %s in %s (let it finish, or interrupt it)",
		    r, rank_state_name(rank_state_of(s, r)), sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	return 0;
}

/* FILE as given, or next to the script that says `explore script FILE`
 * (a lesson and its explore scripts travel together). */
static char *
script_path(const char *file)
{
	const char *slash;
	char *p;

	if (file[0] == '/' || access(file, F_OK) == 0 || script.file == NULL ||
	    (slash = strrchr(script.file, '/')) == NULL)
		return xstrdup(file);
	p = xasprintf("%.*s/%s", (int)(slash - script.file), script.file, file);
	if (access(p, F_OK) == 0)
		return p;
	free(p);
	return xstrdup(file);
}

/* Can the counterexamples go to dir?  It is made (explore-save.c) only
 * when the first one is written: here, what exists of it must be
 * directories and the deepest of them writable.  0, or -1 with why. */
static int
save_dir_check(const char *dir, char **why)
{
	char *p = xstrdup(dir), c;
	const char *top;
	struct stat st;
	int rc = 0, found = 0;

	/* no symlink on the way that another user could have planted */
	if (outfile_check(dir, why) != 0) {
		free(p);
		return -1;
	}
	for (char *q = p + 1;; q++) {
		if (*q != '/' && *q != '\0')
			continue;
		c = *q;
		*q = '\0';
		if (stat(p, &st) == 0) {
			if (!S_ISDIR(st.st_mode)) {
				*why = c == '\0' ?
				    xstrdup("not a directory") :
				    xasprintf("'%s' is not a directory", p);
				rc = -1;
				break;
			}
			found = q - p;
		} else if (errno != ENOENT) {
			*why = xstrdup(strerror(errno));
			rc = -1;
			break;
		} else {
			*q = c;
			break; /* made from here on */
		}
		*q = c;
		if (c == '\0')
			break;
	}
	/* the deepest directory there is: "/" or "." when none of dir is */
	if (found > 0)
		p[found] = '\0';
	top = found > 0 ? p : dir[0] == '/' ? "/" : ".";
	if (rc == 0 && access(top, W_OK | X_OK) != 0) {
		*why = xstrdup(strerror(errno));
		rc = -1;
	}
	free(p);
	return rc;
}

static int
run(struct cmdctx *ctx, struct xrun *xr, struct xcapture *c, struct xopts *xo)
{
	char *cause = NULL;
	int rc;

	if (save_dir_check(xo->save, &cause) != 0) {
		out_error("cannot save counterexamples in '%s': %s", xo->save,
		    cause);
		free(cause);
		return -1;
	}
	xcap_build(xr, c);
	xo->o.stop = &shell_interrupted;
	if (explore_run(xr->x, &xo->o, &cause) != 0) {
		out_error("cannot explore: %s", cause);
		free(cause);
		return -1;
	}
	if (explore_stats(xr->x)->cut & XCUT_STOP)
		shell_interrupted = 0; /* said in the report */
	rc = explore_report_all(xr, &xo->o, xo->save);
	(void)ctx;
	return rc;
}

static enum cmd_retval
explore_coll(struct cmdctx *ctx, struct xopts *xo)
{
	struct session *s = ctx->s;
	struct xrun xr = { .s = s };
	struct xcapture c = { .xr = &xr };
	struct script_cmd line = { NULL, 0 };
	struct strbuf text = STRBUF_INIT;
	struct coll_call cc;
	enum coll_kind kind;
	uint64_t extra = 0;
	int rc;

	if (coll_kind_from_name(arg(ctx, 0), &kind) != 0) {
		arg_error(ctx, 0,
		    "explore what? '%s' is not a collective (expected allreduce, barrier, broadcast, allgather, reduce_scatter, all_to_all, all_to_all_v, script FILE or show N)",
		    arg(ctx, 0));
		return CMD_ERROR;
	}
	if (coll_parse(ctx, kind, 1, &cc, opt_keys, &extra) != 0)
		return CMD_ERROR;
	if (cc.json) {
		for (size_t i = 1; i < nargs(ctx); i++) {
			if (strcmp(arg(ctx, i), "json") == 0) {
				arg_error(ctx, i,
				    "explore does not take 'json' (bench does)");
				return CMD_ERROR;
			}
		}
	}
	/* the call as a replay issues it: without explore's own options */
	strbuf_addstr(&text, arg(ctx, 0));
	for (size_t i = 1; i < nargs(ctx); i++) {
		if (i < 64 && (extra >> i & 1)) {
			if (opt_apply(ctx, i, xo) != 0) {
				strbuf_release(&text);
				return CMD_ERROR;
			}
		} else {
			strbuf_addf(&text, " %s", arg(ctx, i));
		}
	}
	if (idle_world(ctx) != 0 || coll_synth_signal(ctx, &cc, 1) != 0) {
		strbuf_release(&text);
		return CMD_ERROR;
	}
	xr.repeat = xo->repeat;
	xr.check = cc.check;
	xr.check_args = cc.a;
	line.text = text.buf;
	c.line = &line;
	for (c.pass = 0; c.pass < xo->repeat; c.pass++) {
		c.unit = -1;
		xcap_coll(&c, &cc);
	}
	rc = run(ctx, &xr, &c, xo);
	xrun_release(&xr);
	xcap_release(&c);
	strbuf_release(&text);
	return rc == 0 ? CMD_OK : CMD_ERROR;
}

static enum cmd_retval
explore_script(struct cmdctx *ctx, struct xopts *xo)
{
	struct xrun xr = { .s = ctx->s };
	struct xcapture c = { .xr = &xr };
	struct script_cmd *lines;
	size_t n;
	char *path;
	int rc;

	if (nargs(ctx) < 2) {
		cmd_usage_error(ctx, "'explore script' needs a FILE");
		return CMD_ERROR;
	}
	for (size_t i = 2; i < nargs(ctx); i++) {
		if (!is_opt(arg(ctx, i))) {
			arg_error(ctx, i,
			    "unknown option '%s' for explore script (expected repeat=, max=, depth=, preempt=, time= or save=)",
			    arg(ctx, i));
			return CMD_ERROR;
		}
		if (arg_key_repeated(ctx, 2, i) != 0 || opt_apply(ctx, i, xo) != 0)
			return CMD_ERROR;
	}
	path = script_path(arg(ctx, 1));
	if (idle_world(ctx) != 0 || script_read(path, &lines, &n) != 0) {
		free(path);
		return CMD_ERROR;
	}
	xr.file = arg(ctx, 1);
	xr.repeat = xo->repeat;
	rc = xcap_script(&c, lines, n);
	if (rc == 0 && c.npend == 0) {
		out_error("%s has nothing to explore (no notify, wait, put, get, remote_store, remote_load, fill, set or collective)",
		    xr.file);
		rc = -1;
	}
	if (rc == 0)
		rc = run(ctx, &xr, &c, xo);
	xrun_release(&xr);
	xcap_release(&c);
	script_cmds_free(lines, n);
	free(path);
	return rc == 0 ? CMD_OK : CMD_ERROR;
}

/* `explore repeat=2 allreduce ...` reads as `explore allreduce ...
 * repeat=2`: explore's own options may come first (each word keeps its
 * column, so an error still points at it). */
static void
lead_opts_last(struct cmdctx *ctx)
{
	size_t k = 0, n = nargs(ctx);
	struct word *v = ctx->w.v, t;

	while (k < n && is_opt(v[k].s))
		k++;
	if (k == 0 || k == n)
		return;
	for (size_t i = 0; i < k; i++) {
		t = v[0];
		memmove(v, v + 1, (n - 1) * sizeof *v);
		v[n - 1] = t;
	}
}

static enum cmd_retval
cmd_explore_exec(struct cmdctx *ctx)
{
	struct xopts xo;

	memset(&xo, 0, sizeof xo);
	xo.o.preempt = -1;
	xo.o.time = 60;
	xo.repeat = 1;
	xo.save = ".";
	lead_opts_last(ctx);
	if (is_opt(arg(ctx, 0))) { /* options only: they stayed first */
		cmd_usage_error(ctx,
		    "explore needs a collective, script FILE or show N besides its options");
		return CMD_ERROR;
	}
	if (strcmp(arg(ctx, 0), "show") == 0) {
		uint64_t id;
		char *cause = NULL;

		if (nargs(ctx) < 2) {
			cmd_usage_error(ctx,
			    "'explore show' needs one counterexample number");
			return CMD_ERROR;
		}
		if (nargs(ctx) > 2) {
			arg_error(ctx, 2,
			    "unexpected '%s' ('explore show' takes one counterexample number)",
			    arg(ctx, 2));
			return CMD_ERROR;
		}
		if (parse_uint(arg(ctx, 1), &id, 0, &cause) != 0 || id == 0 ||
		    id > INT32_MAX) {
			free(cause);
			arg_error(ctx, 1,
			    "bad counterexample number '%s' (expected 1, 2, ...)",
			    arg(ctx, 1));
			return CMD_ERROR;
		}
		return explore_show(ctx->s, (int)id) == 0 ? CMD_OK : CMD_ERROR;
	}
	if (strcmp(arg(ctx, 0), "script") == 0)
		return explore_script(ctx, &xo);
	return explore_coll(ctx, &xo);
}

static const char *const explore_keywords[] = { "script", "show", "allreduce",
	"barrier", "broadcast", "allgather", "reduce_scatter", "all_to_all",
	"all_to_all_v", "check",
	"repeat=", "max=", "depth=", "preempt=", "time=", "save=", NULL };

const struct cmd_entry cmd_explore_entry = {
	.name = "explore",
	.usage =
	    "COLLECTIVE ARGS... [check] [repeat=N] [max=N] [depth=N] [preempt=K] [time=SECS] [save=DIR] | script FILE [repeat=N] [...] | show N",
	.summary = "check every interleaving that matters: hangs, races, credits",
	.example = "explore allreduce buf sig mode=ring check repeat=2",
	.group = GRP_OBSERVE,
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_AGENTS_ONLY,
	.keywords = explore_keywords,
	.agents_why =
	    "explore runs the programs the shell builds on a copy of the "
	    "windows; a user program's own code cannot be simulated (yet)",
	.exec = cmd_explore_exec,
};
