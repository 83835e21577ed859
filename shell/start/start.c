/*
 * start.c - the one start-up `colldb` and `colldb run` share: decide who
 * is at the other end (a person at a terminal, or a script), set up the
 * signals, wire the floors above the session in, open it, run the scripts
 * and then stdin or the prompt, and end with one exit status.
 *
 * What differs between the two is struct start_mode: the rank kind, and
 * what `colldb run` adds (--batch runs no commands; with -x its scripts
 * end the session; it waits for the ranks to reach cdb_init()).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "bench/bench.h"
#include "session/registry.h"
#include "start/start.h"
#include "user/user.h"
#include "xmalloc.h"

static struct session *the_session;
static struct termios saved_tty;
static int have_tty;
static char *lesson_dir; /* colldb learn's directory for the lesson */

void
shell_wire(struct session *s)
{
	/* the order is the order the session calls them: the history reads
	 * a job's program before the trace takes it */
	session_hook_add(s, &diag_session_hook);
	session_hook_add(s, &trace_session_hook);
	session_hook_add(s, &bench_session_hook);
	session_hook_add(s, &match_session_hook);
	session_hook_add(s, &user_lint_session_hook);
	session_hook_add(s, &explore_session_hook);
	session_hook_add(s, &coll_session_hook);
	session_hook_add(s, &break_session_hook);
	out_use_colour(&s->set.color);
	out_set_event_tap(record_event);
}

/* Every signal that ends colldb (SIGTERM, SIGHUP, SIGQUIT, and a crash:
 * SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL): the terminal back as it was,
 * the registry entry gone, and what a user program's ranks forked killed
 * with them (their process groups; agent ranks die with us, PDEATHSIG).
 * Only async-signal-safe calls; then the signal does what it would have. */
static const int fatal_signals[] = { SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS,
	SIGABRT, SIGFPE, SIGILL };

