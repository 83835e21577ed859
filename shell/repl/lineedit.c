/*
 * lineedit.c - the line editor behind four functions (le_init, le_read,
 * le_history_add, le_free) plus le_refresh for async output.
 *
 * On a terminal: libedit's native API with our own read function
 * (EL_GETCFN) that poll()s stdin together with the ranks' sockets, so
 * events print while a line is half typed (out.c clears the line, prints,
 * and calls le_refresh()).  Ctrl-C discards the line, Ctrl-D on an empty
 * line ends the session.  Tab completes command names, window names and
 * the command's keywords, all read from the command table.  History lives
 * in ~/.colldb_history (terminal sessions only).
 *
 * Without a terminal: getline() on stdin, no history.
 */
#include <errno.h>
#include <histedit.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "repl/repl.h"
#include "xmalloc.h"

static volatile sig_atomic_t winch;
static volatile sig_atomic_t resumed; /* SIGCONT: the tty may be cooked */
static struct termios cooked;	      /* the terminal before libedit */
static int have_cooked;
static int cancelled; /* the last le_read() ended with Ctrl-C */

static struct {
	EditLine *el;
	History *hist;
	char *histfile;
	const char *prompt;
	int pending[4]; /* characters to hand libedit next */
	int npending;
	mbstate_t mbs;
} le;

/* Hook run while waiting for a key (watchdog, timers); set by repl.c. */
void (*le_idle_hook)(void);

static char *
prompt_fn(EditLine *el)
{
	(void)el;
	return (char *)le.prompt;
}

