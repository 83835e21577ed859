/*
 * diagnose.c - "why is nothing moving", in protocol terms: feed core/diag
 * the session (each rank's state, its wait, every micro-op it will still
 * run, what it already did) and word the answer; the `diagnose` command,
 * `expect hang|nohang`, and the hang watchdog.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag/diagnose.h"
#include "out/group.h"
#include "out/out.h"
#include "proto.h"
#include "user/user.h"
#include "xmalloc.h"

#define HIST_MAX 8192
#define HIST_ROOM (4 * HIST_MAX) /* events the history's buffer holds */

/*
 * The history is a window hist[0..nhist) into a buffer of ahist events
 * that starts hist_off before it.  Past HIST_MAX the oldest quarter goes
 * by moving the window's start; the window is copied back to the buffer's
 * start only when it reaches the end of HIST_ROOM.  (Copying three
 * quarters of the history down at every HIST_MAX / 4 events was a twelfth
 * of the shell's work per call under `colldb run`, callgrind.)
 */
static void
hist_add(struct session *s, const struct diag_event *e)
{
	if (s->nhist == HIST_MAX) {
		s->hist += HIST_MAX / 4;
		s->hist_off += HIST_MAX / 4;
		s->nhist -= HIST_MAX / 4;
	}
	if (s->hist_off + s->nhist == s->ahist) {
		struct diag_event *buf =
		    s->hist != NULL ? s->hist - s->hist_off : NULL;

		if (s->ahist >= HIST_ROOM) {
			memmove(buf, s->hist, s->nhist * sizeof *s->hist);
		} else {
			s->ahist = s->ahist ? s->ahist * 2 : 64;
			buf = xreallocarray(buf, s->ahist, sizeof *s->hist);
			memmove(buf, buf + s->hist_off,
			    s->nhist * sizeof *s->hist);
		}
		s->hist = buf;
		s->hist_off = 0;
	}
	s->hist[s->nhist++] = *e;
	s->hist_added++;
}

/* One op rank r ran, made at site: its event, if it writes or waits
 * (stale: a put lint warned about). */
static void
hist_op(struct session *s, int r, const struct uop *u, const struct site *site,
    int stale)
{
	struct diag_event e;

	memset(&e, 0, sizeof e);
	e.kind = u->kind;
	e.op = u->op;
	e.writer = r;
	e.value = u->value;
	e.off = u->dst;
	e.site = *site;
	switch (u->kind) {
	case UOP_NOTIFY:
		e.target = u->peer;
		e.bytes = 4;
		break;
	case UOP_WAIT:
		e.target = r;
		e.bytes = 4;
		break;
	case UOP_PUT:
		e.target = u->peer;
		e.bytes = u->count * dtype_size(u->dtype);
		e.value = stale;
		break;
	default:
		return;
	}
	hist_add(s, &e);
}

/*
 * A job's writes and waits, oldest first.  A program longer than the
 * history keeps only its last HIST_MAX ops' worth: nothing before them
 * would survive its own recording (a collective on 1024 ranks runs
 * millions of notifies; they are not read back one by one).
 */
void
hist_record(struct session *s, const struct job *j)
{
	uint64_t len = j->prog != NULL ? prog_len(j->prog) : 0, from = 0;
	struct prog_rd rd;

	if (len == 0)
		return;
	prog_rd_init(&rd, j->prog);
	if (len > HIST_MAX) {
		size_t kept = 0;
		for (from = len; from > 0 && kept < HIST_MAX; from--) {
			struct uop u;
			prog_rd_op(&rd, from - 1, &u);
			kept += u.kind == UOP_NOTIFY || u.kind == UOP_WAIT ||
			    u.kind == UOP_PUT;
		}
	}
	for (uint64_t i = from; i < len; i++) {
		struct uop u;

		prog_rd_op(&rd, i, &u);
		hist_op(s, j->rank, &u, &j->site,
		    (j->flags & JOB_STALE_PUT) != 0); /* lint said so */
	}
}

void
hist_forget(struct session *s, uint64_t lo, uint64_t hi)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nhist; i++) {
		const struct diag_event *e = &s->hist[i];
		if (e->off < hi && lo < e->off + e->bytes)
			continue;
		s->hist[k++] = *e;
	}
	if (k != s->nhist)
		s->hist_gen++;
	s->nhist = k;
}

