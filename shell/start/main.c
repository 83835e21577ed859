/*
 * main.c - colldb's entry point: pick the mode from argv (shell, agent,
 * the log tools), start the world, run scripts, then the prompt.
 */
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "rank.h"
#include "session/registry.h"
#include "seg.h"
#include "shell.h"
#include "xmalloc.h"

const char *colldb_argv0 = "colldb";
static struct session the_session;
static struct termios saved_tty;
static int have_tty;

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
	for (int r = 0; r < s->nranks; r++) {
		if (!rank_alive(s, r) || rank_state_of(s, r) != RS_BLOCKED)
			continue;
		strbuf_reset(&sb);
		where_line(s, r, &sb);
		out_printf("%s\n", sb.buf);
	}
	strbuf_release(&sb);
}

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: colldb [-n N] [-t shm] [-x FILE]... [--batch] [--timeout SECS]\n"
	    "              [--name NAME] [--echo] [FILE...]\n"
	    "       colldb run [-n N] [--batch] [-x FILE]... [--] PROGRAM [ARGS...]\n"
	    "       colldb --help | --version\n"
	    "\n"
	    "Start a world of N rank processes (default 4) and a prompt to drive\n"
	    "them.  FILE and -x FILE run scripts first.  --batch (implied when\n"
	    "stdin is not a terminal) exits after the last command: status 0 if\n"
	    "everything succeeded, 1 on an error or failed expect, 3 if the hang\n"
	    "watchdog fired, 2 for bad usage.  'help' at the prompt lists commands;\n"
	    "man colldb has the rest.\n");
}

static void
on_fatal(int sig)
{
	if (have_tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	registry_forget();	/* the ranks die with us (PDEATHSIG) */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
cleanup(void)
{
	if (the_session.seg.h != NULL)
		session_close(&the_session);
	le_free();
}

#include "trace/tool-logs.h"

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "echo", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "name", required_argument, NULL, 'N' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "version", no_argument, NULL, 'V' },
		{ "window-area", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	struct session *s = &the_session;
	struct shell_opts o;
	int c, rc = EXIT_OK, npos;
	char *cause = NULL;

	if (argc > 1 && strcmp(argv[1], "--agent") == 0)
		return rank_agent_main(argc, argv);
	/* Characters as the terminal encodes them (libedit, curses); numbers
	 * stay in the C locale. */
	setlocale(LC_CTYPE, "");
	if (argc > 1 && strcmp(argv[1], "run") == 0)
		return run_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "learn") == 0)
		return learn_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "--list-commands") == 0) {
		/* for completion scripts and the docs test */
		for (int i = 0; cmd_table[i] != NULL; i++)
			printf("%s\n", cmd_table[i]->name);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "watch") == 0)
		return watch_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "tree") == 0)
		return tool_tree_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "stats") == 0)
		return tool_stats_main(argc - 1, argv + 1);
	colldb_argv0 = argv[0];
	shell_opts_init(&o);
	while ((c = getopt_long(argc, argv, "+n:t:x:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (strcmp(optarg, "shm") != 0) {
				fprintf(stderr, "colldb: -t %s: %s\n", optarg,
				    strcmp(optarg, "mpi") == 0 ?
				    "the mpi transport is not built in this colldb (only shm)" :
				    "unknown transport (expected shm)");
				return EXIT_USAGE;
			}
			break;
		case 'V':
			printf("colldb %s\n", COLLDB_VERSION);
			return EXIT_OK;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			if (shell_opt_last(c, optarg, "colldb", &o, usage) != 0)
				return EXIT_USAGE;
		}
	}
	free(cause);
	cause = NULL;
	npos = argc - optind;	/* trailing FILEs: run them and exit */
	for (int i = optind; i < argc; i++) {
		o.xfiles = xreallocarray(o.xfiles, o.nx + 1, sizeof *o.xfiles);
		o.xfiles[o.nx++] = argv[i];
	}
	if (!shell_opts_scripts_ok(&o, "colldb") ||
	    (o.nx > 0 && shell_opts_from_script(&o, o.xfiles[0], "colldb") != 0)) {
		shell_opts_release(&o);
		return EXIT_USAGE;
	}
	if (o.nranks < 1 || o.nranks > SEG_MAX_RANKS)
		o.nranks = 4;
	have_tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tty) == 0;
	settings_init(&s->set);
	/* colldb learn runs a lesson showing the commands it types */
	s->set.echo = o.echo ? ECHO_ALL :
	    getenv("COLLDB_LESSON") != NULL ? ECHO_LESSON : ECHO_OFF;
	unsetenv("COLLDB_LESSON");
	if (o.timeout >= 0)
		s->set.timeout = o.timeout;
	s->interactive = (have_tty && !o.batch) || getenv("COLLDB_FAKETTY") != NULL;
	{
		const char *term = getenv("TERM");
		s->set.color = have_tty && !o.batch && isatty(STDOUT_FILENO) &&
		    term != NULL && strcmp(term, "dumb") != 0 &&
		    getenv("NO_COLOR") == NULL;
	}
	s->batch = !s->interactive;
	if (o.name[0] == '\0')
		snprintf(o.name, sizeof o.name, "colldb-%d", (int)getpid());
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_fatal);
	signal(SIGHUP, on_fatal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	sess = s;
	shell_wire(s);
	if (session_open(s, &rank_kind_agent, NULL, o.nranks, o.name, o.area,
		&cause) != 0) {
		fprintf(stderr, "colldb: cannot start %d ranks: %s\n", o.nranks, cause);
		free(cause);
		shell_opts_release(&o);
		return EXIT_FAIL;
	}
	atexit(cleanup);
	le_init("colldb", have_tty && s->interactive);

	for (size_t i = 0; i < o.nx && !script.quit; i++) {
		if (script_run_file(s, o.xfiles[i]) != 0) {
			rc = EXIT_FAIL;
			if (s->batch)
				break;
		}
	}
	/* -x scripts come first; piped commands follow them */
	if (!script.quit && rc == EXIT_OK && s->batch &&
	    (o.nx == 0 || (npos == 0 && !have_tty)))
		rc = script_run_stream(s, stdin, "<stdin>") == 0 ? EXIT_OK : EXIT_FAIL;
	else if (!script.quit && s->interactive)
		rc = repl_run(s);
	if (s->batch && rc == EXIT_OK && !script.quit && !s->kind->own_code) {
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
	if (s->watchdog_fired && rc == EXIT_FAIL)
		rc = EXIT_HANG;
	shell_opts_release(&o);
	fflush(stdout);
	return rc;
}
