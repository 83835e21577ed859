/*
 * curses.c - the terminal backend; the only file that includes curses.
 * See viz.h for the restoration contract.
 *
 * Our handlers are installed before newterm(), so ncurses sees non-default
 * dispositions and installs none of its own for SIGINT, SIGTERM and
 * SIGWINCH (its SIGINT/SIGTERM cleanup would _exit(1) instead of dying of
 * the signal).  ncurses still handles SIGTSTP (endwin on ^Z, repaint on
 * resume); that disposition is restored by viz_done() as well.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* curses.h calls its opaque SCREEN "struct screen", a tag that is ours. */
#define screen viz_ncurses_screen
#include <curses.h>
#undef screen

#include "viz.h"

static const int viz_signals[] = {
	SIGSEGV,
	SIGBUS,
	SIGFPE,
	SIGILL,
	SIGABRT,
	SIGTERM,
	SIGINT,
	SIGHUP,
	SIGWINCH,
	SIGTSTP,
};
#define VIZ_NCATCH 8 /* the first 8 get viz_fatal(); then WINCH, TSTP */

static volatile sig_atomic_t viz_on;	 /* curses is up */
static volatile sig_atomic_t viz_hooked; /* our handlers are installed */
static volatile sig_atomic_t viz_insig;	 /* viz_done() from a handler */
static volatile sig_atomic_t viz_winch;	 /* a SIGWINCH is pending */
static volatile sig_atomic_t viz_sigint; /* a SIGINT is pending */
static struct sigaction viz_old[ARRAY_SIZE(viz_signals)];
static struct termios viz_tio; /* the terminal as we found it */
static SCREEN *viz_term;
static int viz_atexit_set;
static int viz_color;

static void viz_fatal(int);
static void viz_on_winch(int);
static void viz_hook(void);
static void viz_unhook(void);
static void viz_atexit(void);
static int viz_map_key(int);

static void
viz_fatal(int sig)
{
	int saved = errno;

	/* ^C is not fatal: the loop acts on it between two paints, since
	 * restoring the terminal here, in the middle of a curses call, leaves
	 * the rest of that call drawing on the restored screen */
	if (sig == SIGINT) {
		viz_sigint = 1;
		return;
	}
	viz_insig = 1;
	viz_done();
	viz_insig = 0;
	/* Blocked until we return; then it takes the restored action. */
	raise(sig);
	errno = saved;
}

static void
viz_on_winch(int sig)
{
	viz_winch = 1;
}

static void
viz_hook(void)
{
	struct sigaction sa;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(viz_signals); i++) {
		sigaction(viz_signals[i], NULL, &viz_old[i]);
		if (viz_signals[i] == SIGTSTP)
			continue; /* saved only: ncurses handles it */
		if (i < VIZ_NCATCH && viz_old[i].sa_handler == SIG_IGN)
			continue; /* ignored at startup (nohup): keep */
		memset(&sa, 0, sizeof sa);
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = i < VIZ_NCATCH ? viz_fatal : viz_on_winch;
		sigaction(viz_signals[i], &sa, NULL);
	}
	viz_hooked = 1;
}

static void
viz_unhook(void)
{
	size_t i;

	if (!viz_hooked)
		return;
	viz_hooked = 0;
	for (i = 0; i < ARRAY_SIZE(viz_signals); i++)
		sigaction(viz_signals[i], &viz_old[i], NULL);
}

static void
viz_atexit(void)
{
	viz_done();
}

