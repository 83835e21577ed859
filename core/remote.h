/*
 * remote.h - a rank on another host (the mpi transport): how it reaches
 * the shell, and the rank's side of that conversation.
 *
 * The shell stays outside the MPI job.  It listens on TCP, starts the
 * launcher with COLLDB_SHELL=host:port, COLLDB_TOKEN (32 hex digits, a
 * fresh random 128-bit token per session) and COLLDB_MPI_PLUGIN (the
 * plugin of the launcher's MPI, core/mpi-plugin.h) in the environment of
 * every rank.  A rank (an agent, `colldb --agent-mpi`, or a user program's
 * cdb_init()) initialises MPI, connects, and says MSG_ATTACH; the shell
 * compares the token in constant time and answers MSG_WELCOME (the
 * session's sizes) or MSG_REFUSE.  The rank then makes its window (the
 * one collective MPI call of the start-up), its own segment
 * (seg_create_local()) and says MSG_READY (no payload).
 *
 * Two threads in the rank.  The main thread is the executor and the only
 * one that calls MPI (FUNNELED); it talks to the shell exactly as a local
 * rank does, over a SEQPACKET pair whose other end is the control thread.
 * The control thread owns the TCP connection and never calls MPI: it
 * relays the main thread's messages (before a DONE or an announcement
 * what the rank printed, its span records and its board), and
 * serves the shell from local memory, so `where`, `watch` and `diagnose`
 * answer while the main thread is stuck inside MPI:
 *
 *   shell -> rank (TCP)               the control thread
 *   MSG_PROG MSG_COLL MSG_QUIT MSG_RAW  relays to the main thread (QUIT
 *                                     also cancels what the rank does)
 *   MSG_CTL   struct ctl_op           ctl_apply() on its own segment
 *   MSG_WINS  the window table        copies it into its own segment
 *   MSG_ZERO  struct remote_range     zeroes bytes of its area
 *   MSG_SAMPLE (tag: id)              answers MSG_BOARD (tag: id)
 *   MSG_READ  struct remote_range     answers MSG_DATA chunks (tag: the
 *             (tag: id)               read's id, status 1 on the last)
 *   MSG_MEM   struct remote_mem       a store the prompt aims at a user
 *                                     rank (set, fill, notify, put)
 *   MSG_SIGNAL (status: signal)       raises it in the rank (`kill`)
 *   MSG_ALLOC (reply)                 relays to the main thread
 *   MSG_END                           the rank that said MSG_END may end
 *
 *   rank -> shell (TCP): what the main thread sends (HELLO, DONE, a user
 *   rank's announcements, MSG_ALLOC), and MSG_BOARD (struct
 *   remote_board; status 1: it already reflects the message that follows
 *   it, to be merged after that), MSG_SPANS (struct remote_spans +
 *   records), MSG_OUT (the rank's stdout and stderr, which go to the
 *   control thread).  A user rank's control thread also sends its board
 *   unasked once the rank has been blocked in a wait for a while (one
 *   board per wait), so the shell knows it blocked even if it never
 *   asks (`colldb run --batch` does not).
 *
 *   MSG_END (status: a wait status): a user rank ends by itself, before
 *   MPI knows: exit() or a return from main() without cdb_finalize
 *   (W_EXITCODE), or a fatal signal in its own code (SEGV, BUS, FPE, ILL,
 *   ABRT: the signal).  The control thread sends it after what the rank
 *   queued, printed and recorded, and its board; the process then waits
 *   (REMOTE_END_HOLD_MS at most) for the shell's MSG_END before it goes
 *   on to its end.  The launcher ends the whole job once it sees the rank
 *   go, so this is the shell's one chance to hear how the rank ended and
 *   to see the other ranks settle (block, stop, finish) as they would
 *   have on shm: it reports the end in the local kinds' words and says
 *   MSG_END when the others have settled (or after 2 s).  What
 *   the rank cannot tell (SIGKILL, _exit()) is only its connection
 *   closing.
 *
 * Every message the shell sends counts; a board carries the count its
 * control thread had handled (ack), so the shell knows whether it already
 * reflects the control it sent.  Clocks: a rank on the shell's machine
 * (the same kernel boot id) shares its CLOCK_MONOTONIC; for another the
 * shell takes the offset at the attach (to within the network's latency)
 * and shifts the times it receives.
 *
 * The connection closing is the rank's death (the shell's, for the rank:
 * it then ends its process, and MPI takes the job down).
 *
 * This header is the conversation, for both ends; the rank's side of it
 * is core/remote-rank.h.
 */
