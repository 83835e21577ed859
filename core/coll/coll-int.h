/*
 * coll-int.h - internals shared by the collective generators in core/coll/.
 *
 * Not a public header: only the files in core/coll/ include it.  A
 * collective is described once (struct coll_desc) and every rank's
 * micro-op pc is computed from the description on demand: each family
 * file implements a struct coll_gen whose block() answers "which block
 * holds pc" by arithmetic on the protocol's loop structure, and gen.c
 * builds the blocks (a credit barrier, an epilogue, one data op, one op
 * per peer) exactly as the protocol issues them.  Span names are
 * printf-like formats kept with their arguments (struct blk_name), so
 * call sites read like the protocol they transcribe and nothing is
 * formatted until someone reads it.
 *
 * Signal cells are addressed as "cell sets": the cell a rank j owns in a
 * set is at element base + j * step of the signal window.  Mesh-shaped
 * signals ([N,1], or the builtins' [N] / [N,stride]) use base 0 and step
 * stride, so rank j's cell is [j,0]; a ring row r of [rows,N] uses base
 * r * N and step 1, so rank j's cell is [r,j].  Every credit barrier and
 * epilogue goes through gen_barrier() / gen_epilogue() in gen.c.
 *
 * Ownership: a description is reference-counted (its struct prog_gen);
 * the programs made from it hold references.
 */
#ifndef COLLDB_COLL_INT_H
#define COLLDB_COLL_INT_H

#include <stdint.h>

#include "../coll.h"
#include "../common.h"

/* PyPTO constants (docs/protocols.md). */
#define COLL_CHUNK_BYTES (16 * 1024) /* kAllReduceChunkBytes */
#define COLL_ALIGN_BYTES 32	     /* kPTOTileAlignmentBytes */
#define COLL_TILE 256		     /* builtins' kTileCount (elements) */
#define COLL_BUILTIN_MAX_RANKS 16    /* builtins' kMaxSupportedRanks */

struct cellset {
	uint64_t base; /* element index of rank 0's cell */
	uint64_t step; /* elements between consecutive ranks' cells */
};

uint64_t ceil_div(uint64_t a, uint64_t b);
uint64_t round_up(uint64_t a, uint64_t b);

/* ---- generators (the described programs) ------------------------------ */

/*
 * One collective described: its arguments and world size, and what every
 * rank's program derives from them.  The family files implement a
 * struct coll_gen each; gen.c holds the shared blocks (barrier,
 * epilogue, data ops) and the prog_gen glue.  Everything here is computed
 * once by coll_describe(); the lazily built table is the only thing that
 * changes afterwards (the shell is single-threaded; a rank never builds
 * it, it only walks forward).
 */
struct coll_desc;

struct coll_gen {
	/* Constants into d (d->a and d->n are set); sets acc_bytes. */
	void (*init)(struct coll_desc *d);
	uint64_t (*len)(const struct coll_desc *d, int me);
	void (*block)(const struct coll_desc *d, int me, uint64_t pc,
	    const struct blk *hint, struct blk *b);
	/* Optional (prog_gen_ops.owed): a closed form. */
	void (*owed)(const struct coll_desc *d, int me, uint64_t from, int t,
	    uint64_t off, prog_owe_fn fn, void *arg);
	/* How the signal's cells belong to ranks (for writer()). */
	enum { CELLS_MESH, CELLS_RING, CELLS_ANY } cells;
};

struct coll_desc {
	struct prog_gen g;  /* first: a struct prog_gen * is one */
	struct coll_args a; /* names NULL */
	int n;		    /* the collective's ranks (a domain's size);
				 * the generator's ranks are 0..n-1 */
	int nworld;	    /* the session's */
	int32_t *world;	    /* [n] member -> world rank, NULL: identity */
	int32_t *dense;	    /* [nworld] world -> member or -1, or NULL */
	const char *coll;   /* span prefix: coll_kind_name(a.kind) */
	char title[64];
	size_t acc_bytes;
	uint64_t stream_bytes; /* struct prog's: set by init, or 0 */
	const struct coll_gen *gen;
	int empty;    /* the program is empty (builtin on > 16 ranks) */
	uint64_t bar; /* micro-ops of one credit barrier: 2(N-1) */
	/* derived constants (each family uses what it needs) */
	uint64_t esz;		 /* data element bytes */
	uint64_t chunk, nchunks; /* elements per chunk / tile, count */
	uint64_t unit;		 /* ops per repeated unit (a chunk, a tile) */
	uint64_t seg_bytes;	 /* builtin ring: one segment */
	uint64_t lanes;		 /* signal lanes in use (builtin mesh blocks:
				 * the active ones), 1 otherwise */
	/* composite ring: boundaries (see allreduce-ring.c) */
	int f16;
	uint64_t align;
	uint64_t *act; /* [N+1] prefix sums of active chunks per
				 * segment, or NULL until first wanted */
};

