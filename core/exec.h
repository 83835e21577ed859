/*
 * exec.h - the micro-op executor: runs one micro-op on one rank.
 *
 * The executor is transport-agnostic: it reads and writes through
 * struct transport, using direct pointers when the transport gives them.
 * It owns the rank's private accumulator (SP_ACC).  Stepping, breakpoints
 * and the status board are the caller's business (core/rank.c); this file
 * only carries out an operation and bounds-checks it, so that a bad
 * program gives an error instead of scribbling over another rank.
 *
 * Ownership: exec_init() sets up an executor the caller owns and
 * releases with exec_release().
 */
#ifndef COLLDB_EXEC_H
#define COLLDB_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "prog.h"
#include "transport.h"

enum exec_rc {
	EXEC_ERROR = -1, /* *cause says why; the op did nothing */
	EXEC_OK = 0,
	EXEC_PENDING = 1,     /* wait not satisfied (nonblocking transport) */
	EXEC_INTERRUPTED = 2, /* wait cancelled by interrupt */
	EXEC_GAVEUP = 3,      /* wait gave up (sim mode); treat as done */
	EXEC_ENDED = 4,	      /* a CALL ended by the shell's signal before
				 * its function returned (core/call.h) */
};

struct exec {
	struct transport *t;
	void *acc; /* private accumulator */
	size_t acc_cap;
	void *tmp; /* staging for transports without pointers */
	size_t tmp_cap;
	int stream; /* this program's copies into the own window stream
		     * (kern_copy_stream()): set by exec_prepare() */
	/* Optional hook run after every FILL so other layers can react. */
	void (*after_op)(struct exec *ex, const struct uop *u, void *arg);
	void *after_arg;
};

void exec_init(struct exec *ex, struct transport *t);
void exec_release(struct exec *ex);
/* Make sure the accumulator holds at least bytes (called per program). */
void exec_reserve(struct exec *ex, size_t bytes);
/*
 * Before running p: exec_reserve() its accumulator, and choose how its
 * same-dtype copies into this rank's window store: through the cache, or
 * streamed past it when p->stream_bytes reaches the machine's threshold
 * (exec.c says which and why; COLLDB_STREAM_MIN=BYTES overrides it, =off
 * never streams: for `make bench`'s A/B).  Either way the bytes are the same.
 */
void exec_prepare(struct exec *ex, const struct prog *p);
/* That threshold in bytes (UINT64_MAX: never), read once. */
uint64_t exec_stream_min(void);

/* Execute u; for WAIT, *seen receives the observed cell value. */
int exec_uop(struct exec *ex, const struct uop *u, int32_t *seen, char **cause);

/*
 * Fusion: a COPY into the accumulator followed by a REDUCE of the same
 * accumulator range (a chunk's load and reduce) can run as one pass,
 * acc = a op b, with the result bit for bit the same as running the two
 * (kern.h).  exec_fusable() says whether a, b is such a pair whose
 * operands are all addressable; exec_fused() runs it (EXEC_OK).  The
 * caller decides when fusing is allowed (nobody can observe the state
 * between the two: core/rank.c).
 */
int exec_fusable(const struct exec *ex, const struct uop *a, const struct uop *b);
int exec_fused(struct exec *ex, const struct uop *a, const struct uop *b);

/* Check u's operands against the area size and world; 0 or -1 + cause. */
int exec_check(const struct uop *u, int nranks, uint64_t area_size,
    size_t acc_bytes, char **cause);

#endif
