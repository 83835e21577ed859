/*
 * all-to-all.c - all_to_all: the InCore composite and the builtin.
 *
 * PyPTO (lower_composite_ops_pass.cpp LowerTensorAllToAllRule;
 * all_to_all/templates/kernel.cpp.in): for dest = 0..N-1 (me included),
 * put SRC[dest,:] into dest's DST[me,:]; then barrier g=1 on [j,0]; then
 * epilogue -1.  Afterwards DST[src,:] on rank r holds what src sent to r.
 * The builtin is the same program (tiles without synchronisation, as for
 * allgather); more than 16 ranks: empty.
 */
#include "coll-int.h"

void
coll_build_all_to_all(struct emit *e)
{
	const struct coll_args *a = e->a;
	struct cellset cs = emit_mesh_cells(e);
	uint64_t size = a->buf.shape[1];
	uint64_t row = size * dtype_size(a->buf.dtype);

	if (a->impl == IMPL_BUILTIN && e->n > COLL_BUILTIN_MAX_RANKS)
		return;
	for (int dest = 0; dest < e->n; dest++)
		emit_put(e, dest, a->buf.off + (uint64_t)e->me * row,
		    a->src.off + (uint64_t)dest * row, size, "push", "%s.put",
		    e->coll);
	emit_barrier(e, cs, 1, "barrier", "%s.barrier", e->coll);
	emit_epilogue(e, cs, 1);
}
