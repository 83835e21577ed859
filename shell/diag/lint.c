/*
 * lint.c - warnings at the moment a command matches a known failure
 * pattern (docs/debugging.md, "Lint warnings"), before the hang shows:
 * tag 0 in a Set handshake, set on a cell several ranks write, == on a
 * counter several ranks add to, a raw signal reused, put after notify.
 * Warnings only: the command still runs (sometimes that is the point of
 * a lesson).
 */
#include <stdlib.h>
#include <string.h>

#include "diag/diagnose.h"
#include "out/out.h"
#include "xmalloc.h"

/* The first WAIT on off (or NOTIFY to peer's off, by kind) rank r has
 * still to run, into *u: u, or NULL if there is none. */
static const struct uop *
pending(struct session *s, int r, enum uop_kind kind, uint64_t off, int peer,
    struct uop *u)
{
	struct view_board b;

	view_board(&s->view, r, &b);
	for (struct job *j = rank_job(s, r); j != NULL; j = j->next) {
		size_t i = 0;
		if (j == rank_job(s, r) && b.prog_tag == j->tag &&
		    b.state != RS_IDLE)
			i = b.pc;
		if (j->prog != NULL &&
		    prog_find(j->prog, i, kind, off,
			kind == UOP_WAIT ? -1 : peer, u))
			return u;
	}
	return NULL;
}

static const struct diag_event *
last_notify(struct session *s, int target, uint64_t off, int *writers, int *sets)
{
	const struct diag_event *last = NULL;
	uint8_t *seen = xcalloc((size_t)s->nranks, 1);

	*writers = *sets = 0;
	for (size_t i = 0; i < s->nhist; i++) {
		const struct diag_event *e = &s->hist[i];
		if (e->kind != UOP_NOTIFY || e->target != target || e->off != off)
			continue;
		last = e;
		if (e->writer >= 0 && e->writer < s->nranks && !seen[e->writer]) {
			seen[e->writer] = 1;
			(*writers)++;
		}
		*sets += e->op == NOTIFY_SET;
	}
	free(seen);
	return last;
}

/* A deferred condition of rank r on cell off (pending or carried). */
static const struct seg_defer *
deferred_on(struct session *s, int r, uint64_t off)
{
	const struct seg_defer *d[DEFER_MAX];
	size_t n = session_defers(s, r, d, DEFER_MAX);

	for (size_t i = 0; i < n; i++) {
		if (d[i]->off == off)
			return d[i];
	}
	return NULL;
}

/*
 * defer_wait polls unsigned: a negative cell reads as a huge count and
 * satisfies any condition, which a signed wait would never do.
 */
void
lint_defer(struct session *s, int rank, uint64_t off, int32_t expected)
{
	int32_t now = 0;
	struct strbuf c = STRBUF_INIT;

	now = view_cell(&s->view, rank, off);
	if (now >= 0)
		return;
	describe_cell(&s->view, off, 1, &c);
	out_warning("%s of rank %d holds %d: defer_wait compares unsigned, so it reads as %u and '>= %d' already holds (a signed wait would block)",
	    c.buf, rank, now, (uint32_t)now, expected);
	strbuf_release(&c);
}

static void
lint_notify_defer(struct session *s, int peer, uint64_t off, enum notify_op op,
    int32_t value)
{
	const struct seg_defer *d = deferred_on(s, peer, off);
	int32_t now = 0;
	int64_t after;
	struct strbuf c = STRBUF_INIT;

	if (d == NULL)
		return;
	now = view_cell(&s->view, peer, off);
	after = op == NOTIFY_SET ? value : (int64_t)now + value;
	if (after >= 0 || after < INT32_MIN)
		return;
	describe_cell(&s->view, off, 1, &c);
	out_warning("%s of rank %d goes to %lld, and rank %d defers on it (>= %d): compared unsigned, that is %u, so the condition holds (a signed wait would not)",
	    c.buf, peer, (long long)after, peer, d->expected,
	    (uint32_t)(int32_t)after);
	strbuf_release(&c);
}

void
lint_notify(struct session *s, int from, int peer, uint64_t off,
    enum notify_op op, int32_t value)
{
	struct strbuf c = STRBUF_INIT;
	struct uop wu, nu;
	const struct uop *w = pending(s, peer, UOP_WAIT, off, -1, &wu);
	const struct diag_event *lw;
	int writers, sets, other = -1;

	if (s->sink != NULL)
		return; /* explore builds programs; nothing runs live */
	lint_notify_defer(s, peer, off, op, value);
	describe_cell(&s->view, off, 1, &c);
	if (!rank_alive(s, peer))
		out_warning("rank %d is %s: the notify lands in its window, but nobody will read it",
		    peer, rank_state_name(rank_state_of(s, peer)));
	if (op == NOTIFY_SET && w != NULL &&
	    !wait_cmp_holds(w->op, value, w->value))
		out_warning("set with value %d on a cell that rank %d awaits with %s %d does not release it",
		    value, peer, wait_cmp_name(w->op), w->value);
	lw = last_notify(s, peer, off, &writers, &sets);
	for (size_t i = 0; i < s->nhist; i++) {
		const struct diag_event *e = &s->hist[i];
		if (e->kind == UOP_NOTIFY && e->target == peer &&
		    e->off == off && e->writer != from)
			other = e->writer;
	}
	for (int q = 0; q < s->nranks && other < 0; q++) {
		if (q != from && q != peer &&
		    pending(s, q, UOP_NOTIFY, off, peer, &nu) != NULL)
			other = q;
	}
	if (other >= 0 && (op == NOTIFY_SET || sets > 0))
		out_warning("%s on %s of rank %d, which rank %d also writes: with several writers the last set wins; use add for shared cells and never mix set with add",
		    op == NOTIFY_SET ? "set" : "add", c.buf, peer, other);
	(void)lw;
	strbuf_release(&c);
}

