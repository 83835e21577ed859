/*
 * main.c - colldb's entry point: pick the mode from argv (shell, agent,
 * run, learn, watch, the log tools), then colldb's own options; the rest
 * is the start-up colldb and colldb run share (start.c).
 */
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oneside.h"
#include "remote.h"
#include "seg.h"
#include "start/start.h"
#include "trace/tool-logs.h"
#include "xmalloc.h"

const char *colldb_argv0 = "colldb";
static struct session the_session;

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: colldb [-n N] [-t shm|mpi] [-x FILE]... [--batch] [--timeout SECS]\n"
	    "              [--name NAME] [--echo] [--window-area BYTES]\n"
	    "              [--hosts H:N,...] [--mpirun CMD] [--net IF] [--listen ADDR]\n"
	    "              [FILE...]\n"
	    "       colldb run [-n N] [-t shm|mpi] [--batch] [-x FILE]... [--] PROGRAM [ARGS...]\n"
	    "       colldb learn [LESSON]            the lessons, run one\n"
	    "       colldb watch [SESSION [@RANKS]]  watch a running session read-only\n"
	    "       colldb tree|stats [OPTIONS] LOG  span trees / stats of a [STRACE] log\n"
	    "       colldb help [CMD]                this, or a prompt command's usage\n"
	    "       colldb --help | --version\n"
	    "\n"
	    "Start a world of N rank processes (default 4) and a prompt to drive\n"
	    "them.  FILE and -x FILE run scripts first.  --batch (implied when\n"
	    "stdin is not a terminal) exits after the last command: status 0 if\n"
	    "everything succeeded, 1 on an error or failed expect, 3 if the hang\n"
	    "watchdog fired, 2 for bad usage.  -t mpi runs the ranks as an MPI job\n"
	    "(Open MPI or MPICH), on this host or on --hosts.  'help' at the prompt\n"
	    "lists commands; man colldb has the rest.\n");
}

/* colldb help [CMD]: what --help says and the prompt's command list, or
 * the usage of one command of the prompt (its `help CMD`).  A script
 * named help is run as ./help, as for the other subcommands' names. */
static int
help_main(int argc, char **argv)
{
	char *cause = NULL;

	if (argc > 2) {
		fprintf(stderr,
		    "error: colldb help: unexpected '%s' (expected at most one command, as in 'colldb help bench')\n",
		    argv[2]);
		return EXIT_USAGE;
	}
	if (argc == 1) {
		usage(stdout);
		printf("\nCommands at the prompt:\n");
	}
	if (cmd_help_print(argc == 2 ? argv[1] : NULL, &cause) != 0) {
		/* the prompt's hint is 'help'; here it is 'colldb help' */
		const char *hint = strstr(cause, "(try 'help')");

		if (hint != NULL)
			fprintf(stderr,
			    "error: colldb help: %.*s(try 'colldb help')%s\n",
			    (int)(hint - cause), cause,
			    hint + strlen("(try 'help')"));
		else
			fprintf(stderr, "error: colldb help: %s\n", cause);
		free(cause);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int
main(int argc, char **argv)
{
	static const struct option mine[] = {
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct option longopts[SHELL_LONGOPTS_MAX];
	struct start_mode mode = { .who = "colldb", .kind = &rank_kind_agent };
	struct session *s = &the_session;
	static struct shell_opts o; /* the session keeps o.mpi_ranks */
	int c, rc;
	size_t npos;

	if (argc > 1 && strcmp(argv[1], "--agent") == 0)
		return rank_agent_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], "--agent-mpi") == 0)
		return remote_agent_main(argc, argv);
	/* Characters as the terminal encodes them (libedit, curses); numbers
	 * stay in the C locale. */
	setlocale(LC_CTYPE, "");
	if (argc > 1 && strcmp(argv[1], "run") == 0)
		return run_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "learn") == 0)
		return learn_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "help") == 0)
		return help_main(argc - 1, argv + 1);
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
	opterr = 0; /* errors are said as one line (shell_opt_last) */
	shell_longopts(longopts, mine);
	while ((c = getopt_long(argc, argv, "+:n:t:x:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'V':
			printf("colldb %s\n", COLLDB_VERSION);
			return EXIT_OK;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			if (shell_opt_last(c, optarg, argv, "colldb", &o) != 0)
				return EXIT_USAGE;
		}
	}
	npos = (size_t)(argc - optind); /* trailing FILEs */
	for (int i = optind; i < argc; i++) {
		o.xfiles = xreallocarray(o.xfiles, o.nx + 1, sizeof *o.xfiles);
		o.xfiles[o.nx++] = argv[i];
	}
	if (!shell_opts_scripts_ok(&o, "colldb") ||
	    (o.nx > 0 && shell_opts_from_script(&o, o.xfiles[0], "colldb") != 0)) {
		shell_opts_release(&o);
		return EXIT_USAGE;
	}
	if (shell_opts_transport_ok(&o, "colldb") != 0 ||
	    shell_opts_env_ok("colldb") != 0) {
		shell_opts_release(&o);
		return EXIT_USAGE;
	}
	if (o.mpi) {
		mode.kind = &rank_kind_mpi_agent;
		mode.kind_arg = &o.mpi_ranks;
	}
	mode.npos = npos;
	rc = shell_start(s, &o, &mode);
	shell_opts_release(&o);
	fflush(stdout);
	return rc;
}
