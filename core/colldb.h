/*
 * colldb.h - libcolldb: write collective-communication code in C against
 * colldb's model, run it standalone, or debug it under `colldb run`.
 *
 * This header is the manual.  It is self-contained (it includes only
 * <stddef.h> and <stdint.h>) and is the only colldb header a user program
 * needs:
 *
 *	cc -o myring myring.c $(pkg-config --cflags --libs colldb)
 *	colldb run -n 4 ./myring		   # ranks stop in cdb_init
 *	colldb run -n 4 --batch ./myring	   # like mpirun
 *	COLLDB_NRANKS=2 ./myring		   # standalone, 2 ranks, no debugger
 *	./myring				   # standalone, 4 ranks (with a note)
 *
 * THE MODEL (docs/libcolldb.md).  A world of N ranks, each a process.  A window
 * is a named symmetric buffer that exists on every rank at the same offset of
 * that rank's window area, zero-filled when it is created.  cdb_alloc() returns
 * this rank's local pointer to it; the same pointer is the window's "symmetric
 * address" for every operation below: notify, put and get name a peer and a
 * pointer into *this rank's* copy of a window, and act on the same offset of
 * the *peer's* copy.  Signal cells are int32_t elements of an i32 window.
 *
 *  - cdb_notify(peer, cell, v, CDB_ADD) does peer's cell += v atomically
 *    (CDB_SET stores v).  Every write this rank made before the notify is
 *    visible to the peer before the notify is (release); cdb_wait()
 *    acquires.
 *  - cdb_wait(cell, CDB_GE, v) blocks until this rank's own cell >= v
 *    (CDB_EQ: == v).  No timeout: a hang is a hang (`colldb run` shows
 *    why).  Counters never reset themselves.
 *  - cdb_put(dst, peer, src, count, 0) writes local src[0:count] into the
 *    peer's dst[0:count]; CDB_PUT_ADD accumulates instead.  cdb_get()
 *    reads the peer's src into local dst.  Both complete before they
 *    return and notify nobody.
 *  - the collectives are PyPTO's protocols (docs/protocols.md), built by
 *    the same code as the shell's `allreduce` etc., with the same checks.
 *
 * EVERY OPERATION IS A PROGRAM.  Each cdb_* operation becomes a micro-op
 * program that runs through the rank's step gate, exactly like a command
 * typed at colldb's prompt: under `colldb run` it stops at breakpoints, is
 * stepped micro-op by micro-op, shows on the status board (`where`,
 * `ranks`, the watch pane) as its source location and current micro-op,
 * e.g. "rank 1: blocked  myring.c:42: wait sig[0,1] >= 1 (now 0)", and is
 * announced to the shell (which keeps a copy of the program for `where`
 * and hang diagnosis; announcements are queued in memory the shell reads,
 * not sent call by call).  Standalone, the gate is one relaxed load per
 * micro-op.
 *
 * SOURCE LOCATIONS.  The operations below are also macros of the same name
 * that record __FILE__ and __LINE__ first (cdb_at()), so the board says
 * "myring.c:42".  Define CDB_NO_LOCATION before including this header to
 * get the plain functions (the board then says "myring op 3": the program
 * name and the rank's operation count).  The real functions always exist:
 * `(cdb_wait)(...)`, function pointers and dlsym() work.
 *
 * STANDALONE.  Without `colldb run`, cdb_init() makes a private world of
 * COLLDB_NRANKS=N ranks (CDB_STANDALONE_RANKS, 4, when it is not set,
 * with a one-line note on stderr) by fork()ing N-1 copies of the
 * process inside cdb_init() (call it first thing in main: whatever the
 * process did before is duplicated; stdio is flushed before the fork).
 * The parent is rank 0; the children die with it (PR_SET_PDEATHSIG).
 * Rank 0's cdb_finalize() (or exit) waits for the other ranks and reports
 * one that failed.  The shared memory is unlinked before any rank runs.
 *
 * UNDER `colldb run`.  The shell passes COLLDB_SEG_FD, COLLDB_SOCK_FD,
 * COLLDB_OUTBOX_FD and COLLDB_RANK (and COLLDB_NRANKS) in the environment;
 * cdb_init() attaches to the session, removes these variables and marks
 * the descriptors close-on-exec, so a program this rank starts does not
 * join the session.
 * stdout and stderr go to the shell (lines print as "[rank N] text");
 * cdb_init() makes stdout line-buffered.  Without --batch every rank then
 * stops inside cdb_init() until the shell says `continue` or `step`.
 * Errors found before an operation starts (a bad pointer, say) are also
 * printed on stderr as "colldb: myring.c:42: cdb_put: ..." so the shell
 * shows them; errors while it runs are reported by the shell.
 *
 * INSIDE A RANK OF colldb ITSELF.  A library loaded with the shell's `load`
 * and run with `call` may use this API: during the call, cdb_rank() etc.
 * answer for the agent rank that runs it, and each operation runs through
 * that rank's gate (`where` shows "call f(buf) > kern.c:12: wait ...").
 * cdb_init() and cdb_finalize() do nothing there (they return CDB_OK).
 * Such a library should not link libcolldb itself: its cdb_* references
 * resolve to the colldb process (which exports them).
 *
 * ERRORS.  Every function that can fail returns CDB_OK (0) or a negative
 * enum cdb_error, and fails without side effects: a call that fails
 * moved no data and notified nobody (CDB_ERR_ABORTED excepted: see there).
 * cdb_errmsg() says what was wrong, naming the argument
 * ("count 300 runs past the end of 'buf' (256 elements from element 10)").
 *
 * THREADS.  One rank per process.  cdb_init(), cdb_finalize(), the
 * allocation, data and collective functions and the span functions must
 * not run concurrently (call them from one thread, or serialise them).
 * cdb_rank(), cdb_nranks(), cdb_strerror() may be called from any thread
 * once cdb_init() has returned.
 *
 * OWNERSHIP.  Window memory belongs to the session and stays mapped until
 * cdb_finalize(); pointers into it are valid until then.  Every const
 * char * this API returns is borrowed: static, or (cdb_errmsg()) valid
 * until the next cdb_* call.  Names passed in are copied.
 */
