/*
 * session.h - the ranks behind the prompt: the bottom of the shell.
 *
 * A session is one world: its segment, its N rank processes, the programs
 * they were sent and have not finished (jobs), and the rules that decide
 * when the world is quiescent.  Its life is life.c; it starts the
 * processes (one fork helper, proc.c), sends them programs (jobs.c), reads
 * what they report and notices their deaths (pump.c, ranks.c), says a
 * stop at a breakpoint once (stops.c), and settles (settle.c).
 *
 * shell/session/ knows nothing above it.  It uses core, shell/lang (rank
 * sets) and shell/out (it prints rank events); never shell/cmd, repl,
 * diag, trace, bench or start.  What the floors above want to know they
 * learn through three doors, all in this header:
 *
 *   - a job's `done` callback, set by whoever submitted it (a collective's
 *     bookkeeping, a call's result collection); NULL reports the usual
 *     "[rank N] ... done" events (job_report_done());
 *   - session hooks (struct session_hook), registered before the session
 *     opens: the hang watchdog and the history of completed writes
 *     (shell/diag), the span trace (shell/trace), the last bench
 *     (shell/bench).  They are called in the order they were added;
 *   - the rank kind (struct rank_kind): colldb's own agents
 *     (rank_kind_agent, rank-agent.c) or a user program's processes under
 *     `colldb run` (rank_kind_user, rank-user.c).  Everything that differs
 *     between the two is a member of the kind; nothing else asks which
 *     one runs.
 *
 * Ownership: a job owns its prog and desc; session_submit() and
 * session_track() take both, also on failure.  Strings returned through
 * `char **cause` are the caller's to free.  Borrowed pointers (rank_job(),
 * struct rankproc fields) live until the next session_pump().
 */
#ifndef COLLDB_SESSION_H
#define COLLDB_SESSION_H

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "coll.h"
#include "diag.h"
#include "lang/parse.h"
#include "prog.h"
#include "seg.h"
#include "strbuf.h"
#include "view/view.h"

struct msg_hdr;
struct done_info;
struct outbox_ring;
struct session;
struct user_memo;

/* ---- jobs: programs sent to a rank and not yet reported done ---------- */

enum job_flags {
	JOB_ANNOUNCE = 1 << 0, /* print an event when it completes */
	JOB_WAIT = 1 << 1,  /* a wait: completion says "satisfied (value v)" */
	JOB_COLL = 1 << 2,  /* part of a collective */
	JOB_START = 1 << 3, /* started stopped (PROG_F_START) */
	JOB_SAID_BLOCKED = 1 << 4, /* "blocked" was reported */
	JOB_STALE_PUT = 1 << 5,	   /* a put issued after the peer's release */
	JOB_CALL = 1 << 6,	   /* a load or call */
	JOB_WITHDRAWN = 1 << 7,	   /* a collective's part taken back (another
				 * rank could not be told): cancelled once it
				 * runs, never reported */
	JOB_CANCELLED = 1 << 8,	   /* ... and the rank was told */
	JOB_SEEN = 1 << 9,	   /* a user rank's wait: seen holds its cell's
				    * value when the call was made */
};

/* How a job ended.  status: enum done_status (core/proto.h), or JOB_DIED
 * when its rank died first (di is then NULL and text "rank died"). */
#define JOB_DIED (-1)
struct job_end {
	int status;
	const struct done_info *di; /* the rank's DONE, or NULL */
	const char *text; /* the error or a call's result, never NULL */
};

struct job;
/* Called once when j ends, before the hooks see it; j and its prog are
 * still whole.  For JOB_DIED the job then stays with the dead rank
 * (struct rankproc.orphans) for diagnose. */
typedef void (
    *job_done_fn)(struct session *s, struct job *j, const struct job_end *e);

