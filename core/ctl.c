/* ctl.c - the shell's side of the step gate; see ctl.h for the protocol. */
#include <stddef.h>
#include <string.h>

#include "ctl.h"
#include "futex.h"

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
	atomic_fetch_add(&b->ctl, 1);
	futex_wake((void *)&b->ctl, 1);
}

void
ctl_apply(struct seg *sg, const struct ctl_op *op)
{
	struct seg_header *h = sg->h;
	struct seg_rank *b;
	struct seg_break *slot;

	if (op->kind >= CTL__COUNT)
		return;
	if (op->kind == CTL_GATE) {
		atomic_store(&h->gate_active, op->a != 0);
		return;
	}
	if (op->kind == CTL_WAIT_GIVEUP) {
		atomic_store(&h->wait_giveup, op->a);
		return;
	}
	if (op->kind == CTL_BREAKS_CHANGED) {
		atomic_fetch_add(&h->break_seq, 1);
		return;
	}
	if (op->kind == CTL_BREAK_SET || op->kind == CTL_BREAK_CLEAR) {
		if (op->a >= SEG_MAX_BREAKS)
			return;
		slot = &h->breaks[op->a];
		if (op->kind == CTL_BREAK_CLEAR) {
			atomic_store((_Atomic uint32_t *)&slot->id, 0);
			return;
		}
		/* rule 5: the body first, the id last */
		memcpy((char *)slot + sizeof slot->id,
		    (const char *)&op->brk + sizeof op->brk.id,
		    offsetof(struct seg_break, hits) - sizeof op->brk.id);
		atomic_store(&slot->hits, 0);
		atomic_store((_Atomic uint32_t *)&slot->id, op->brk.id);
		return;
	}
	if (op->rank < 0 || op->rank >= sg->nranks)
		return;
	b = seg_board(sg, op->rank);
	switch (op->kind) {
	case CTL_KICK:
		atomic_fetch_add(&b->ctl, 1);
		futex_wake((void *)&b->ctl, 1);
		break;
	case CTL_INTERRUPT:
		flag_and_wake(sg, op->rank, &b->interrupt, NULL);
		break;
	case CTL_ABANDON:
		flag_and_wake(sg, op->rank, &b->abort, NULL);
		break;
	case CTL_CANCEL:
		flag_and_wake(sg, op->rank, &b->abort, &b->interrupt);
		break;
	case CTL_CANCEL_CLEAR:
		atomic_store(&b->abort, 0);
		atomic_store(&b->interrupt, 0);
		break;
	case CTL_RELEASE:
		atomic_store(&b->credits, op->a ? op->b : 0);
		atomic_store(&b->mode, op->a ? RUN_STEP : RUN_FREE);
		atomic_store(&b->skip_pc, atomic_load(&b->pc) + 1);
		break;
	case CTL_STEP_MODE:
		atomic_store(&b->mode, RUN_STEP);
		break;
	}
}

/* Apply op here and hand it to the ranks elsewhere. */
static void
ctl_do(struct seg *sg, const struct ctl_op *op)
{
	ctl_apply(sg, op);
	if (sg->sync != NULL)
		sg->sync->ctl(sg->sync_arg, op);
}

static void
ctl_rank(struct seg *sg, enum ctl_kind kind, int r, uint32_t a, uint32_t b)
{
	struct ctl_op op;

	memset(&op, 0, sizeof op);
	op.kind = kind;
	op.rank = r;
	op.a = a;
	op.b = b;
	ctl_do(sg, &op);
}

void
ctl_kick(struct seg *sg, int r)
{
	ctl_rank(sg, CTL_KICK, r, 0, 0);
}

int
ctl_acted(struct seg *sg, int r)
{
	struct seg_rank *b = seg_board(sg, r);

	return atomic_load(&b->ctl_seen) == atomic_load(&b->ctl);
}

void
ctl_interrupt(struct seg *sg, int r)
{
	ctl_rank(sg, CTL_INTERRUPT, r, 0, 0);
}

void
ctl_abandon(struct seg *sg, int r)
{
	ctl_rank(sg, CTL_ABANDON, r, 0, 0);
}

void
ctl_cancel(struct seg *sg, int r)
{
	ctl_rank(sg, CTL_CANCEL, r, 0, 0);
}

void
ctl_cancel_clear(struct seg *sg, int r)
{
	ctl_rank(sg, CTL_CANCEL_CLEAR, r, 0, 0);
}

void
ctl_release(struct seg *sg, int r, int stepping, uint32_t n)
{
	ctl_rank(sg, CTL_RELEASE, r, stepping != 0, n);
}

void
ctl_step_mode(struct seg *sg, int r)
{
	ctl_rank(sg, CTL_STEP_MODE, r, 0, 0);
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
	/* the ranks elsewhere hear only of a change */
	if (sg->sync != NULL &&
	    atomic_load(&sg->h->gate_active) == (uint32_t)(active != 0))
		return;
	ctl_rank(sg, CTL_GATE, -1, active != 0, 0);
}

void
ctl_break_set(struct seg *sg, struct seg_break *slot, const struct seg_break *nb)
{
	struct ctl_op op;

	memset(&op, 0, sizeof op);
	op.kind = CTL_BREAK_SET;
	op.rank = -1;
	op.a = (uint32_t)(slot - sg->h->breaks);
	memcpy(&op.brk, nb, offsetof(struct seg_break, hits));
	ctl_do(sg, &op);
}

void
ctl_break_clear(struct seg *sg, struct seg_break *slot)
{
	ctl_rank(sg, CTL_BREAK_CLEAR, -1, (uint32_t)(slot - sg->h->breaks), 0);
}

void
ctl_breaks_changed(struct seg *sg)
{
	ctl_rank(sg, CTL_BREAKS_CHANGED, -1, 0, 0);
}

void
ctl_adopt(struct seg *sg, int r, const struct seg_rank *theirs)
{
	struct seg_rank *b = seg_board(sg, r);

	atomic_store(&b->mode, atomic_load(&theirs->mode));
	atomic_store(&b->credits, atomic_load(&theirs->credits));
	atomic_store(&b->interrupt, atomic_load(&theirs->interrupt));
	atomic_store(&b->abort, atomic_load(&theirs->abort));
	atomic_store(&b->skip_pc, atomic_load(&theirs->skip_pc));
}

void
ctl_set_wait_giveup(struct seg *sg, uint32_t n)
{
	ctl_rank(sg, CTL_WAIT_GIVEUP, -1, n, 0);
}