#ifndef COLLDB_H
#define COLLDB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CDB_VERSION_MAJOR 0
#define CDB_VERSION_MINOR 1

/* Results.  cdb_strerror() turns one into text. */
enum cdb_error {
	CDB_OK = 0,
	CDB_ERR_INIT = -1,    /* not initialised (or finalized), or
				 * cdb_init() could not attach or start */
	CDB_ERR_ARG = -2,     /* a bad argument: NULL, unknown enum value
				 * or flag, bad window name, peer or root out
				 * of range, spans nested too deep */
	CDB_ERR_WINDOW = -3,  /* a pointer that is not inside a window, not
				 * aligned to an element, not a window's
				 * start where one is needed, or a region that
				 * runs past the window's end */
	CDB_ERR_SHAPE = -4,   /* shapes or dtypes that do not fit: a window
				 * that exists with another shape, put/get
				 * between different dtypes, a collective's
				 * checks (signal shape, op, dtype) */
	CDB_ERR_NOSPACE = -5, /* the window area is full, or too many
				 * windows */
	CDB_ERR_ABORTED = -6, /* the debugger abandoned this operation
				 * (`interrupt` on a stopped agent rank while
				 * a called library runs): micro-ops before
				 * the stop ran, the rest did not */
	CDB_ERR_RANK = -7,    /* standalone cdb_finalize(): another rank
				 * exited with a failure or a signal */
	CDB_ERR_SYSTEM = -8,  /* the operating system or transport failed
				 * (cdb_errmsg() has the errno text) */
};

/* Element types of windows (the shell's dtype names in the comments). */
enum cdb_dtype {
	CDB_U8, /* untyped bytes: cdb_alloc() */
	CDB_I8,
	CDB_I16,
	CDB_I32, /* signal cells */
	CDB_I64,
	CDB_F16,  /* IEEE half, stored as its bits */
	CDB_BF16, /* bfloat16, stored as its bits */
	CDB_F32,
	CDB_F64,
};

enum cdb_notify_op {
	CDB_ADD, /* cell += value (atomic; PyPTO NotifyOp.AtomicAdd) */
	CDB_SET, /* cell = value (PyPTO NotifyOp.Set) */
};

enum cdb_cmp {
	CDB_EQ, /* cell == expected (WaitCmp.Eq) */
	CDB_GE, /* cell >= expected, signed (WaitCmp.Ge) */
};

enum cdb_reduce { CDB_SUM, CDB_MAX, CDB_MIN, CDB_PROD };

/* flags of cdb_put() */
#define CDB_PUT_ADD (1u << 0) /* accumulate: f32 f16 bf16 i32 i16 i8 */