static size_t
add_progs(struct diag_prog **v, size_t n, struct job *j, uint32_t pc0)
{
	for (; j != NULL; j = j->next) {
		if (j->prog == NULL)
			continue;
		*v = xreallocarray(*v, n + 1, sizeof **v);
		(*v)[n].p = j->prog;
		(*v)[n].nops = prog_len(j->prog);
		(*v)[n].pc = n == 0 ? MIN(pc0, (*v)[n].nops) : 0;
		(*v)[n].title = j->desc;
		(*v)[n].site = &j->site;
		n++;
	}
	return n;
}

static const struct seg_window *
win_at(void *arg, uint64_t off)
{
	return view_win_at(arg, off);
}

/* Keep, per rank, when it last moved: micro-ops done or a state change
 * (every pump, from the watchdog's hook). */
static void
track_moves(struct session *s, uint64_t now)
{
	for (int q = 0; q < s->nranks; q++) {
		struct rankproc *rp = &s->rp[q];
		struct view_board b;
		uint64_t key;

		view_board(&s->view, q, &b);
		key = b.progress * 31 + b.state_ns;
		if (key != rp->moved_key || rp->moved_ns == 0) {
			rp->moved_key = key;
			rp->moved_ns = now;
		}
	}
}

/* Why rank q cannot move by itself, or NULL: stopped by a signal, held
 * by a debugger away from its gate, or running a call that has made no
 * progress for the watchdog's time (a function that never returns reaches
 * no gate).  A rank stopped at its gate under gdb (`gdb @R`) is stopped:
 * it goes on when the user says so, as without gdb. */
static const char *
stuck_reason(struct session *s, int q, uint64_t now)
{
	struct view_board b;
	struct uop cur;
	char title[SEG_TITLE_MAX];
	double limit = s->set.timeout > 0 ? s->set.timeout : 10;
	int frozen;

	if (!rank_alive(s, q))
		return NULL;
	frozen = rank_frozen(s, q);
	view_board(&s->view, q, &b);
	if (frozen == RANK_FROZEN_SIGNAL)
		return "stopped by a signal";
	if (frozen == RANK_FROZEN_TRACED)
		return b.state == RS_STOPPED ? NULL : "held by a debugger";
	if (b.state != RS_RUNNING || rank_job(s, q) == NULL)
		return NULL;
	view_cur(&s->view, q, &cur, title, sizeof title);
	if (cur.kind != UOP_CALL || s->rp[q].moved_ns == 0 ||
	    (double)(now - s->rp[q].moved_ns) < limit * 1e9)
		return NULL;
	return "call";
}

/* "stopped by a signal (SIGCONT resumes it)", "held by a debugger
 * (detaching the debugger resumes it)", "inside call spin() with no
 * progress for 3 s (interrupt @1 ends it)". */
static void
stuck_text(struct session *s, int q, const char *why, struct strbuf *sb)
{
	struct job *j = rank_job(s, q);
	double secs = (double)(mono_ns() - s->rp[q].moved_ns) / 1e9;

	if (strcmp(why, "call") != 0) {
		strbuf_addf(sb, "%s (%s resumes it)", why,
		    strcmp(why, "held by a debugger") == 0 ?
			"detaching the debugger" :
			"SIGCONT");
		return;
	}
	strbuf_addf(sb, "inside call %s", j != NULL ? j->desc : "?");
	if (s->set.times)
		strbuf_addf(sb, " for %.0f s", secs);
	else
		strbuf_addf(sb, " with no progress for %g s or more",
		    s->set.timeout > 0 ? s->set.timeout : 10);
	strbuf_addf(sb, " (interrupt @%d ends it)", q);
}

