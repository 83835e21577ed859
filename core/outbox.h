/*
 * outbox.h - a user rank's messages to the shell, queued in memory the
 * shell can read (docs/design.md, "User programs, load and call").
 *
 * A rank of `colldb run` announces every cdb_* call (MSG_PROG or
 * MSG_COLL) and reports its end (MSG_DONE).  Sent one by one, that was two
 * system calls a call and a wake-up of the shell for each: on 2 CPUs
 * shared by 2 ranks and the shell, a notify/wait round trip of 2.75 us
 * standalone took 63-102 us under `colldb run`.  So the rank appends
 * them, framed as on the socket (struct msg_hdr, the payload, padded to
 * 8 bytes), to a ring its reader drains, and rings the reader's bell (a
 * MSG_KICK on its socket) only when the reader must look:
 *
 *   - before the rank shows itself blocked or stopped (a wait still
 *     unsatisfied after its quiet spin, a stop at its gate), so the
 *     shell that sees it there knows the call it is in;
 *   - when what was written since the last bell fills a quarter of the
 *     ring, or its oldest record is OUTBOX_KICK_NS old (so a rank's
 *     announcements reach lint and diagnose within about a millisecond
 *     while it makes calls; `where`, `ranks` and the pane read the
 *     board, which is always current);
 *   - at cdb_finalize;
 *   - when the ring is full: the rank then waits for room (a full ring
 *     slows the rank, as a full socket did; it never drops a record).
 *
 * Under `colldb run` on shm the ring is a memfd the shell created for the
 * rank and maps itself (COLLDB_OUTBOX_FD): the shell drains it on every
 * pump whether the bell rang or not, and once more when the rank is gone,
 * so a rank that dies (a crash, SIGKILL) loses no record it wrote.  Under
 * `-t mpi` the ring is in the rank's own memory and its control thread
 * is the reader (core/remote.c), which ships the records as MSG_QUEUED.
 *
 * One writer and one reader, each in its own process or thread.  The
 * reader trusts nothing in the ring: outbox_read() checks every index and
 * length against its own copy of the size.
 */
#ifndef COLLDB_OUTBOX_H
#define COLLDB_OUTBOX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* The ring's header, at the start of its memory; the data follows at
 * OUTBOX_HDR.  head and tail count bytes ever written and taken. */
struct outbox_ring {
	_Atomic uint64_t head; /* the writer's */
	char pad0[56];
	_Atomic uint32_t tail_lo; /* the reader's: the low 32 bits of tail
				   * (a futex word the writer sleeps on) */
	_Atomic uint32_t waiting; /* the writer sleeps for room */
	_Atomic uint64_t tail;
	char pad1[48];
};
#define OUTBOX_HDR 128u
_Static_assert(sizeof(struct outbox_ring) == OUTBOX_HDR, "outbox header");

/* A ring's bytes (header included) for a world of n ranks: 1 MiB up to
 * 16 ranks, then 16 MiB over all ranks, at least 64 KiB each (the memory
 * is touched only as it is written). */
size_t outbox_bytes(int nranks);

/* Kick at least this often while records wait (checked as the rank
 * appends). */
#define OUTBOX_KICK_NS 1000000u

/* ---- the writer (the rank) ------------------------------------------------ */

struct outbox_w {
	struct outbox_ring *ring;
	uint8_t *data;
	uint64_t size;	   /* data bytes (a power of two) */
	int kick_fd;	   /* the socket the bell goes to; -1: none */
	uint64_t kicked;   /* head when the bell last rang */
	uint64_t since_ns; /* when the first record not rung for was put */
	uint64_t tail;	   /* the reader's tail as last read: the room it
			    * leaves is there for sure (the line the reader
			    * writes is read only when that room is short) */
};

/* Set up w over mem, len bytes (header included; the data part a power
 * of two of at least 4 KiB), as made by the reader; 0 or -1 (a bad
 * size).  fresh: zero the header (a ring made here). */
int outbox_w_init(struct outbox_w *w, void *mem, size_t len, int kick_fd,
    int fresh);
/* Append one message; waits (ringing the bell) while the ring has no
 * room.  A message larger than the ring (never: PROTO_MAX_MSG is far
 * below it) is refused with -1. */
int outbox_put(struct outbox_w *w, const struct msg_hdr *h, const void *payload);
/* Ring the bell if a record was written since it last rang. */
void outbox_kick(struct outbox_w *w);
/* Ring it if the policy above says so (a quarter ring written, or a
 * record waits OUTBOX_KICK_NS). */
void outbox_maybe_kick(struct outbox_w *w);

/* ---- the reader (the shell, or an mpi rank's control thread) -------------- */

/*
 * Take every whole record written so far, oldest first: fn(arg, h,
 * payload) for each (payload is a copy, NUL-terminated, borrowed until fn
 * returns; NULL when h->len is 0).  size is the data part's size
 * as the reader made it.  Returns how many records it took, or -1 when
 * the ring does not make sense (a length past what was written, an index
 * out of range): what was written is then skipped.  Wakes a writer that
 * waits for room.
 */
typedef void (*outbox_fn)(void *arg, const struct msg_hdr *h, void *payload);
long outbox_read(struct outbox_ring *ring, uint8_t *data, uint64_t size,
    outbox_fn fn, void *arg);
/* Bytes written and not taken yet (0 when nothing waits). */
uint64_t outbox_pending(const struct outbox_ring *ring);

/* The records of a MSG_QUEUED payload (len bytes), each to fn as above;
 * how many, or -1 when a record runs past the end (the rest is
 * skipped). */
long outbox_unbatch(const void *buf, size_t len, outbox_fn fn, void *arg);
/* Append ring's records to a MSG_QUEUED payload in sb, as long as sb
 * stays within max bytes (a record that would not fit stays in the
 * ring); returns how many. */
struct strbuf;
long outbox_batch(struct outbox_ring *ring, uint8_t *data, uint64_t size,
    struct strbuf *sb, size_t max);

#endif
