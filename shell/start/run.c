/*
 * run.c - `colldb run [-n N] [--batch] [-x FILE]... [--] PROGRAM [ARGS...]`:
 * N copies of a program linked with libcolldb become the ranks of a
 * session (colldb.1, "colldb run"; docs/libcolldb.md).  The ranks are
 * session/rank-user.c's; this is the command line, the wait for every
 * rank to reach cdb_init(), and --batch.
 *
 * Exit status: --batch, the worst rank's (exit status, or 128 + signal),
 * or 3 when every rank left was blocked with no progress for --timeout
 * seconds (default 10, 0 = never); with a prompt or scripts, the script
 * status as for `colldb` itself.  Ranks still alive when the session ends
 * are killed.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto.h"
#include "start/start.h"
#include "xmalloc.h"

#define START_WAIT_NS (10ull * 1000000000u)

static struct session run_session;
static struct user_ranks user;
static int batch_mode;
static volatile sig_atomic_t batch_interrupted;

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: colldb run [-n N] [-t shm|mpi] [--batch] [-x FILE]... [--echo]\n"
	    "                  [--timeout SECS] [--name NAME] [--window-area BYTES]\n"
	    "                  [--hosts H:N,...] [--mpirun CMD] [--net IF] [--listen ADDR]\n"
	    "                  [--] PROGRAM [ARGS...]\n"
	    "\n"
	    "Start N copies of PROGRAM (default 4), a program linked with libcolldb,\n"
	    "as the ranks of a session.  Each rank stops in cdb_init(); 'continue',\n"
	    "'step', 'break' and 'where' work on its calls.  -x FILE runs a script of\n"
	    "commands (so does stdin when it is not a terminal).  --batch runs the\n"
	    "ranks without a prompt, like mpirun: output lines are prefixed\n"
	    "'[rank N]', the exit status is the worst rank's (128 + signal for a\n"
	    "signal), 3 if every rank left hangs for --timeout seconds (default 10).\n"
	    "-t mpi starts them as an MPI job through the MPI launcher (docs/mpi.md).\n");
}

/* ---- starting the ranks ---------------------------------------------------- */

/* Can PROGRAM be executed (PATH searched as execvp does)?  0 with
 * *file the file it is (the caller frees it), or errno. */
static int
find_program(const char *prog, char **file)
{
	const char *path = getenv("PATH");
	int err = ENOENT;

	if (strchr(prog, '/') != NULL) {
		struct stat st;

		if (stat(prog, &st) != 0)
			return errno;
		if (S_ISDIR(st.st_mode)) /* X_OK holds for a directory */
			return EISDIR;
		if (access(prog, X_OK) != 0)
			return errno;
		*file = xstrdup(prog);
		return 0;
	}
	if (path == NULL)
		path = "/usr/bin:/bin";
	while (*path != '\0') {
		size_t n = strcspn(path, ":");
		char *f = xasprintf("%.*s%s%s", (int)n, path, n ? "/" : "", prog);
		struct stat st;

		if (stat(f, &st) == 0 && S_ISREG(st.st_mode)) {
			err = access(f, X_OK) == 0 ? 0 : errno;
			if (err == 0) {
				*file = f;
				return 0;
			}
			free(f);
		} else {
			free(f);
		}
		path += n + (path[n] == ':');
	}
	return err;
}

static int
in_init(struct session *s, int r)
{
	struct view_board b;
	char title[SEG_TITLE_MAX];
	struct uop cur;

	view_board(&s->view, r, &b);
	if (b.state != RS_STOPPED || b.nops != 0)
		return 0;
	view_cur(&s->view, r, &cur, title, sizeof title);
	return strcmp(title, "cdb_init") == 0;
}

/* Wait until every rank stopped in cdb_init (or is gone); say which did
 * not, and what the prompt has to work with. */
static void
wait_started(struct session *s)
{
	const char *prog = user.argv[0];
	uint64_t deadline = mono_ns() + START_WAIT_NS;
	int stopped = 0;

	for (;;) {
		int left = 0;

		session_pump(s, 5);
		view_sample(&s->view);
		for (int r = 0; r < s->nranks; r++)
			left += rank_alive(s, r) && !in_init(s, r);
		if (left == 0 || mono_ns() > deadline)
			break;
	}
	out_flush_events();
	for (int r = 0; r < s->nranks; r++) {
		if (in_init(s, r))
			stopped++;
		else if (rank_alive(s, r))
			out_printf("rank %d has not reached cdb_init (%s)\n", r,
			    rank_state_name(rank_state_of(s, r)));
	}
	if (stopped > 0)
		out_printf("%d rank%s of %s stopped in cdb_init; 'continue' runs them\n",
		    stopped, stopped == 1 ? "" : "s", prog);
	session_update_gate(s);
}