void
diag_run(struct session *s, struct diag_result *res, struct diag_in *in)
{
	struct diag_rank *r = xcalloc((size_t)s->nranks, sizeof *r);
	uint64_t now = mono_ns();

	memset(in, 0, sizeof *in);
	in->win_at = win_at;
	in->win_arg = &s->view;
	view_sample(&s->view);
	in->nranks = s->nranks;
	in->r = r;
	in->hist = s->hist;
	in->nhist = s->nhist;
	for (int q = 0; q < s->nranks; q++) {
		struct rankproc *rp = &s->rp[q];
		struct diag_prog *v = NULL;
		struct view_board b;
		size_t n = 0;
		uint32_t pc = 0;

		view_board(&s->view, q, &b);
		r[q].state = b.state;
		/* (a rank the MPI job took down ran until then) */
		r[q].open = s->kind->own_code &&
		    (rank_alive(s, q) || rp->with_job) &&
		    r[q].state != RS_BLOCKED;
		r[q].ended_open =
		    s->kind->own_code && !rank_alive(s, q) && rp->ended_early;
		r[q].secs = (double)(now - b.state_ns) / 1e9;
		r[q].stuck = stuck_reason(s, q, now) != NULL;
		if (r[q].state == RS_BLOCKED) {
			r[q].waiting = 1;
			r[q].wait_off = b.wait_off;
			r[q].cmp = (uint8_t)b.wait_cmp;
			r[q].expected = b.wait_expected;
			r[q].now = view_cell(&s->view, q, r[q].wait_off);
		}
		if (rp->jobs != NULL) {
			if (b.prog_tag == rp->jobs->tag && r[q].state != RS_IDLE)
				pc = b.pc;
			n = add_progs(&v, 0, rp->jobs, pc);
		} else if (rp->orphans != NULL) {
			n = add_progs(&v, 0, rp->orphans, rp->orphan_pc);
		}
		r[q].progs = v;
		r[q].nprogs = n;
	}
	diag_analyze(in, res);
}

void
diag_in_release(struct diag_in *in)
{
	for (int q = 0; q < in->nranks; q++)
		free((void *)in->r[q].progs);
	free((void *)in->r);
	memset(in, 0, sizeof *in);
}

static void
cell_text(struct session *s, uint64_t off, struct strbuf *sb)
{
	describe_cell(&s->view, off, 1, sb);
}

static void
wait_text(struct session *s, const struct diag_rank *r, struct strbuf *sb)
{
	/* only a deferred condition compares unsigned */
	strbuf_addstr(sb, r->cmp == CMP_UGE ? "defer_wait " : "wait ");
	cell_text(s, r->wait_off, sb);
	strbuf_addf(sb, " %s %d", wait_cmp_name(r->cmp), r->expected);
}

/* " at ring.c:40" for a user program's call, else nothing. */
static void
site_at(const struct site *st, struct strbuf *sb)
{
	char loc[SITE_FILE_MAX + 16];

	if (st != NULL && site_text(st, loc, sizeof loc)[0] != '\0')
		strbuf_addf(sb, " at %s", loc);
}

/* The source line of the call rank q runs now, if it is a user call. */
static const struct site *
cur_site(const struct diag_in *in, int q)
{
	return in->r[q].nprogs > 0 ? in->r[q].progs[0].site : NULL;
}

static void
owe_text(struct session *s, const struct diag_in *in,
    const struct diag_block *b, struct strbuf *sb)
{
	int last = -1;

	for (size_t i = 0; i < b->nowes; i++) {
		const struct diag_owe *o = &b->owes[i];
		const struct diag_prog *p = &in->r[o->rank].progs[o->prog];
		int64_t total = 0;
		size_t count = 0;

		if (o->rank == last)
			continue;
		last = o->rank;
		for (size_t k = i; k < b->nowes && b->owes[k].rank == o->rank;
		     k++) {
			total += (int64_t)b->owes[k].value *
			    (int64_t)b->owes[k].count;
			count += b->owes[k].count;
		}
		strbuf_addf(sb, "%srank %d (%s",
		    sb->len && sb->buf[sb->len - 1] != ' ' ? ", " : "", o->rank,
		    rank_state_name(in->r[o->rank].state));
		if (p->nops > 1)
			strbuf_addf(sb, ", %s step %zu/%zu", p->title,
			    o->index + 1, p->nops);
		if (p->nops <= 1 && p->site != NULL && p->site->file[0] != '\0') {
			/* a collective's title already starts with its line */
			strbuf_addch(sb, ',');
			site_at(p->site, sb); /* the line that will send it */
		}
		if (o->op == NOTIFY_SET)
			strbuf_addf(sb, ", will set %d)", o->value);
		else if (count > 1)
			strbuf_addf(sb, ", owes %+lld in %zu notifies)",
			    (long long)total, count);
		else
			strbuf_addf(sb, ", owes %+lld)", (long long)total);
	}
}

static const struct diag_block *
block_of(const struct diag_result *res, int rank)
{
	for (size_t i = 0; i < res->nblocked; i++) {
		if (res->blocked[i].rank == rank)
			return &res->blocked[i];
	}
	return NULL;
}

