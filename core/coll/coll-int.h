/*
 * coll-int.h - internals shared by the collective builders in core/coll/.
 *
 * Not a public header: only the files in core/coll/ include it.  A
 * builder fills a struct emit (one rank's view of one call) and appends
 * micro-ops through the emit_*() helpers, which intern the dotted span
 * name and the phase label of every op.  Span names are printf formats so
 * that call sites read like the protocol they transcribe.
 *
 * Signal cells are addressed as "cell sets": the cell a rank j owns in a
 * set is at element base + j * step of the signal window.  Mesh-shaped
 * signals ([N,1], or the builtins' [N] / [N,stride]) use base 0 and step
 * stride, so rank j's cell is [j,0]; a ring row r of [rows,N] uses base
 * r * N and step 1, so rank j's cell is [r,j].  Every credit barrier and
 * epilogue goes through emit_barrier() / emit_epilogue() in barrier.c.
 *
 * Ownership: the program belongs to the caller of coll_build(); struct emit
 * only borrows it and the arguments.
 */
#ifndef COLLDB_COLL_INT_H
#define COLLDB_COLL_INT_H

#include <stdint.h>

#include "../coll.h"
#include "../common.h"

/* PyPTO constants (docs/protocols.md). */
#define COLL_CHUNK_BYTES (16 * 1024)	/* kAllReduceChunkBytes */
#define COLL_ALIGN_BYTES 32		/* kPTOTileAlignmentBytes */
#define COLL_TILE 256			/* builtins' kTileCount (elements) */
#define COLL_BUILTIN_MAX_RANKS 16	/* builtins' kMaxSupportedRanks */

struct emit {
	struct prog *p;
	const struct coll_args *a;
	int n;			/* world size */
	int me;			/* this rank */
	const char *coll;	/* span prefix: coll_kind_name(a->kind) */
	/* emit_epilogue()'s phase and span when not NULL (a builtin block's
	 * "block 1 epilogue"); "epilogue" and "<coll>.epilogue" otherwise */
	const char *epi_phase, *epi_span;
};

struct cellset {
	uint64_t base;		/* element index of rank 0's cell */
	uint64_t step;		/* elements between consecutive ranks' cells */
};

/* barrier.c */
void emit_init(struct emit *e, struct prog *p, const struct coll_args *a,
    int nranks, int rank);
/* The mesh cell set of the signal: [j,0] (flat j * stride). */
struct cellset emit_mesh_cells(const struct emit *e);
/* Row r of a [rows,N] ring signal: [r,j]. */
struct cellset emit_ring_row(const struct emit *e, uint64_t row);
/*
 * One credit barrier on cs with call-local generation gen: +1 into every
 * peer's cell of mine, then wait for every peer's cell of mine >= gen
 * (docs/protocols.md).  The first op carries UOP_F_BARRIER.  Spans are
 * "<span>.notify" and "<span>.wait" (span is a printf format).  With one
 * rank there is no peer and nothing is emitted.
 */
void emit_barrier(struct emit *e, struct cellset cs, int32_t gen,
    const char *phase, const char *span, ...) printflike(5, 6);
/* Self-clearing epilogue on cs: my cell of every peer -= total (a notify
 * to myself), span "<coll>.epilogue", flag UOP_F_EPILOGUE. */
void emit_epilogue(struct emit *e, struct cellset cs, int32_t total);

/* One NOTIFY or WAIT on the i32 cell at byte offset cell (op: the notify
 * op or wait cmp; name and phase: string indexes); returns the stored op
 * (valid until the next add). */
struct uop *emit_signal(struct emit *e, enum uop_kind kind, int peer,
    uint64_t cell, int32_t value, uint8_t op, uint8_t flags, uint32_t name,
    uint32_t phase);

/* Data ops; span and phase are printf formats. */
void emit_copy(struct emit *e, enum uop_space dsp, uint64_t dst,
    enum uop_space ssp, uint64_t src, int peer, uint64_t count,
    const char *phase, const char *span, ...) printflike(9, 10);
void emit_reduce(struct emit *e, enum uop_space dsp, uint64_t dst,
    enum uop_space ssp, uint64_t src, int peer, uint64_t count,
    const char *phase, const char *span, ...) printflike(9, 10);
void emit_get(struct emit *e, uint64_t dst, int peer, uint64_t src,
    uint64_t count, const char *phase, const char *span, ...)
    printflike(7, 8);
void emit_put(struct emit *e, int peer, uint64_t dst, uint64_t src,
    uint64_t count, const char *phase, const char *span, ...)
    printflike(7, 8);

/* The data dtype of the call (buf's). */
enum dtype emit_dtype(const struct emit *e);
uint64_t ceil_div(uint64_t a, uint64_t b);
uint64_t round_up(uint64_t a, uint64_t b);

/* One builder per family: appends the ops and sets e->p->acc_bytes. */
void coll_build_barrier(struct emit *e);
void coll_build_allreduce_mesh(struct emit *e);
void coll_build_allreduce_ring(struct emit *e);
void coll_build_allreduce_ring_neighbour(struct emit *e);
void coll_build_broadcast(struct emit *e);
void coll_build_allgather(struct emit *e);
void coll_build_reduce_scatter(struct emit *e);
void coll_build_all_to_all(struct emit *e);
void coll_build_all_to_all_v(struct emit *e);

/* validate.c: the shape text "[6,4]" of w, into buf of len bytes. */
const char *coll_shape_str(const struct win_ref *w, char *buf, size_t len);

#endif