static void
on_fatal(int sig)
{
	struct session *s = the_session;

	if (have_tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	registry_forget();
	if (s != NULL && s->rp != NULL && s->kind != NULL && s->kind->own_code) {
		for (int r = 0; r < s->nranks; r++)
			if (s->rp[r].alive && s->rp[r].pid > 0) /* unreaped */
				kill(-s->rp[r].pid, SIGKILL);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
fatal_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		sigaction(fatal_signals[i], &sa, NULL);
}

static void
cleanup(void)
{
	if (the_session != NULL && the_session->seg.h != NULL)
		session_close(the_session);
	le_free();
	/* gone if the lesson wrote nothing there (rmdir: only if empty) */
	if (lesson_dir != NULL)
		rmdir(lesson_dir);
}

/* Who is at the other end, and how the session will talk. */
static void
decide(struct session *s, struct shell_opts *o, const struct start_mode *m)
{
	const char *term = getenv("TERM");

	have_tty =
	    isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tty) == 0;
	settings_init(&s->set);
	/* colldb learn runs a lesson showing the commands it types */
	s->set.echo = o->echo		    ? ECHO_ALL :
	    getenv("COLLDB_LESSON") != NULL ? ECHO_LESSON :
					      ECHO_OFF;
	if (getenv("COLLDB_LESSON") != NULL && getenv("COLLDB_LESSON_DIR") != NULL)
		lesson_dir = xstrdup(getenv("COLLDB_LESSON_DIR"));
	unsetenv("COLLDB_LESSON");
	unsetenv("COLLDB_LESSON_DIR");
	if (o->timeout >= 0)
		s->set.timeout = o->timeout;
	/* a person types at a terminal, unless the scripts are the session */
	s->interactive =
	    (have_tty && !o->batch && !(m->scripts_end && o->nx > 0)) ||
	    getenv("COLLDB_FAKETTY") != NULL;
	s->set.color = have_tty && !o->batch && isatty(STDOUT_FILENO) &&
	    term != NULL && strcmp(term, "dumb") != 0 &&
	    getenv("NO_COLOR") == NULL;
	s->batch = !s->interactive;
	if (o->nranks < 1 || o->nranks > SEG_MAX_RANKS)
		o->nranks = 4; /* the default, as the usage says */
	if (o->name[0] == '\0')
		snprintf(o->name, sizeof o->name, "colldb-%d", (int)getpid());
}

/* Scripts first, then piped commands or the prompt. */
static int
commands(struct session *s, const struct shell_opts *o, size_t npos)
{
	int rc = EXIT_OK;

	for (size_t i = 0; i < o->nx && !script.quit; i++) {
		if (script_run_file(s, o->xfiles[i]) != 0) {
			rc = EXIT_FAIL;
			if (s->batch)
				break;
		}
	}
	/* -x scripts come first; piped commands follow them */
	if (!script.quit && rc == EXIT_OK && s->batch &&
	    (o->nx == 0 || (npos == 0 && !have_tty)))
		rc = script_run_stream(s, stdin, "<stdin>") == 0 ? EXIT_OK :
								   EXIT_FAIL;
	else if (!script.quit && s->interactive)
		rc = repl_run(s);
	return rc;
}

/*
 * A batch script that ends with ranks blocked says so, with where each
 * one waits, unless its last look at the ranks (where, ranks, diagnose,
 * expect) showed them so.  Not an error (exit 0): the scenarios that
 * show a hang end in one on purpose, and `expect nohang` (or the
 * watchdog during a `sleep`) is how a script makes a hang fail.
 */
static void
say_still_blocked(struct session *s)
{
	struct strbuf sb = STRBUF_INIT;
	int n = 0;

	for (int r = 0; r < s->nranks; r++)
		n += rank_alive(s, r) && rank_state_of(s, r) == RS_BLOCKED;
	if (n == 0)
		return;
	out_warning("the script ended with %d rank%s blocked (exit status 0; 'expect nohang' makes it an error):",
	    n, n == 1 ? "" : "s");
	{
		struct rankset blocked;

		rankset_clear(&blocked);
		for (int r = 0; r < s->nranks; r++) {
			if (rank_alive(s, r) && rank_state_of(s, r) == RS_BLOCKED)
				rankset_add(&blocked, r);
		}
		where_lines(s, &blocked, &sb);
		out_printf("%s", sb.buf);
	}
	strbuf_release(&sb);
}

/* The end of the commands: what the world still does, and the status. */
static int
finish(struct session *s, const struct start_mode *m, int rc)
{
	if (s->batch && rc == EXIT_OK && !script.quit && !s->kind->own_code &&
	    s->over == NULL) {
		/* the end of a script: what is still running finishes (and
		 * reports, e.g. a check's #wrong) before the world goes */
		s->set.settle_explicit = 0;
		session_settle(s);
		out_flush_events();
		if (s->watchdog_fired)
			rc = EXIT_FAIL;
		else if (diag_state_unshown(s))
			say_still_blocked(s);
	}
	if (s->kind->own_code && !s->interactive && !script.quit) {
		int alive = 0;
		for (int r = 0; r < s->nranks; r++)
			alive += rank_alive(s, r);
		if (alive > 0)
			out_warning("the commands ended with %d rank%s of %s still alive; they are killed now (--batch runs the program to its end)",
			    alive, alive == 1 ? "" : "s", m->program);
	}
	if (s->watchdog_fired && rc == EXIT_FAIL)
		rc = EXIT_HANG;
	if (s->over != NULL)
		rc = EXIT_FAIL;
	return rc;
}

int
shell_start(struct session *s, struct shell_opts *o, const struct start_mode *m)
{
	char *cause = NULL;
	int rc;

	decide(s, o, m);
	signal(SIGPIPE, SIG_IGN);
	fatal_handlers();
	setvbuf(stdout, NULL, _IOLBF, 0);
	sess = the_session = s;
	shell_wire(s);
	out_set_world(o->nranks);
	s->program = m->program_file;
	if (session_open(s, m->kind, m->kind_arg, o->nranks, o->name, o->area,
		&cause) != 0) {
		fprintf(stderr, "%s: cannot start %d ranks: %s\n", m->who,
		    o->nranks, cause);
		free(cause);
		return EXIT_FAIL;
	}
	atexit(cleanup);
	if (m->free_run != NULL) {
		rc = m->free_run(s);
	} else {
		le_init("colldb", have_tty && s->interactive);
		cmd_reader = &le_cmd_reader;
		if (m->started != NULL)
			m->started(s);
		rc = finish(s, m, commands(s, o, m->npos));
	}
	fflush(stdout);
	return rc;
}
