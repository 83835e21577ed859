/*
 * all-to-all-v.c - all_to_all_v (variable-size all-to-all, MoE dispatch):
 * the InCore composite and the builtin.
 *
 * PyPTO (lower_composite_ops_pass.cpp LowerTensorAllToAllVRule;
 * all_to_all_v/templates/kernel.cpp.in), with MAX_RECV = DST rows / N:
 *
 *   for dest = 0..N-1 (me included):
 *       notify(RECV_COUNTS, dest, [me,0], min(SEND_COUNTS[dest], MAX_RECV), Set)
 *       put SRC[dest*MAX_RECV .. +MAX_RECV, :] -> dest's DST[me*MAX_RECV .., :]
 *   barrier g=1 on [j,0]; epilogue -1.
 *
 * The put always moves the whole MAX_RECV-row block, whatever the count
 * (a static transfer shape); the count, read from this rank's SEND_COUNTS
 * when the notify runs (UOP_F_FROM_CELL) and clamped to MAX_RECV (no floor
 * at 0, as in both lowerings), tells dest how many of those rows are
 * valid.  The builtin is the same program (its 256-element tiles carry no
 * synchronisation); on more than 16 ranks it returns at once (empty).
 */
#include "coll-int.h"

void
coll_build_all_to_all_v(struct emit *e)
{
	const struct coll_args *a = e->a;
	struct cellset cs = emit_mesh_cells(e);
	uint64_t max_recv = a->buf.shape[0] / (uint64_t)e->n;
	uint64_t block = max_recv * a->buf.shape[1];
	uint64_t bytes = block * dtype_size(a->buf.dtype);
	uint32_t name, phase;

	if (a->impl == IMPL_BUILTIN && e->n > COLL_BUILTIN_MAX_RANKS)
		return;
	name = prog_str(e->p, "all_to_all_v.count");
	phase = prog_str(e->p, "push");
	for (int dest = 0; dest < e->n; dest++) {
		/* the count, read from SEND_COUNTS[dest] when it runs */
		emit_signal(e, UOP_NOTIFY, dest, a->rcount.off + 4 *
		    (uint64_t)e->me * a->rcount.shape[1], max_recv > INT32_MAX ?
		    INT32_MAX : (int32_t)max_recv, NOTIFY_SET, UOP_F_FROM_CELL,
		    name, phase)->src = a->scount.off + 4 * (uint64_t)dest;
		emit_put(e, dest, a->buf.off + (uint64_t)e->me * bytes,
		    a->src.off + (uint64_t)dest * bytes, block, "push", "%s.put",
		    e->coll);
	}
	emit_barrier(e, cs, 1, "barrier", "%s.barrier", e->coll);
	emit_epilogue(e, cs, 1);
}
