/*
 * barrier.c - the self-clearing credit barrier and the barrier collective.
 *
 * PyPTO (lower_composite_ops_pass.cpp EmitBarrier /
 * EmitEpilogueReset) and its builtin (barrier/templates/kernel.cpp.in):
 *
 *   barrier(g):  for peer != me: notify(peer, <my cell>, +1, add)
 *                for src  != me: wait(<src's cell>, >= g)
 *   epilogue:    for src  != me: notify(me, <src's cell>, -total, add)
 *
 * g counts 1, 2, 3, ... within one call; total is the number of barriers
 * of the call on that cell set.  Notifies go out in peer order 0..N-1 and
 * waits are issued in the same order, as PyPTO's loops do.
 *
 * Decisions:
 * - Composite and builtin barrier are the same program (the builtin kernel
 *   is barrier g=1 then -1).  They differ only in the signal shapes
 *   validate.c accepts: [N,1] for the composite, [N] or [N,1] for the
 *   builtin.
 * - The builtin kernel returns without touching anything when N > 16
 *   (kMaxSupportedRanks); that case builds an empty program, and
 *   coll_warning() says so.
 * - With one rank a barrier has no peers and emits nothing (PyPTO's loops
 *   are empty too), so no op carries UOP_F_BARRIER.
 */
#include "coll-int.h"

static void
barrier_init(struct coll_desc *d)
{
	d->empty = d->a.impl == IMPL_BUILTIN && d->n > COLL_BUILTIN_MAX_RANKS;
}

static uint64_t
barrier_len(const struct coll_desc *d, int me)
{
	(void)me;
	return d->bar + (uint64_t)d->n - 1;
}

static void
barrier_block(const struct coll_desc *d, int me, uint64_t pc,
    const struct blk *hint, struct blk *b)
{
	struct cellset cs = gen_mesh_cells(d);

	(void)hint;
	if (pc < d->bar)
		gen_barrier(d, me, cs, 1, 0, pc, bname("barrier", 0, 0, 0, 0),
		    bname("barrier", 0, 0, 0, 0), b);
	else
		gen_epilogue(d, me, cs, 1, d->bar, b);
}

const struct coll_gen gen_barrier_coll = {
	.init = barrier_init,
	.len = barrier_len,
	.block = barrier_block,
	.cells = CELLS_MESH,
};