void
lint_wait(struct session *s, int rank, uint64_t off, enum wait_cmp cmp,
    int32_t expected)
{
	struct strbuf c = STRBUF_INIT;
	const struct diag_event *lw;
	int32_t now = view_cell(&s->view, rank, off);
	int writers, sets, waited = 0, reuse = 0;

	if (s->sink != NULL)
		return;
	describe_cell(&s->view, off, 1, &c);
	lw = last_notify(s, rank, off, &writers, &sets);
	for (size_t i = 0; i < s->nhist; i++) {
		const struct diag_event *e = &s->hist[i];
		if (e->kind != UOP_WAIT || e->writer != rank || e->off != off)
			continue;
		waited = 1;
		/* what released it would release this one too: not a wait
		 * for the next generation (>= 2 after >= 1) */
		reuse = wait_cmp_holds(cmp, e->value, expected);
	}
	if (lw != NULL && lw->op == NOTIFY_SET && lw->value == now &&
	    !wait_cmp_holds(cmp, now, expected) && now == 0)
		out_warning("%s of rank %d was set to 0 by rank %d; a wait %s %d is not released by it (tag 0)",
		    c.buf, rank, lw->writer, wait_cmp_name(cmp), expected);
	else if (waited && now != 0 &&
	    ((reuse && wait_cmp_holds(cmp, now, expected)) ||
		(cmp == CMP_EQ && now > expected)))
		out_warning("%s of rank %d holds %d and was waited on before: a raw signal is single-shot (use a fresh cell, or wait for the next generation); %s",
		    c.buf, rank, now,
		    wait_cmp_holds(cmp, now, expected) ?
			"this wait passes at once" :
			"this == can never hold");
	if (cmp == CMP_EQ && writers >= 2 && sets == 0)
		out_warning("== on %s of rank %d, which %d ranks add to: the count can overshoot; wait with >=",
		    c.buf, rank, writers);
	strbuf_release(&c);
}

int
lint_put(struct session *s, int from, int peer, uint64_t off, uint64_t bytes)
{
	const struct diag_event *last = NULL;
	struct uop wu;

	if (s->sink != NULL)
		return 0;
	(void)off;
	(void)bytes;
	if (!rank_alive(s, peer))
		out_warning("rank %d is %s: the put lands in its window, but nobody will read it",
		    peer, rank_state_name(rank_state_of(s, peer)));
	for (size_t i = 0; i < s->nhist; i++) {
		const struct diag_event *e = &s->hist[i];
		if (e->writer == from && e->target == peer &&
		    (e->kind == UOP_NOTIFY || e->kind == UOP_PUT))
			last = e;
	}
	/* A peer already waiting on that cell again waits for the next
	 * round: this put precedes that round's notify, which is right. */
	if (last != NULL && last->kind == UOP_NOTIFY && rank_alive(s, peer) &&
	    pending(s, peer, UOP_WAIT, last->off, -1, &wu) == NULL) {
		struct strbuf c = STRBUF_INIT;
		describe_cell(&s->view, last->off, 1, &c);
		out_warning("put after notify: rank %d notified rank %d (%s) before this put; rank %d may act on the notify before the data lands: put first, then notify",
		    from, peer, c.buf, peer);
		strbuf_release(&c);
		return 1;
	}
	return 0;
}

void
lint_coll_signal(struct session *s, const struct coll_args *a, const char *title)
{
	struct strbuf c = STRBUF_INIT;

	if (a->sig.count == 0 || a->sig.dtype != DT_I32)
		return;
	for (int r = 0; r < s->nranks; r++) {
		uint64_t at;

		/* the holes of a signal never written are not even read */
		if (view_first_nonzero(&s->view, r, a->sig.off,
			4 * a->sig.count, &at) == 1) {
			uint64_t off = at - (at - a->sig.off) % 4;
			int32_t cell = view_cell(&s->view, r, off);
			struct strbuf why = STRBUF_INIT;

			describe_cell(&s->view, off, 1, &c);
			if (!leftover_why(s, off, &why))
				strbuf_addstr(&why,
				    "credits left by an interrupted collective or a raw notify");
			out_warning("%s starts on a signal that is not zero (rank %d: %s = %d): %s; its barriers may pass early (zero it first: reset %s)",
			    title, r, c.buf, cell, why.buf,
			    a->sig.name != NULL ? a->sig.name : "SIG");
			{
				struct strbuf at2 = STRBUF_INIT;
				strbuf_addf(&at2, "rank %d's %s was %d, %s", r,
				    c.buf, cell, why.buf);
				leftover_note_start(s, a, title, at2.buf);
				strbuf_release(&at2);
			}
			strbuf_release(&why);
			strbuf_release(&c);
			return;
		}
	}
}
