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

/* ready barrier, load, N-1 reduces, [builtin: store], read barrier,
 * [composite: store], epilogue. */
static void
rs_init(struct coll_desc *d)
{
	if (d->a.impl == IMPL_BUILTIN && d->n > COLL_BUILTIN_MAX_RANKS) {
		d->empty = 1;
		return;
	}
	d->acc_bytes = d->a.buf.shape[1] * dtype_size(dtype_acc(d->a.buf.dtype));
}

static uint64_t
rs_len(const struct coll_desc *d, int me)
{
	(void)me;
	return 2 * d->bar + 2 + (uint64_t)d->n - 1 + (uint64_t)d->n - 1;
}

static void
rs_block(const struct coll_desc *d, int me, uint64_t pc, const struct blk *hint,
    struct blk *b)
{
	const struct coll_args *a = &d->a;
	struct cellset cs = gen_mesh_cells(d);
	uint64_t size = a->buf.shape[1], peers = (uint64_t)d->n - 1;
	uint64_t off = a->buf.off + (uint64_t)me * size * d->esz;
	int builtin = a->impl == IMPL_BUILTIN;
	uint64_t red = d->bar + 1, bar2 = red + peers + (builtin ? 1 : 0);
	struct blk_name store = bname("%s.store", d->coll, 0, 0, 0);

	(void)hint;
	if (pc < d->bar)
		gen_barrier(d, me, cs, 1, 0, pc,
		    bname("%s.ready", d->coll, 0, 0, 0),
		    bname("ready", 0, 0, 0, 0), b);
	else if (pc == d->bar)
		gen_data(d, me, UOP_COPY, SP_ACC, 0, SP_OWN, off, me, size, pc,
		    bname("%s.load", d->coll, 0, 0, 0),
		    bname("reduce", 0, 0, 0, 0), b);
	else if (pc < red + peers)
		gen_peers(d, me, BLK_OTHERS, UOP_REDUCE, SP_ACC, 0, SP_PEER,
		    off, size, 0, 0, red, bname("%s.reduce", d->coll, 0, 0, 0),
		    bname("reduce", 0, 0, 0, 0), b);
	else if (pc < bar2)
		gen_data(d, me, UOP_COPY, SP_OWN, off, SP_ACC, 0, me, size, pc,
		    store, bname("store", 0, 0, 0, 0), b);
	else if (pc < bar2 + d->bar)
		gen_barrier(d, me, cs, 2, bar2, pc - bar2,
		    bname("%s.read", d->coll, 0, 0, 0),
		    bname("read done", 0, 0, 0, 0), b);
	else if (!builtin && pc == bar2 + d->bar)
		gen_data(d, me, UOP_COPY, SP_OWN, off, SP_ACC, 0, me, size, pc,
		    store, bname("store", 0, 0, 0, 0), b);
	else
		gen_epilogue(d, me, cs, 2, bar2 + d->bar + !builtin, b);
}

const struct coll_gen gen_reduce_scatter = {
	.init = rs_init,
	.len = rs_len,
	.block = rs_block,
	.cells = CELLS_MESH,
};
