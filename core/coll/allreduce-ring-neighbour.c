/*
 * allreduce-ring-neighbour.c - the builtin ring allreduce of PyPTO's open
 * PR #2280 (impl=builtin-neighbour), a protocol under review.
 *
 * refs/pull/2280/merge, allreduce_ring/templates/kernel.cpp.in: a TPUT
 * push-model ring with an O(1) NeighborBarrier and the earlier kernel's
 * all-rows epilogue.  Signal [2(N-1)+1, N], cell [row,j]; left = me-1,
 * right = me+1 (mod N); SIZE % N == 0, chunk c = [c*SIZE/N, (c+1)*SIZE/N).
 *
 *   NeighborBarrier(row):  notify(left, [row,me], +1); notify(right,
 *                          [row,me], +1); wait [row,left] >= 1;
 *                          wait [row,right] >= 1
 *   RS step s = 1..N-1, row s-1:   NeighborBarrier; push chunk (me-s) mod N
 *                                  into right's same chunk, atomic add
 *   AG step s = 1..N-1, row N-2+s: NeighborBarrier; push chunk (me-s+1)
 *                                  mod N into right's same chunk
 *   final: NeighborBarrier on row 2(N-1)
 *   epilogue: -1 on every non-self cell of all 2(N-1)+1 rows
 *
 * The epilogue is the RoundBarrier kernel's, which credited every non-self
 * cell of a row once; the neighbour barrier does not, so the signal is not
 * all-zero after a call:
 *   N = 2: left and right are the same peer, which is notified twice per
 *          row: every row keeps +1 after the call, and the next call's
 *          waits pass on that stale credit (the barrier does not hold);
 *   N = 3: left and right are the two others: balanced, zero again;
 *   N >= 4: a non-neighbour cell gets no credit and the -1: it drifts by
 *          -1 per call (the waits never look at it, so nothing blocks).
 * colldb runs it exactly as written; lint_coll_signal() and diagnose name
 * it (docs/protocols.md, scripts/lessons/13-neighbour-barrier.coll).
 *
 * The kernel's 256-element tiles carry no synchronisation: one put per
 * step.  The guards are the builtin ring's (N <= 1 or N > 16: return at
 * once, an empty program; SIZE % N is validated).
 */
#include <stdio.h>

#include "coll-int.h"

static void
neighbour_barrier(struct emit *e, int row, const char *phase,
    const char *span)
{
	int n = e->n, left = (e->me - 1 + n) % n, right = (e->me + 1) % n;
	uint64_t base = e->a->sig.off + 4 * (uint64_t)row * e->a->sig.shape[1];
	char name[96];
	uint32_t ph = prog_str(e->p, phase), nn, nw;

	snprintf(name, sizeof name, "%s.notify", span);
	nn = prog_str(e->p, name);
	snprintf(name, sizeof name, "%s.wait", span);
	nw = prog_str(e->p, name);
	emit_signal(e, UOP_NOTIFY, left, base + 4 * (uint64_t)e->me, 1,
	    NOTIFY_ADD, UOP_F_BARRIER, nn, ph);
	emit_signal(e, UOP_NOTIFY, right, base + 4 * (uint64_t)e->me, 1,
	    NOTIFY_ADD, 0, nn, ph);
	emit_signal(e, UOP_WAIT, left, base + 4 * (uint64_t)left, 1, CMP_GE, 0,
	    nw, ph);
	emit_signal(e, UOP_WAIT, right, base + 4 * (uint64_t)right, 1, CMP_GE, 0,
	    nw, ph);
}

void
coll_build_allreduce_ring_neighbour(struct emit *e)
{
	const struct win_ref *b = &e->a->buf;
	int n = e->n, right = (e->me + 1) % n, row = 0;
	uint64_t ce, bytes;
	char phase[32], span[64];

	if (n <= 1 || n > COLL_BUILTIN_MAX_RANKS || b->count % (uint64_t)n != 0)
		return;
	ce = b->count / (uint64_t)n;
	bytes = ce * dtype_size(b->dtype);
	for (int step = 1; step < n; step++, row++) {
		uint64_t off = b->off + (uint64_t)((e->me - step + n) % n) * bytes;

		snprintf(phase, sizeof phase, "rs row %d", row);
		snprintf(span, sizeof span, "%s.rs.row%d", e->coll, row);
		neighbour_barrier(e, row, phase, span);
		emit_put(e, right, off, off, ce, phase, "%s.push", span);
		e->p->ops[e->p->nops - 1].op = ATOMIC_ADD;
	}
	for (int step = 1; step < n; step++, row++) {
		uint64_t off = b->off + (uint64_t)((e->me - step + 1 + n) % n) *
		    bytes;

		snprintf(phase, sizeof phase, "ag row %d", row);
		snprintf(span, sizeof span, "%s.ag.row%d", e->coll, row);
		neighbour_barrier(e, row, phase, span);
		emit_put(e, right, off, off, ce, phase, "%s.push", span);
	}
	snprintf(span, sizeof span, "%s.final.row%d", e->coll, row);
	neighbour_barrier(e, row, "final", span);
	for (int rr = 0; rr <= row; rr++)
		emit_epilogue(e, emit_ring_row(e, (uint64_t)rr), 1);
}
