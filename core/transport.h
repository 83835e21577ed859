/*
 * transport.h - how a rank reaches windows: its own and its peers'.
 *
 * A transport instance belongs to one rank (t->rank) of a world of
 * t->nranks.  Offsets are byte offsets inside a rank's window area of
 * t->area_size bytes; callers (the executor) have already checked them.
 *
 * The shm transport maps every rank's area, so area() returns a pointer for
 * any rank; a transport that cannot address peers directly returns NULL for
 * them and the executor falls back to get()/put().
 *
 * Return values: 0 success, -1 failure (transport broken; the rank stops).
 * wait() additionally returns WAIT_PENDING when t->nonblock is set and the
 * condition does not hold yet (used by the in-process simulator in tests),
 * WAIT_INTERRUPTED when the rank was interrupted while blocked, and
 * WAIT_GAVEUP when the session's sim-compatible give-up limit (`set
 * wait-giveup N`: N polls of 10 us, like PTO's CPU-sim TWAIT) ran out: the
 * caller then proceeds as if the wait held, as PTO's sim does.
 */
#ifndef COLLDB_TRANSPORT_H
#define COLLDB_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "prog.h"

enum { WAIT_OK = 0, WAIT_PENDING = 1, WAIT_INTERRUPTED = 2, WAIT_GAVEUP = 3 };

struct transport;

struct transport_ops {
	const char *name;
	/* Pointer to rank r's window area, or NULL if not addressable. */
	uint8_t *(*area)(struct transport *t, int r);
	/* peer's cell at off: += v (NOTIFY_ADD, seq_cst RMW) or = v (NOTIFY_SET).
	 * Every earlier write by this rank is visible before the cell is. */
	int (*notify)(struct transport *t, int peer, uint64_t off, int32_t v,
	    enum notify_op op);
	/* Block until own cell at off satisfies cmp expected; *seen = value
	 * observed when it held (or the last value seen). */
	int (*wait)(struct transport *t, uint64_t off, enum wait_cmp cmp,
	    int32_t expected, int32_t *seen);
	int (*put)(struct transport *t, int peer, uint64_t dst, const void *src,
	    size_t bytes);
	int (*put_add)(struct transport *t, int peer, uint64_t dst,
	    const void *src, size_t count, enum dtype dt);
	int (*get)(struct transport *t, int peer, uint64_t src, void *dst,
	    size_t bytes);
	/* Everything this rank wrote (puts, its own stores) is visible to
	 * its peers once this returns (the end of a program); NULL: always. */
	void (*flush)(struct transport *t);
	/* Let the transport make progress while the rank waits for anything
	 * else (its step gate, the shell's next command): one-sided writes
	 * aimed at this rank may not complete otherwise (MPI across hosts).
	 * NULL when nothing is needed (shm). */
	void (*progress)(struct transport *t);
	void (*close)(struct transport *t);
};

struct transport {
	const struct transport_ops *ops;
	int rank;
	int nranks;
	uint64_t area_size;
	int nonblock; /* wait() returns WAIT_PENDING instead of blocking */
	void *priv;   /* the transport's own state */
	/* Called, when set, just before the rank shows itself blocked in a
	 * wait (after the quiet spin; stop 0) or stopped at its gate (stop
	 * 1): a user rank's outbox decides whether to ring its bell
	 * (core/outbox.h).  Set after init. */
	void (*before_block)(struct transport *t, int stop);
};

static inline void
transport_before_block(struct transport *t, int stop)
{
	if (t->before_block != NULL)
		t->before_block(t, stop);
}

extern const struct transport_ops transport_shm_ops;
/* core/mpi.c: MPI-3 RMA through the MPI plugin (core/mpi-plugin.h). */
extern const struct transport_ops transport_mpi_ops;

#endif