static void
headline(struct session *s, const struct diag_in *in,
    const struct diag_result *res, struct strbuf *sb)
{
	const struct diag_block *stuck = NULL;

	if (s->set.color && s->interactive && isatty(STDOUT_FILENO))
		strbuf_addf(sb, "\033[1;%sm%s\033[0m: ",
		    res->verdict == DIAG_HANG	  ? "31" :
			res->verdict == DIAG_SLOW ? "33" :
						    "32",
		    diag_verdict_name(res->verdict));
	else
		strbuf_addf(sb, "%s: ", diag_verdict_name(res->verdict));
	if (res->verdict == DIAG_OK) {
		strbuf_addstr(sb, "no rank is blocked\n");
		return;
	}
	if (res->nblocked == 0) {
		/* HANG without a wait: a rank that cannot move by itself */
		for (int q = 0; q < s->nranks; q++) {
			const char *why;
			if (in->r[q].stuck &&
			    (why = stuck_reason(s, q, mono_ns())) != NULL) {
				strbuf_addf(sb, "rank %d cannot move: ", q);
				stuck_text(s, q, why, sb);
				strbuf_addch(sb, '\n');
				return;
			}
		}
	}
	for (size_t i = 0; i < res->nblocked && stuck == NULL; i++) {
		if (!res->blocked[i].can_progress)
			stuck = &res->blocked[i];
	}
	if (res->verdict == DIAG_SLOW) {
		strbuf_addf(sb,
		    "%zu rank%s blocked, and every one can still be released\n",
		    res->nblocked, res->nblocked == 1 ? "" : "s");
		return;
	}
	if (res->ncycle > 0) {
		strbuf_addstr(sb, "wait-for cycle ");
		for (int i = 0; i < res->ncycle; i++)
			strbuf_addf(sb, "%s%d", i ? " -> " : "", res->cycle[i]);
		strbuf_addstr(sb, ": every rank in it waits for the next\n");
		return;
	}
	if (stuck->nowes == 0) {
		strbuf_addstr(sb, "no rank can change ");
		cell_text(s, in->r[stuck->rank].wait_off, sb);
		strbuf_addf(sb, " on rank %d\n", stuck->rank);
	} else {
		strbuf_addf(sb, "rank %d cannot be released: ", stuck->rank);
		if (!stuck->releasable)
			strbuf_addstr(sb,
			    "what is owed cannot reach the value it waits for\n");
		else
			strbuf_addstr(sb,
			    "every rank that owes it is stuck too\n");
	}
}

static void
rank_line(struct session *s, const struct diag_in *in,
    const struct diag_result *res, int q, struct strbuf *sb)
{
	const struct diag_rank *r = &in->r[q];
	const struct diag_block *b = block_of(res, q);
	struct strbuf t = STRBUF_INIT;
	const char *why;

	{
		struct job *j = rank_job(s, q);
		strbuf_addstr(sb, "  ");
		describe_rank_name(&s->view, q, j != NULL ? j->domain : 0, sb);
		strbuf_addf(sb, "  %s", rank_state_name(r->state));
	}
	if (s->set.times)
		strbuf_addf(sb, " %.1fs", r->secs);
	if (b != NULL) {
		strbuf_addstr(sb, "  ");
		wait_text(s, r, sb);
		site_at(cur_site(in, q), sb);
		strbuf_addf(sb, "  now %d   writers: ", r->now);
		owe_text(s, in, b, &t);
		if (t.len == 0) {
			/* nobody owes it: say who wrote it last */
			const struct diag_event *lw = NULL;
			for (size_t i = 0; i < in->nhist; i++) {
				const struct diag_event *e = &in->hist[i];
				if (e->kind == UOP_NOTIFY && e->target == q &&
				    e->off == r->wait_off)
					lw = e;
			}
			strbuf_addstr(&t, "none pending");
			if (s->kind->own_code)
				strbuf_addstr(&t, ": no remaining call sends it");
			if (lw != NULL) {
				strbuf_addf(&t, " (rank %d wrote %d with %s",
				    lw->writer, lw->value,
				    lw->op == NOTIFY_SET ? "set" : "add");
				site_at(&lw->site, &t);
				strbuf_addch(&t, ')');
			}
		}
		strbuf_add(sb, t.buf, t.len);
	} else if (s->rp[q].death != NULL) {
		strbuf_addf(sb, "  %s", s->rp[q].death);
	} else if (r->stuck && (why = stuck_reason(s, q, mono_ns())) != NULL) {
		strbuf_addstr(sb, "  ");
		stuck_text(s, q, why, sb);
	} else {
		size_t mark = sb->len;
		strbuf_addstr(sb, "  ");
		describe_rank(s, q, sb, 1);
		if (sb->len == mark + 2)
			strbuf_setlen(sb, mark);
	}
	strbuf_addch(sb, '\n');
	strbuf_release(&t);
}