/* ---- --batch ------------------------------------------------------------------ */

static void
on_batch_sigint(int sig)
{
	(void)sig;
	batch_interrupted = 1;
}

static int
worst_status(struct session *s)
{
	int worst = 0;

	for (int r = 0; r < s->nranks; r++) {
		int st = s->rp[r].wstatus, code;

		code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) :
		    WIFEXITED(st)      ? WEXITSTATUS(st) :
					 1;
		worst = MAX(worst, code);
	}
	return worst;
}

static int
run_batch(struct session *s)
{
	int live;

	signal(SIGINT, on_batch_sigint);
	for (;;) {
		session_pump(s, 100); /* runs the hang watchdog, too */
		out_flush_events();
		live = 0;
		for (int r = 0; r < s->nranks; r++)
			live +=
			    s->rp[r].alive; /* exec'd ones too: their end and output */
		/* an MPI job that ended with the ranks left blocked for good
		 * is the hang the watchdog reports on shm */
		if (live == 0)
			return s->over != NULL && s->over_hang &&
				s->set.timeout > 0 ?
			    EXIT_HANG :
			    worst_status(s);
		if (batch_interrupted) {
			fprintf(stderr,
			    "colldb run: interrupted; killing %d rank%s\n",
			    live, live == 1 ? "" : "s");
			return 130;
		}
		if (s->watchdog_fired) {
			/* its diagnosis is out; nothing will move again: where
			 * each rank is, in the program's own lines */
			struct strbuf sb = STRBUF_INIT;
			struct rankset live_set;

			rankset_clear(&live_set);
			for (int r = 0; r < s->nranks; r++) {
				if (rank_alive(s, r))
					rankset_add(&live_set, r);
			}
			where_lines(s, &live_set, &sb);
			out_printf("%s", sb.buf);
			strbuf_release(&sb);
			fprintf(stderr, "colldb run: hang; killing %d rank%s\n",
			    live, live == 1 ? "" : "s");
			return EXIT_HANG;
		}
	}
}

/* ---- the entry point -------------------------------------------------------- */

int
run_main(int argc, char **argv)
{
	struct option longopts[SHELL_LONGOPTS_MAX];
	struct start_mode mode = { .who = "colldb run",
		.kind = &rank_kind_user,
		.kind_arg = &user,
		.scripts_end = 1,
		.started = wait_started };
	struct session *s = &run_session;
	static struct shell_opts o; /* the session keeps o.mpi_ranks */
	char *file = NULL;
	int c, err, rc;

	shell_opts_init(&o);
	opterr = 0; /* errors are said as one line (shell_opt_last) */
	shell_longopts(longopts, NULL);
	while ((c = getopt_long(argc, argv, "+:n:t:x:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			if (shell_opt_last(c, optarg, argv, "colldb run", &o) != 0)
				return EXIT_USAGE;
		}
	}
	batch_mode = o.batch;
	if (optind >= argc) {
		fprintf(stderr,
		    "error: missing PROGRAM (try 'colldb run --help')\n");
		shell_opts_release(&o);
		return EXIT_USAGE;
	}
	if (batch_mode && o.nx > 0) {
		fprintf(stderr,
		    "error: --batch runs no commands; drop -x %s (try 'colldb run --help')\n",
		    o.xfiles[0]);
		shell_opts_release(&o);
		return EXIT_USAGE;
	}
	if (!shell_opts_scripts_ok(&o, "colldb run") ||
	    (o.nx > 0 &&
		shell_opts_from_script(&o, o.xfiles[0], "colldb run") != 0)) {
		shell_opts_release(&o);
		return EXIT_USAGE;
	}
	if ((err = find_program(argv[optind], &file)) != 0) {
		fprintf(stderr, "error: cannot run '%s': %s\n", argv[optind],
		    err == ENOENT && strchr(argv[optind], '/') == NULL ?
			"not found on PATH" :
			strerror(err));
		shell_opts_release(&o);
		return err == ENOENT ? 127 : 126;
	}

	if (shell_opts_transport_ok(&o, "colldb run") != 0 ||
	    shell_opts_env_ok("colldb run") != 0) {
		shell_opts_release(&o);
		free(file);
		return EXIT_USAGE;
	}
	user.argv = argv + optind;
	user.batch = batch_mode;
	if (o.mpi) {
		o.mpi_ranks.user = user;
		mode.kind = &rank_kind_mpi_user;
		mode.kind_arg = &o.mpi_ranks;
	}
	mode.program = argv[optind];
	mode.program_file = file;
	if (batch_mode)
		mode.free_run = run_batch;
	rc = shell_start(s, &o, &mode);
	shell_opts_release(&o);
	s->program = NULL;
	free(file);
	return rc;
}
