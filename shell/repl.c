/* repl.c - the interactive loop: read a line, run it, repeat. */
#include <stdlib.h>
#include <string.h>

#include "shell.h"
#include "xmalloc.h"

int
repl_run(struct session *s)
{
	struct strbuf cmd = STRBUF_INIT;
	int rc = EXIT_OK;

	for (;;) {
		enum cmd_retval rv;
		int incomplete = 0;
		char *line;

		fflush(stdout);
		out_set_prompt_active(1);
		line = le_read(cmd.len ? "... " : "(colldb) ");
		out_set_prompt_active(0);
		if (line == NULL) {
			if (cmd.len == 0)
				out_printf("\n");
			break;	/* Ctrl-D */
		}
		if (cmd.len > 0)
			strbuf_addch(&cmd, '\n');
		strbuf_addstr(&cmd, line);
		free(line);
		if (cmd.len > 0 && cmd.buf[cmd.len - 1] == '\\') {
			strbuf_setlen(&cmd, cmd.len - 1);
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