/* flags of the collectives */
#define CDB_RING \
	(1u << 0) /* allreduce: ring (signal [2(N-1),N]);
				 * default mesh (signal [N,1]) */
#define CDB_BUILTIN \
	(1u << 1) /* PyPTO's host builtin (impl=builtin);
				 * default: the composite protocol */
#define CDB_LOOSE \
	(1u << 2) /* lift PyPTO's op and dtype restrictions
				 * (the shell's `set strict off`) */

#define CDB_STANDALONE_RANKS 4 /* standalone world without COLLDB_NRANKS */
#define CDB_NAME_MAX 31	       /* window and span name length */
#define CDB_MAX_DIMS 8
#define CDB_SPAN_DEPTH 8

/* ---- the world ----------------------------------------------------------- */

/*
 * Join the session (under `colldb run`) or make a standalone world (see
 * STANDALONE above).  Calling it again, or inside a `call`ed library, is
 * harmless and returns CDB_OK.  After cdb_finalize() it returns
 * CDB_ERR_INIT.  Fails with CDB_ERR_ARG for a bad COLLDB_NRANKS,
 * CDB_ERR_INIT when the session's descriptors are unusable, CDB_ERR_SYSTEM
 * when shared memory or fork fails.
 */
int cdb_init(void);

/*
 * Leave the world: windows are unmapped (pointers into them die), the
 * rank shows as exited.  Standalone rank 0 first waits for the other
 * ranks and returns CDB_ERR_RANK if one exited non-zero or was killed.
 * Not a barrier: synchronise first if peers still write into this rank.
 * CDB_ERR_INIT if not initialised.
 */
int cdb_finalize(void);

/* This rank, 0 .. nranks-1; CDB_ERR_INIT (negative, cdb_errmsg() says
 * why) before cdb_init() or after cdb_finalize(). */
int cdb_rank(void);
/* The world size; CDB_ERR_INIT before cdb_init(). */
int cdb_nranks(void);

/* ---- windows ------------------------------------------------------------- */

/*
 * Allocate a window of `bytes` untyped bytes (u8), or find it.
 * Collective: every rank calls it with the same name and size, in the
 * same order as its other allocations.  The first caller creates the
 * window (zero-filled, at the same offset on every rank, PyPTO's 32-byte
 * layout); the others find it by name and check the size (CDB_ERR_SHAPE
 * if it differs; a window the shell made with `alloc` is found the same
 * way).  *local receives this rank's pointer.  Names are 1..31 letters,
 * digits or '_', not starting with a digit.  CDB_ERR_NOSPACE when the
 * window area is full or 128 windows exist.  Calling it again with the
 * same name returns the same window.
 */
int cdb_alloc(const char *name, size_t bytes, void **local);

/*
 * The same for a typed window of shape[0] x ... x shape[ndim-1] elements
 * of dtype (row-major, packed; ndim 1..8, every dimension >= 1; dtype not
 * CDB_U8).  An existing window must have the same shape and dtype.
 */
int cdb_alloc_shape(const char *name, int ndim, const size_t *shape,
    enum cdb_dtype dtype, void **local);

/* This rank's pointer to window `name` (made by any rank or the shell),
 * or NULL (cdb_errmsg() says why). */
void *cdb_local(const char *name);

/* What cdb_window() tells about the window a pointer is in. */
struct cdb_window {
	const char *name; /* borrowed: valid until cdb_finalize() */
	enum cdb_dtype dtype;
	int ndim;
	size_t shape[CDB_MAX_DIMS];
	size_t count; /* elements */
	size_t bytes; /* count * element size */
	void *base;   /* this rank's pointer to element 0 */
	size_t index; /* the element ptr points at */
};

/* Describe the window holding ptr (which must point at an element);
 * CDB_ERR_WINDOW if none. */
int cdb_window(const void *ptr, struct cdb_window *out);

/* ---- signals and one-sided transfers -------------------------------------- */

/* peer's copy of *cell (an element of an i32 window) op= value. */
int cdb_notify(int peer, int32_t *cell, int32_t value, enum cdb_notify_op op);

/* Block until this rank's *cell cmp expected holds. */
int cdb_wait(const int32_t *cell, enum cdb_cmp cmp, int32_t expected);

/*
 * Write count elements from local src into the peer's copy of dst (src
 * and dst point into windows of the same dtype; counts are elements).
 * flags: 0 or CDB_PUT_ADD.  count 0 does nothing (no micro-op).
 */
