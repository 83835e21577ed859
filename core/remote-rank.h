/*
 * remote-rank.h - the rank's side of an mpi session (core/remote.h has
 * the conversation): its attach, its control thread, and what a user
 * program's cdb_* calls need of it (core/api.c).  Private to core.
 *
 * Ownership: remote_open() sets up a struct remote the caller releases
 * with remote_close() (or leaves with remote_leave() at exit); strings
 * through `cause` are the caller's to free.
 */
#ifndef COLLDB_REMOTE_RANK_H
#define COLLDB_REMOTE_RANK_H

#include <pthread.h>
#include <stdint.h>

#include "mpi-plugin.h"
#include "outbox.h"
#include "rank.h"
#include "remote.h"

struct remote {
	const struct mpi_plugin *p;
	int tcp;	     /* to the shell (the control thread's) */
	int pair[2];	     /* [0] the main thread's (rank_ctx.sock) */
	int outp[2];	     /* the process's stdout and stderr */
	struct rank_ctx *rc; /* its segment is the rank's own */
	uint8_t *base;	     /* the window */
	int rank, nranks;
	enum remote_kind kind;
	pthread_t main_thread; /* the one that calls remote_open() */
	pthread_t thread;
	int thread_on;
	pthread_t progress; /* a user rank's (remote_progress_start()) */
	int progress_on;
	/* Held by the main thread while it is in a colldb call (it may call
	 * MPI), tried by the progress thread around its poll: MPI is
	 * initialised MPI_THREAD_SERIALIZED for a user rank. */
	pthread_mutex_t mpi_mu;
	int busy_depth; /* the main thread's */
	_Atomic int stopping;
	int pair_closed;  /* the main thread is done (the control thread's) */
	uint64_t handled; /* shell messages handled */
	uint64_t ctl_applied; /* of them MSG_CTL */
	uint64_t lost_sent;   /* span records lost, as last told */
	char mpi[64];
	char tmpdir[96]; /* COLLDB_MPI_TMPDIR: removed if the shell dies */
	struct remote_welcome welcome;
	/* A user rank's outbox (core/outbox.h): its calls' announcements and
	 * DONEs, written by the main thread, shipped by the control thread
	 * as MSG_QUEUED; NULL for an agent. */
	struct outbox_ring *outbox;
	size_t outbox_len;
	int crash[2];		/* remote_ending() wakes the control thread */
	_Atomic int crash_out;	/* ... which set it once it shipped the rest */
	_Atomic int end_status; /* the wait status MSG_END tells; -1: none */
	int end_sent;		/* MSG_END went (the control thread's) */
	_Atomic int end_go;	/* the shell answered it: the rank may go */
	uint64_t pushed_ns;	/* state_ns of the board last sent unasked */
	pid_t pid;		/* the rank's process (not a fork() of it) */
};

/* How long a rank that ends by itself waits for the shell's MSG_END
 * (core/remote.h) before it goes on to its end anyway. */
#define REMOTE_END_HOLD_MS 5000

/*
 * From the environment (COLLDB_SHELL, COLLDB_TOKEN, COLLDB_MPI_PLUGIN):
 * load the plugin, initialise MPI (serialized for a user program: its
 * progress thread calls it too, under mpi_mu), attach to the shell, make the window and rc's
 * segment and transport, start the control thread.  rc is then a rank
 * context like rank_attach()'s, rc->sock its end of the pair.  0 or -1 +
 * cause.
 */
int remote_open(struct remote *rm, struct rank_ctx *rc, enum remote_kind kind,
    char **cause);
/* The session's end: stop the control and progress threads, detach rc,
 * free the window, finalize MPI, close the connection. */
void remote_close(struct remote *rm);

/*
 * A user program computes between its calls, outside MPI, and one-sided
 * writes aimed at it across hosts would wait for its next call (measured:
 * 1.8 s for a put).  remote_progress_start() runs a thread that drives
 * MPI progress every 200 us while the main thread is not inside a colldb
 * call (remote_busy(rm, 1) ... (rm, 0) brackets the calls and holds
 * mpi_mu, which the thread only tries; no back-off: peers' writes into
 * the rank move only while it polls); the plugin was initialised
 * MPI_THREAD_SERIALIZED for it.  0 or -1 + cause.
 */
int remote_progress_start(struct remote *rm, char **cause);
void remote_busy(struct remote *rm, int busy);

/* A user rank's cdb_alloc through the shell's table (MSG_ALLOC): the
 * window (in rm's segment, which the shell updated first), or NULL +
 * cause. */
struct seg_window *remote_alloc(struct remote *rm, const char *name,
    const uint64_t *shape, int ndim, enum dtype dt, unsigned flags, char **cause);

/* The process ends without remote_close() (a user program's exit()
 * before cdb_finalize): the control thread ships what is left (the last
 * DONE, the board) and stops; MPI is left to see the rank go. */
void remote_leave(struct remote *rm);

/*
 * The user rank ends by itself (core/api.c: its exit handler, or a fatal
 * signal's handler, in the main thread), with wstatus (a wait status:
 * W_EXITCODE(code, 0), or the signal): the control thread ships what the
 * outbox, the output and the span ring hold, its board and MSG_END with
 * wstatus; this returns once the shell answered MSG_END, the session
 * ends, or after hold_ms.  Does nothing in a fork() of the rank.
 * Async-signal-safe.
 */
void remote_ending(struct remote *rm, int wstatus, int hold_ms);

/* Whether the environment makes this process a rank of an mpi session. */
int remote_wanted(void);

#endif
