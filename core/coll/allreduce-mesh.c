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
 * [N] or [N,stride]; with core_num=B the grid has B AIV blocks and block b
 * uses lane b (rank j's cell j*stride + b) and tiles b, b+B, ...,
 * block-cyclic; blocks past the stride return at once (active blocks =
 * min(core_num, stride)); each block's epilogue is -(1 + its tiles).  More
 * than 16 ranks: the kernel returns at once, so the program is empty
 * (coll_warning() says so).
 *
 * Decisions:
 * - f16/bf16 accumulate in f32 (SP_ACC) and are rounded once by the store;
 *   the kernels' tile arithmetic in the storage type is not modelled.
 * - The partial-valid rectangle path (ready g=1, post-reduce g=2, -2) does
 *   not arise: colldb windows are always fully valid.
 * - Each rank reduces own first, then peers in rank order, as PyPTO does;
 *   float results may therefore differ in the last bits between ranks.
 */
#include "coll-int.h"

/*
 * Rank me's program is one pass per block (one block but for a builtin
 * with core_num > 1): block b's ready barrier on lane b, its chunks b,
 * b + B, ... (B blocks) at unit ops each (load, N-1 reduces, barrier,
 * store = 2 + (N-1) + bar), its epilogue.  The builtin's blocks run one
 * after the other, block 0 first (the kernel runs them at once; this is
 * one of the orders the hardware allows: blocks share no cell and no
 * tile).
 */
static void
mesh_init(struct coll_desc *d)
{
	const struct win_ref *b = &d->a.buf, *s = &d->a.sig;
	uint64_t chunk = COLL_CHUNK_BYTES / d->esz;

	if (d->a.impl == IMPL_BUILTIN) {
		uint64_t stride = s->ndim >= 2 ? s->shape[1] : 1;

		if (d->n > COLL_BUILTIN_MAX_RANKS) {
			d->empty = 1;
			return;
		}
		chunk = COLL_TILE;
		d->lanes =
		    MIN(d->a.core_num > 1 ? (uint64_t)d->a.core_num : 1, stride);
	} else if (b->count < chunk) {
		chunk = round_up(b->count, COLL_ALIGN_BYTES / d->esz);
	}
	d->chunk = chunk;
	d->nchunks = ceil_div(b->count, chunk);
	d->unit = 2 + ((uint64_t)d->n - 1) + d->bar;
	d->acc_bytes = chunk * dtype_size(dtype_acc(b->dtype));
	/* a chunk's store is its last touch in the call: peers read the
	 * chunk before the barrier (the ring's, by contrast, is read by the
	 * next row's neighbour, and streaming it measured slower); not the
	 * builtin's 1 KiB tiles: a fence each, 0.79-0.92x streamed */
	if (d->a.impl != IMPL_BUILTIN)
		d->stream_bytes = b->count * d->esz;
}

/* Chunks block blk handles: blk, blk + lanes, ... */
static uint64_t
mesh_block_chunks(const struct coll_desc *d, uint64_t blk)
{
	return blk < d->nchunks ? ceil_div(d->nchunks - blk, d->lanes) : 0;
}

static uint64_t
mesh_block_len(const struct coll_desc *d, uint64_t blk)
{
	return d->bar + mesh_block_chunks(d, blk) * d->unit + (uint64_t)d->n - 1;
}

static uint64_t
mesh_len(const struct coll_desc *d, int me)
{
	uint64_t n = 0;

	(void)me;
	for (uint64_t blk = 0; blk < d->lanes; blk++)
		n += mesh_block_len(d, blk);
	return n;
}

/* Names: "allreduce.chunk3.load"; in a builtin block "allreduce.block1.
 * tile3.load" (phase "block 1 tile 3"). */
static struct blk_name
mesh_name(const struct coll_desc *d, const char *what, uint64_t blk, uint64_t k)
{
	int builtin = d->a.impl == IMPL_BUILTIN;
	const char *unit = builtin ? "tile" : "chunk";
	struct blk_name n;

	if (d->lanes > 1)
		n = bname("%s.block%d.%s%d", d->coll, unit, (int64_t)blk,
		    (int64_t)k);
	else
		n = bname("%s.%s%d", d->coll, unit, (int64_t)k, 0);
	return bname_sfx(n, what);
}

static void
mesh_block(const struct coll_desc *d, int me, uint64_t pc,
    const struct blk *hint, struct blk *b)
{
	const struct win_ref *buf = &d->a.buf, *s = &d->a.sig;
	uint64_t stride = s->ndim >= 2 ? s->shape[1] : 1;
	const char *unit = d->a.impl == IMPL_BUILTIN ? "tile" : "chunk";
	uint64_t blk = 0, start = 0, j, o, k, first, cnt, off, base;
	uint64_t peers = (uint64_t)d->n - 1, nc;
	struct cellset cs;
	struct blk_name ph;

	(void)hint;
	while (pc - start >= mesh_block_len(d, blk))
		start += mesh_block_len(d, blk++);
	cs.base = blk;
	cs.step = stride;
	nc = mesh_block_chunks(d, blk);
	pc -= start;
	if (pc < d->bar) {
		if (d->lanes > 1)
			gen_barrier(d, me, cs, 1, start, pc,
			    bname("%s.block%d.ready", d->coll, 0, (int64_t)blk, 0),
			    bname("block %d ready", 0, 0, (int64_t)blk, 0), b);
		else
			gen_barrier(d, me, cs, 1, start, pc,
			    bname("%s.ready", d->coll, 0, 0, 0),
			    bname("ready", 0, 0, 0, 0), b);
		return;
	}
	if (pc - d->bar >= nc * d->unit) {
		gen_epilogue(d, me, cs, (int32_t)(1 + nc),
		    start + d->bar + nc * d->unit, b);
		if (d->lanes > 1) {
			b->name = bname("%s.block%d.epilogue", d->coll, 0,
			    (int64_t)blk, 0);
			b->phase =
			    bname("block %d epilogue", 0, 0, (int64_t)blk, 0);
		}
		return;
	}
	j = (pc - d->bar) / d->unit;
	o = (pc - d->bar) % d->unit;
	k = blk + j * d->lanes;
	base = start + d->bar + j * d->unit;
	first = k * d->chunk;
	cnt = MIN(d->chunk, buf->count - first);
	off = buf->off + first * d->esz;
	if (d->lanes > 1)
		ph = bname("block %d %s %d", unit, 0, (int64_t)blk, (int64_t)k);
	else
		ph = bname("%s %d", unit, 0, (int64_t)k, 0);
	if (o == 0)
		gen_data(d, me, UOP_COPY, SP_ACC, 0, SP_OWN, off, me, cnt, base,
		    mesh_name(d, ".load", blk, k), ph, b);
	else if (o < 1 + peers)
		gen_peers(d, me, BLK_OTHERS, UOP_REDUCE, SP_ACC, 0, SP_PEER, off,
		    cnt, 0, 0, base + 1, mesh_name(d, ".reduce", blk, k), ph, b);
	else if (o < 1 + peers + d->bar)
		gen_barrier(d, me, cs, (int32_t)(2 + j), base + 1 + peers,
		    o - 1 - peers, mesh_name(d, NULL, blk, k), ph, b);
	else
		gen_data(d, me, UOP_COPY, SP_OWN, off, SP_ACC, 0, me, cnt,
		    base + d->unit - 1, mesh_name(d, ".store", blk, k), ph, b);
}

/* Block b (the cell's lane): its ready barrier and every chunk's, my
 * cell, +1 each. */
static void
mesh_owed(const struct coll_desc *d, int me, uint64_t from, int t, uint64_t off,
    prog_owe_fn fn, void *arg)
{
	const struct win_ref *s = &d->a.sig;
	uint64_t stride = s->ndim >= 2 ? s->shape[1] : 1;
	uint64_t blk = (off - s->off) / 4 % stride, start = 0;

	if (d->n < 2 || blk >= d->lanes)
		return;
	for (uint64_t i = 0; i < blk; i++)
		start += mesh_block_len(d, i);
	gen_owed_periodic(d, me, from, t, start, 1, 0, 1, fn, arg);
	gen_owed_periodic(d, me, from, t, start + d->bar + (uint64_t)d->n,
	    d->unit, 0, mesh_block_chunks(d, blk), fn, arg);
}

const struct coll_gen gen_allreduce_mesh = {
	.init = mesh_init,
	.len = mesh_len,
	.block = mesh_block,
	.owed = mesh_owed,
	.cells = CELLS_MESH,
};
