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

void
coll_build_broadcast(struct emit *e)
{
	const struct win_ref *b = &e->a->buf;
	struct cellset cs = emit_mesh_cells(e);
	size_t esz = dtype_size(b->dtype);
	int root = e->a->root;
	uint64_t tiles;
	char phase[32];

	if (e->a->impl == IMPL_COMPOSITE) {
		emit_barrier(e, cs, 1, "ready", "%s.ready", e->coll);
		if (e->me != root)
			emit_get(e, b->off, root, b->off, b->count, "get",
			    "%s.get", e->coll);
		emit_epilogue(e, cs, 1);
		return;
	}
	if (e->n > COLL_BUILTIN_MAX_RANKS)
		return;
	tiles = ceil_div(b->count, COLL_TILE);
	for (uint64_t t = 0; t < tiles; t++) {
		uint64_t first = t * COLL_TILE;
		uint64_t off = b->off + first * esz;

		snprintf(phase, sizeof phase, "tile %llu", (unsigned long long)t);
		emit_barrier(e, cs, (int32_t)(t + 1), phase, "%s.tile%llu",
		    e->coll, (unsigned long long)t);
		if (e->me != root)
			emit_get(e, off, root, off,
			    MIN(COLL_TILE, b->count - first), phase,
			    "%s.tile%llu.get", e->coll, (unsigned long long)t);
	}
	emit_epilogue(e, cs, (int32_t)tiles);
}
