/*
 * screen.h - a cell grid that panes draw into (tmux's screen/grid, htop's
 * RichString): the model behind every backend.
 *
 * A screen is cols x rows cells; each cell holds one character and one
 * style.  Panes never talk to a terminal: they draw here, then a backend
 * copies the grid out (viz/curses.c to the terminal, viz/dump.c to text
 * for tests, or nothing at all for a benchmark).
 *
 * Coordinates are 0-based columns (x) and rows (y).  Every write is
 * clipped to the screen and to the current clip rectangle, so a pane may
 * draw past its edges without checking: what falls outside is dropped.
 *
 * Characters are ASCII.  Control bytes and bytes >= 0x80 in strings are
 * shown as '?', so text copied from a rank cannot move the cursor or break
 * the layout; '\t' and '\n' are the caller's to expand beforehand.
 *
 * Ownership: a screen owns its cell array; screen_release() frees it.
 * Pointers returned by screen_at() are borrowed until the next
 * screen_resize() or screen_release().
 */
#ifndef COLLDB_VIZ_SCREEN_H
#define COLLDB_VIZ_SCREEN_H

#include <stdint.h>

#include "../core/common.h"

/*
 * A style is attribute bits ORed with a colour: SCREEN_BOLD |
 * SCREEN_FG(SCREEN_RED).  0 is plain text in the terminal's default colours.
 */
enum screen_attr {
	SCREEN_BOLD = 1 << 0,
	SCREEN_REVERSE = 1 << 1,
	SCREEN_DIM = 1 << 2,
	SCREEN_UNDERLINE = 1 << 3,
	SCREEN_ATTR_MASK = 0xff,
};

/* Colour pair indexes: foreground on the default background. */
enum screen_color {
	SCREEN_DEFAULT = 0,
	SCREEN_RED,
	SCREEN_GREEN,
	SCREEN_YELLOW,
	SCREEN_BLUE,
	SCREEN_MAGENTA,
	SCREEN_CYAN,
	SCREEN_NCOLORS
};

#define SCREEN_FG(c) ((unsigned)(c) << 8)
#define SCREEN_COLOR_OF(style) (((style) >> 8) & 0xf)

struct screen_cell {
	char ch;	/* printable ASCII, ' ' when blank */
	uint16_t style; /* enum screen_attr bits | SCREEN_FG(color) */
};

struct screen_rect {
	int x, y, w, h;
};

struct screen {
	int cols, rows;		   /* size; both >= 0 */
	struct screen_cell *cells; /* rows * cols, row-major */
	struct screen_rect clip;   /* writes outside it are dropped */
};

/* Set up an empty screen of cols x rows (negative sizes count as 0). */
void screen_init(struct screen *s, int cols, int rows);
void screen_release(struct screen *s);

/*
 * Change the size.  The content is cleared (panes redraw everything after
 * a resize) and the clip rectangle reset to the whole screen.
 */
void screen_resize(struct screen *s, int cols, int rows);

/* Blank every cell (plain spaces) and reset the clip rectangle. */
void screen_clear(struct screen *s);

/*
 * Restrict writes to r intersected with the screen; NULL restores the
 * whole screen.  The clip is a single rectangle, not a stack.
 */
void screen_clip(struct screen *s, const struct screen_rect *r);

/* The cell at (x, y), or NULL when outside the screen. */
const struct screen_cell *screen_at(const struct screen *s, int x, int y);

/* Put one character (see the header comment for what is shown as '?'). */
void screen_putc(struct screen *s, int x, int y, int ch, unsigned style);

/*
 * Put a string starting at (x, y), clipped.  Returns the column after the
 * last character, whether or not it was visible, so calls can be chained.
 */
int screen_puts(struct screen *s, int x, int y, const char *str, unsigned style);

/* Like screen_puts() but writes at most max characters of str. */
int screen_putn(struct screen *s, int x, int y, const char *str, int max,
    unsigned style);

/* screen_puts() of a printf-formatted string. */
printflike(5, 6) int screen_printf(struct screen *s, int x, int y,
    unsigned style, const char *fmt, ...);

/*
 * Put str in a field of width w at (x, y): padded with spaces on the right
 * (align < 0) or left (align > 0), and when longer than w cut to w with a
 * '~' in the last column to say so.  Returns x + w.
 */
int screen_field(struct screen *s, int x, int y, int w, const char *str,
    int align, unsigned style);

/* Fill the rectangle r (clipped) with ch in style. */
void screen_fill(struct screen *s, const struct screen_rect *r, int ch,
    unsigned style);

/* Replace the style of every cell in r (clipped), keeping the characters. */
void screen_restyle(struct screen *s, const struct screen_rect *r,
    unsigned style);

/* Draw a box outline around r with '+', '-' and '|'. */
void screen_box(struct screen *s, const struct screen_rect *r, unsigned style);

#endif
