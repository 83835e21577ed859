/*
 * start.h - shell/start/: the doors.  main.c picks the mode from argv
 * (the shell, an agent, run, learn, watch, the log tools), opts.c parses
 * what colldb and colldb run share, start.c is their one start-up, run.c
 * is `colldb run`, learn.c is `colldb learn`.
 *
 * May use every folder of the shell; nothing uses it.
 */
#ifndef COLLDB_START_H
#define COLLDB_START_H

#include <stdint.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "repl/repl.h"

/* ---- learn.c: `colldb learn [LESSON]` ------------------------------------ */

int learn_main(int argc, char **argv);

/* ---- opts.c: options shared by colldb and colldb run ----------------------- */

struct shell_opts {
	int nranks; /* -n, -1 when not given */
	int batch, echo;
	double timeout;	     /* --timeout, < 0 when not given */
	uint64_t area;	     /* --window-area, 0 when not given */
	char name[64];	     /* --name, "" when not given */
	const char **xfiles; /* -x FILE ... (borrowed argv strings) */
	size_t nx;
	int mpi;		    /* -t mpi */
	struct mpi_ranks mpi_ranks; /* --hosts --mpirun --net --listen */
};

/* The window area an mpi session gets unless --window-area says: every
 * page of an MPI window may be resident (Open MPI touches them all), so
 * 256 MiB per rank, and 2 GiB over all ranks beyond 8. */
#define MPI_AREA_PER (256ull << 20)
#define MPI_AREA_TOTAL (2ull << 30)
/* After the options: the transport's options agree with -t; 0 or -1
 * (said).  Fills in the mpi defaults. */
int shell_opts_transport_ok(struct shell_opts *o, const char *who);
/* COLLDB_KERN and COLLDB_STREAM_MIN, when set, hold what the ranks can
 * use; 0 or -1 (said). */
int shell_opts_env_ok(const char *who);

/* The long options both share (--batch, --echo, --help, --name,
 * --timeout, --window-area and the transport's: --hosts, --mpirun, --net,
 * --listen; -t is a short one), then extra's up to its zero entry, into
 * lo, ended by a zero entry: getopt_long's table.  lo holds
 * SHELL_LONGOPTS_MAX entries. */
#define SHELL_LONGOPTS_MAX 16
struct option;
void shell_longopts(struct option *lo, const struct option *extra);
void shell_opts_init(struct shell_opts *o);
void shell_opts_release(struct shell_opts *o);
/* One getopt result: 1 handled, 0 not a shared option, -1 bad (said). */
int shell_opt(int c, const char *val, const char *who, struct shell_opts *o);
/* The end of an options loop (opterr 0, optstring "+:..."): shell_opt,
 * and for anything but a shared option one error line (an unknown option,
 * a missing value), release o and return -1. */
int shell_opt_last(int c, const char *val, char *const *argv, const char *who,
    struct shell_opts *o);
/* getopt's '?' or ':' as one error line naming the option. */
void shell_opt_getopt_error(int c, char *const *argv, const char *who);
/* Every script readable and not a directory (else said; returns 0). */
int shell_opts_scripts_ok(const struct shell_opts *o, const char *who);
/* Take -n / --timeout from a script's "#! args:" line where o has none;
 * 0, or -1 (said) when the line is malformed. */
int shell_opts_from_script(struct shell_opts *o, const char *path,
    const char *who);

/* ---- main.c ----------------------------------------------------------------- */

extern const char *colldb_argv0;
/* start.c: the one start-up of `colldb` and `colldb run`. */
struct start_mode {
	const char *who; /* "colldb", "colldb run": messages name it */
	const struct rank_kind *kind;
	void *kind_arg;
	const char *program;	  /* what the ranks run (warnings), or NULL */
	const char *program_file; /* its file (PATH searched), or NULL */
	size_t npos;		  /* scripts given as FILE arguments (colldb) */
	int scripts_end;	  /* -x scripts are the whole session (run) */
	/* instead of commands: run the world to its end (run --batch) */
	int (*free_run)(struct session *s);
	/* after the session opened, before any command */
	void (*started)(struct session *s);
};
/* Open the session o asks for and run its commands; returns the exit
 * status (o's defaults are filled in). */
int shell_start(struct session *s, struct shell_opts *o,
    const struct start_mode *m);
/* The session hooks, colour and the record tap, wired in. */
void shell_wire(struct session *s);

/* ---- run.c: `colldb run`, ranks that are a user program ------------------ */

/* `colldb run ...` (argv[0] is "run"); returns the exit status. */
int run_main(int argc, char **argv);

#endif
