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

static void
mesh(struct emit *e, uint64_t chunk, const char *unit, const char *uphase)
{
	const struct win_ref *b = &e->a->buf;
	struct cellset cs = emit_mesh_cells(e);
	size_t esz = dtype_size(b->dtype);
	uint64_t nchunks = ceil_div(b->count, chunk);
	char phase[64];

	e->p->acc_bytes = chunk * dtype_size(dtype_acc(b->dtype));
	emit_barrier(e, cs, 1, "ready", "%s.ready", e->coll);
	for (uint64_t k = 0; k < nchunks; k++) {
		uint64_t first = k * chunk;
		uint64_t n = MIN(chunk, b->count - first);
		uint64_t off = b->off + first * esz;

		snprintf(phase, sizeof phase, "%s %llu", uphase,
		    (unsigned long long)k);
		emit_copy(e, SP_ACC, 0, SP_OWN, off, e->me, n, phase,
		    "%s.%s%llu.load", e->coll, unit, (unsigned long long)k);
		for (int peer = 0; peer < e->n; peer++) {
			if (peer == e->me)
				continue;
			emit_reduce(e, SP_ACC, 0, SP_PEER, off, peer, n, phase,
			    "%s.%s%llu.reduce", e->coll, unit,
			    (unsigned long long)k);
		}
		emit_barrier(e, cs, (int32_t)(2 + k), phase, "%s.%s%llu",
		    e->coll, unit, (unsigned long long)k);
		emit_copy(e, SP_OWN, off, SP_ACC, 0, e->me, n, phase,
		    "%s.%s%llu.store", e->coll, unit, (unsigned long long)k);
	}
	emit_epilogue(e, cs, (int32_t)(1 + nchunks));
}

void
coll_build_allreduce_mesh(struct emit *e)
{
	const struct win_ref *b = &e->a->buf;
	size_t esz = dtype_size(b->dtype);
	uint64_t chunk = COLL_CHUNK_BYTES / esz;

	if (e->a->impl == IMPL_BUILTIN) {
		if (e->n > COLL_BUILTIN_MAX_RANKS)
			return;
		mesh(e, COLL_TILE, "tile", "tile");
		return;
	}
	if (b->count < chunk)
		chunk = round_up(b->count, COLL_ALIGN_BYTES / esz);
	mesh(e, chunk, "chunk", "chunk");
}