static int
getc_fn(EditLine *el, wchar_t *wc)
{
	(void)el;
	for (;;) {
		static struct pollfd *fds;
		static int afds;
		int n = 1, rc;
		unsigned char c;
		ssize_t got;

		if (le.npending > 0) {
			*wc = (wchar_t)le.pending[0];
			memmove(le.pending, le.pending + 1,
			    --le.npending * sizeof le.pending[0]);
			return 1;
		}
		if (shell_interrupted) {
			shell_interrupted = 0;
			cancelled = 1;
			le.pending[0] = 0x05; /* to the end of the line, */
			le.pending[1] = '\n'; /* and submit it (then dropped) */
			le.npending = 2;
			continue;
		}
		if (winch) {
			winch = 0;
			el_resize(le.el);
		}
		if (resumed) {
			/* back from Ctrl-Z (or SIGSTOP): the job-control
			 * shell left the terminal cooked and echoing, and
			 * the cursor on a fresh line; raw mode again, and
			 * the prompt and the half-typed line redrawn */
			resumed = 0;
			el_set(le.el, EL_PREP_TERM, 0);
			el_set(le.el, EL_PREP_TERM, 1);
			fputs("\r", stdout); /* the line from its start */
			el_set(le.el, EL_REFRESH);
		}
		if (sess != NULL && sess->rp != NULL &&
		    afds < 1 + session_pollfds_max(sess)) {
			afds = 1 + session_pollfds_max(sess);
			fds = xreallocarray(fds, (size_t)afds, sizeof *fds);
		} else if (afds == 0) {
			afds = 1;
			fds = xreallocarray(fds, 1, sizeof *fds);
		}
		fds[0].fd = STDIN_FILENO;
		fds[0].events = POLLIN;
		if (sess != NULL && sess->rp != NULL)
			n += session_pollfds(sess, fds + 1, afds - 1);
		rc = poll(fds, (nfds_t)n, 100);
		if (rc < 0 && errno != EINTR)
			return -1;
		if (sess != NULL && sess->rp != NULL)
			session_pump(sess, 0);
		if (sess != NULL && sess->over != NULL)
			return 0; /* the session ended: as Ctrl-D */
		if (le_idle_hook != NULL)
			le_idle_hook();
		if (rc <= 0 || !(fds[0].revents & (POLLIN | POLLHUP)))
			continue;
		got = read(STDIN_FILENO, &c, 1);
		if (got == 0)
			return 0;
		if (got < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		{
			char ch = (char)c;
			size_t k = mbrtowc(wc, &ch, 1, &le.mbs);
			if (k == (size_t)-2)
				continue; /* more bytes of this character */
			if (k == (size_t)-1) {
				memset(&le.mbs, 0, sizeof le.mbs);
				continue;
			}
			return 1;
		}
	}
}

/* Candidates for the word being completed. */
static void
candidates(const char *line, size_t cur, const char *word, char ***out, size_t *n)
{
	struct words w;
	const struct cmd_entry *e = NULL;
	size_t wordstart = cur - strlen(word), idx = 0, first = 0;
	char *head = xstrndup(line, wordstart);

	*out = NULL;
	*n = 0;
	if (parse_line(head, &w, NULL, NULL) == PARSE_OK) {
		if (w.n > 0 && w.v[0].s[0] == '@')
			first = 1;
		idx = w.n - first; /* index of the word being completed */
		if (w.n > first)
			e = cmd_find(w.v[first].s, NULL);
	}
#define ADD(s) \
	do { \
		if (strncmp((s), word, strlen(word)) == 0) { \
			*out = xreallocarray(*out, *n + 1, sizeof **out); \
			(*out)[(*n)++] = xstrdup(s); \
		} \
	} while (0)
	if (idx == 0) {
		for (int i = 0; cmd_table[i] != NULL; i++)
			ADD(cmd_table[i]->name);
	} else if (e != NULL) {
		if (sess != NULL && sess->seg.h != NULL) {
			struct seg_window *list[SEG_MAX_WINDOWS];
			int nw =
			    view_win_list(&sess->view, list, SEG_MAX_WINDOWS);
			for (int i = 0; i < nw; i++)
				ADD(list[i]->name);
			/* the domains: `domain delete NAME`, domain=NAME */
			for (int k = 1; k <= SEG_MAX_DOMAINS; k++) {
				const struct seg_domain *d =
				    view_domain(&sess->view, k);
				char kv[SEG_NAME_MAX + 8];

				if (d == NULL)
					continue;
				if (strcmp(e->name, "domain") == 0)
					ADD(d->name);
				snprintf(kv, sizeof kv, "domain=%s", d->name);
				if (strncmp(word, "domain=", 7) == 0)
					ADD(kv);
			}
		}
		if (e->keywords != NULL) {
			for (int i = 0; e->keywords[i] != NULL; i++) {
				/* a typed domain= gets the names instead */
				if (strcmp(e->keywords[i], "domain=") == 0 &&
				    strncmp(word, "domain=", 7) == 0)
					continue;
				ADD(e->keywords[i]);
			}
		}
		if (strcmp(e->name, "help") == 0) {
			for (int i = 0; cmd_table[i] != NULL; i++)
				ADD(cmd_table[i]->name);
		}
	}
#undef ADD
	if (w.v != NULL)
		words_free(&w);
	free(head);
}

static unsigned char
complete_fn(EditLine *el, int ch)
{
	const LineInfo *li = el_line(el);
	size_t cur = (size_t)(li->cursor - li->buffer), start = cur, n, common;
	char *line = xstrndup(li->buffer, (size_t)(li->lastchar - li->buffer));
	char *word, **cands;
	unsigned char rv = CC_REFRESH;

	(void)ch;
	while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '\t')
		start--;
	word = xstrndup(line + start, cur - start);
	candidates(line, cur, word, &cands, &n);
	if (n == 0) {
		rv = CC_REFRESH_BEEP;
		goto out;
	}
	common = strlen(cands[0]);
	for (size_t i = 1; i < n; i++) {
		size_t k = 0;
		while (k < common && cands[i][k] == cands[0][k])
			k++;
		common = k;
	}
	if (common > strlen(word)) {
		char *ins =
		    xstrndup(cands[0] + strlen(word), common - strlen(word));
		el_insertstr(el, ins);
		free(ins);
		if (n == 1 && cands[0][strlen(cands[0]) - 1] != '=')
			el_insertstr(el, " ");
	} else if (n == 1) {
		el_insertstr(el, " ");
	} else {
		fputc('\n', stdout);
		for (size_t i = 0; i < n; i++)
			printf("%s%s", i ? "  " : "", cands[i]);
		fputc('\n', stdout);
		rv = CC_REDISPLAY;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(cands[i]);
	free(cands);
	free(word);
	free(line);
	return rv;
}

static void
on_sigint(int sig)
{
	(void)sig;
	shell_interrupted = 1;
}

static void
on_winch(int sig)
{
	(void)sig;
	winch = 1;
}

static void
on_cont(int sig)
{
	(void)sig;
	resumed = 1;
}

/* Ctrl-Z while a line is read: give the shell its terminal back cooked
 * (libedit holds it raw, without echo), then stop; SIGCONT resumes here
 * and getc_fn() puts the line editor back. */
static void
on_tstp(int sig)
{
	struct sigaction sa, old;
	sigset_t set;
	int e = errno;

	(void)sig;
	if (have_cooked)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &cooked);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGTSTP, &sa, &old);
	sigemptyset(&set);
	sigaddset(&set, SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(SIGTSTP);
	sigaction(SIGTSTP, &old, NULL);
	errno = e;
}