int
viz_init(char **cause)
{
	static const short colors[SCREEN_NCOLORS] = { -1, COLOR_RED, COLOR_GREEN,
		COLOR_YELLOW, COLOR_BLUE, COLOR_MAGENTA, COLOR_CYAN };
	const char *term = getenv("TERM");
	short i, bg = -1;

	if (viz_on)
		BUG("viz_init: already active");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return cause_set(cause, "the watch pane needs a terminal");
	if (tcgetattr(STDIN_FILENO, &viz_tio) != 0)
		return cause_set(cause, "tcgetattr: %s", strerror(errno));
	if (!viz_atexit_set) {
		atexit(viz_atexit);
		viz_atexit_set = 1;
	}
	viz_winch = 0;
	viz_sigint = 0;
	viz_hook();
	viz_term = newterm(NULL, stdout, stdin);
	if (viz_term == NULL) {
		viz_unhook();
		tcsetattr(STDIN_FILENO, TCSADRAIN, &viz_tio);
		return cause_set(cause, "cannot use terminal type '%s'",
		    term != NULL ? term : "");
	}
	set_term(viz_term);
	viz_on = 1;
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	leaveok(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	viz_color = has_colors();
	if (viz_color) {
		start_color();
		if (use_default_colors() != OK)
			bg = COLOR_BLACK;
		for (i = 1; i < SCREEN_NCOLORS && i < COLOR_PAIRS; i++)
			init_pair(i, colors[i], bg);
	}
	return 0;
}

void
viz_done(void)
{
	if (viz_on) {
		viz_on = 0;
		endwin();
		/* Belt and braces: endwin() may be cut short by a signal. */
		tcsetattr(STDIN_FILENO, TCSADRAIN, &viz_tio);
		if (!viz_insig && viz_term != NULL) {
			delscreen(viz_term);
			viz_term = NULL;
		}
	}
	viz_unhook();
}

int
viz_active(void)
{
	if (viz_sigint && viz_on) {
		/* the ^C viz_fatal() left: the terminal back, then SIGINT's
		 * previous action (the caller's handler, or death by it) */
		viz_sigint = 0;
		viz_done();
		raise(SIGINT);
	}
	return viz_on;
}

void
viz_size(int *cols, int *rows)
{
	*cols = viz_on ? COLS : 0;
	*rows = viz_on ? LINES : 0;
}

int
viz_key_fd(void)
{
	return STDIN_FILENO;
}

void
viz_paint(const struct screen *s, int full)
{
	const struct screen_cell *c;
	chtype attr;
	int x, y;

	if (!viz_on)
		return;
	if (full)
		clearok(curscr, TRUE);
	for (y = 0; y < s->rows && y < LINES; y++) {
		for (x = 0; x < s->cols && x < COLS; x++) {
			c = screen_at(s, x, y);
			attr = A_NORMAL;
			if (c->style & SCREEN_BOLD)
				attr |= A_BOLD;
			if (c->style & SCREEN_REVERSE)
				attr |= A_REVERSE;
			if (c->style & SCREEN_DIM)
				attr |= A_DIM;
			if (c->style & SCREEN_UNDERLINE)
				attr |= A_UNDERLINE;
			if (viz_color && SCREEN_COLOR_OF(c->style) != 0)
				attr |= COLOR_PAIR(SCREEN_COLOR_OF(c->style));
			mvwaddch(stdscr, y, x,
			    (chtype)(unsigned char)c->ch | attr);
		}
	}
	wnoutrefresh(stdscr);
	doupdate();
}

static int
viz_map_key(int ch)
{
	switch (ch) {
	case KEY_UP:
		return VIZ_KEY_UP;
	case KEY_DOWN:
		return VIZ_KEY_DOWN;
	case KEY_LEFT:
		return VIZ_KEY_LEFT;
	case KEY_RIGHT:
		return VIZ_KEY_RIGHT;
	case KEY_PPAGE:
		return VIZ_KEY_PGUP;
	case KEY_NPAGE:
		return VIZ_KEY_PGDN;
	case KEY_HOME:
		return VIZ_KEY_HOME;
	case KEY_END:
		return VIZ_KEY_END;
	case KEY_BTAB:
		return VIZ_KEY_BTAB;
	case KEY_ENTER:
	case '\r':
	case '\n':
		return VIZ_KEY_ENTER;
	case KEY_RESIZE:
		return VIZ_KEY_RESIZE;
	default:
		return ch >= 0 && ch < 0x100 ? ch : VIZ_KEY_NONE;
	}
}

int
viz_getkey(int timeout_ms)
{
	struct winsize ws;
	int ch, key;

	if (!viz_on)
		return VIZ_KEY_NONE;
	if (viz_winch) {
		viz_winch = 0;
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
		    ws.ws_row > 0 && ws.ws_col > 0)
			resize_term(ws.ws_row, ws.ws_col);
		return VIZ_KEY_RESIZE;
	}
	wtimeout(stdscr, timeout_ms);
	for (;;) {
		ch = wgetch(stdscr);
		if (ch == ERR)
			return VIZ_KEY_NONE;
		/* Unknown function keys are skipped, not reported as none. */
		if ((key = viz_map_key(ch)) != VIZ_KEY_NONE)
			return key;
		wtimeout(stdscr, 0);
	}
}
