/*
 * cmd-record.c - record FILE / record stop: append every command that
 * actually runs from now on to FILE, so that `colldb FILE` replays the
 * session.  Each command is written with its rank targets made explicit
 * (the focus at the time becomes an @ prefix), events become comments, and
 * every line goes to the file with its own write(2): nothing is lost if
 * the session ends abruptly.  Not recorded: failed commands, record,
 * source (its commands are recorded one by one), pause, watch, quit.
 * With `record FILE expect`, each command is followed by what it changed
 * and the ranks' states as expect lines (record-expect.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/outfile.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

static struct {
	int fd; /* -1: not recording */
	char *path;
	int suppress;	       /* inside `start CMD`: start is the record */
	int depth;	       /* commands running (nested: start, source) */
	int expect;	       /* `record FILE expect`: state as expect lines */
	int ran;	       /* the outermost command was recorded */
	struct strbuf pending; /* events of the running command: they
				 * follow its line in the file */
	char *inner;	       /* the ranks a domain's window narrowed the
				 * focus to in `start CMD`'s CMD, or NULL */
} rec = { -1, NULL, 0, 0, 0, 0, STRBUF_INIT, NULL };

static void flush_pending(void);

static void
rec_write(const char *text)
{
	size_t len = strlen(text), done = 0;

	while (done < len) {
		ssize_t n = write(rec.fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out_warning("record: writing %s failed (%s); recording stopped",
			    rec.path, strerror(errno));
			close(rec.fd);
			rec.fd = -1;
			return;
		}
		done += (size_t)n;
	}
}

/* `break wait @1`: the command names its ranks itself. */
static int
targets_in_args(struct cmdctx *ctx)
{
	for (size_t i = 0; i < nargs(ctx); i++) {
		if (arg(ctx, i)[0] == '@' && !ctx->w.v[i].quoted)
			return 1;
	}
	return 0;
}

/* "start allreduce ...": the collective runs on all ranks, whatever the focus */
static int
start_all_ranks(struct cmdctx *ctx)
{
	const struct cmd_entry *inner;

	if (strcmp(ctx->entry->name, "start") != 0 || nargs(ctx) == 0)
		return 0;
	inner = cmd_find(arg(ctx, 0), NULL);
	return inner != NULL && (inner->flags & CMD_ALL_RANKS_ONLY);
}

void
record_command(struct cmdctx *ctx)
{
	const struct cmd_entry *e = ctx->entry;
	const char *line = ctx->line;
	char *text;

	if (rec.fd < 0 || e == NULL)
		return;
	if (rec.suppress) {
		free(rec.inner);
		rec.inner = NULL;
		if (ctx->dom != 0 && !ctx->explicit_targets)
			rec.inner = rankset_format(&ctx->targets, ctx->s->nranks);
		return;
	}
	if (strcmp(e->name, "record") == 0 || strcmp(e->name, "source") == 0 ||
	    strcmp(e->name, "pause") == 0 || strcmp(e->name, "watch") == 0 ||
	    strcmp(e->name, "quit") == 0)
		return;
	/* the failing command it announces is not recorded either */
	if (strcmp(e->name, "expect") == 0 && nargs(ctx) > 0 &&
	    strcmp(arg(ctx, 0), "error") == 0)
		return;
	while (*line == ' ' || *line == '\t')
		line++;
	if ((e->flags & CMD_TARGETS) && !ctx->explicit_targets &&
	    !targets_in_args(ctx) && !start_all_ranks(ctx) &&
	    !(strcmp(e->name, "set") == 0 &&
		(nargs(ctx) == 0 || settings_is(arg(ctx, 0))))) {
		/* a domain's window narrowed the focus to its members (in
		 * start's CMD too): an explicit target outside the domain
		 * would be an error */
		char *t = NULL;

		if (ctx->dom != 0)
			t = rankset_format(&ctx->targets, ctx->s->nranks);
		else if (strcmp(e->name, "start") == 0 && rec.inner != NULL)
			t = xstrdup(rec.inner);
		text =
		    xasprintf("%s %s\n", t != NULL ? t : ctx->target_text, line);
		free(t);
	} else
		text = xasprintf("%s\n", line);
	rec_write(text);
	free(text);
	flush_pending(); /* what happened while it ran, after it */
	rec.ran = 1;
}

