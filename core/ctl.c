/* ctl.c - the shell's side of the step gate; see ctl.h for the protocol. */
#include <stddef.h>
#include <string.h>

#include "ctl.h"
#include "futex.h"

void
ctl_kick(struct seg *sg, int r)
{
	struct seg_rank *b = seg_board(sg, r);

	atomic_fetch_add(&b->ctl, 1);
	futex_wake((void *)&b->ctl, 1);
}

int
ctl_acted(struct seg *sg, int r)
{
	struct seg_rank *b = seg_board(sg, r);

	return atomic_load(&b->ctl_seen) == atomic_load(&b->ctl);
}

/* Rule 3: the flag, the gate, the wait cell, the kick. */
static void
flag_and_wake(struct seg *sg, int r, _Atomic uint32_t *flag1,
    _Atomic uint32_t *flag2)
{
	struct seg_rank *b = seg_board(sg, r);

	atomic_store(flag1, 1);
	if (flag2 != NULL)
		atomic_store(flag2, 1);
	atomic_store(&sg->h->gate_active, 1);
	seg_cell_wake(sg, r, atomic_load(&b->wait_off));
	ctl_kick(sg, r);
}

void
ctl_interrupt(struct seg *sg, int r)
{
	flag_and_wake(sg, r, &seg_board(sg, r)->interrupt, NULL);
}

void
ctl_abandon(struct seg *sg, int r)
{
	flag_and_wake(sg, r, &seg_board(sg, r)->abort, NULL);
}

void
ctl_cancel(struct seg *sg, int r)
{
	struct seg_rank *b = seg_board(sg, r);

	flag_and_wake(sg, r, &b->abort, &b->interrupt);
}

void
ctl_cancel_clear(struct seg *sg, int r)
{
	struct seg_rank *b = seg_board(sg, r);

	atomic_store(&b->abort, 0);
	atomic_store(&b->interrupt, 0);
}

void
ctl_release(struct seg *sg, int r, int stepping, uint32_t n)
{
	struct seg_rank *b = seg_board(sg, r);

	atomic_store(&b->credits, stepping ? n : 0);
	atomic_store(&b->mode, stepping ? RUN_STEP : RUN_FREE);
	atomic_store(&b->skip_pc, atomic_load(&b->pc) + 1);
}

void
ctl_step_mode(struct seg *sg, int r)
{
	atomic_store(&seg_board(sg, r)->mode, RUN_STEP);
}

int
ctl_gate_needed(struct seg *sg)
{
	for (int i = 0; i < SEG_MAX_BREAKS; i++) {
		if (sg->h->breaks[i].id != 0)
			return 1;
	}
	for (int r = 0; r < sg->nranks; r++) {
		struct seg_rank *b = seg_board(sg, r);

		if (atomic_load(&b->mode) == RUN_STEP ||
		    atomic_load(&b->interrupt) || atomic_load(&b->abort))
			return 1;
	}
	return 0;
}

void
ctl_set_gate(struct seg *sg, int active)
{
	atomic_store(&sg->h->gate_active, active != 0);
}

void
ctl_break_set(struct seg *sg, struct seg_break *slot, const struct seg_break *nb)
{
	(void)sg;
	memcpy((char *)slot + sizeof slot->id, (const char *)nb + sizeof nb->id,
	    offsetof(struct seg_break, hits) - sizeof nb->id);
	atomic_store(&slot->hits, 0);
	atomic_store((_Atomic uint32_t *)&slot->id, nb->id);
}

void
ctl_break_clear(struct seg *sg, struct seg_break *slot)
{
	(void)sg;
	atomic_store((_Atomic uint32_t *)&slot->id, 0);
}

void
ctl_breaks_changed(struct seg *sg)
{
	atomic_fetch_add(&sg->h->break_seq, 1);
}

void
ctl_set_wait_giveup(struct seg *sg, uint32_t n)
{
	atomic_store(&sg->h->wait_giveup, n);
}