struct job {
	uint32_t tag;
	int rank;
	struct prog *prog; /* the program (built here too, for where/diagnose);
				 * NULL once a hook took it (the trace) */
	char *desc;	   /* "wait sig[0] >= 1", "allreduce(ring)" */
	unsigned flags;	   /* enum job_flags */
	int coll;	   /* collective instance id, 0 if none */
	int domain;	   /* comm domain it runs on (0: the world), so
				 * the rank is shown both ways */
	uint64_t lo, hi;   /* window-area bytes the program touches */
	struct site site;  /* a user rank's call: where it was made */
	int32_t seen;	   /* JOB_SEEN: the cell's value at the call */
	job_done_fn done;  /* NULL: job_report_done() */
	struct job *next;
};

/* The usual report of a finished job: "[rank N] DESC failed: ...",
 * "... satisfied (value v)", "... interrupted", "... done" (JOB_ANNOUNCE). */
void job_report_done(struct session *s, struct job *j, const struct job_end *e);

/*
 * A user rank's call the shell read whole: its announcement and its end
 * (DONE_OK) came in one read of the rank's outbox, so the call was over
 * before the shell knew of it, and no job is made for it (rank-user.c:
 * most of a program's calls; the job, its program and its description
 * were most of the shell's work per call).  The hooks are told as they
 * would have been of its job: call() with e NULL where job_begin()
 * would have been called, then, once every hook heard of the beginning,
 * with e where job_end() would have been.  Everything is borrowed for
 * the call of the hook.
 */
struct user_call {
	uint32_t tag;
	const char *title;	      /* its description, as a job's desc */
	const struct site *site;      /* where it was made */
	const struct uop *op;	      /* a call of one op (notify, wait, put,
				       * get): the op; NULL for a collective */
	const struct coll_args *coll; /* a collective's arguments (names
				       * NULL), or NULL */
	struct prog *prog;	      /* names its spans (prog_ref() to keep
				       * it): a collective's program, or for
				       * a call of one op the program of an
				       * earlier call of the same kind from
				       * the same site, whose op may have
				       * other operands: read op */
	int seen_set;		      /* a wait: seen is its cell's value when
				       * the call was made (JOB_SEEN) */
	int32_t seen;
};

/* ---- session hooks: the floors above, called by the session ------------ */

struct session_hook {
	const char *name;
	/* the segment and the rank slots exist, no process yet */
	void (*open)(struct session *s);
	/* every session_pump(), before it polls */
	void (*pump)(struct session *s);
	/* a job rank r announced itself (a user program's call, j->site
	 * says where from), before it runs: coll is its collective's
	 * arguments (names NULL), or NULL for a single operation */
	void (*job_begin)(struct session *s, int r, struct job *j,
	    const struct coll_args *coll);
	/* after a job's done callback (e->status as there; not for JOB_DIED) */
	void (*job_end)(struct session *s, int r, struct job *j,
	    const struct job_end *e);
	/* a user rank's call read whole (struct user_call): e NULL as it
	 * begins, then e set as it ends.  A hook with job_begin or job_end
	 * must have it too (session_hook_add() checks): a user program's
	 * calls mostly come this way. */
	void (*call)(struct session *s, int r, const struct user_call *c,
	    const struct job_end *e);
	/* session_close(), before the processes are stopped */
	void (*close)(struct session *s);
	/* rank r's process ended (after its kind said so) */
	void (*gone)(struct session *s, int r);
	/* the session ends by itself (session_end()): what to tell first,
	 * from what the shell last saw (the diagnosis) */
	void (*ending)(struct session *s);
};
#define SESSION_HOOKS_MAX 12
/* Add h (borrowed for the session's life); call before session_open(). */
void session_hook_add(struct session *s, const struct session_hook *h);

/* ---- rank kinds ---------------------------------------------------------- */

/*
 * What the ranks are.  Every member may rely on rank r being in range.
 */