#ifndef COLLDB_REMOTE_H
#define COLLDB_REMOTE_H

#include <stdint.h>

#include "ctl.h"
#include "proto.h"
#include "seg.h"
#include "span.h"

#define REMOTE_MAGIC 0x4d424443u /* "CDBM" */
/* Changes with any struct below or the board's layout. */
#define REMOTE_VERSION 2
#define REMOTE_TOKEN_LEN 32 /* hex digits */
#define REMOTE_HOST_MAX 64

enum remote_kind { REMOTE_AGENT, REMOTE_USER };

struct remote_attach {
	uint32_t magic;	   /* REMOTE_MAGIC */
	uint32_t version;  /* REMOTE_VERSION */
	uint32_t sizes[5]; /* seg_rank, seg_window, span_rec, ctl_op,
				 * remote_board */
	char token[REMOTE_TOKEN_LEN + 1];
	char reserved[3];
	int32_t rank, nranks, pid;
	uint32_t kind;		    /* enum remote_kind */
	char host[REMOTE_HOST_MAX]; /* gethostname() */
	char mpi[64];		    /* "Open MPI 4.1.4" */
	char boot_id[40]; /* the kernel's: the same machine, the same clock */
	uint64_t rank_ns; /* mono_ns() when sent */
};

/* tests/mpi/stranger.py builds one by hand */
_Static_assert(sizeof(struct remote_attach) == 256 && MSG_ATTACH == 6 &&
	MSG_REFUSE == 8,
    "tests/mpi/stranger.py knows this layout");

enum welcome_flags {
	WELCOME_STEP = 1 << 0, /* a user rank starts stopped in cdb_init */
};

struct remote_welcome {
	uint64_t area_size;
	uint64_t span_bytes;
	uint32_t nranks;
	uint32_t flags; /* enum welcome_flags */
	char name[64];	/* the session's */
};

struct remote_range {
	uint64_t off, len;
};

/* MSG_BOARD: the rank's board slot as its control thread read it */
struct remote_board {
	uint64_t ack;	  /* MSG_CTL applied before it was read */
	uint64_t rank_ns; /* when read (the rank's clock) */
	/* the cell its wait (blocked in it, or stopped before it) is on */
	uint64_t value_off;
	int32_t wait_value;
	uint32_t has_value;
	struct {
		uint32_t id, hits; /* this rank's count per breakpoint slot */
	} brk[SEG_MAX_BREAKS];
	uint64_t brk_ranks[SEG_MAX_BREAKS]; /* its bit of ranks[]: until/advance */
	struct seg_rank slot;
};

/* MSG_SPANS header; span records follow */
struct remote_spans {
	uint64_t lost; /* records this rank dropped since the last */
	uint64_t n;
};

enum mem_kind { MEM_WRITE, MEM_ADD, MEM_NOTIFY, MEM_FILL };
/* MSG_MEM: what the prompt does to a user rank's own memory */
struct remote_mem {
	uint32_t kind;	     /* enum mem_kind */
	uint32_t dtype;	     /* MEM_ADD: enum dtype */
	uint64_t off, count; /* bytes (WRITE) or elements (ADD) */
	int32_t value;	     /* MEM_NOTIFY: amount; op: enum notify_op */
	uint32_t op;
	struct uop fill; /* MEM_FILL: the fill micro-op */
};

/* MSG_ALLOC, rank -> shell: a user rank's cdb_alloc; the shell answers
 * MSG_ALLOC with status 0 and the window, or status -1 and the text. */
struct remote_alloc {
	char name[SEG_NAME_MAX];
	uint64_t shape[COLLDB_MAX_DIMS];
	int32_t ndim;
	uint32_t dtype;
	uint32_t flags; /* enum win_flags */
	uint32_t reserved;
};

/* `colldb --agent-mpi`: the body of an agent of an mpi session
 * (core/remote.c; the rest of the rank's side is core/remote-rank.h). */
int remote_agent_main(int argc, char **argv);

#endif