/* Row i, column j of cell off in its window ([i] alone for 1-D). */
static int
cell_rc(struct session *s, uint64_t off, uint64_t *row, uint64_t *col)
{
	struct seg_window *w = view_win_at(&s->view, off);
	uint64_t k, cols;

	if (w == NULL || w->ndim != 2)
		return 0;
	k = (off - w->off) / dtype_size((enum dtype)w->dtype);
	cols = w->shape[1];
	*row = k / cols;
	*col = k % cols;
	return 1;
}

/* The row mismatch in the program's own terms: its two lines, and which
 * index of the cell they disagree on. */
static void
mismatch_user(struct session *s, const struct diag_in *in,
    const struct diag_found *f, const char *waited, const char *written,
    struct strbuf *sb)
{
	const struct site *ns = NULL;
	uint64_t r1, c1, r2, c2;

	for (size_t i = 0; i < in->nhist; i++) {
		const struct diag_event *e = &in->hist[i];
		if (e->kind == UOP_NOTIFY && e->writer == f->other &&
		    e->target == f->rank && e->off == f->off2)
			ns = &e->site;
	}
	strbuf_addf(sb,
	    "likely cause: notify/wait mismatch: rank %d notifies %s of rank %d",
	    f->other, written, f->rank);
	site_at(ns, sb);
	strbuf_addf(sb, ", but rank %d waits on %s", f->rank, waited);
	site_at(cur_site(in, f->rank), sb);
	if (cell_rc(s, f->off, &r1, &c1) && cell_rc(s, f->off2, &r2, &c2) &&
	    c1 == c2)
		strbuf_addf(sb,
		    "; the notify writes row %llu, the wait reads row %llu: make both compute the same row",
		    (unsigned long long)r2, (unsigned long long)r1);
	else if (cell_rc(s, f->off, &r1, &c1) &&
	    cell_rc(s, f->off2, &r2, &c2) && r1 == r2)
		strbuf_addf(sb,
		    "; the notify writes column %llu, the wait reads column %llu: make both compute the same column",
		    (unsigned long long)c2, (unsigned long long)c1);
	else
		strbuf_addstr(sb,
		    "; make the notify and the wait name the same cell");
	strbuf_addch(sb, '\n');
}