struct rank_kind {
	const char *name;
	/*
	 * The ranks run their own code between the programs the shell sees
	 * (a user program): they may run for ever, so settling is bounded
	 * and the end of a script does not wait for them; a rank that is
	 * not blocked may still notify anything (diagnose counts it open);
	 * its span records may name a call it has not announced yet; and the
	 * shell cannot make one block, so commands that need that
	 * (CMD_AGENTS_ONLY) are refused.
	 */
	int own_code;
	/* Start every rank's process and wait until they can be talked to;
	 * 0, or -1 + cause (session_open() then closes the session). */
	int (*open)(struct session *s, char **cause);
	/* A message from rank r other than MSG_DONE. */
	void (*message)(struct session *s, int r, const struct msg_hdr *h,
	    const void *payload);
	/* Rank r's position in the words of the command language: "wait
	 * sig[0] >= 1 (now 0)", "allreduce(ring) step 2/7 rs: ...";
	 * verbose adds "[breakpoint N]" / "[interrupted]". */
	void (*describe)(struct session *s, int r, struct strbuf *sb,
	    int verbose);
	/* Whether rank r waits for nothing but the shell or a peer. */
	int (*settled)(struct session *s, int r);
	/* Rank r's process ended with wait status st: set rp->death, mark
	 * its board and print the event (the session does the rest). */
	void (*gone)(struct session *s, int r, int st);
	/* Run p for rank r on behalf of a command (takes p and desc): 0
	 * with *jp the job to follow (NULL: it ran at once), or -1 + cause. */
	int (*submit)(struct session *s, int r, struct prog *p, char *desc,
	    unsigned flags, unsigned pflags, struct job **jp, char **cause);
	/* Interrupt rank r (`interrupt`): 1 if it had something to stop. */
	int (*interrupt)(struct session *s, int r);
	/* Send sig to rank r's processes (`kill`, session_close()). */
	void (*kill)(struct session *s, int r, int sig);
	/* Why no target is stopped, after "no target rank is stopped". */
	const char *not_stopped_hint;
	/*
	 * The ranks are not this process's children (an MPI job, started by
	 * its launcher): a rank's end is its connection closing (gone() gets
	 * st -1), and the kind watches what it started itself: pollfds()
	 * adds its descriptors to every poll of the session, pump() runs in
	 * every session_pump() (both NULL for local ranks).
	 */
	int remote;
	int (*pollfds)(struct session *s, struct pollfd *fds, int max);
	void (*pump)(struct session *s);
	/* session_close(), after every rank was sent MSG_QUIT: end what the
	 * kind started (NULL: the session kills its children). */
	void (*close)(struct session *s);
};

/* colldb's own agents (`colldb -n N`): exec'd `colldb --agent`. */
extern const struct rank_kind rank_kind_agent;
/* A user program's processes (`colldb run`): s->kind_arg is a struct
 * user_ranks. */
extern const struct rank_kind rank_kind_user;
struct user_ranks {
	char **argv; /* PROGRAM ARGS..., borrowed */
	int batch;   /* --batch: free running, quiet about clean exits */
};

/*
 * Ranks as an MPI job (`-t mpi`, shell/session/mpi-*.c, docs/mpi.md):
 * colldb's agents (rank_kind_mpi_agent) or a user program's processes
 * (rank_kind_mpi_user, `colldb run -t mpi`), started by the MPI launcher
 * on one host or many, attached to the shell over TCP.  s->kind_arg is a
 * struct mpi_ranks; what the kind keeps while it runs is its own.
 */
extern const struct rank_kind rank_kind_mpi_agent;
extern const struct rank_kind rank_kind_mpi_user;
struct mpi_world;
struct mpi_ranks {
	const char *hosts;	/* --hosts H:N,...: NULL for this host */
	const char *mpirun;	/* --mpirun 'CMD ARGS': NULL finds mpirun */
	const char *net;	/* --net IF: the interface ranks use */
	const char *listen;	/* --listen ADDR[:PORT] for the control port */
	struct user_ranks user; /* rank_kind_mpi_user's program */
	struct mpi_world *w;	/* the kind's, while the session is open */
};
/* ---- the session ----------------------------------------------------------- */

