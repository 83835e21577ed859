/*
 * stops.c - a stop at a breakpoint is an event, by any rank, said once:
 * a rank another rank's notify (or a by-hand notify, or others' continue)
 * lets run into a breakpoint says so at the next report, or while the
 * prompt waits.
 */
#include "out/out.h"
#include "session-int.h"

/* Rank r is stopped at a breakpoint: that stop's key, or 0. */
static int
break_stop(struct session *s, int r, uint32_t *tag, uint64_t *progress)
{
	struct view_board b;

	view_board(&s->view, r, &b);
	if (!rank_alive(s, r) || b.state != RS_STOPPED ||
	    b.stop_reason != STOP_BREAK)
		return 0;
	*tag = b.prog_tag;
	*progress = b.progress;
	return 1;
}

void
break_stop_said(struct session *s, int r)
{
	struct rankproc *rp = &s->rp[r];

	if (break_stop(s, r, &rp->stop_said_tag, &rp->stop_said_progress))
		rp->stop_said = 1;
}

void
report_break_stops(struct session *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (int r = 0; r < s->nranks; r++) {
		struct rankproc *rp = &s->rp[r];
		uint32_t tag;
		uint64_t progress;

		if (!break_stop(s, r, &tag, &progress) ||
		    (rp->stop_said && rp->stop_said_tag == tag &&
			rp->stop_said_progress == progress))
			continue;
		strbuf_reset(&sb);
		describe_rank(s, r, &sb, 1);
		out_event(r, "[rank %d] stopped before %s", r, sb.buf);
		break_stop_said(s, r);
	}
	strbuf_release(&sb);
}