static void
cause_line(struct session *s, const struct diag_in *in,
    const struct diag_found *f, struct strbuf *sb)
{
	struct strbuf c = STRBUF_INIT, c2 = STRBUF_INIT;

	cell_text(s, f->off, &c);
	switch (f->cause) {
	case CAUSE_TAG0: {
		struct view_board b;
		enum wait_cmp cmp;
		int32_t want;

		view_board(&s->view, f->rank, &b);
		cmp = b.wait_cmp;
		want = b.wait_expected;

		strbuf_addf(sb,
		    "likely cause: handshake tag 0 (Set with 0, wait %s %d",
		    wait_cmp_name(cmp), want);
		if (s->kind->own_code) {
			const struct site *ss = NULL;
			for (size_t i = 0; i < in->nhist; i++) {
				const struct diag_event *e = &in->hist[i];
				if (e->kind == UOP_NOTIFY &&
				    e->op == NOTIFY_SET && e->target == f->rank &&
				    e->off == f->off && e->value == 0)
					ss = &e->site;
			}
			if (ss != NULL && ss->file[0] != '\0')
				strbuf_addf(sb, "; the set is %s:%d", ss->file,
				    (int)ss->line);
		}
		strbuf_addstr(sb, "); ");
		if (cmp == CMP_EQ)
			strbuf_addf(sb, "send tag %d\n", want);
		else
			strbuf_addf(sb, "send a tag %s %d\n",
			    wait_cmp_name(cmp), want);
		break;
	}
	case CAUSE_SET_SHARED:
		strbuf_addf(sb,
		    "likely cause: set on %s of rank %d, a cell several ranks write: the last set wins and the count stays %d; use add (AtomicAdd) for shared cells, set only for 1:1\n",
		    c.buf, f->rank, f->v);
		break;
	case CAUSE_EQ_OVERSHOOT:
		strbuf_addf(sb,
		    "likely cause: == on a counter: %s of rank %d is %d, past the value it waits for; credits can overshoot, wait with >=\n",
		    c.buf, f->rank, f->v);
		break;
	case CAUSE_REUSED:
		strbuf_addf(sb,
		    "likely cause: single-shot signal reused: %s of rank %d still holds %d from an earlier round; use a fresh signal (or row) per round, or wait for a rising generation\n",
		    c.buf, f->rank, f->v);
		break;
	case CAUSE_ROW_MISMATCH:
		cell_text(s, f->off2, &c2);
		if (s->kind->own_code) {
			mismatch_user(s, in, f, c.buf, c2.buf, sb);
			break;
		}
		strbuf_addf(sb,
		    "likely cause: notify/wait row mismatch: rank %d notifies %s of rank %d, but rank %d waits on %s; notify writes row my_rank of the peer, wait reads row src of self\n",
		    f->other, c2.buf, f->rank, f->rank, c.buf);
		break;
	case CAUSE_WAIT_FIRST:
		strbuf_addstr(sb,
		    "likely cause: wait before notify: every rank in the cycle waits before it notifies; issue the notifies first (notify loop before the wait loop)\n");
		break;
	case CAUSE_DEAD_OWER:
		strbuf_addf(sb,
		    "likely cause: rank %d %s owing the notify to %s of rank %d (%s)\n",
		    f->other,
		    rank_state_of(s, f->other) == RS_EXITED ? "exited" : "died",
		    c.buf, f->rank,
		    s->rp[f->other].death ? s->rp[f->other].death : "dead");
		break;
	case CAUSE_PUT_AFTER_NOTIFY:
		strbuf_addf(sb,
		    "note: put after notify: rank %d wrote data into rank %d after releasing it with %s; rank %d may read stale data: put first, then notify (release ordering)\n",
		    f->other, f->rank, c.buf, f->rank);
		break;
	case CAUSE_WRONG_PEER:
		strbuf_addf(sb,
		    "likely cause: notify to the wrong rank: rank %d notified rank %d's %s; rank %d waits on its own %s\n",
		    f->other, f->v, c.buf, f->rank, c.buf);
		break;
	case CAUSE_SHORT:
		strbuf_addf(sb,
		    "likely cause: the notifies still owed to %s of rank %d cannot reach the value it waits for (a missing or short notify)\n",
		    c.buf, f->rank);
		break;
	default:
		strbuf_addf(sb,
		    "likely cause: nobody will write %s of rank %d again: a missing notify, or one sent to another rank or cell\n",
		    c.buf, f->rank);
	}
	strbuf_release(&c);
	strbuf_release(&c2);
}

/* rank_line() into rl: grouped with the others in a large world. */
static void
rank_line_to(struct session *s, const struct diag_in *in,
    const struct diag_result *res, int q, struct rank_lines *rl,
    struct strbuf *tmp)
{
	strbuf_reset(tmp);
	rank_line(s, in, res, q, tmp);
	if (tmp->len > 0 && tmp->buf[tmp->len - 1] == '\n')
		strbuf_setlen(tmp, tmp->len - 1); /* rank_lines adds one */
	rank_lines_add(rl, q, group_after_rank(tmp->buf + 2));
}