/* gen.c */
/* Span names and phases (struct blk_name) by hand. */
static inline struct blk_name
bname(const char *fmt, const char *s0, const char *s1, int64_t i0, int64_t i1)
{
	struct blk_name n = { fmt, NULL, { s0, s1 }, { i0, i1, 0 } };

	return n;
}
static inline struct blk_name
bname_sfx(struct blk_name n, const char *sfx)
{
	n.sfx = sfx;
	return n;
}
/* The cell offset of rank's cell in cs. */
uint64_t gen_cell(const struct coll_desc *d, struct cellset cs, int rank);
struct cellset gen_mesh_cells(const struct coll_desc *d);
struct cellset gen_ring_row(const struct coll_desc *d, uint64_t row);
/*
 * The block holding op off (< d->bar) of the credit barrier that starts at
 * pc start: notifies (+1 into my cell of every peer, the first with
 * UOP_F_BARRIER, "<span>.notify"), then waits (every peer's cell of mine
 * >= gen, "<span>.wait").
 */
void gen_barrier(const struct coll_desc *d, int me, struct cellset cs,
    int32_t gen, uint64_t start, uint64_t off, struct blk_name span,
    struct blk_name phase, struct blk *b);
/* The epilogue on cs starting at start: -total into my own cell of every
 * peer, "<coll>.epilogue", phase "epilogue", UOP_F_EPILOGUE. */
void gen_epilogue(const struct coll_desc *d, int me, struct cellset cs,
    int32_t total, uint64_t start, struct blk *b);
/* One data op (kind COPY, REDUCE, GET or PUT; the reduce op is the
 * collective's), as emit_copy() and friends make it. */
void gen_data(const struct coll_desc *d, int me, enum uop_kind kind,
    enum uop_space dsp, uint64_t dst, enum uop_space ssp, uint64_t src,
    int peer, uint64_t count, uint64_t start, struct blk_name name,
    struct blk_name phase, struct blk *b);
/* The same op for every rank (rep BLK_ALL) or every other rank
 * (BLK_OTHERS): peer = p, dst += p * dst_step, src += p * src_step. */
void gen_peers(const struct coll_desc *d, int me, enum blk_rep rep,
    enum uop_kind kind, enum uop_space dsp, uint64_t dst, enum uop_space ssp,
    uint64_t src, uint64_t count, int64_t dst_step, int64_t src_step,
    uint64_t start, struct blk_name name, struct blk_name phase, struct blk *b);
/*
 * Owed notifies of periodic credit barriers: barrier k = k0 .. k1-1 has
 * its notifies at pc first + k * period (+ the offset of t among my
 * peers); those at pc >= from are reported as one run of +1.
 */
void gen_owed_periodic(const struct coll_desc *d, int me, uint64_t from, int t,
    uint64_t first, uint64_t period, uint64_t k0, uint64_t k1, prog_owe_fn fn,
    void *arg);

/* One generator per family. */
extern const struct coll_gen gen_barrier_coll;
extern const struct coll_gen gen_allreduce_mesh;
extern const struct coll_gen gen_allreduce_ring;
extern const struct coll_gen gen_allreduce_ring_builtin;
extern const struct coll_gen gen_broadcast;
extern const struct coll_gen gen_broadcast_builtin;
extern const struct coll_gen gen_allgather;
extern const struct coll_gen gen_reduce_scatter;
extern const struct coll_gen gen_all_to_all;
extern const struct coll_gen gen_all_to_all_v;
extern const struct coll_gen gen_allreduce_ring_neighbour;

/* validate.c: the shape text "[6,4]" of w, into buf of len bytes. */
const char *coll_shape_str(const struct win_ref *w, char *buf, size_t len);

#endif
