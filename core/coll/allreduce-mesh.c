/*
 * allreduce-mesh.c - mesh allreduce: the InCore composite and the builtin.
 *
 * Composite (lower_composite_ops_pass.cpp
 * LowerTensorAllReduceRule, fully-valid path):
 *   the packed target is one [1,SIZE] stream; chunk = 16 KiB / elem
 *   bytes, or, when SIZE is smaller, SIZE rounded up to 32 bytes;
 *   C = ceil(SIZE / chunk).
 *   ready barrier g=1 on cells [j,0];
 *   chunk k: acc = own chunk; acc = op(acc, peer chunk) for peer 0..N-1
 *   except me; barrier g=2+k; store acc into own chunk (after the barrier:
 *   a fast rank must not overwrite what a slow peer still reads);
 *   epilogue -(1+C).
 *
 * Builtin (allreduce/templates/kernel.cpp.in): the same
 * shape with 256-element tiles instead of 16 KiB chunks, ready barrier
 * expecting 1, tile t's barrier expecting 2+t, epilogue -(1+tiles).  Signal
 * [N] or [N,stride]; colldb launches one block (core_num=1), so the block's
 * lane is 0 and rank j's cell is j*stride.  More than 16 ranks: the kernel
 * returns at once, so the program is empty (coll_warning() says so).
 *
 * Decisions:
 * - f16/bf16 accumulate in f32 (SP_ACC) and are rounded once by the store;
 *   the kernels' tile arithmetic in the storage type is not modelled.
 * - The partial-valid rectangle path (ready g=1, post-reduce g=2, -2) does
 *   not arise: colldb windows are always fully valid.
 * - Each rank reduces own first, then peers in rank order, as PyPTO does;
 *   float results may therefore differ in the last bits between ranks.
 */
#include <stdio.h>

#include "coll-int.h"

/*
 * Rank me's program: the ready barrier [0, bar); chunk k at bar + k * unit
 * (unit = load, N-1 reduces, barrier, store = 2 + (N-1) + bar); the
 * epilogue at bar + C * unit.
 */
static void
mesh_init(struct coll_desc *d)
{
	const struct win_ref *b = &d->a.buf;
	uint64_t chunk = COLL_CHUNK_BYTES / d->esz;

	if (d->a.impl == IMPL_BUILTIN) {
		if (d->n > COLL_BUILTIN_MAX_RANKS) {
			d->empty = 1;
			return;
		}
		chunk = COLL_TILE;
	} else if (b->count < chunk) {
		chunk = round_up(b->count, COLL_ALIGN_BYTES / d->esz);
	}
	d->chunk = chunk;
	d->nchunks = ceil_div(b->count, chunk);
	d->unit = 2 + ((uint64_t)d->n - 1) + d->bar;
	d->acc_bytes = chunk * dtype_size(dtype_acc(b->dtype));
}

static uint64_t
mesh_len(const struct coll_desc *d, int me)
{
	(void)me;
	return d->bar + d->nchunks * d->unit + (uint64_t)d->n - 1;
}

static void
mesh_block(const struct coll_desc *d, int me, uint64_t pc,
    const struct blk *hint, struct blk *b)
{
	const struct win_ref *buf = &d->a.buf;
	struct cellset cs = gen_mesh_cells(d);
	int builtin = d->a.impl == IMPL_BUILTIN;
	const char *unit = builtin ? "tile" : "chunk";
	uint64_t k, o, first, cnt, off, base, peers = (uint64_t)d->n - 1;
	struct blk_name ph;

	(void)hint;
	if (pc < d->bar) {
		gen_barrier(d, me, cs, 1, 0, pc, bname("%s.ready", d->coll, 0, 0,
		    0), bname("ready", 0, 0, 0, 0), b);
		return;
	}
	if (pc - d->bar >= d->nchunks * d->unit) {
		gen_epilogue(d, me, cs, (int32_t)(1 + d->nchunks),
		    d->bar + d->nchunks * d->unit, b);
		return;
	}
	k = (pc - d->bar) / d->unit;
	o = (pc - d->bar) % d->unit;
	base = d->bar + k * d->unit;
	first = k * d->chunk;
	cnt = MIN(d->chunk, buf->count - first);
	off = buf->off + first * d->esz;
	ph = bname("%s %d", unit, 0, (int64_t)k, 0);
	if (o == 0)
		gen_data(d, me, UOP_COPY, SP_ACC, 0, SP_OWN, off, me, cnt, base,
		    bname("%s.%s%d.load", d->coll, unit, (int64_t)k, 0), ph, b);
	else if (o < 1 + peers)
		gen_peers(d, me, BLK_OTHERS, UOP_REDUCE, SP_ACC, 0, SP_PEER, off,
		    cnt, 0, 0, base + 1, bname("%s.%s%d.reduce", d->coll, unit,
		    (int64_t)k, 0), ph, b);
	else if (o < 1 + peers + d->bar)
		gen_barrier(d, me, cs, (int32_t)(2 + k), base + 1 + peers,
		    o - 1 - peers, bname("%s.%s%d", d->coll, unit, (int64_t)k, 0),
		    ph, b);
	else
		gen_data(d, me, UOP_COPY, SP_OWN, off, SP_ACC, 0, me, cnt,
		    base + d->unit - 1, bname("%s.%s%d.store", d->coll, unit,
		    (int64_t)k, 0), ph, b);
}

/* The ready barrier and every chunk's: my cell, +1 each. */
static void
mesh_owed(const struct coll_desc *d, int me, uint64_t from, int t,
    uint64_t off, prog_owe_fn fn, void *arg)
{
	(void)off;
	if (d->n < 2)
		return;
	gen_owed_periodic(d, me, from, t, 0, 1, 0, 1, fn, arg);
	gen_owed_periodic(d, me, from, t, d->bar + (uint64_t)d->n, d->unit, 0,
	    d->nchunks, fn, arg);
}

const struct coll_gen gen_allreduce_mesh = {
	.init = mesh_init, .len = mesh_len, .block = mesh_block,
	.owed = mesh_owed, .cells = CELLS_MESH,
};