void
diag_format(struct session *s, const struct diag_in *in,
    const struct diag_result *res, struct strbuf *sb)
{
	struct strbuf tmp = STRBUF_INIT;
	struct rank_lines rl;

	headline(s, in, res, sb);
	rank_lines_begin(&rl, s->nranks, GROUP_ALIKE, "  ", sb);
	for (size_t i = 0; i < res->nblocked; i++)
		rank_line_to(s, in, res, res->blocked[i].rank, &rl, &tmp);
	rank_lines_end(&rl);
	if (res->verdict == DIAG_OK) {
		/* nothing waits yet, but a dead rank owes whatever its
		 * peers will wait for: say so, not a bare OK */
		struct rankset dead;

		rankset_clear(&dead);
		rank_lines_begin(&rl, s->nranks, GROUP_ALIKE, "  ", sb);
		for (int q = 0; q < s->nranks; q++) {
			if (in->r[q].state == RS_DEAD) {
				rankset_add(&dead, q);
				rank_line_to(s, in, res, q, &rl, &tmp);
			}
		}
		rank_lines_end(&rl);
		if (rankset_count(&dead) > 0 && rankset_count(&dead) < s->nranks) {
			char *t = rankset_format(&dead, s->nranks);
			int one = rankset_count(&dead) == 1;

			strbuf_addf(sb,
			    "note: rank%s %s %s dead: a wait for a notify from %s will never be released\n",
			    one ? "" : "s", t + 1, one ? "is" : "are",
			    one ? "it" : "them");
			free(t);
		}
	}
	if (res->verdict != DIAG_OK) {
		struct rankset idle;
		int nidle = 0;

		/* idle ranks in one line: 64 of them would bury the rest */
		rankset_clear(&idle);
		rank_lines_begin(&rl, s->nranks, GROUP_ALIKE, "  ", sb);
		for (int q = 0; q < s->nranks; q++) {
			if (block_of(res, q) != NULL)
				continue;
			if (in->r[q].state == RS_IDLE && rank_job(s, q) == NULL) {
				rankset_add(&idle, q);
				nidle++;
			} else {
				rank_line_to(s, in, res, q, &rl, &tmp);
			}
		}
		rank_lines_end(&rl);
		if (nidle == 1) {
			rank_line(s, in, res, rankset_first(&idle), sb);
		} else if (nidle > 1) {
			char *t = rankset_format(&idle, s->nranks);
			strbuf_addf(sb, "  ranks %s  idle\n", t + 1);
			free(t);
		}
	}
	leftover_diagnose(s, in, res, sb);
	if (coll_match_said(s) != NULL) /* it explains all that follows */
		strbuf_addf(sb, "%s: %s\n",
		    res->verdict == DIAG_OK ? "note" : "likely cause",
		    coll_match_said(s));
	for (int i = 0; i < res->nfound; i++)
		cause_line(s, in, &res->found[i], sb);
	rank_lines_begin(&rl, s->nranks, GROUP_ALIKE, "  ", sb);
	for (int q = 0; q < s->nranks; q++) {
		strbuf_reset(&tmp);
		strbuf_addstr(&tmp, "  ");
		describe_defers(s, q, &tmp);
		if (tmp.len > 2) /* some pending */
			rank_lines_add(&rl, q, tmp.buf);
	}
	rank_lines_end(&rl);
	strbuf_release(&tmp);
	/* an ower that cannot move by itself is the cause, whatever else */
	for (int q = 0; q < s->nranks; q++) {
		const char *why;
		int owes = 0;

		for (size_t i = 0; i < res->nblocked && !owes; i++)
			for (size_t k = 0; k < res->blocked[i].nowes && !owes; k++)
				owes = res->blocked[i].owes[k].rank == q;
		if (owes && in->r[q].stuck &&
		    (why = stuck_reason(s, q, mono_ns())) != NULL) {
			strbuf_addf(sb,
			    "likely cause: rank %d owes the notifies and is ", q);
			stuck_text(s, q, why, sb);
			strbuf_addch(sb, '\n');
		}
	}
}

/* The progress signature: changes whenever any rank does anything. */
static uint64_t
progress_sig(struct session *s)
{
	uint64_t sig = 0;

	for (int q = 0; q < s->nranks; q++) {
		struct view_board b;

		view_board(&s->view, q, &b);
		sig = sig * 31 + b.progress + b.state_ns;
	}
	return sig;
}

void
diag_state_shown(struct session *s)
{
	s->shown_sig = progress_sig(s) | 1; /* never 0 */
}

int
diag_state_unshown(struct session *s)
{
	return s->shown_sig != (progress_sig(s) | 1);
}

void
watchdog_tick(struct session *s)
{
	uint64_t now = mono_ns(), sig;
	struct diag_result res;
	struct diag_in in;
	struct strbuf sb = STRBUF_INIT;
	int busy = 0;

	if (s->rp == NULL)
		return;
	track_moves(s, now);
	if (s->set.timeout <= 0)
		return;
	sig = progress_sig(s);
	if (sig != s->wd_sig) {
		s->wd_sig = sig;
		s->wd_since = now;
		s->wd_armed = 1;
		return;
	}
	if (!s->wd_armed || now - s->wd_since < (uint64_t)(s->set.timeout * 1e9))
		return;
	/* blocked, or stuck with work to do (a stopped process, a call
	 * that does not return): an idle prompt is not a hang */
	for (int q = 0; q < s->nranks; q++)
		busy |=
		    rank_state_of(s, q) == RS_BLOCKED || rank_job(s, q) != NULL;
	if (!busy)
		return;
	s->wd_armed = 0; /* once per stall */
	diag_run(s, &res, &in);
	if (res.verdict != DIAG_HANG) {
		/* SLOW: a stopped rank holds the key, and the user holds the
		 * stopped rank; nothing is stuck */
		diag_result_release(&res);
		diag_in_release(&in);
		return;
	}
	strbuf_addf(&sb, "watchdog: no progress for %gs; diagnosis:\n",
	    s->set.timeout);
	diag_format(s, &in, &res, &sb);
	strbuf_rtrim(&sb);
	if (sb.len > 0 && sb.buf[sb.len - 1] == '\n')
		strbuf_setlen(&sb, sb.len - 1);
	out_event(-1, "%s", sb.buf);
	s->wd_reports++;
	if (s->batch)
		s->watchdog_fired = 1;
	strbuf_release(&sb);
	diag_result_release(&res);
	diag_in_release(&in);
}

