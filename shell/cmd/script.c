/*
 * script.c - running scripts: FILE arguments, -x, `source`, and batch
 * stdin.  A script stops at the first error or failed expect (exit status
 * 1), unless `expect error` announced that the next command must fail.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lang/loop.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

const struct cmd_reader *cmd_reader;
struct script_state script;

/*
 * The repeat block being typed or read, NULL when none.  While it is open
 * its lines are only collected; nothing runs until its `end`, so a script
 * (or the prompt) that starts never finds one open that is not its own.
 */
static struct loop_block *open_block;
static unsigned long open_block_line; /* where it began, in its script */

/* A script line longer than this is not a command (source /dev/zero) */
#define SCRIPT_LINE_MAX (64 * 1024)

/*
 * One line of a script, newline kept, into *line: 1 read, 0 end of file,
 * -1 a NUL byte or a line beyond SCRIPT_LINE_MAX (said).
 */
static int
read_line(FILE *fp, char **line, size_t *cap, const char *name,
    unsigned long lineno)
{
	size_t n = 0;
	int c;

	for (;;) {
		errno = 0;
		if ((c = getc(fp)) == EOF) {
			if (!ferror(fp) || errno != EINTR)
				break;
			/* Ctrl-C while nothing runs (a pipe that waits for
			 * its writer): nothing to interrupt, read on */
			clearerr(fp);
			shell_interrupted = 0;
			continue;
		}
		if (c == '\0') {
			out_error("%s:%lu: a NUL byte (expected a text file of commands)",
			    name, lineno);
			return -1;
		}
		if (n == SCRIPT_LINE_MAX) {
			out_error("%s:%lu: line longer than %d bytes", name,
			    lineno, SCRIPT_LINE_MAX);
			return -1;
		}
		if (n + 2 > *cap) {
			*cap = *cap < 128 ? 128 : *cap * 2;
			*line = xrealloc(*line, *cap);
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (n == 0)
		return 0;
	(*line)[n] = '\0';
	return 1;
}

static int
chomp(char *line)
{
	size_t n = strlen(line);
	int cont;

	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	cont = n > 0 && line[n - 1] == '\\';
	if (cont)
		line[n - 1] = '\0';
	return cont;
}

/*
 * Is this script line (the first of a command) echoed?  Transcripts
 * (--echo) show every line; a lesson (ECHO_LESSON) shows only the
 * commands it runs for the learner, not its comments, narration (say,
 * whose text prints anyway), pauses or checks.
 */
static int
echo_shows(struct session *s, const char *line)
{
	static const char *const quiet[] = { "say", "pause", "expect", NULL };
	const char *p = line + strspn(line, " \t");
	size_t n = strcspn(p, " \t");

	if (s->set.echo != ECHO_LESSON)
		return s->set.echo != 0;
	if (*p == '#' || *p == '\0')
		return 0;
	for (int i = 0; quiet[i] != NULL; i++)
		if (n == strlen(quiet[i]) && strncmp(p, quiet[i], n) == 0)
			return 0;
	return 1;
}

static const char *
resolve_cmd(const char *word)
{
	const struct cmd_entry *e = cmd_find(word, NULL);

	return e != NULL ? e->name : NULL;
}

int
script_block_open(void)
{
	return open_block != NULL;
}

void
script_block_cancel(void)
{
	if (open_block == NULL)
		return;
	loop_block_release(open_block);
	free(open_block);
	open_block = NULL;
}

static enum cmd_retval
line_error(const char *text, const char *cause, size_t col, size_t len)
{
	out_set_line(text);
	out_capture_begin();
	out_error("%s", cause);
	out_caret(col, len);
	return CMD_ERROR;
}

/* Running a block: the session, and where it stopped. */
struct block_run {
	struct session *s;
	const struct loop_block *top;
	uint64_t iter; /* of the outermost block */
	enum cmd_retval rv;
	int said; /* its iteration is in the error already */
};

static int
block_iter(void *arg, const struct loop_block *b, uint64_t k)
{
	extern volatile sig_atomic_t shell_interrupted;
	struct block_run *br = arg;

	if (b == br->top) /* a nested block runs from a copy */
		br->iter = k;
	if (shell_interrupted) {
		shell_interrupted = 0;
		out_error("'%s' interrupted before iteration %llu of %llu",
		    b->head, (unsigned long long)k + 1,
		    (unsigned long long)b->count);
		br->said = b == br->top;
		br->rv = CMD_ERROR;
		return -1;
	}
	if (windows_reset_each(br->s) != 0) {
		br->rv = CMD_ERROR;
		return -1;
	}
	return 0;
}

static int
block_line(void *arg, const char *text)
{
	extern volatile sig_atomic_t shell_interrupted;
	struct block_run *br = arg;
	enum cmd_retval rv;

	if (shell_interrupted) {
		shell_interrupted = 0;
		out_error("repeat interrupted");
		br->rv = CMD_ERROR;
		return -1;
	}
	rv = script_run_whole(br->s, text); /* a body holds whole commands */
	if (rv == CMD_OK && br->s->watchdog_fired)
		rv = CMD_ERROR;
	if (rv != CMD_OK) {
		br->rv = rv;
		return -1;
	}
	return 0;
}

static int
block_bad(void *arg, const char *head, const char *cause)
{
	struct block_run *br = arg;

	line_error(head, cause, 0, strlen(head));
	br->rv = CMD_ERROR;
	return -1;
}

static enum cmd_retval
block_run(struct session *s, struct loop_block *b)
{
	struct block_run br = { s, b, 0, CMD_OK, 0 };
	struct loop_ops ops = { block_iter, block_line, block_bad, resolve_cmd };

	if (loop_block_run(b, &ops, &br) != 0 && br.rv == CMD_ERROR &&
	    b->count > 1 && !br.said)
		out_printf("note: '%s' stopped in iteration %llu of %llu\n",
		    b->head, (unsigned long long)br.iter + 1,
		    (unsigned long long)b->count);
	return br.rv;
}

/*
 * A line while a block is open, or a line that opens or wrongly closes
 * one: 1 when handled (*rv set), 0 when it is an ordinary command.
 */
static int
block_line_in(struct session *s, const char *text, enum cmd_retval *rv)
{
	char *cause = NULL;
	size_t col = 0, len = 0;
	uint64_t n = 0;
	int rc;

	if (open_block != NULL) {
		rc = loop_block_feed(open_block, text, resolve_cmd, &cause,
		    &col, &len);
		if (rc < 0) {
			*rv = line_error(text, cause, col, len);
		} else if (rc == 1) {
			struct loop_block *b = open_block;
			open_block = NULL;
			*rv = block_run(s, b);
			loop_block_release(b);
			free(b);
		} else {
			*rv = CMD_OK;
		}
		free(cause);
		return 1;
	}
	switch (loop_classify(text, resolve_cmd, &n, &cause, &col, &len)) {
	case LOOP_REPEAT:
		open_block = xcalloc(1, sizeof *open_block);
		loop_block_init(open_block, n, text + strspn(text, " \t"));
		*rv = CMD_OK;
		break;
	case LOOP_END:
		*rv = line_error(text, "'end' without a repeat", 0, strlen(text));
		break;
	case LOOP_BAD:
		*rv = line_error(text, cause, col, len);
		break;
	default:
		return 0;
	}
	free(cause);
	return 1;
}

enum cmd_retval
script_run_line(struct session *s, const char *text, int *incomplete)
{
	int expecting = script.expect_error;
	enum cmd_retval rv;

	*incomplete = 0;
	if (block_line_in(s, text, &rv)) {
		/* an `expect error` before the block is for its first command */
		if (rv != CMD_ERROR || !expecting || !script.expect_error)
			return rv;
		script.expect_error = 0;
		return CMD_OK;
	}
	rv = cmd_run_line(s, text, incomplete);

	if (*incomplete)
		return CMD_OK;
	if (expecting && script.expect_error) {
		/* this command was the one that had to fail */
		script.expect_error = 0;
		if (rv == CMD_ERROR)
			return CMD_OK;
		out_error("expect error: the command succeeded: %s", text);
		return CMD_ERROR;
	}
	return rv;
}

enum cmd_retval
script_run_whole(struct session *s, const char *text)
{
	int expecting = script.expect_error, incomplete = 0;
	enum cmd_retval rv = script_run_line(s, text, &incomplete);
	struct words w;
	char *cause = NULL;
	size_t col = 0;

	if (!incomplete)
		return rv;
	parse_line(text, &w, &cause, &col);
	out_capture_begin();
	out_error("%s: here a command ends with its line (to go on, end the line with '\\')",
	    cause != NULL ? cause : "unfinished line");
	out_caret(col, 1);
	free(cause);
	if (expecting && script.expect_error) {
		script.expect_error = 0; /* this was the command to fail */
		return CMD_OK;
	}
	return CMD_ERROR;
}

int
script_run_stream(struct session *s, FILE *fp, const char *name)
{
	struct strbuf cmd = STRBUF_INIT;
	char *line = NULL;
	size_t cap = 0;
	unsigned long lineno = 0, start = 0;
	int rc = 0, shown = 0;

	for (;;) {
		enum cmd_retval rv;
		int cont, got = read_line(fp, &line, &cap, name, lineno + 1);

		if (got <= 0) {
			if (got < 0) {
				script.failed = 1;
				rc = -1;
			}
			break;
		}
		lineno++;
		cont = chomp(line);
		if (cmd.len == 0)
			shown = echo_shows(s, line);
		if (shown) {
			const char *p = line + strspn(line, " \t");
			char *e;
			if (cmd.len == 0 && (*p == '#' || *p == '\0'))
				e = xasprintf("%s\n", line);
			else
				e = xasprintf("%s%s%s\n",
				    cmd.len == 0 && !script_block_open() ?
					"(colldb) " :
					"... ",
				    line, cont ? "\\" : "");
			out_echo(e);
			free(e);
		}
		if (cmd.len == 0) {
			start = lineno;
			if (!script_block_open())
				open_block_line = lineno;
		}
		strbuf_addstr(&cmd, line);
		if (cont)
			continue;
		rv = script_run_whole(s, cmd.buf);
		/* a Ctrl-C ended this command's wait: not every wait after it
		 * (the flag is consumed, as at the prompt) */
		shell_interrupted = 0;
		strbuf_reset(&cmd);
		fflush(stdout);
		if (rv == CMD_QUIT) {
			script.quit = 1;
			break;
		}
		if (rv == CMD_ERROR || s->watchdog_fired || s->over != NULL) {
			out_flush_events(); /* the watchdog's report among them */
			script_block_cancel();
			script.failed = 1;
			fprintf(stderr, "colldb: %s:%lu: script stopped%s\n",
			    name, start,
			    s->watchdog_fired	? " by the hang watchdog" :
				s->over != NULL ? " (the session is over)" :
						  "");
			rc = -1;
			break;
		}
	}
	if (rc == 0 && script_block_open()) {
		out_error("%s:%lu: '%s' has no 'end' (the file ends inside it)",
		    name, open_block_line, open_block->head);
		script_block_cancel();
		script.failed = 1;
		rc = -1;
	}
	script_block_cancel();
	if (rc == 0 && cmd.len > 0) {
		out_error("%s:%lu: unexpected end of file after a line ending in '\\'",
		    name, start);
		script.failed = 1;
		rc = -1;
	}
	if (rc == 0 && script.expect_error && script.depth <= 1) {
		out_error("%s: 'expect error' at the end, with no command after it",
		    name);
		script.expect_error = 0;
		script.failed = 1;
		rc = -1;
	}
	free(line);
	strbuf_release(&cmd);
	return rc;
}

int
script_run_file(struct session *s, const char *path)
{
	FILE *fp;
	int rc;

	if (script.depth >= 16) {
		out_error("scripts nested too deeply (at %s)", path);
		return -1;
	}
	fp = fopen(path, "r");
	if (fp == NULL) {
		out_error("cannot open script '%s': %s", path, strerror(errno));
		return -1;
	}
	{
		struct stat st;
		if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
			fclose(fp);
			out_error("cannot run script '%s': it is a directory",
			    path);
			return -1;
		}
	}
	{
		const char *outer = script.file;

		script.depth++;
		script.file = path;
		rc = script_run_stream(s, fp, path);
		script.file = outer;
		script.depth--;
	}
	fclose(fp);
	return rc;
}

int
script_read(const char *path, struct script_cmd **out, size_t *nout)
{
	struct strbuf cmd = STRBUF_INIT;
	struct script_cmd *v = NULL;
	char *line = NULL;
	size_t cap = 0, n = 0;
	unsigned long lineno = 0, start = 0;
	int rc = 0, got;
	struct stat st;
	FILE *fp = fopen(path, "r");

	*out = NULL;
	*nout = 0;
	if (fp == NULL) {
		out_error("cannot open script '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(fp);
		out_error("cannot read script '%s': it is a directory", path);
		return -1;
	}
	while ((got = read_line(fp, &line, &cap, path, lineno + 1)) > 0) {
		struct words w;
		char *cause = NULL;
		size_t col;
		int cont, prc;

		lineno++;
		cont = chomp(line);
		if (cmd.len == 0)
			start = lineno;
		strbuf_addstr(&cmd, line);
		if (cont)
			continue;
		prc = parse_line(cmd.buf, &w, &cause, &col);
		free(cause);
		if (prc == PARSE_OK)
			words_free(&w);
		if (prc == PARSE_INCOMPLETE) {
			strbuf_addch(&cmd, ' '); /* as if written on one line */
			continue;
		}
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n].text = strbuf_detach(&cmd, NULL);
		v[n].lineno = start;
		n++;
	}
	if (got < 0)
		rc = -1;
	else if (cmd.len > 0) {
		out_error("%s:%lu: unexpected end of file inside an unfinished command",
		    path, start);
		rc = -1;
	}
	fclose(fp);
	free(line);
	strbuf_release(&cmd);
	if (rc != 0) {
		script_cmds_free(v, n);
		return -1;
	}
	*out = v;
	*nout = n;
	return 0;
}

void
script_cmds_free(struct script_cmd *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}
