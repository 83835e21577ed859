/*
 * out.h - how the shell speaks: command output, `error:` and `warning:`
 * lines with a caret under the bad word, and rank events.
 *
 * shell/out/ is the ground floor of the shell: every other folder of it
 * prints through here, and it uses nothing of the shell but itself (core's
 * strbuf and xmalloc only).  What it must learn from above (whether a
 * prompt is being edited, whether colour is on, who wants a copy of every
 * event) is handed to it through the setters at the end, so it never
 * calls up.
 *
 * Output: command output goes to stdout, `error:` / `warning:` lines to
 * stderr (stdout is flushed first so a merged transcript keeps its order).
 * Everything a command prints is also kept for `expect output`.
 *
 * Events that arrive while a command runs are held and printed in rank
 * order by out_flush_events(), so transcripts are deterministic.  While a
 * prompt waits for a key (out_set_prompt()), an event is printed at once:
 * the half-typed line is cleared, the event printed, the line redrawn.
 *
 * Text arguments are borrowed for the call; nothing here hands out memory
 * but out_captured(), which is borrowed until the next capture call.
 */
#ifndef COLLDB_OUT_H
#define COLLDB_OUT_H

#include <stddef.h>

#include "common.h"

/* Print long command output (stdout) as out_printf() does, or, when page
 * is set (a person at the terminal) and text has more lines than the
 * terminal has rows, through a pager as git does: $PAGER, else
 * "less -FRX" (plain output when there is none).  Never in batch. */
void out_paged(const char *text, int page);
/* Echo a script line (stdout, not captured for `expect output`). */
void out_echo(const char *line);
/* Print command output (stdout). */
printflike(1, 2) void out_printf(const char *fmt, ...);
/* "error: ..." on stderr; if line/col are known, a caret line follows. */
printflike(1, 2) void out_error(const char *fmt, ...);
/* "warning: ..." on stderr, once per distinct text in one command. */
printflike(1, 2) void out_warning(const char *fmt, ...);
/* Queue an event for rank r (printed in rank order by out_flush_events,
 * or right away when a prompt is being edited).  INT_MAX sorts last. */
printflike(2, 3) void out_event(int rank, const char *fmt, ...);
void out_flush_events(void);
/* Where carets point: the line being executed. */
void out_set_line(const char *line);
/* Errors say where they come from ("FILE:LINE: ..."), until NULL. */
void out_set_origin(const char *origin);
void out_caret(size_t col, size_t len);
/* Start capturing a command's output; what the previous command printed
 * becomes out_captured() (for `expect output`).  out_capture_restore()
 * undoes a begin (commands that must not hide the previous output). */
void out_capture_begin(void);
void out_capture_restore(void);
const char *out_captured(void);

/* ---- what out learns from above ------------------------------------------ */

/* The prompt being edited: how many terminal rows lie between its first
 * row and the cursor (a long half-typed line wraps), and how to redraw
 * it after an event was printed over it.  NULL: no prompt is up. */
struct out_prompt {
	int (*rows_above_cursor)(void);
	void (*refresh)(void);
};
void out_set_prompt(const struct out_prompt *p);
/* Colour `error:`/`warning:` while *on is non-zero and the stream is a
 * terminal (the flag is read at each print; NULL: never). */
void out_use_colour(const int *on);
/* Called with the text of every event as it is printed (record writes
 * them as comments); NULL: none. */
void out_set_event_tap(void (*tap)(const char *text));
/* The world's size: a large one's held events print grouped
 * (out/group.h). */
void out_set_world(int nranks);

#endif
