/*
 * rank.h - the rank side of a session: attach to the segment, serve the
 * shell's messages, run programs through the step gate.
 *
 * The step gate sits before every micro-op.  When the segment's
 * gate_active word is zero (no breakpoints, nobody stepping or
 * interrupting) it costs one relaxed load.  Otherwise it consults the
 * rank's control fields on the board: step credits, interrupt, abort and
 * the breakpoint table; when it decides to stop it publishes `stopped`
 * and sleeps on the board's ctl futex until the shell changes something.
 * core/ctl.h is the shell's side: the one writer of those fields, and the
 * ordering rules both sides keep.
 *
 * Interrupt semantics: a blocked wait returns; a plain command is then
 * abandoned (DONE_ABORTED), a resumable program (a collective) stops at
 * the gate before the wait so `continue` can retry it; interrupting a
 * stopped rank abandons its program.
 *
 * Ownership: rank_attach() returns a context freed by rank_detach().
 */
#ifndef COLLDB_RANK_H
#define COLLDB_RANK_H

#include <signal.h>
#include <stdint.h>

#include "exec.h"
#include "proto.h"
#include "seg.h"
#include "transport.h"

struct rank_ctx {
	struct seg seg;
	struct transport t;
	struct exec ex;
	struct seg_rank *board;
	int rank;
	int sock;		    /* to the shell, -1 when standalone */
	char *result;		    /* text the last CALL left for the DONE
				 * reply (its return value; owned) */
	uint32_t iter;		    /* repetition of the program running (its
				 * spans carry it; see span.h) */
	int checked;		    /* the program running was validated by an
				 * earlier repetition (rank_run skips it) */
	struct uop *memo;	    /* a repeated described program's micro-ops,
				 * generated once for all its repetitions
				 * (rank_serve), or NULL */
	const struct prog *memo_of; /* the program memo is of: any other
				 * (a cdb_* call inside a `call` running
				 * in between) is generated as it runs */
	struct site site;	    /* the user call running (fn FN_NONE: none);
				 * breakpoints match on it */
	/* A message rank_serve() does not know (a rank of an mpi session:
	 * MSG_RAW): returns the DONE status, *text the reply (owned). */
	int (*other)(struct rank_ctx *rc, const struct msg_hdr *h,
	    const void *payload, char **text);
	void *other_arg;
};

/* Map the segment from seg_fd and bind to rank; 0 or -1 + cause. */
int rank_attach(struct rank_ctx *rc, int seg_fd, int sock, int rank,
    char **cause);
void rank_detach(struct rank_ctx *rc);
/* The rest of an attach, once rc->seg and rc->t are set up by the caller
 * (a rank of an mpi session, core/remote.c): the board slot, the
 * executor, state idle. */
void rank_bind(struct rank_ctx *rc, int sock, int rank);

/* Run p to its end (or abort); fills *di.  Returns enum done_status.
 * flags are enum prog_flags; PROG_F_USER leaves the board's mode, credits
 * and interrupt to the shell and the state `running` at the end.  LOAD
 * and CALL micro-ops run through core/call.h. */
int rank_run(struct rank_ctx *rc, const struct prog *p, uint32_t tag,
    unsigned flags, struct done_info *di, char **cause);

/*
 * Stop at the gate with no micro-op ahead (a user program inside
 * cdb_init): publishes `title` with no ops, then returns once the board
 * lets the rank go (free running, or a step credit, which it takes).
 * Breakpoints do not apply; an abort is ignored (nothing to abandon).
 */
void rank_hold(struct rank_ctx *rc, const char *title);

/* Serve the shell until MSG_QUIT or the socket closes; returns an exit
 * status for the process. */
int rank_serve(struct rank_ctx *rc);

/*
 * Pin the calling rank process to one CPU: rank r on the (r mod n)-th of
 * the n CPUs it may use, for worlds of up to RANK_PIN_PER_CPU ranks per
 * CPU.  When the world fits, two spinning ranks never share a CPU
 * (measured: ~150 us per notify/wait round trip when the scheduler stacks
 * both on one vCPU, ~2 us pinned); when it is a little larger, the ranks
 * sharing a CPU are always the same ones, so a waiting rank's
 * sched_yield() hands the CPU to a peer that has work (measured on 2 CPUs,
 * 4 ranks: a 64 KiB mesh allreduce in 37 us pinned, 67-71 us not).  A
 * larger crowd is left to the scheduler, which can move a woken rank to
 * the CPU that has time.  Returns 1 if pinned; COLLDB_NO_PIN=1 in the
 * environment disables it.
 */
#define RANK_PIN_PER_CPU 2
int rank_pin(int rank, int nranks);

/*
 * fork() in a rank.  A child of a rank has the rank's windows, board and
 * socket: were it to run a micro-op it would act as a second copy of the
 * rank (double notifies and puts, results wrong, a run that never ends).
 * So from rank_attach() to rank_detach() pthread_atfork handlers watch:
 *  - a fork while libcolldb runs the rank's program (a signal handler or a
 *    callback that forks inside cdb_allreduce...): the parent says so on
 *    stderr ("colldb: rank 1 forked inside cdb_allreduce ...", each time)
 *    and the child _exit()s with RANK_FORK_EXIT at once;
 *  - any other fork (its own code, a call's function: system(), popen()):
 *    the parent says so once; in the child rank_forked is set, libcolldb
 *    refuses every cdb_* (CDB_ERR_INIT, cdb_errmsg() says why), the
 *    rank's socket is closed, and a call's function that returns into
 *    colldb ends the child (_exit(0)) instead of the agent going on.
 * libcolldb's own forks (cdb_init's standalone ranks) come before
 * rank_attach().  rank_lib_enter()/leave() bracket the rank's own code:
 * every public cdb_* call from its first statement to its return
 * (API_BEGIN, core/api-int.h: the checks and the building of the program
 * are inside too), api_run and rank_run nested in it (which name the
 * program); a call's function is outside it (core/call.c).  The depth is
 * per thread: a fork on another thread is an "other fork".  A child
 * forked outside them that still reaches rank_run is refused there
 * (rank_forked).
 */
#define RANK_FORK_EXIT 125
extern volatile sig_atomic_t rank_forked;
/* Enter libcolldb's code doing `doing` (NULL: what the caller does); the
 * previous one comes back with rank_lib_leave(the result).  They nest. */
const char *rank_lib_enter(const char *doing);
void rank_lib_leave(const char *was);
/* While a call's function runs (nested in rank_run): not colldb's code. */
int rank_lib_suspend(void);
void rank_lib_resume(int saved);

/* rank_agent_main(), the body of an agent process, is declared in
 * oneside.h (the shell's main() calls it). */

#endif
