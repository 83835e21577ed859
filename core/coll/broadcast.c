/*
 * broadcast.c - broadcast from root: the InCore composite and the builtin.
 *
 * Composite (lower_composite_ops_pass.cpp
 * LowerTensorBroadcastRule): barrier g=1 on [j,0], then every rank gets
 * root's whole target into its own, then epilogue -1.
 *
 * Builtin (broadcast/templates/kernel.cpp.in): per
 * 256-element tile t: root re-stores its own tile, barrier expecting t+1,
 * non-root ranks load the tile from root; epilogue -tiles.  More than 16
 * ranks: the kernel returns at once, the program is empty.
 *
 * Decisions:
 * - The composite has only the ready barrier: nothing stops root (which
 *   is done after the barrier) from overwriting its target while a slow
 *   rank is still reading it.  That is a latent race in PyPTO
 *   (docs/protocols.md: "emulate as written"), so we emit exactly that
 *   and add no read-complete barrier.  The builtin has the same gap after the last
 *   tile.
 * - Root's get from itself (composite) and its tile self-copy (builtin)
 *   are identities and are not emitted.
 */
#include <stdio.h>

#include "coll-int.h"

/* Composite: the ready barrier, root's get (not on root), the epilogue. */
static void
bcast_init(struct coll_desc *d)
{
	(void)d;
}

static uint64_t
bcast_len(const struct coll_desc *d, int me)
{
	return d->bar + (me != d->a.root) + (uint64_t)d->n - 1;
}

static void
bcast_block(const struct coll_desc *d, int me, uint64_t pc,
    const struct blk *hint, struct blk *b)
{
	const struct win_ref *buf = &d->a.buf;
	struct cellset cs = gen_mesh_cells(d);
	uint64_t get = me != d->a.root;

	(void)hint;
	if (pc < d->bar)
		gen_barrier(d, me, cs, 1, 0, pc,
		    bname("%s.ready", d->coll, 0, 0, 0),
		    bname("ready", 0, 0, 0, 0), b);
	else if (pc < d->bar + get)
		gen_data(d, me, UOP_GET, SP_OWN, buf->off, SP_PEER, buf->off,
		    d->a.root, buf->count, pc, bname("%s.get", d->coll, 0, 0, 0),
		    bname("get", 0, 0, 0, 0), b);
	else
		gen_epilogue(d, me, cs, 1, d->bar + get, b);
}

const struct coll_gen gen_broadcast = {
	.init = bcast_init,
	.len = bcast_len,
	.block = bcast_block,
	.cells = CELLS_MESH,
};

/* Builtin: per tile, a barrier then the tile's get (not on root); unit =
 * bar + 1 on every rank but root. */
static void
bcastb_init(struct coll_desc *d)
{
	if (d->n > COLL_BUILTIN_MAX_RANKS) {
		d->empty = 1;
		return;
	}
	d->nchunks = ceil_div(d->a.buf.count, COLL_TILE);
}

static uint64_t
bcastb_unit(const struct coll_desc *d, int me)
{
	return d->bar + (me != d->a.root);
}

static uint64_t
bcastb_len(const struct coll_desc *d, int me)
{
	return d->nchunks * bcastb_unit(d, me) + (uint64_t)d->n - 1;
}

static void
bcastb_block(const struct coll_desc *d, int me, uint64_t pc,
    const struct blk *hint, struct blk *b)
{
	const struct win_ref *buf = &d->a.buf;
	struct cellset cs = gen_mesh_cells(d);
	uint64_t unit = bcastb_unit(d, me), t, o, first, off;
	struct blk_name ph;

	(void)hint;
	if (pc >= d->nchunks * unit) {
		gen_epilogue(d, me, cs, (int32_t)d->nchunks, d->nchunks * unit,
		    b);
		return;
	}
	t = pc / unit;
	o = pc % unit;
	first = t * COLL_TILE;
	off = buf->off + first * d->esz;
	ph = bname("tile %d", 0, 0, (int64_t)t, 0);
	if (o < d->bar)
		gen_barrier(d, me, cs, (int32_t)(t + 1), pc - o, o,
		    bname("%s.tile%d", d->coll, 0, (int64_t)t, 0), ph, b);
	else
		gen_data(d, me, UOP_GET, SP_OWN, off, SP_PEER, off, d->a.root,
		    MIN(COLL_TILE, buf->count - first), pc,
		    bname("%s.tile%d.get", d->coll, 0, (int64_t)t, 0), ph, b);
}

static void
bcastb_owed(const struct coll_desc *d, int me, uint64_t from, int t,
    uint64_t off, prog_owe_fn fn, void *arg)
{
	(void)off;
	gen_owed_periodic(d, me, from, t, 0, bcastb_unit(d, me), 0, d->nchunks,
	    fn, arg);
}

const struct coll_gen gen_broadcast_builtin = {
	.init = bcastb_init,
	.len = bcastb_len,
	.block = bcastb_block,
	.owed = bcastb_owed,
	.cells = CELLS_MESH,
};
