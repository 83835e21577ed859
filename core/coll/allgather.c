/*
 * allgather.c - allgather: the InCore composite and the builtin.
 *
 * PyPTO (lower_composite_ops_pass.cpp LowerTensorAllGatherRule;
 * allgather/templates/kernel.cpp.in): every rank puts its SRC [1,SIZE]
 * into DST[me,:] of every rank, itself included (peer order 0..N-1), then
 * barrier g=1 on [j,0], then epilogue -1.  The builtin is the same program
 * (its 256-element tiles of the put have no synchronisation between them,
 * so one put per destination is equivalent); more than 16 ranks: empty.
 *
 * Decisions:
 * - SRC may be [SIZE] or [1,SIZE] (colldb windows are flat; PyPTO spells
 *   local_data [1,SIZE]); DST must be [N,SIZE].
 * - The barrier comes after the pushes, so there is no "ready" barrier: a
 *   fast rank may write into a slow rank's DST before that rank entered
 *   the call.  That is PyPTO's window-as-result design, emulated as is.
 */
#include "coll-int.h"

void
coll_build_allgather(struct emit *e)
{
	const struct coll_args *a = e->a;
	struct cellset cs = emit_mesh_cells(e);
	uint64_t size = a->src.count;
	uint64_t dst =
	    a->buf.off + (uint64_t)e->me * size * dtype_size(a->buf.dtype);

	if (a->impl == IMPL_BUILTIN && e->n > COLL_BUILTIN_MAX_RANKS)
		return;
	for (int peer = 0; peer < e->n; peer++)
		emit_put(e, peer, dst, a->src.off, size, "push", "%s.put",
		    e->coll);
	emit_barrier(e, cs, 1, "barrier", "%s.barrier", e->coll);
	emit_epilogue(e, cs, 1);
}