int
diag_expect_hang(struct session *s, int want_hang)
{
	struct diag_result res;
	struct diag_in in;
	int hang;

	diag_run(s, &res, &in);
	diag_state_shown(s);
	hang = res.verdict == DIAG_HANG;
	if (hang != want_hang) {
		struct strbuf sb = STRBUF_INIT;
		diag_format(s, &in, &res, &sb);
		fflush(stdout);
		fprintf(stderr, "expect failed: verdict is %s, expected %s\n",
		    diag_verdict_name(res.verdict),
		    want_hang ? "HANG" : "no hang");
		strbuf_release(&sb);
	}
	diag_result_release(&res);
	diag_in_release(&in);
	return hang == want_hang ? 0 : -1;
}

/* ---- the session hook ------------------------------------------------------ */

static void
diag_job_end(struct session *s, int r, struct job *j, const struct job_end *e)
{
	(void)r;
	if (e->status == DONE_OK && !(j->flags & JOB_COLL))
		hist_record(s, j);
}

/* A user call read whole: its op, as its job's end would have had it. */
static void
diag_call(struct session *s, int r, const struct user_call *c,
    const struct job_end *e)
{
	if (e != NULL && e->status == DONE_OK && c->op != NULL)
		hist_op(s, r, c->op, c->site, 0);
}

static void
diag_close(struct session *s)
{
	if (s->hist != NULL)
		free(s->hist - s->hist_off);
	s->hist = NULL;
	s->nhist = s->ahist = s->hist_off = 0;
	s->hist_gen++;
}

/*
 * The session ends by itself (an MPI job lost a rank): the diagnosis from
 * what the shell last saw of every rank, after the death's event.  A rank
 * that still ran (its own code, or a program not blocked) when the job
 * ended might have blocked later or not: OK or SLOW would claim what
 * nobody saw, so the headline says that instead, with where it was.
 */
static void
diag_ending(struct session *s)
{
	struct diag_result res;
	struct diag_in in;
	struct strbuf sb = STRBUF_INIT, head = STRBUF_INIT;
	struct rankset ran;
	char *save = NULL, *body;

	diag_run(s, &res, &in);
	diag_format(s, &in, &res, &sb);
	s->over_hang = res.verdict == DIAG_HANG;
	rankset_clear(&ran);
	for (int q = 0; q < s->nranks; q++) {
		if ((rank_alive(s, q) || s->rp[q].with_job) &&
		    in.r[q].state == RS_RUNNING)
			rankset_add(&ran, q);
	}
	body = sb.buf;
	if (res.verdict != DIAG_HANG && rankset_count(&ran) > 0) {
		char *t = rankset_format(&ran, s->nranks);
		int one = rankset_count(&ran) == 1;

		strbuf_addf(&head,
		    "no verdict: the MPI job ended while rank%s %s still ran, before %s blocked or finished\n",
		    one ? "" : "s", t + 1, one ? "it" : "they");
		free(t);
		if (res.verdict == DIAG_OK) {
			for (int q = 0; q < s->nranks; q++) {
				if (rankset_has(&ran, q))
					rank_line(s, &in, &res, q, &head);
			}
		}
		body = strchr(sb.buf, '\n');
		body = body != NULL ? body + 1 : sb.buf + sb.len;
	}
	strbuf_addstr(&head, body);
	for (char *line = strtok_r(head.buf, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		out_event(INT_MAX, "%s", line);
	strbuf_release(&sb);
	strbuf_release(&head);
	diag_result_release(&res);
	diag_in_release(&in);
}

const struct session_hook diag_session_hook = {
	.name = "diag",
	.pump = watchdog_tick,
	.job_end = diag_job_end,
	.call = diag_call,
	.close = diag_close,
	.ending = diag_ending,
};
