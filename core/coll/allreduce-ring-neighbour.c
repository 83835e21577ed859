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
#include <string.h>

#include "coll-int.h"

/*
 * Rank me's program: 2(N-1) steps of unit = 5 ops (notify left, notify
 * right, wait left, wait right, the push), the final barrier (4 ops), the
 * epilogues of the 2N-1 rows (N-1 ops each).
 */
#define NB_UNIT 5

static void
nb_init(struct coll_desc *d)
{
	const struct win_ref *b = &d->a.buf;
	int n = d->n;

	if (n <= 1 || n > COLL_BUILTIN_MAX_RANKS || b->count % (uint64_t)n != 0) {
		d->empty = 1;
		return;
	}
	d->chunk = b->count / (uint64_t)n;
	d->seg_bytes = d->chunk * d->esz;
}

static uint64_t
nb_len(const struct coll_desc *d, int me)
{
	uint64_t n = (uint64_t)d->n;

	(void)me;
	return 2 * (n - 1) * NB_UNIT + 4 + (2 * n - 1) * (n - 1);
}

/* Op o (< 4) of the neighbour barrier on row, at pc start + o. */
static void
nb_barrier(const struct coll_desc *d, int me, uint64_t row, uint64_t start,
    uint64_t o, struct blk_name span, struct blk_name ph, struct blk *b)
{
	int n = d->n, left = (me - 1 + n) % n, right = (me + 1) % n;
	int peer = o % 2 == 0 ? left : right;
	uint64_t base = d->a.sig.off + 4 * row * d->a.sig.shape[1];

	memset(b, 0, sizeof *b);
	b->start = start + o;
	b->len = 1;
	b->rep = BLK_ONE;
	b->me = me;
	b->t.dtype = DT_I32;
	b->t.count = 1;
	b->t.value = 1;
	b->t.peer = peer;
	if (o < 2) {
		b->t.kind = UOP_NOTIFY;
		b->t.op = NOTIFY_ADD;
		b->t.flags = o == 0 ? UOP_F_BARRIER : 0;
		b->t.dst = base + 4 * (uint64_t)me;
		b->name = bname_sfx(span, ".notify");
	} else {
		b->t.kind = UOP_WAIT;
		b->t.op = CMP_GE;
		b->t.dst = base + 4 * (uint64_t)peer;
		b->name = bname_sfx(span, ".wait");
	}
	b->phase = ph;
}

static void
nb_block(const struct coll_desc *d, int me, uint64_t pc, const struct blk *hint,
    struct blk *b)
{
	uint64_t n = (uint64_t)d->n, steps = 2 * (n - 1) * NB_UNIT;
	int right = (me + 1) % d->n;

	(void)hint;
	if (pc < steps) {
		uint64_t row = pc / NB_UNIT, o = pc % NB_UNIT;
		int rs = row < n - 1;
		int64_t step = (int64_t)(rs ? row + 1 : row - (n - 1) + 1);
		int64_t seg = rs ? (me - step + d->n) % d->n :
				   (me - step + 1 + d->n) % d->n;
		uint64_t off = d->a.buf.off + (uint64_t)seg * d->seg_bytes;
		const char *part = rs ? "rs" : "ag";
		struct blk_name span =
		    bname("%s.%s.row%d", d->coll, part, (int64_t)row, 0);
		struct blk_name ph = bname("%s row %d", part, 0, (int64_t)row, 0);

		if (o < 4) {
			nb_barrier(d, me, row, pc - o, o, span, ph, b);
			return;
		}
		gen_data(d, me, UOP_PUT, SP_PEER, off, SP_OWN, off, right,
		    d->chunk, pc, bname_sfx(span, ".push"), ph, b);
		b->t.op = rs ? ATOMIC_ADD : ATOMIC_NONE;
		return;
	}
	if (pc - steps < 4) {
		uint64_t row = 2 * (n - 1);

		nb_barrier(d, me, row, steps, pc - steps,
		    bname("%s.final.row%d", d->coll, 0, (int64_t)row, 0),
		    bname("final", 0, 0, 0, 0), b);
		return;
	}
	{
		uint64_t e = pc - steps - 4, row = e / (n - 1);

		gen_epilogue(d, me, gen_ring_row(d, row), 1, pc - e % (n - 1), b);
	}
}

/* Rows 0..2N-3: the step's barrier notifies left then right; final row
 * the same.  A neighbour is notified once (twice on 2 ranks). */
static void
nb_owed(const struct coll_desc *d, int me, uint64_t from, int t, uint64_t off,
    prog_owe_fn fn, void *arg)
{
	uint64_t n = (uint64_t)d->n, row = (off - d->a.sig.off) / 4 / n;
	uint64_t start =
	    row < 2 * (n - 1) ? row * NB_UNIT : 2 * (n - 1) * NB_UNIT;
	int left = (me - 1 + d->n) % d->n, right = (me + 1) % d->n;
	struct prog_owe o = { 0, 0, NOTIFY_ADD, 1 };

	if (row > 2 * (n - 1))
		return;
	for (int i = 0; i < 2; i++) {
		if ((i == 0 ? left : right) != t || start + (uint64_t)i < from)
			continue;
		if (o.count++ == 0)
			o.pc = start + (uint64_t)i;
	}
	if (o.count > 0)
		fn(arg, &o);
}

const struct coll_gen gen_allreduce_ring_neighbour = {
	.init = nb_init,
	.len = nb_len,
	.block = nb_block,
	.owed = nb_owed,
	.cells = CELLS_RING,
};