struct rankproc {
	pid_t pid;
	int sock; /* SOCK_SEQPACKET to the rank, -1 once gone */
	int out;  /* the rank's stdout+stderr, -1 once closed */
	int alive;
	int wstatus;	       /* waitpid() status once dead */
	struct job *jobs;      /* queue; the head is what the rank runs */
	struct strbuf outbuf;  /* partial output line */
	struct strbuf last_op; /* description of the last op seen ("" none) */
	uint64_t nread;	       /* messages read from sock so far */
	char *death;	       /* "killed by SIGKILL during ...", once dead */
	struct job *orphans;   /* what a dead rank still had to run */
	uint32_t orphan_pc;    /* where its first orphan stopped */
	int ended_early;       /* a user rank gone before cdb_finalize */
	int with_job;	       /* ended by the MPI job's end, not itself */
	/* the last breakpoint stop reported (program tag, micro-ops done) */
	int stop_said;
	uint32_t stop_said_tag;
	uint64_t stop_said_progress;
	/* when the rank last moved (micro-ops done or a state change), for
	 * "no progress" (shell/diag's watchdog keeps it) */
	uint64_t moved_key, moved_ns;
	/* A user rank's outbox (core/outbox.h), mapped here: its calls'
	 * announcements and DONEs, read on every session_pump(), on its bell
	 * (MSG_KICK) and once more when it is gone.  NULL for ranks that send
	 * everything on their socket. */
	struct outbox_ring *outbox;
	size_t outbox_len; /* the mapping, header included */
	int outbox_busy;   /* being read: a handler does not read it again */
	int outbox_said;   /* a ring that made no sense was reported */
	struct user_memo *user_memo; /* rank-user.c's: programs it announced
				      * last, shared by equal calls */
};

/* What script lines are echoed (see cmd/script.c) */
enum { ECHO_OFF, ECHO_ALL, ECHO_LESSON };

struct settings {
	int times; /* show times in state */
	int color;
	int echo;		 /* ECHO_ALL (transcripts), ECHO_LESSON or 0 */
	int strict;		 /* PyPTO's op/dtype restrictions */
	double timeout;		 /* hang watchdog, seconds (0 = off) */
	int settle_ms;		 /* how long a command waits for quiescence */
	int settle_explicit;	 /* set by the user: bounds batch runs too */
	char reset_windows[512]; /* windows a repeat re-zeroes before
					 * each iteration: "" (off), "all" or
					 * "a,b" (set reset-windows) */
};

/* State the floors above keep per session; opaque here. */
struct coll_run;
struct trace;
struct bench_last;
struct coll_match;
struct prog_sink;
struct explore_saved;

struct session {
	struct seg seg;	  /* what the shell writes (operations and
				 * control go through it) */
	struct view view; /* what everything reads (view/view.h) */
	int nranks;
	char name[64];
	const char *transport;
	const struct rank_kind *kind;
	void *kind_arg;	     /* what the kind needs (struct user_ranks) */
	const char *program; /* colldb run: the program's file (found on
			      * PATH), borrowed; NULL for colldb's agents */
	int breaks_told;     /* the program ended: unhit breakpoints said */
	struct rankproc *rp;
	uint32_t next_tag;
	int next_coll;
	struct rankset focus;
	struct settings set;
	int batch;	 /* non-interactive: stop at the first error */
	int interactive; /* a person at a terminal */
	char *self_exe;
	unsigned start_pflags; /* PROG_F_START while `start CMD` runs CMD */
	int registered;	       /* in the registry (colldb watch NAME) */
	/* The session ended by itself (an MPI job lost a rank): what the
	 * commands still to come are refused with; NULL while it goes on. */
	char *over;
	/* ... and its diagnosis then was a HANG: the ranks left were blocked
	 * for good (`colldb run --batch` exits 3, as after the watchdog) */
	int over_hang;
	uint32_t next_break; /* breakpoint ids */
	const struct session_hook *hooks[SESSION_HOOKS_MAX];
	/* ... those with a call, in the same order: session_call_done()
	 * runs at every call of a user program */
	const struct session_hook *call_hooks[SESSION_HOOKS_MAX];
	int nhooks, ncall_hooks;

