/*
 * viz.h - terminal backends for the screen model, key codes and the event
 * bits every pane and handler returns.
 *
 * Two backends copy a struct screen out:
 *   - viz/curses.c: the real terminal (ncursesw).  It is the only file in
 *     colldb that includes curses; only viz_init() and viz_done() set the
 *     terminal up and restore it.
 *   - viz/dump.c: plain text plus a style overlay, for tests.
 *
 * Terminal restoration (viz/curses.c): once viz_init() succeeded, the
 * terminal is restored by viz_done(), by an atexit() hook, and by handlers
 * for SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT and
 * SIGHUP.  Those call viz_done() first (which puts back the handlers that
 * were there before viz_init()) and then raise the signal again, so it
 * takes its previous action: by default the process dies of that signal
 * with the terminal sane; a handler the caller had installed (say the
 * shell's SIGINT, reached by ^C since the pane runs in cbreak mode) runs
 * instead, and viz_active() then returns 0 (watch_run() returns
 * WATCH_INTERRUPTED).  SIGINT alone is deferred: its handler only notes
 * it, and viz_active(), which the pane's loop asks between two paints,
 * restores the terminal and raises it again, so a ^C that lands inside a
 * curses call cannot leave the pane drawn on the restored screen.
 * Signals ignored at viz_init() time stay ignored.
 * SIGWINCH is caught to notice resizes (VIZ_KEY_RESIZE); SIGTSTP (^Z) is
 * left to ncurses, which restores the terminal and redraws on resume.
 */
#ifndef COLLDB_VIZ_VIZ_H
#define COLLDB_VIZ_VIZ_H

#include "screen.h"

struct strbuf;

/* Bits returned by key and update handlers and by the event loop steps. */
enum viz_flags {
	VIZ_REDRAW = 1 << 0,  /* the screen model must be drawn again */
	VIZ_RESIZE = 1 << 1,  /* the terminal size changed: full repaint */
	VIZ_QUIT = 1 << 2,    /* leave the pane */
	VIZ_REFRESH = 1 << 3, /* take a new snapshot now */
	VIZ_CLOSE = 1 << 4,   /* close the overlay that returned it */
};

/*
 * Keys: printable ASCII and control characters are themselves ('\t' is
 * Tab, 27 is Esc, 12 is Ctrl-L); special keys are above 0xff.
 */
enum viz_key {
	VIZ_KEY_NONE = -1, /* no key within the timeout */
	VIZ_KEY_ESC = 27,
	VIZ_KEY_UP = 0x100,
	VIZ_KEY_DOWN,
	VIZ_KEY_LEFT,
	VIZ_KEY_RIGHT,
	VIZ_KEY_PGUP,
	VIZ_KEY_PGDN,
	VIZ_KEY_HOME,
	VIZ_KEY_END,
	VIZ_KEY_BTAB, /* Shift-Tab */
	VIZ_KEY_ENTER,
	VIZ_KEY_RESIZE, /* the terminal was resized */
};

#define VIZ_CTRL(c) ((c)&0x1f)

/*
 * Parse a key name as the tests write it ("tab", "btab", "up", "down",
 * "left", "right", "pgup", "pgdn", "home", "end", "esc", "enter",
 * "resize", "C-l", or a single character).  Returns the key or
 * VIZ_KEY_NONE.
 */
int viz_key_parse(const char *name);

/* ---- curses backend (viz/curses.c) ---- */

/*
 * Take over the terminal on stdin/stdout: alternate screen, no echo,
 * cbreak, keypad, hidden cursor, colours when available.  Returns 0, or -1
 * with *cause set (caller frees) when stdin/stdout is not a terminal or
 * the terminal type is unknown; the terminal is then untouched.
 * Calling it while active is a BUG().
 */
int viz_init(char **cause);

/*
 * Give the terminal back exactly as viz_init() found it and restore the
 * signal handlers.  Safe to call at any time, any number of times, and
 * from the signal handlers above.
 */
void viz_done(void);

/* 1 between a successful viz_init() and viz_done(). */
int viz_active(void);

/* The terminal size in columns and rows. */
void viz_size(int *cols, int *rows);

/*
 * Copy s to the terminal and show it.  full != 0 repaints every cell (after
 * a resize or Ctrl-L); otherwise curses sends only what changed.
 */
void viz_paint(const struct screen *s, int full);

/*
 * Read one key, waiting at most timeout_ms (0: do not wait, -1: forever).
 * Returns a key, VIZ_KEY_RESIZE once after a resize (the size from
 * viz_size() is then new), or VIZ_KEY_NONE.
 */
int viz_getkey(int timeout_ms);

/* The fd to poll() for keys (stdin). */
int viz_key_fd(void);

/* ---- text backend (viz/dump.c) ---- */

enum dump_flags {
	DUMP_STYLES = 1 << 0, /* add the style overlay and legend */
};

/*
 * Append s to out as text.  Each screen row becomes one line "|text" with
 * trailing blanks cut.  With DUMP_STYLES, a row with any styled cell is
 * followed by ":codes", one character per column (' ' plain, otherwise a
 * letter naming that cell's style, trailing blanks cut), and after the
 * rows a legend "style A: bold,reverse,yellow" per letter used.  Letters
 * are given in order of first appearance, top-left to bottom-right, so the
 * output is stable.
 */
void dump_screen(const struct screen *s, struct strbuf *out, int flags);

/* Append the names of a style's parts ("bold,yellow"; "plain" for 0). */
void dump_style_name(unsigned style, struct strbuf *out);

#endif
