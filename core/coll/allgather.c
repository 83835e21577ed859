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

/* N puts (me included), the barrier, the epilogue. */
static void
allgather_init(struct coll_desc *d)
{
	d->empty = d->a.impl == IMPL_BUILTIN && d->n > COLL_BUILTIN_MAX_RANKS;
}

static uint64_t
allgather_len(const struct coll_desc *d, int me)
{
	(void)me;
	return (uint64_t)d->n + d->bar + (uint64_t)d->n - 1;
}

static void
allgather_block(const struct coll_desc *d, int me, uint64_t pc,
    const struct blk *hint, struct blk *b)
{
	const struct coll_args *a = &d->a;
	struct cellset cs = gen_mesh_cells(d);
	uint64_t n = (uint64_t)d->n, size = a->src.count;

	(void)hint;
	if (pc < n)
		gen_peers(d, me, BLK_ALL, UOP_PUT, SP_PEER,
		    a->buf.off + (uint64_t)me * size * d->esz, SP_OWN,
		    a->src.off, size, 0, 0, 0, bname("%s.put", d->coll, 0, 0, 0),
		    bname("push", 0, 0, 0, 0), b);
	else if (pc < n + d->bar)
		gen_barrier(d, me, cs, 1, n, pc - n,
		    bname("%s.barrier", d->coll, 0, 0, 0),
		    bname("barrier", 0, 0, 0, 0), b);
	else
		gen_epilogue(d, me, cs, 1, n + d->bar, b);
}

const struct coll_gen gen_allgather = {
	.init = allgather_init,
	.len = allgather_len,
	.block = allgather_block,
	.cells = CELLS_MESH,
};