int cdb_put(void *dst, int peer, const void *src, size_t count, unsigned flags);

/* Read count elements of the peer's copy of src into local dst. */
int cdb_get(void *dst, int peer, const void *src, size_t count);

/* ---- collectives ------------------------------------------------------------
 *
 * Every rank calls the same collective with the same windows.  Each
 * pointer must be the start of a window; shapes, dtypes, ops and signals
 * are checked as PyPTO checks them (CDB_ERR_SHAPE, with cdb_errmsg() such
 * as "ring allreduce needs a signal of shape [6,4], got [4,1]").  Signals
 * are i32 windows that must be all-zero on entry; the protocols leave them
 * all-zero (their epilogues), so one signal serves many calls.
 */

/* In place: buf = op over ranks of buf.  flags: CDB_RING, CDB_BUILTIN,
 * CDB_LOOSE.  Mesh signal [N,1], ring [2(N-1),N], ring builtin
 * [2(N-1)+1,N]. */
int cdb_allreduce(void *buf, int32_t *sig, enum cdb_reduce op, unsigned flags);
/* The self-clearing credit barrier on sig [N,1]. */
int cdb_barrier(int32_t *sig, unsigned flags);
/* Every rank gets root's buf. */
int cdb_broadcast(void *buf, int32_t *sig, int root, unsigned flags);
/* dst[r,:] = rank r's src, on every rank (dst is [N, |src|]). */
int cdb_allgather(const void *src, void *dst, int32_t *sig, unsigned flags);
/* buf [N,K]: row `rank` becomes the op over ranks of that row (PyPTO
 * allows CDB_SUM only unless CDB_LOOSE). */
int cdb_reduce_scatter(void *buf, int32_t *sig, enum cdb_reduce op,
    unsigned flags);
/* dst[s,:] on rank d = src[d,:] of rank s. */
int cdb_all_to_all(const void *src, void *dst, int32_t *sig, unsigned flags);

/* ---- spans ------------------------------------------------------------------
 *
 * Name a stretch of this rank's code.  Spans nest (at most 8 deep, names
 * up to 31 characters); the open ones prefix the location of every
 * operation on the status board and in `where`
 * ("rank 2: blocked  reduce-scatter > myring.c:42: wait ...") and the
 * dotted span names its micro-ops record ("reduce-scatter.put", under a
 * "reduce-scatter" root per call), which the shell's `trace save` exports.
 * Under `colldb run` every operation's micro-ops record spans, as the
 * shell's own ranks do; a span has no record of its own between calls.
 * CDB_ERR_ARG: NULL or over-long name, too deep, or end without a begin.
 */
int cdb_span_begin(const char *name);
int cdb_span_end(void);

/* ---- errors and locations --------------------------------------------------- */

/* "invalid argument" etc.; "unknown error" for other values. */
const char *cdb_strerror(int err);
/* The last failure's details ("" after a success); borrowed. */
const char *cdb_errmsg(void);

/* Record the source location of the next operation (the macros below do
 * it for you; file is kept as a pointer, so pass a string literal). */
void cdb_at(const char *file, int line);

#ifndef CDB_NO_LOCATION
#define CDB_AT_(call) (cdb_at(__FILE__, __LINE__), call)
#define cdb_alloc(...) CDB_AT_(cdb_alloc(__VA_ARGS__))
#define cdb_alloc_shape(...) CDB_AT_(cdb_alloc_shape(__VA_ARGS__))
#define cdb_notify(...) CDB_AT_(cdb_notify(__VA_ARGS__))
#define cdb_wait(...) CDB_AT_(cdb_wait(__VA_ARGS__))
#define cdb_put(...) CDB_AT_(cdb_put(__VA_ARGS__))
#define cdb_get(...) CDB_AT_(cdb_get(__VA_ARGS__))
#define cdb_allreduce(...) CDB_AT_(cdb_allreduce(__VA_ARGS__))
#define cdb_barrier(...) CDB_AT_(cdb_barrier(__VA_ARGS__))
#define cdb_broadcast(...) CDB_AT_(cdb_broadcast(__VA_ARGS__))
#define cdb_allgather(...) CDB_AT_(cdb_allgather(__VA_ARGS__))
#define cdb_reduce_scatter(...) CDB_AT_(cdb_reduce_scatter(__VA_ARGS__))
#define cdb_all_to_all(...) CDB_AT_(cdb_all_to_all(__VA_ARGS__))
#endif

#ifdef __cplusplus
}
#endif

#endif
