/*
 * proto.h - messages between the shell and a rank, over a SOCK_SEQPACKET
 * socket pair (one message per packet, so framing is free), or for a rank
 * on another host a TCP stream (core/remote.h adds the messages that only
 * travel there); proto_send() and proto_recv() tell the two apart.
 *
 * shell -> rank: MSG_PROG (an encoded program), MSG_COLL (collective
 * arguments: the rank builds the program itself from core/coll, so a
 * 64 MiB ring allreduce is not shipped as 100k micro-ops), MSG_QUIT.
 * rank -> shell: MSG_HELLO once attached, MSG_DONE when a program ends.
 *
 * A user program under `colldb run` (core/api.c) runs its own programs and
 * announces each to the shell before running it, with its own tag (the
 * rank's call count times max(256, N) plus the rank, so tags stay unique
 * across ranks as span records need):
 * MSG_PROG (a struct site, then the encoded program, its title the
 * source location) or MSG_COLL (a struct coll_msg, its site filled in,
 * followed by the NUL-terminated title); then MSG_DONE with that tag, as
 * an agent would.  The shell sends it nothing.  These go through the
 * rank's outbox (core/outbox.h), which the shell drains; the socket then
 * carries only MSG_HELLO and MSG_KICK ("drain my outbox now").  A rank of
 * an mpi session's control thread ships them as MSG_QUEUED: the records
 * exactly as in the outbox (each a struct msg_hdr and its payload, padded
 * to 8 bytes), handled as if each had come alone.  A program without an
 * outbox (COLLDB_OUTBOX_FD unset) sends each message on the socket.
 *
 * Both ends are the same binary (or the same libcolldb) on one machine, so
 * structs travel raw.  Ownership: proto_recv() returns a payload the caller
 * frees.
 */
#ifndef COLLDB_PROTO_H
#define COLLDB_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "coll.h"
#include "site.h"

enum msg_type {
	MSG_HELLO = 1,
	MSG_PROG,
	MSG_COLL,
	MSG_QUIT,
	MSG_DONE,
	/* a rank elsewhere and the shell (core/remote.h) */
	MSG_ATTACH,
	MSG_WELCOME,
	MSG_REFUSE,
	MSG_READY,
	MSG_CTL,
	MSG_WINS,
	MSG_ZERO,
	MSG_SAMPLE,
	MSG_BOARD,
	MSG_READ,
	MSG_DATA,
	MSG_SPANS,
	MSG_OUT,
	MSG_SIGNAL,
	MSG_MEM,
	MSG_RAW,
	MSG_ALLOC,
	/* a user rank's queued messages (core/outbox.h) */
	MSG_KICK,
	MSG_QUEUED,
	/* a user rank of an mpi session ends by itself (core/remote.h) */
	MSG_END,
	MSG__COUNT
};

/* hdr.flags of MSG_PROG / MSG_COLL */
enum prog_flags {
	PROG_F_START = 1 << 0,	   /* stop before the first micro-op */
	PROG_F_RESUMABLE = 1 << 1, /* interrupt stops at the gate instead of
				    * abandoning the program (collectives) */
	PROG_F_USER = 1 << 2,	   /* user code (libcolldb, core/api.c): the
				 * shell's step mode, credits and interrupt
				 * carry over from one program to the next,
				 * and the rank stays `running` between them */
	PROG_F_NOSPANS = 1 << 3,   /* record no spans: a program nested inside
				  * a CALL (the process's one span writer
				  * belongs to the call's program) */
	PROG_F_SPANS_PHASES = 1 << 4, /* record phases, not micro-ops, and
				       * fuse a chunk's load and reduce
				       * (core/span.h, core/exec.h) */
	PROG_F_SPANS_ROOTS = 1 << 5,  /* record each run's root only (fusing
				      * too) */
	PROG_F_SEEN = 1 << 6, /* a user rank's announced wait: hdr.reserved
			       * holds its cell's value when the call was
			       * made (the shell reads the cell later, when
			       * the rank may be rounds ahead) */
};

/* hdr.status of MSG_DONE */
enum done_status { DONE_OK, DONE_ERROR, DONE_ABORTED };

struct msg_hdr {
	uint32_t type;	   /* enum msg_type */
	uint32_t tag;	   /* the shell's id of the program */
	uint32_t flags;	   /* enum prog_flags */
	int32_t status;	   /* MSG_DONE: enum done_status; MSG_HELLO: pid;
			    * MSG_END: the rank's wait status */
	uint32_t len;	   /* payload bytes */
	uint32_t reserved; /* MSG_PROG with PROG_F_SEEN: the value (int32) */
};

/* MSG_DONE payload, followed by a NUL-terminated text if any: the error
 * (DONE_ERROR), or a call's return value (DONE_OK; see core/call.h). */
struct done_info {
	int32_t seen; /* value the last wait observed */
	uint32_t pc;  /* micro-ops executed */
	uint32_t nops;
	uint32_t gaveup; /* waits that gave up (set wait-giveup) */
};

/* MSG_COLL payload: the arguments, with names cleared. */
struct coll_msg {
	struct coll_args args;
	uint32_t repeat;     /* run it this many times back to back, stopping
				 * at the first that does not end DONE_OK
				 * (bench); 0 means once */
	uint32_t first_iter; /* the first run's iteration number (its
				 * spans carry first_iter + k): a bench that
				 * sends its warmup and its rounds apart */
	uint32_t ndefer;     /* deferred conditions the rank appends to the
				 * program it builds (prog_add_deferred) */
	struct site site;    /* a user rank's announcement: the call */
	struct defer_cond defer[DEFER_MAX];
};

#define PROTO_MAX_MSG (192u * 1024u)

/* Send one message; 0 or -1 (errno set). */
int proto_send(int fd, const struct msg_hdr *h, const void *payload);
/* Receive one message; 1 = got one, 0 = peer closed, -1 = error.  On
 * success *payload is a heap copy (NUL-terminated for convenience). */
int proto_recv(int fd, struct msg_hdr *h, void **payload);

#endif
