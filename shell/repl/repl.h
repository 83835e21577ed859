/*
 * repl.h - shell/repl/: the person at the terminal.  The line editor
 * behind four functions (lineedit.c: libedit with a plain getline
 * fallback, completion from the command table) and the interactive loop
 * (repl.c).
 *
 * May use: everything below start: cmd, session, out, view, lang, core.
 */
#ifndef COLLDB_REPL_H
#define COLLDB_REPL_H

#include "cmd/cmd.h"
#include "out/out.h"

/* ---- lineedit.c: the line editor behind four functions ------------------ */

int le_init(const char *prog, int use_editor);
/* Returns a line (without newline; the caller frees) or NULL at EOF. */
char *le_read(const char *prompt);
void le_history_add(const char *line);
void le_free(void);
/* Redraw the prompt and the half-typed line after an async print. */
void le_refresh(void);
/* Whether the last le_read() was ended by Ctrl-C (its line is to be
 * dropped, with whatever continuation was pending). */
int le_cancelled(void);
/* Terminal rows between the prompt's first row and the cursor (a long
 * half-typed line wraps); async output clears from there. */
int le_rows_above_cursor(void);
/* Run every tenth of a second while le_read() waits for a key. */
extern void (*le_idle_hook)(void);
/* The two above, for out_set_prompt() while le_read() runs. */
extern const struct out_prompt le_out_prompt;
/* le_read, le_cancelled and le_history_add, for cmd_reader. */
extern const struct cmd_reader le_cmd_reader;

/* ---- repl.c: the interactive loop ----------------------------------------- */

int repl_run(struct session *s);

#endif