	/* the hang watchdog's (shell/diag): settling stops once it fired */
	uint64_t idle_since;
	int watchdog_fired;
	uint64_t wd_sig;     /* progress signature */
	uint64_t wd_since;   /* ... unchanged since */
	int wd_armed;	     /* fires once per stall */
	unsigned wd_reports; /* watchdog reports printed, ever */
	uint64_t shown_sig;  /* progress signature the last look at the
				 * ranks (where, ranks, diagnose, expect)
				 * showed; 0: none yet */
	/* completed writes and waits, kept by shell/diag for diagnose */
	struct seg_defer defers[SEG_MAX_DEFERS]; /* defer_wait conditions
				 * (session_defer); mirrored into the
				 * segment header for observers */
	int ndefers_sent; /* of them attached to a program sent */
	struct diag_event *hist;
	size_t nhist, ahist, hist_off; /* hist is hist_off events into a
				 * buffer of ahist (shell/diag/diagnose.c) */
	uint64_t hist_added; /* events ever added: hist[i] is event number
				 * hist_added - nhist + i */
	uint64_t hist_gen;   /* bumped when events leave other than oldest
				 * first (hist_forget), or all go */
	/* the floors above */
	struct coll_run *colls;	  /* collectives in progress (cmd-coll.c) */
	struct trace *trace;	  /* spans collected from the ranks (trace/) */
	struct bench_last *bench; /* the last bench (bench/) */
	struct coll_match *match; /* user collectives entered (user/) */
	struct prog_sink *sink;	  /* set while explore reads a script: commands
				 * hand it their programs (cmd/submit.c) */
	struct explore_saved *explored; /* counterexamples (cmd/explore-save.c) */
	int next_explore;		/* ... saved so far */
};

/* The session of this process (one per process), NULL before it opens. */
extern struct session *sess;
/* Set by the terminal's SIGINT handler: ends session_settle() and other
 * waits; whoever reports the interruption clears it. */
extern volatile sig_atomic_t shell_interrupted;

/* Fields, the segment (area 0: the default size), the hooks' open and the
 * rank slots, no processes; 0 or -1 + cause.  session_open() does this,
 * then starts the ranks of kind (kind_arg as it needs). */
int session_prepare(struct session *s, int nranks, const char *name,
    uint64_t area, char **cause);
int session_open(struct session *s, const struct rank_kind *kind,
    void *kind_arg, int nranks, const char *name, uint64_t area, char **cause);
/* The session cannot go on (why: "rank 2 died; MPI ended the job"):
 * the hooks' ending(), then s->over is set (commands stop, the prompt
 * ends, the exit status is 1).  The kind stops the ranks first. */
void session_end(struct session *s, const char *why);
/* Register the session for `colldb watch NAME` (a clash only warns). */
void session_register(struct session *s);
/* Stop every rank, free everything; the segment is marked ended. */
void session_close(struct session *s);

/* ---- processes (proc.c) ---------------------------------------------------- */

/*
 * Fork rank r with a socket pair and an output pipe.  In the child, stdin
 * is /dev/null, stdout and stderr are the pipe, the segment and the
 * rank's end of the socket (sock) survive exec; then exec() runs and must
 * not return (it _exit()s 127 when it cannot exec).  parent is the
 * shell's pid.  0, or -1 + cause.
 */
typedef void (
    *rank_exec_fn)(struct session *s, int r, int sock, pid_t parent, void *arg);
int rank_spawn(struct session *s, int r, rank_exec_fn exec, void *arg,
    char **cause);
/* "SIGKILL", "signal 64": borrowed until the next call. */
const char *signal_name(int sig);
/* Whether rank r's process is stopped: RANK_FROZEN_SIGNAL by a signal
 * (SIGSTOP, SIGTSTP; it cannot move until SIGCONT, whatever its board
 * says), RANK_FROZEN_TRACED by a tracer such as `gdb @R` (it moves when the
 * debugger lets it go); 0 when it is not. */
