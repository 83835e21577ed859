/*
 * leftover.c - what the last collective on a signal left in it.
 *
 * Every collective's epilogue returns its signal to all-zero, except when
 * it did not finish (interrupted, a rank died) or when its protocol does
 * not balance: PyPTO PR #2280's builtin-neighbour ring credits only the
 * left and right neighbours but takes 1 back from every non-self cell of
 * every row (core/coll/allreduce-ring-neighbour.c).  The lint at the next
 * collective on that signal and `diagnose` name the culprit instead of
 * guessing "an interrupted collective or a raw notify".
 */
#include <stdio.h>
#include <string.h>

#include "diag/diagnose.h"
#include "view/view.h"

#define LEFTOVER_MAX 32

static struct leftover {
	uint64_t off, bytes; /* the signal window */
	struct coll_args a;  /* names cleared */
	char title[64];
	int completed;
	int nranks;
} last[LEFTOVER_MAX];
static size_t nlast;
static int inflight; /* collectives issued and not ended */

/* The collective in progress started on a signal that was not zero. */
static struct {
	int valid;
	uint64_t off, bytes;
	char title[64];
	char sig[SEG_NAME_MAX];
	char why[512];
} started;

void
leftover_note_issue(void)
{
	inflight++;
}

void
leftover_note_start(struct session *s, const struct coll_args *a,
    const char *title, const char *why)
{
	struct seg_window *w = seg_win_at(&s->seg, a->sig.off);

	started.valid = 1;
	started.off = a->sig.off;
	started.bytes = a->sig.count * 4;
	snprintf(started.title, sizeof started.title, "%s", title);
	snprintf(started.sig, sizeof started.sig, "%s",
	    w != NULL ? w->name : "SIG");
	snprintf(started.why, sizeof started.why, "%s", why);
}

void
leftover_note_end(struct session *s, const struct coll_args *a,
    const char *title, int completed)
{
	struct leftover *l = NULL;

	if (started.valid && started.off == a->sig.off)
		started.valid = 0;
	if (completed < 0)
		return; /* it was never sent */
	if (inflight > 0)
		inflight--;
	if (a->sig.count == 0)
		return;
	for (size_t i = 0; i < nlast; i++) {
		if (last[i].off == a->sig.off)
			l = &last[i];
	}
	if (l == NULL && nlast < LEFTOVER_MAX)
		l = &last[nlast++];
	if (l == NULL) {
		memmove(last, last + 1, (LEFTOVER_MAX - 1) * sizeof *last);
		l = &last[LEFTOVER_MAX - 1];
	}
	l->off = a->sig.off;
	l->bytes = a->sig.count * 4;
	l->a = *a;
	coll_args_unname(&l->a);
	snprintf(l->title, sizeof l->title, "%s", title);
	l->completed = completed;
	l->nranks = s->nranks;
}

static const struct leftover *
find(uint64_t off)
{
	for (size_t i = 0; i < nlast; i++) {
		if (off >= last[i].off && off < last[i].off + last[i].bytes)
			return &last[i];
	}
	return NULL;
}

int
leftover_why(struct session *s, uint64_t off, struct strbuf *sb)
{
	const struct leftover *l = find(off);

	(void)s;
	if (l == NULL)
		return 0;
	if (!l->completed) {
		strbuf_addf(sb, "credits left by %s, which did not complete",
		    l->title);
		return 1;
	}
	if (!(l->a.kind == COLL_ALLREDUCE && l->a.neighbour))
		return 0;
	if (l->nranks == 2)
		strbuf_addf(sb,
		    "left by %s (PyPTO PR #2280): at N=2 its neighbour barrier notifies the one peer twice per row (left and right are the same rank) and the epilogue takes back 1, so +1 stays in every row after each call and the next call's waits pass on a stale credit",
		    l->title);
	else
		strbuf_addf(sb,
		    "left by %s (PyPTO PR #2280): its neighbour barrier credits only the left and right neighbours' cells, but the epilogue takes 1 from every non-self cell of every row, so each non-neighbour cell goes down by 1 per call",
		    l->title);
	return 1;
}

void
leftover_diagnose(struct session *s, const struct diag_in *in,
    const struct diag_result *res, struct strbuf *sb)
{
	if (started.valid && inflight > 0) {
		for (size_t i = 0; i < res->nblocked; i++) {
			uint64_t off = in->r[res->blocked[i].rank].wait_off;
			if (off >= started.off &&
			    off < started.off + started.bytes) {
				strbuf_addf(sb,
				    "likely cause: %s started on %s while it was not zero: %s\n",
				    started.title, started.sig, started.why);
				break;
			}
		}
	}
	if (inflight > 0)
		return; /* its epilogue may still come */
	for (size_t i = 0; i < nlast; i++) {
		const struct leftover *l = &last[i];
		struct seg_window *w = seg_win_at(&s->seg, l->off);

		if (w == NULL || w->off != l->off)
			continue; /* freed since */
		for (int r = 0; r < s->nranks; r++) {
			struct strbuf c = STRBUF_INIT, why = STRBUF_INIT;
			uint64_t k;
			int32_t v = 0;

			for (k = 0; k < l->bytes / 4; k++) {
				v = view_cell(&s->view, r, l->off + 4 * k);
				if (v != 0)
					break;
			}
			if (k == l->bytes / 4 ||
			    !leftover_why(s, l->off + 4 * k, &why)) {
				strbuf_release(&why);
				continue;
			}
			describe_cell(&s->view, l->off + 4 * k, 1, &c);
			strbuf_addf(sb,
			    "note: %s is not zero after %s (rank %d: %s = %d): %s\n",
			    w->name, l->title, r, c.buf, v, why.buf);
			strbuf_release(&c);
			strbuf_release(&why);
			break;
		}
	}
}
