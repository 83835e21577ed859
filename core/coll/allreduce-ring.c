/*
 * allreduce-ring.c - ring allreduce: the InCore composite and the builtin.
 *
 * Composite (lower_composite_ops_pass.cpp
 * LowerTensorRingAllReduceRule), signal [2(N-1),N], cell [row,j]:
 *   the target is one [1,SIZE] stream cut into N segments,
 *   segment i = [floor(i*SIZE/N), floor((i+1)*SIZE/N)); for f16 every
 *   boundary is rounded up to 16 elements (32 bytes) and clamped to SIZE.
 *   max_seg = ceil(SIZE/N) (f16: min(SIZE, ceil(SIZE/N) + 15));
 *   chunk = 16 KiB / elem bytes, or max_seg rounded up to 32 bytes when
 *   smaller; C = ceil(max_seg / chunk).  left = (me-1+N) mod N.
 *   RS step s = 0..N-2 on row s, segment (me-s-2) mod N;
 *   AG step s = 0..N-2 on row N-1+s, segment (me-s-1) mod N.
 *   Every step runs C sub-chunks k, each: barrier g=2k+1 (ready), read
 *   left's sub-chunk (RS: acc = own op left; AG: acc = left), barrier
 *   g=2k+2 (read done), store acc into own sub-chunk.
 *   Epilogue: -2C on every non-self cell of every row.
 *
 *   SIZE < N and SIZE not divisible by N: segments differ in length and
 *   may be empty, but PyPTO loops every step over the same C sub-chunks
 *   (the bound is max_seg, not the rank's own segment) and only skips the
 *   data movement of a sub-chunk past the segment's end ("inactive").  So
 *   every rank runs exactly 2C barriers per row and the epilogue's -2C is
 *   right on every row; a builder that skipped empty sub-chunks would
 *   deadlock (a peer waits for credits never sent).  We do the same: the
 *   barriers are always emitted, the data ops only for active sub-chunks.
 *
 * Builtin (allreduce_ring/templates/kernel.cpp.in),
 * signal [2(N-1)+1,N]: segment i = [i*SIZE/N, (i+1)*SIZE/N) (SIZE % N ==
 * 0 is validated), one RoundBarrier (g=1) at the start of each step on its
 * own row; RS step s: own segment (me-s-2) mod N op= left's; AG step s:
 * own segment (me-s-1) mod N = left's; then a final barrier on row
 * 2(N-1) so no rank leaves while a peer still reads; epilogue -1 on every
 * non-self cell of each of the 2(N-1)+1 rows.  N == 1 (and N > 16): the
 * kernel returns at once, so the program is empty.
 *
 * Decisions:
 * - The builtin walks each segment in 256-element tiles with no
 *   synchronisation between tiles, so one reduce (or get) per step is
 *   indistinguishable from the tile loop; we emit one op per step.  It
 *   reduces straight into the own segment, as the kernel's TLOAD/TADD/
 *   TSTORE does, without the accumulator.
 * - The composite's AG also stages through the accumulator (copy from left
 *   before the read-done barrier, store after it), as the lowering does,
 *   so a stepped run shows the store where PyPTO has it.
 * - Composite ring on one rank is rejected by validate.c: its signal would
 *   be [0,1], which cannot be allocated.
 */
#include <stdio.h>

#include "coll-int.h"

struct ring {
	uint64_t size;		/* elements */
	int f16;		/* FP16 boundary rounding */
	uint64_t align;		/* elements per 32 bytes */
};

static uint64_t
seg_begin(const struct emit *e, const struct ring *r, uint64_t i)
{
	uint64_t n = (uint64_t)e->n;

	if (!r->f16)
		return i * r->size / n;
	return MIN(ceil_div(i * r->size, n * r->align) * r->align, r->size);
}