int
le_init(const char *prog, int use_editor)
{
	struct sigaction sa;
	HistEvent ev;
	const char *home = getenv("HOME");

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	if (!use_editor)
		return 0;
	sa.sa_handler = on_winch;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_cont;
	sa.sa_flags = 0;
	sigaction(SIGCONT, &sa, NULL);
	have_cooked = tcgetattr(STDIN_FILENO, &cooked) == 0;
	le.el = el_init(prog, stdin, stdout, stderr);
	if (le.el == NULL)
		return -1;
	le.hist = history_init();
	history(le.hist, &ev, H_SETSIZE, 1000);
	history(le.hist, &ev, H_SETUNIQUE, 1);
	if (home != NULL) {
		le.histfile = xasprintf("%s/.colldb_history", home);
		history(le.hist, &ev, H_LOAD, le.histfile);
	}
	el_set(le.el, EL_EDITOR, "emacs");
	el_set(le.el, EL_PROMPT, prompt_fn);
	el_set(le.el, EL_HIST, history, le.hist);
	el_set(le.el, EL_GETCFN, getc_fn);
	el_set(le.el, EL_ADDFN, "colldb-complete", "complete a word",
	    complete_fn);
	el_set(le.el, EL_BIND, "^I", "colldb-complete", NULL);
	el_source(le.el, NULL); /* ~/.editrc */
	return 0;
}

char *
le_read(const char *prompt)
{
	int count = 0;
	const char *s;

	if (le.el == NULL) {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;

		if (sess != NULL && sess->interactive) {
			fputs(prompt, stdout);
			fflush(stdout);
		}
		n = getline(&line, &cap, stdin);
		if (n < 0) {
			free(line);
			return NULL;
		}
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		return line;
	}
	le.prompt = prompt;
	cancelled = 0;
	resumed = 0; /* a stop during a command: libedit sets raw itself */
	{
		struct sigaction sa, old;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_tstp;
		sigaction(SIGTSTP, &sa, &old);
		s = el_gets(le.el, &count);
		sigaction(SIGTSTP, &old, NULL);
	}
	if (s == NULL || count <= 0)
		return NULL;
	{
		char *line = xstrdup(s);
		size_t n = strlen(line);
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		return line;
	}
}

void
le_history_add(const char *line)
{
	HistEvent ev;

	if (le.hist == NULL || line[strspn(line, " \t")] == '\0')
		return;
	history(le.hist, &ev, H_ENTER, line);
	if (le.histfile != NULL)
		history(le.hist, &ev, H_SAVE, le.histfile);
}

int
le_cancelled(void)
{
	return cancelled;
}

int
le_rows_above_cursor(void)
{
	const LineInfo *li;
	struct winsize ws;
	size_t col;

	if (le.el == NULL || le.prompt == NULL)
		return 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0)
		return 0;
	li = el_line(le.el);
	col = strlen(le.prompt) + (size_t)(li->cursor - li->buffer);
	return (int)(col / ws.ws_col);
}

void
le_refresh(void)
{
	if (le.el != NULL)
		el_set(le.el, EL_REFRESH);
}

void
le_free(void)
{
	if (le.el != NULL)
		el_end(le.el);
	if (le.hist != NULL)
		history_end(le.hist);
	free(le.histfile);
	memset(&le, 0, sizeof le);
}

const struct out_prompt le_out_prompt = {
	.rows_above_cursor = le_rows_above_cursor,
	.refresh = le_refresh,
};

const struct cmd_reader le_cmd_reader = {
	.read = le_read,
	.cancelled = le_cancelled,
	.history_add = le_history_add,
};
