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

/* N puts (dest = 0..N-1), the barrier, the epilogue. */
static void
a2a_init(struct coll_desc *d)
{
	d->empty = d->a.impl == IMPL_BUILTIN && d->n > COLL_BUILTIN_MAX_RANKS;
}

static uint64_t
a2a_len(const struct coll_desc *d, int me)
{
	(void)me;
	return (uint64_t)d->n + d->bar + (uint64_t)d->n - 1;
}

static void
a2a_block(const struct coll_desc *d, int me, uint64_t pc,
    const struct blk *hint, struct blk *b)
{
	const struct coll_args *a = &d->a;
	struct cellset cs = gen_mesh_cells(d);
	uint64_t n = (uint64_t)d->n, size = a->buf.shape[1];
	uint64_t row = size * d->esz;

	(void)hint;
	if (pc < n)
		gen_peers(d, me, BLK_ALL, UOP_PUT, SP_PEER,
		    a->buf.off + (uint64_t)me * row, SP_OWN, a->src.off, size,
		    0, (int64_t)row, 0, bname("%s.put", d->coll, 0, 0, 0),
		    bname("push", 0, 0, 0, 0), b);
	else if (pc < n + d->bar)
		gen_barrier(d, me, cs, 1, n, pc - n,
		    bname("%s.barrier", d->coll, 0, 0, 0),
		    bname("barrier", 0, 0, 0, 0), b);
	else
		gen_epilogue(d, me, cs, 1, n + d->bar, b);
}

const struct coll_gen gen_all_to_all = {
	.init = a2a_init,
	.len = a2a_len,
	.block = a2a_block,
	.cells = CELLS_MESH,
};
