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

/* 2N ops (per dest: the count, the put), the barrier, the epilogue. */
static void
a2av_init(struct coll_desc *d)
{
	d->empty = d->a.impl == IMPL_BUILTIN && d->n > COLL_BUILTIN_MAX_RANKS;
}

static uint64_t
a2av_len(const struct coll_desc *d, int me)
{
	(void)me;
	return 2 * (uint64_t)d->n + d->bar + (uint64_t)d->n - 1;
}

static void
a2av_block(const struct coll_desc *d, int me, uint64_t pc,
    const struct blk *hint, struct blk *b)
{
	const struct coll_args *a = &d->a;
	struct cellset cs = gen_mesh_cells(d);
	uint64_t n = (uint64_t)d->n, max_recv = a->buf.shape[0] / n;
	uint64_t block = max_recv * a->buf.shape[1], bytes = block * d->esz;

	(void)hint;
	if (pc < 2 * n && pc % 2 == 0) {
		/* the count, read from SEND_COUNTS[dest] when it runs */
		uint64_t dest = pc / 2;

		gen_data(d, me, UOP_NOTIFY, SP_OWN,
		    a->rcount.off + 4 * (uint64_t)me * a->rcount.shape[1],
		    SP_OWN, a->scount.off + 4 * dest, (int)dest, 1, pc,
		    bname("all_to_all_v.count", 0, 0, 0, 0),
		    bname("push", 0, 0, 0, 0), b);
		b->t.dtype = DT_I32;
		b->t.op = NOTIFY_SET;
		b->t.flags = UOP_F_FROM_CELL;
		b->t.value = max_recv > INT32_MAX ? INT32_MAX : (int32_t)max_recv;
	} else if (pc < 2 * n) {
		uint64_t dest = pc / 2;

		gen_data(d, me, UOP_PUT, SP_PEER,
		    a->buf.off + (uint64_t)me * bytes, SP_OWN,
		    a->src.off + dest * bytes, (int)dest, block, pc,
		    bname("%s.put", d->coll, 0, 0, 0),
		    bname("push", 0, 0, 0, 0), b);
	} else if (pc < 2 * n + d->bar) {
		gen_barrier(d, me, cs, 1, 2 * n, pc - 2 * n,
		    bname("%s.barrier", d->coll, 0, 0, 0),
		    bname("barrier", 0, 0, 0, 0), b);
	} else {
		gen_epilogue(d, me, cs, 1, 2 * n + d->bar, b);
	}
}

const struct coll_gen gen_all_to_all_v = {
	.init = a2av_init,
	.len = a2av_len,
	.block = a2av_block,
	.cells = CELLS_MESH,
};