void
record_event(const char *text)
{
	char *line;

	if (rec.fd < 0)
		return;
	line = xasprintf("# %s\n", text);
	for (char *p = line + 2; *p != '\0' && p[1] != '\0'; p++) {
		if (*p == '\n')
			*p = ' '; /* one comment line per event */
	}
	if (rec.depth > 0)
		strbuf_addstr(&rec.pending, line);
	else
		rec_write(line);
	free(line);
}

static void
flush_pending(void)
{
	if (rec.fd >= 0 && rec.pending.len > 0)
		rec_write(rec.pending.buf);
	strbuf_reset(&rec.pending);
}

void
record_begin(void)
{
	if (rec.depth++ == 0 && rec.fd >= 0 && rec.expect && sess != NULL)
		record_expect_snap(sess);
	if (rec.depth == 1)
		rec.ran = 0;
}

void
record_end(void)
{
	struct strbuf sb = STRBUF_INIT;

	if (rec.depth == 0 || --rec.depth > 0)
		return;
	flush_pending();
	/* settled by now: what the command did, as expect lines */
	if (rec.fd >= 0 && rec.expect && rec.ran && sess != NULL) {
		record_expect_diff(sess, &sb);
		rec_write(sb.buf);
	}
	rec.ran = 0;
	strbuf_release(&sb);
}

void
record_suppress(int on)
{
	rec.suppress += on ? 1 : -1;
}

void
record_close(void)
{
	if (rec.fd >= 0)
		close(rec.fd);
	rec.fd = -1;
	free(rec.path);
	rec.path = NULL;
	free(rec.inner);
	rec.inner = NULL;
	rec.expect = 0;
	record_expect_reset();
}

static enum cmd_retval
cmd_record_exec(struct cmdctx *ctx)
{
	const char *path = arg(ctx, 0);
	char *head, *why = NULL;
	int fd;

	if (nargs(ctx) == 0) {
		if (rec.fd >= 0)
			out_printf("recording to %s\n", rec.path);
		else
			out_printf("not recording\n");
		return CMD_OK;
	}
	if (strcmp(path, "stop") == 0) {
		if (rec.fd < 0) {
			cmd_error(ctx, "not recording");
			return CMD_ERROR;
		}
		out_printf("recorded to %s\n", rec.path);
		record_close();
		return CMD_OK;
	}
	if (nargs(ctx) == 2 && strcmp(arg(ctx, 1), "expect") != 0) {
		arg_error(ctx, 1,
		    "unexpected '%s' (expected 'expect': record FILE expect)",
		    arg(ctx, 1));
		return CMD_ERROR;
	}
	if (nargs(ctx) == 2 && strcmp(path, "stop") == 0) {
		arg_error(ctx, 1, "'record stop' takes nothing more");
		return CMD_ERROR;
	}
	if (rec.fd >= 0) {
		arg_error(ctx, 0, "already recording to %s (record stop first)",
		    rec.path);
		return CMD_ERROR;
	}
	fd = outfile_append(path, 0644, &why);
	if (fd < 0) {
		arg_error(ctx, 0, "cannot record to '%s': %s", path, why);
		free(why);
		return CMD_ERROR;
	}
	rec.fd = fd;
	rec.path = xstrdup(path);
	rec.expect = nargs(ctx) == 2;
	/* a replay needs the same world size; the name stays the replayer's */
	head = xasprintf("#! args: -n %d\n# recorded by colldb %s\n",
	    ctx->s->nranks, COLLDB_VERSION);
	if (lseek(fd, 0, SEEK_END) == 0)
		rec_write(head);
	free(head);
	return CMD_OK;
}

static const char *const record_keywords[] = { "stop", "expect", NULL };

const struct cmd_entry cmd_record_entry = {
	.name = "record",
	.usage = "[FILE [expect] | stop]",
	.summary = "append every command to FILE (expect: and the state it saw)",
	.example = "record session.coll expect",
	.group = GRP_SCRIPT,
	.min_args = 0,
	.max_args = 2,
	.flags = CMD_NO_SETTLE,
	.keywords = record_keywords,
	.exec = cmd_record_exec,
};
