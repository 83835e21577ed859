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
#include <stdio.h>

#include "coll-int.h"

/*
 * Chunks first, first + every, ... of the stream on cell set cs: the
 * barriers count the chunks this pass handles (2, 3, ...), the epilogue
 * returns 1 + that many.  pre / phpre prefix span names and phases
 * ("block1." / "block 1 ") for a builtin block; "" otherwise.
 */
static void
mesh(struct emit *e, struct cellset cs, uint64_t chunk, uint64_t first,
    uint64_t every, const char *unit, const char *uphase, const char *pre,
    const char *phpre)
{
	const struct win_ref *b = &e->a->buf;
	size_t esz = dtype_size(b->dtype);
	uint64_t nchunks = ceil_div(b->count, chunk), done = 0;
	char phase[64], epi_phase[64], epi_span[96];

	e->p->acc_bytes = chunk * dtype_size(dtype_acc(b->dtype));
	snprintf(phase, sizeof phase, "%sready", phpre);
	emit_barrier(e, cs, 1, phase, "%s.%sready", e->coll, pre);
	for (uint64_t k = first; k < nchunks; k += every, done++) {
		uint64_t start = k * chunk;
		uint64_t n = MIN(chunk, b->count - start);
		uint64_t off = b->off + start * esz;

		snprintf(phase, sizeof phase, "%s%s %llu", phpre, uphase,
		    (unsigned long long)k);
		emit_copy(e, SP_ACC, 0, SP_OWN, off, e->me, n, phase,
		    "%s.%s%s%llu.load", e->coll, pre, unit, (unsigned long long)k);
		for (int peer = 0; peer < e->n; peer++) {
			if (peer == e->me)
				continue;
			emit_reduce(e, SP_ACC, 0, SP_PEER, off, peer, n, phase,
			    "%s.%s%s%llu.reduce", e->coll, pre, unit,
			    (unsigned long long)k);
		}
		emit_barrier(e, cs, (int32_t)(2 + done), phase, "%s.%s%s%llu",
		    e->coll, pre, unit, (unsigned long long)k);
		emit_copy(e, SP_OWN, off, SP_ACC, 0, e->me, n, phase,
		    "%s.%s%s%llu.store", e->coll, pre, unit, (unsigned long long)k);
	}
	if (pre[0] != '\0') {
		snprintf(epi_phase, sizeof epi_phase, "%sepilogue", phpre);
		snprintf(epi_span, sizeof epi_span, "%s.%sepilogue", e->coll, pre);
		e->epi_phase = epi_phase;
		e->epi_span = epi_span;
	}
	emit_epilogue(e, cs, (int32_t)(1 + done));
	e->epi_phase = e->epi_span = NULL;
}

/*
 * The builtin with core_num AIV blocks: block b works on lane b of the
 * [N,stride] signal (rank j's cell j*stride + b) and on tiles b, b+B, ...
 * (B = min(core_num, stride), the kernel's active blocks); each block has
 * its own ready barrier, tile barriers and epilogue.  The kernel runs the
 * blocks at once; colldb runs them one after the other, block 0 first on
 * every rank, which is one of the orders the hardware allows (blocks share
 * no cell and no tile).
 */
static void
builtin_blocks(struct emit *e)
{
	const struct win_ref *s = &e->a->sig;
	uint64_t stride = s->ndim >= 2 ? s->shape[1] : 1;
	uint64_t nb = MIN(e->a->core_num > 1 ? (uint64_t)e->a->core_num : 1, stride);
	char pre[32], phpre[32];

	if (nb <= 1) {
		mesh(e, emit_mesh_cells(e), COLL_TILE, 0, 1, "tile", "tile", "", "");
		return;
	}
	for (uint64_t blk = 0; blk < nb; blk++) {
		struct cellset cs = { blk, stride };

		snprintf(pre, sizeof pre, "block%llu.", (unsigned long long)blk);
		snprintf(phpre, sizeof phpre, "block %llu ", (unsigned long long)blk);
		mesh(e, cs, COLL_TILE, blk, nb, "tile", "tile", pre, phpre);
	}
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
		builtin_blocks(e);
		return;
	}
	if (b->count < chunk)
		chunk = round_up(b->count, COLL_ALIGN_BYTES / esz);
	mesh(e, emit_mesh_cells(e), chunk, 0, 1, "chunk", "chunk", "", "");
}