enum rank_frozen { RANK_FROZEN_SIGNAL = 1, RANK_FROZEN_TRACED };
int rank_frozen(struct session *s, int r);

/* ---- jobs (jobs.c) ------------------------------------------------------------ */

/* A rank holds at most QUEUE_MAX commands (its socket buffer is the
 * queue; a full one would block the shell).  1 (and cause) when r's is
 * full.  A collective's programs are described, not held (prog.h): the
 * shell keeps one description for all ranks, whatever the size. */
#define QUEUE_MAX 64
int session_queue_full(struct session *s, int r, char **cause);
/* Send p to rank r (takes ownership of p and desc).  Returns the job, or
 * NULL + cause when the rank is gone or the send failed. */
struct job *session_submit(struct session *s, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags, char **cause);
/* 0, or -1 + cause if a collective of args cannot be sent now: a rank is
 * dead or cannot be reached, a queue is full, or a rank's program is
 * longer than its 32-bit position counts.  Sends nothing. */
int session_coll_ready(struct session *s, const struct coll_args *a,
    char **cause);
/* Cancel withdrawn parts that their ranks have started (session_pump). */
void session_withdraw_tick(struct session *s);
/* Send a collective: every rank builds its program from args; every job
 * gets JOB_COLL, coll_id and done.  Every rank is sent it or none is:
 * -1 + cause after session_coll_ready() refused, or when a rank could not
 * be told after all (the parts sent before are withdrawn). */
int session_submit_coll(struct session *s, const struct coll_args *a,
    unsigned pflags, int coll_id, job_done_fn done, char **cause);
/* The same, run `repeat` times back to back by every rank (bench); the
 * spans of run k carry iteration first_iter + k. */
int session_submit_coll_repeat(struct session *s, const struct coll_args *a,
    unsigned pflags, int coll_id, uint32_t repeat, uint32_t first_iter,
    job_done_fn done, char **cause);
/* Track a program rank r runs on its own (a user rank's call), under
 * the rank's tag; takes p and desc.  coll: the collective p is a rank's
 * program of (its windows are what it touches), or NULL. */
struct job *session_track(struct session *s, int r, uint32_t tag,
    struct prog *p, char *desc, unsigned flags, const struct coll_args *coll);
/* Rank r reported the end of its job tagged tag (called by the pump). */
void session_job_end(struct session *s, int r, uint32_t tag,
    const struct job_end *e);
/* User rank r's call c, read whole, ended with e (rank-user.c): the
 * hooks' call() as it begins and as it ends, and its rank's last op. */
void session_call_done(struct session *s, int r, const struct user_call *c,
    const struct job_end *e);
/* Any job (queued or running) touching bytes [lo, hi)? */
int session_range_busy(struct session *s, uint64_t lo, uint64_t hi, int *rank);
/*
 * Deferred conditions (defer_wait): session_defer() registers cell off
 * >= expected (unsigned) for rank r; the next program sent to r carries
 * it as its last WAITs (prog_add_deferred), so it does not complete until
 * the condition holds.  0, or -1 + cause (DEFER_MAX per rank, or the
 * segment's table is full).  session_defers() lists rank r's conditions,
 * pending (tag 0) and carried (the program's tag); the pointers are
 * borrowed until the next job starts or ends.
 */
int session_defer(struct session *s, int r, uint64_t off, int32_t expected,
    char **cause);
size_t session_defers(struct session *s, int r, const struct seg_defer **out,
    size_t max);
/* describe.c: rank r's pending deferred conditions, "deferred for its next
 * command: sig[0] >= 1 (now 0), ..."; nothing when none. */
void describe_defers(struct session *s, int r, struct strbuf *sb);
/* "rank 5", or "rank 5 (d1:2)" when domain (a domain number, 0 for the
 * world) holds rank 5 as its rank 2: a rank shown both ways. */
void describe_rank_name(struct view *v, int r, int domain, struct strbuf *sb);
void job_free(struct job *j);

