/*
 * reduce-scatter.c - reduce_scatter: the InCore composite and the builtin.
 *
 * Composite (lower_composite_ops_pass.cpp
 * LowerTensorReduceScatterRule), BUF [N,SIZE], result in row me:
 *   ready barrier g=1 on [j,0]; acc = own row me; acc += row me of every
 *   peer (rank order); post-reduce barrier g=2; store acc into own row me;
 *   epilogue -2.
 *
 * Builtin (reduce_scatter/templates/kernel.cpp.in): ready
 * barrier 1; per 256-element tile load, add every peer's tile, store at
 * once (rank r only writes row r and no peer reads row r of r's window, so
 * no barrier is needed between tiles); then the read-complete barrier 2;
 * epilogue -2.  The store therefore comes before the second barrier, unlike
 * the composite.  More than 16 ranks: empty.
 *
 * Decisions:
 * - The builtin's tiles carry no synchronisation; one load/reduce/store
 *   over the row is equivalent and is what we emit.
 * - Ops other than sum pass only with strict off (PyPTO's deducer rejects
 *   them); the program is the same with the requested op.
 */
#include "coll-int.h"

void
coll_build_reduce_scatter(struct emit *e)
{
	const struct coll_args *a = e->a;
	struct cellset cs = emit_mesh_cells(e);
	uint64_t size = a->buf.shape[1];
	uint64_t off = a->buf.off + (uint64_t)e->me * size *
	    dtype_size(a->buf.dtype);
	int builtin = a->impl == IMPL_BUILTIN;

	if (builtin && e->n > COLL_BUILTIN_MAX_RANKS)
		return;
	e->p->acc_bytes = size * dtype_size(dtype_acc(a->buf.dtype));
	emit_barrier(e, cs, 1, "ready", "%s.ready", e->coll);
	emit_copy(e, SP_ACC, 0, SP_OWN, off, e->me, size, "reduce",
	    "%s.load", e->coll);
	for (int peer = 0; peer < e->n; peer++) {
		if (peer != e->me)
			emit_reduce(e, SP_ACC, 0, SP_PEER, off, peer, size,
			    "reduce", "%s.reduce", e->coll);
	}
	if (builtin)
		emit_copy(e, SP_OWN, off, SP_ACC, 0, e->me, size, "store",
		    "%s.store", e->coll);
	emit_barrier(e, cs, 2, "read done", "%s.read", e->coll);
	if (!builtin)
		emit_copy(e, SP_OWN, off, SP_ACC, 0, e->me, size, "store",
		    "%s.store", e->coll);
	emit_epilogue(e, cs, 2);
}
