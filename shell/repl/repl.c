/* repl.c - the interactive loop: read a line, run it, repeat. */
#include <stdlib.h>
#include <string.h>

#include "shell.h"
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

int
repl_run(struct session *s)
{
	struct strbuf cmd = STRBUF_INIT;
	int rc = EXIT_OK, joined = 0;

	repl_sess = s;
	le_idle_hook = repl_idle;

	for (;;) {
		enum cmd_retval rv;
		int incomplete = 0;
		char *line;

		fflush(stdout);
		out_set_prompt(&le_out_prompt);
		line = le_read(cmd.len || script_block_open() ? "... " : "(colldb) ");
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
			out_printf("\n");
			break;	/* Ctrl-D */
		}
		if (le_cancelled()) {
			/* Ctrl-C: the line and any pending continuation go */
			free(line);
			strbuf_reset(&cmd);
			script_block_cancel();
			joined = 0;
			continue;
		}
		if (cmd.len > 0 && !joined)
			strbuf_addch(&cmd, ' ');	/* an open quote or bracket: one line */
		strbuf_addstr(&cmd, line);
		free(line);
		joined = 0;
		if (cmd.len > 0 && cmd.buf[cmd.len - 1] == '\\') {
			strbuf_setlen(&cmd, cmd.len - 1);
			joined = 1;	/* a backslash joins the next line */
			continue;
		}
		rv = script_run_line(s, cmd.buf, &incomplete);
		if (incomplete)
			continue;
		le_history_add(cmd.buf);
		strbuf_reset(&cmd);
		if (rv == CMD_QUIT)
			break;
		if (rv == CMD_ERROR)
			rc = EXIT_FAIL;
	}
	strbuf_release(&cmd);
	(void)rc;
	return EXIT_OK;
}