/* ---- reading the ranks (pump.c, ranks.c) ------------------------------------- */

/* Handle whatever the ranks sent (waits up to timeout_ms for something);
 * events are queued (out_event). */
void session_pump(struct session *s, int timeout_ms);
/* Report, as events, what a rank corrupted in the segment (once each);
 * session_pump() calls it. */
void session_check_segment(struct session *s);
/* poll() set for an event loop: fills fds, returns count. */
int session_pollfds(struct session *s, struct pollfd *fds, int max);
/* How many fds session_pollfds() may give at most. */
int session_pollfds_max(struct session *s);
/* Alive and still talking to the shell (not exec'd away). */
int rank_alive(struct session *s, int r);
enum rank_state rank_state_of(struct session *s, int r);
/* The job rank r is running (head of its queue), or NULL. */
struct job *rank_job(struct session *s, int r);

/* ---- settling (settle.c) ------------------------------------------------------- */

/* Wait until quiescent (or the settle limit); 0 = quiescent. */
int session_settle(struct session *s);
int session_quiescent(struct session *s);
/* Recompute the segment's gate_active word from control state. */
void session_update_gate(struct session *s);
/* The agents' rule (rank-agent.c), shared by other kinds: whether rank r
 * waits for nothing but the shell or a peer, from its board. */
int rank_board_settled(struct session *s, int r);

/* ---- stops at breakpoints (stops.c) ----------------------------------------- */

/* Rank r's stop at a breakpoint has been shown (by a `where` line or an
 * event); no-op when r is not stopped at one. */
void break_stop_said(struct session *s, int r);
/* Every rank stopped at a breakpoint and not said so yet gets an event,
 * whichever command (or other rank) made it run there. */
void report_break_stops(struct session *s);

/* ---- words for what ranks do (describe.c) ---------------------------------- */

/* What rank r was doing when it went, for its death's line: its position
 * during a job, "after OP" (its last one), or "while idle"; returns
 * whether it had a job. */
int describe_last_words(struct session *s, int r, struct strbuf *sb);
/* Describe rank r's position (the kind's describe). */
void describe_rank(struct session *s, int r, struct strbuf *sb, int verbose);
/* Why job j, at the head of rank r's queue, does not show on its board
 * (the board idle), appended to sb: " (ended; its report not read yet)",
 * or, when the rank has not taken the program from its socket yet, " (not
 * taken up yet)" and why if known: stopped by a signal, held by a
 * debugger. */
void describe_unstarted(struct session *s, int r, const struct job *j,
    struct strbuf *sb);
/* The same from the status board alone (observers). */
void describe_board(struct view *v, int r, struct strbuf *sb);
/* "TITLE [step k/K PHASE]: OP (now V) [breakpoint N]" from rank r's
 * board; prog, if it is the program the board shows, names the phase. */
void describe_position(struct session *s, int r, const struct prog *prog,
    struct strbuf *sb, int verbose);
/* What follows the op: " (now V)" for a wait it blocks or stops in, and
 * with verbose "  [breakpoint N]" / "  [interrupted]" when stopped. */
void describe_stop(struct view *v, int r, const struct view_board *b,
    const struct uop *cur, struct strbuf *sb, int verbose);
/* Print program p of rank r as `plan` lists it (numbered micro-ops, their
 * phases and span names).  A long program shows a page: from 0, its
 * first PLAN_HEAD ops and its tail; from a later op (0-based), PLAN_HEAD
 * ops from there.  Only the ops shown are computed. */
void plan_print(struct session *s, const struct prog *p, int rank,
    const char *indent, uint64_t from);
/* Describe a micro-op with window names: "wait sig[0,3] >= 1". */
void describe_uop(struct view *v, const struct uop *u, int rank,
    struct strbuf *sb);
/* A window region as text: "sig[0]", "buf[0:4]", "sig[1,0]". */
void describe_cell(struct view *v, uint64_t off, uint64_t count,
    struct strbuf *sb);

#endif
