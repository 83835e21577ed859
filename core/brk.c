/* brk.c - breakpoint matching at the gate; see brk.h. */
#include <string.h>

#include "brk.h"

static int
rank_bit(const struct seg_break *bp, int rank)
{
	uint64_t w = __atomic_load_n(&bp->ranks[rank / 64], __ATOMIC_RELAXED);

	return (w >> (rank % 64)) & 1;
}

int
brk_site_matches(const struct seg_break *bp, const struct site *site)
{
	if (site == NULL || site->fn == FN_NONE)
		return 0;
	if (bp->fn != FN_NONE && bp->fn != site->fn)
		return 0;
	if (bp->file[0] != '\0' &&
	    strncmp(bp->file, site->file, sizeof bp->file) != 0)
		return 0;
	if (bp->flags & BRK_LINE_AFTER)
		return site->line > bp->line;
	if (bp->line_end > bp->line) /* a call over several lines */
		return bp->line <= site->line && site->line <= bp->line_end;
	return bp->line == 0 || bp->line == site->line;
}

/* Elements [i0, i1) of window w: do they hold a cell bp names? */
static int
elems_match(const struct seg_break *bp, const struct seg_window *w, uint64_t i0,
    uint64_t i1)
{
	uint64_t cols = w->ndim >= 2 ? w->count / w->shape[0] : 1;
	uint64_t c0, c1, col;

	if (bp->hi > 0)
		return i0 < bp->hi && bp->lo < i1;
	if (bp->row >= 0 && bp->col >= 0) {
		uint64_t k = (uint64_t)bp->row * cols + (uint64_t)bp->col;
		return i0 <= k && k < i1;
	}
	if (bp->row >= 0)
		return i0 / cols <= (uint64_t)bp->row &&
		    (uint64_t)bp->row <= (i1 - 1) / cols;
	if (bp->col < 0)
		return 1; /* the whole window */
	if (i1 - i0 >= cols)
		return 1;
	c0 = i0 % cols;
	c1 = (i1 - 1) % cols;
	col = (uint64_t)bp->col;
	return c0 <= c1 ? c0 <= col && col <= c1 : col >= c0 || col <= c1;
}

/* Bytes [off, off + bytes) of every rank's area: cells of bp? */
static int
range_match(struct seg *sg, const struct seg_break *bp, uint64_t off,
    uint64_t bytes)
{
	const struct seg_window *w = seg_win_at(sg, off);
	uint64_t esz, i0, n;

	if (w == NULL)
		return 0;
	if (bp->win[0] != '\0' ? strncmp(bp->win, w->name, sizeof bp->win) != 0 :
				 !(w->ndim == 2 && w->dtype == DT_I32))
		return 0;
	esz = dtype_size((enum dtype)w->dtype);
	i0 = (off - w->off) / esz;
	n = (bytes + esz - 1) / esz;
	if (n == 0)
		n = 1;
	if (i0 + n > w->count)
		n = w->count - i0;
	return elems_match(bp, w, i0, i0 + n);
}

int
brk_touches(struct seg *sg, const struct seg_break *bp, const struct uop *u)
{
	uint64_t bytes = u->count * dtype_size((enum dtype)u->dtype);

	switch (u->kind) {
	case UOP_NOTIFY:
	case UOP_WAIT:
		return range_match(sg, bp, u->dst, 4);
	case UOP_PUT:
	case UOP_GET:
		return range_match(sg, bp, u->dst, bytes) ||
		    range_match(sg, bp, u->src, bytes);
	case UOP_REDUCE:
	case UOP_COPY:
		return (u->dsp != SP_ACC && range_match(sg, bp, u->dst, bytes)) ||
		    (u->ssp != SP_ACC && range_match(sg, bp, u->src, bytes));
	case UOP_FILL:
		return range_match(sg, bp, u->dst, bytes);
	default:
		return 0;
	}
}

/* Whether entry bp (in use, for rank) stops rank before u at pc. */
static int
entry_matches(struct seg *sg, const struct seg_break *bp, int rank,
    const struct site *site, uint32_t pc, const struct uop *u)
{
	if (!(bp->kinds & (1u << u->kind)) &&
	    !((bp->kinds & BREAK_BARRIER) && (u->flags & UOP_F_BARRIER)))
		return 0;
	if ((bp->flags & BRK_AT_CALL) && (pc != 0 || !brk_site_matches(bp, site)))
		return 0;
	if ((bp->flags & BRK_CELLS) && !brk_touches(sg, bp, u))
		return 0;
	if (bp->has_cond) {
		int32_t v = seg_cell_get(sg, rank, bp->cell_off);
		if (!wait_cmp_holds(bp->cmp, v, bp->value))
			return 0;
	}
	return 1;
}

/*
 * The first matching entry reports the stop.  An until/advance entry
 * that matches here too is spent for this rank all the same: the rank
 * has reached its location (a breakpoint on the same line reported the
 * stop), and must not stop there a second time on a later pass.
 */
uint32_t
brk_match(struct seg *sg, int rank, const struct site *site, uint32_t pc,
    const struct uop *u)
{
	struct seg_header *h = sg->h;
	uint64_t bit = 1ull << (rank % 64);
	uint32_t found = 0;

	for (int i = 0; i < SEG_MAX_BREAKS; i++) {
		struct seg_break *bp = &h->breaks[i];
		uint32_t id = atomic_load_explicit((_Atomic uint32_t *)&bp->id,
		    memory_order_acquire);

		if (id == 0 || !rank_bit(bp, rank) ||
		    !entry_matches(sg, bp, rank, site, pc, u))
			continue;
		if (bp->flags & BRK_ONCE_PER_RANK) {
			uint64_t was = __atomic_fetch_and(&bp->ranks[rank / 64],
			    ~bit, __ATOMIC_ACQ_REL);

			if (!(was & bit))
				continue; /* this rank's stop was taken */
			if (found == 0) {
				atomic_fetch_add(&bp->hits, 1);
				found = id;
			}
			continue;
		}
		if (found != 0)
			continue;
		if (bp->flags & BRK_ONCE) {
			uint64_t none = 0;
			if (!atomic_compare_exchange_strong(&bp->hits, &none, 1))
				continue; /* spent: another rank took it */
			found = id;
			continue;
		}
		atomic_fetch_add(&bp->hits, 1);
		found = id;
	}
	return found;
}
