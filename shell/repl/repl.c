/* repl.c - the interactive loop: read a line, run it, repeat. */
#include <stdlib.h>
#include <string.h>

#include "lang/parse.h"
#include "repl/repl.h"
#include "xmalloc.h"

static struct session *repl_sess;

/* While the prompt waits for a key: a rank that ran into a breakpoint
 * meanwhile (a user program, or one a blocked wait let go) says so. */
static void
repl_idle(void)
{
	if (repl_sess != NULL && repl_sess->rp != NULL)
		report_break_stops(repl_sess);
}

/*
 * The continuation prompt.  After a backslash: "... ".  Inside a quote or
 * bracket, what is open and where, so a line that swallows the next ones
 * (quit too) says so at once: "... (inside '[' from column 9; Ctrl-C
 * drops the line) ".  starts[] are where the command's lines begin in it.
 */
static char *
more_prompt(const char *cmd, int joined, const size_t *starts, size_t nstarts)
{
	struct words w;
	char *cause = NULL, *p;
	size_t col = 0, line = 0;

	if (joined || parse_line(cmd, &w, &cause, &col) != PARSE_INCOMPLETE) {
		if (!joined)
			words_free(&w);
		free(cause);
		return xstrdup("... ");
	}
	free(cause);
	while (line + 1 < nstarts && starts[line + 1] <= col)
		line++;
	if (line == 0)
		p = xasprintf("... (inside '%c' from column %zu; Ctrl-C drops the line) ",
		    cmd[col], col + 1);
	else
		p = xasprintf("... (inside '%c' from line %zu, column %zu; Ctrl-C drops the line) ",
		    cmd[col], line + 1, col - starts[line] + 1);
	return p;
}

int
repl_run(struct session *s)
{
	struct strbuf cmd = STRBUF_INIT;
	int rc = EXIT_OK, joined = 0;
	size_t *starts = NULL, nstarts = 0;
	char *more = NULL, *again = NULL; /* what an empty line repeats */

	repl_sess = s;
	le_idle_hook = repl_idle;

	for (;;) {
		enum cmd_retval rv;
		int incomplete = 0;
		char *line;

		fflush(stdout);
		free(more);
		more = cmd.len ? more_prompt(cmd.buf, joined, starts, nstarts) :
				 NULL;
		out_set_prompt(&le_out_prompt);
		line = le_read(more != NULL ? more :
			script_block_open() ? "... " :
					      "(colldb) ");
		out_set_prompt(NULL);
		if (line == NULL && (cmd.len > 0 || script_block_open())) {
			/* Ctrl-D at "...": drop the unfinished command or block */
			out_printf("\n");
			strbuf_reset(&cmd);
			script_block_cancel();
			joined = 0;
			continue;
		}
		if (line == NULL) {
			/* Ctrl-D is quit: with ranks stopped or blocked it
			 * asks first, as quit does (and gdb) */
			out_printf("\n");
			if (cmd_run_line(s, "quit", &incomplete) == CMD_QUIT)
				break;
			continue;
		}
		if (le_cancelled()) {
			/* Ctrl-C: the line and any pending continuation go */
			free(line);
			strbuf_reset(&cmd);
			script_block_cancel();
			joined = 0;
			continue;
		}
		if (cmd.len == 0 && !script_block_open() &&
		    line[strspn(line, " \t")] == '\0') {
			/* gdb's habit: an empty line runs the last step,
			 * continue, until or advance again */
			free(line);
			if (again != NULL &&
			    script_run_line(s, again, &incomplete) == CMD_QUIT)
				break;
			continue;
		}
		if (cmd.len > 0 && !joined)
			strbuf_addch(&cmd,
			    ' '); /* an open quote or bracket: one line */
		if (cmd.len == 0)
			nstarts = 0;
		starts = xreallocarray(starts, nstarts + 1, sizeof *starts);
		starts[nstarts++] = cmd.len;
		strbuf_addstr(&cmd, line);
		free(line);
		joined = 0;
		if (cmd.len > 0 && cmd.buf[cmd.len - 1] == '\\') {
			strbuf_setlen(&cmd, cmd.len - 1);
			joined = 1; /* a backslash joins the next line */
			continue;
		}
		rv = script_run_line(s, cmd.buf, &incomplete);
		if (incomplete)
			continue;
		free(again);
		again = !script_block_open() && cmd_line_repeats(cmd.buf) ?
		    xstrdup(cmd.buf) :
		    NULL;
		le_history_add(cmd.buf);
		strbuf_reset(&cmd);
		if (rv == CMD_QUIT)
			break;
		if (rv == CMD_ERROR)
			rc = EXIT_FAIL;
		if (s->over != NULL) {
			out_flush_events();
			break;
		}
	}
	strbuf_release(&cmd);
	free(starts);
	free(more);
	free(again);
	(void)rc;
	return EXIT_OK;
}