static void
ring_step(struct emit *e, const struct ring *r, int rs, int s, uint64_t chunk,
    uint64_t nchunks)
{
	const struct win_ref *b = &e->a->buf;
	size_t esz = dtype_size(b->dtype);
	int n = e->n, left = (e->me - 1 + n) % n;
	int row = rs ? s : n - 1 + s;
	int seg = rs ? (e->me - s - 2 + 2 * n) % n : (e->me - s - 1 + n) % n;
	uint64_t beg = seg_begin(e, r, (uint64_t)seg);
	uint64_t len = seg_begin(e, r, (uint64_t)seg + 1) - beg;
	struct cellset cs = emit_ring_row(e, (uint64_t)row);
	const char *part = rs ? "rs" : "ag";
	char phase[32];

	snprintf(phase, sizeof phase, "%s row %d", part, row);
	for (uint64_t k = 0; k < nchunks; k++) {
		uint64_t sub = k * chunk;
		int active = sub < len;
		uint64_t cnt = active ? MIN(chunk, len - sub) : 0;
		uint64_t off = b->off + (beg + sub) * esz;
		unsigned long long kk = k;

		emit_barrier(e, cs, (int32_t)(2 * k + 1), phase,
		    "%s.%s.row%d.chunk%llu.ready", e->coll, part, row, kk);
		if (active && rs) {
			emit_copy(e, SP_ACC, 0, SP_OWN, off, e->me, cnt, phase,
			    "%s.%s.row%d.chunk%llu.load", e->coll, part, row,
			    kk);
			emit_reduce(e, SP_ACC, 0, SP_PEER, off, left, cnt, phase,
			    "%s.%s.row%d.chunk%llu.reduce", e->coll, part, row,
			    kk);
		} else if (active) {
			emit_copy(e, SP_ACC, 0, SP_PEER, off, left, cnt, phase,
			    "%s.%s.row%d.chunk%llu.load", e->coll, part, row,
			    kk);
		}
		emit_barrier(e, cs, (int32_t)(2 * k + 2), phase,
		    "%s.%s.row%d.chunk%llu.read", e->coll, part, row, kk);
		if (active) {
			emit_copy(e, SP_OWN, off, SP_ACC, 0, e->me, cnt, phase,
			    "%s.%s.row%d.chunk%llu.store", e->coll, part, row,
			    kk);
		}
	}
}

static void
composite(struct emit *e)
{
	const struct win_ref *b = &e->a->buf;
	size_t esz = dtype_size(b->dtype);
	struct ring r = { b->count, b->dtype == DT_F16, COLL_ALIGN_BYTES / esz };
	uint64_t n = (uint64_t)e->n;
	uint64_t max_seg = ceil_div(r.size, n);
	uint64_t chunk = COLL_CHUNK_BYTES / esz, nchunks;

	if (r.f16)
		max_seg = MIN(r.size, max_seg + r.align - 1);
	if (max_seg > 0 && max_seg < chunk)
		chunk = round_up(max_seg, r.align);
	nchunks = ceil_div(max_seg, chunk);
	e->p->acc_bytes = chunk * dtype_size(dtype_acc(b->dtype));
	for (int s = 0; s < e->n - 1; s++)
		ring_step(e, &r, 1, s, chunk, nchunks);
	for (int s = 0; s < e->n - 1; s++)
		ring_step(e, &r, 0, s, chunk, nchunks);
	for (uint64_t row = 0; row < e->a->sig.shape[0]; row++)
		emit_epilogue(e, emit_ring_row(e, row), (int32_t)(2 * nchunks));
}

static void
builtin(struct emit *e)
{
	const struct win_ref *b = &e->a->buf;
	int n = e->n, left = (e->me - 1 + n) % n, row = 0;
	uint64_t ce, segbytes;
	char phase[32];

	if (n <= 1 || n > COLL_BUILTIN_MAX_RANKS || b->count % (uint64_t)n != 0)
		return;
	ce = b->count / (uint64_t)n;
	segbytes = ce * dtype_size(b->dtype);
	for (int step = 1; step < n; step++, row++) {
		uint64_t off = b->off + (uint64_t)((e->me - step - 1 + 2 * n) % n) *
		    segbytes;

		snprintf(phase, sizeof phase, "rs row %d", row);
		emit_barrier(e, emit_ring_row(e, (uint64_t)row), 1, phase,
		    "%s.rs.row%d", e->coll, row);
		emit_reduce(e, SP_OWN, off, SP_PEER, off, left, ce, phase,
		    "%s.rs.row%d.reduce", e->coll, row);
	}
	for (int step = 1; step < n; step++, row++) {
		uint64_t off = b->off + (uint64_t)((e->me - step + n) % n) *
		    segbytes;

		snprintf(phase, sizeof phase, "ag row %d", row);
		emit_barrier(e, emit_ring_row(e, (uint64_t)row), 1, phase,
		    "%s.ag.row%d", e->coll, row);
		emit_get(e, off, left, off, ce, phase, "%s.ag.row%d.get",
		    e->coll, row);
	}
	emit_barrier(e, emit_ring_row(e, (uint64_t)row), 1, "final",
	    "%s.final.row%d", e->coll, row);
	for (int rr = 0; rr <= row; rr++)
		emit_epilogue(e, emit_ring_row(e, (uint64_t)rr), 1);
}

void
coll_build_allreduce_ring(struct emit *e)
{
	if (e->a->impl == IMPL_BUILTIN)
		builtin(e);
	else
		composite(e);
}
