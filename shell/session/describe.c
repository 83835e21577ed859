/*
 * describe.c - render micro-ops, cells and rank positions in the words of
 * the command language ("wait sig[0,3] >= 1"), using the window table.
 */
#include <stdio.h>
#include <string.h>

#include "out/out.h"
#include "session.h"

void
describe_cell(struct view *v, uint64_t off, uint64_t count, struct strbuf *sb)
{
	struct seg_window *w = view_win_at(v, off);
	uint64_t esz, first;

	if (w == NULL) {
		strbuf_addf(sb, "area[0x%llx]", (unsigned long long)off);
		return;
	}
	esz = dtype_size(w->dtype);
	first = (off - w->off) / esz;
	if (first == 0 && count == w->count && count != 1) {
		strbuf_addstr(sb, w->name);
		return;
	}
	/* Trailing dimensions of 1 add nothing: a [4,1] signal reads sig[2]. */
	int ndim = w->ndim;
	while (ndim > 1 && w->shape[ndim - 1] == 1)
		ndim--;
	if (count == 1 && ndim > 1) {
		uint64_t rem = first, stride = w->count;
		strbuf_addf(sb, "%s[", w->name);
		for (int d = 0; d < ndim; d++) {
			stride /= w->shape[d];
			strbuf_addf(sb, "%s%llu", d ? "," : "",
			    (unsigned long long)(rem / stride));
			rem %= stride;
		}
		strbuf_addch(sb, ']');
		return;
	}
	if (count == 1)
		strbuf_addf(sb, "%s[%llu]", w->name, (unsigned long long)first);
	else
		strbuf_addf(sb, "%s[%llu:%llu]", w->name,
		    (unsigned long long)first,
		    (unsigned long long)(first + count));
}

static void
operand(struct view *s, int space, const struct uop *u, uint64_t off,
    struct strbuf *sb)
{
	if (space == SP_ACC) {
		/* a staging tile holds the data dtype, the accumulator its
		 * accumulation type */
		int raw = (u->flags & UOP_F_RAW) != 0;
		uint64_t esz =
		    dtype_size(raw ? (enum dtype)u->dtype : dtype_acc(u->dtype));
		strbuf_addf(sb, "%s[%llu:%llu]", raw ? "stage" : "acc",
		    (unsigned long long)(off / esz),
		    (unsigned long long)(off / esz + u->count));
		return;
	}
	describe_cell(s, off, u->count, sb);
	if (space == SP_PEER)
		strbuf_addf(sb, "@%d", u->peer);
}

static const char *const fill_names[] = { "", "rank", "iota", "random" };

void
describe_uop(struct view *s, const struct uop *u, int rank, struct strbuf *sb)
{
	switch (u->kind) {
	case UOP_NOTIFY:
		strbuf_addf(sb, "notify %d ", u->peer);
		describe_cell(s, u->dst, 1, sb);
		if (u->flags & UOP_F_FROM_CELL) {
			/* the amount is read from the rank's data when it runs */
			strbuf_addstr(sb, " min(");
			describe_cell(s, u->src, 1, sb);
			strbuf_addf(sb, ",%d)", u->value);
		} else {
			strbuf_addf(sb, " %d", u->value);
		}
		strbuf_addstr(sb, u->op == NOTIFY_SET ? " set" : "");
		break;
	case UOP_WAIT:
		strbuf_addstr(sb,
		    u->flags & UOP_F_DEFER ? "defer_wait " : "wait ");
		describe_cell(s, u->dst, 1, sb);
		strbuf_addf(sb, " %s %d", wait_cmp_name(u->op), u->value);
		break;
	case UOP_PUT:
	case UOP_GET:
		strbuf_addf(sb, "%s ", uop_kind_name(u->kind));
		if (u->kind == UOP_GET && u->dsp == SP_ACC)
			operand(s, SP_ACC, u, u->dst, sb);
		else
			describe_cell(s, u->dst, u->count, sb);
		strbuf_addf(sb, " %d ", u->peer);
		if (u->kind == UOP_PUT && u->ssp == SP_ACC)
			operand(s, SP_ACC, u, u->src, sb);
		else
			describe_cell(s, u->src, u->count, sb);
		if (u->op == ATOMIC_ADD)
			strbuf_addstr(sb, " atomic=add");
		break;
	case UOP_COPY:
	case UOP_REDUCE:
		strbuf_addf(sb, "%s ", uop_kind_name(u->kind));
		operand(s, u->dsp, u, u->dst, sb);
		if (u->kind == UOP_REDUCE)
			strbuf_addf(sb, " %s= ", reduce_op_name(u->op));
		else
			strbuf_addstr(sb, " = ");
		operand(s, u->ssp, u, u->src, sb);
		break;
	case UOP_FILL:
		strbuf_addstr(sb, "fill ");
		describe_cell(s, u->dst, u->count, sb);
		if (u->op == FILL_VALUE && (u->flags & UOP_F_INT))
			strbuf_addf(sb, " %lld", (long long)(int64_t)u->src);
		else if (u->op == FILL_VALUE)
			strbuf_addf(sb, " %g", u->fval);
		else if (u->op == FILL_RANK && u->fval != 0)
			strbuf_addf(sb, " rank%+g", u->fval);
		else if (u->op == FILL_RANDOM)
			strbuf_addf(sb, " random %g", u->fval);
		else
			strbuf_addf(sb, " %s", fill_names[u->op % 4]);
		break;
	default:
		strbuf_addstr(sb, uop_kind_name(u->kind));
	}
	(void)rank;
}

void
describe_board(struct view *v, int r, struct strbuf *sb)
{
	struct view_board b;
	struct uop cur;
	char title[SEG_TITLE_MAX];

	view_board(v, r, &b);
	if (b.state != RS_RUNNING && b.state != RS_STOPPED &&
	    b.state != RS_BLOCKED)
		return;
	view_cur(v, r, &cur, title, sizeof title);
	if (b.nops > 1)
		strbuf_addf(sb, "%s step %u/%u: ", title, b.pc + 1, b.nops);
	describe_uop(v, &cur, r, sb);
	if (cur.kind == UOP_WAIT &&
	    (b.state == RS_BLOCKED || b.state == RS_STOPPED))
		strbuf_addf(sb, " (now %d)", view_cell(v, r, cur.dst));
}

void
describe_position(struct session *s, int r, const struct prog *prog,
    struct strbuf *sb, int verbose)
{
	struct view_board b;
	char title[SEG_TITLE_MAX];
	struct uop cur;

	view_board(&s->view, r, &b);
	view_cur(&s->view, r, &cur, title, sizeof title);
	if (prog != NULL && b.pc < prog_len(prog))
		prog_op(prog, b.pc, &cur);
	strbuf_addstr(sb, title);
	if (b.nops > 1) {
		struct strbuf ph = STRBUF_INIT;

		if (prog != NULL)
			prog_phase(prog, b.pc, &ph);
		strbuf_addf(sb, " step %u/%u%s%s", b.pc + 1, b.nops,
		    ph.len ? " " : "", ph.buf);
		strbuf_release(&ph);
	}
	strbuf_addstr(sb, ": ");
	describe_uop(&s->view, &cur, r, sb);
	describe_stop(&s->view, r, &b, &cur, sb, verbose);
}

void
describe_stop(struct view *v, int r, const struct view_board *b,
    const struct uop *cur, struct strbuf *sb, int verbose)
{
	if (cur->kind == UOP_WAIT &&
	    (b->state == RS_BLOCKED || b->state == RS_STOPPED))
		strbuf_addf(sb, " (now %d)", view_cell(v, r, cur->dst));
	if (verbose && b->state == RS_STOPPED && b->stop_reason == STOP_BREAK &&
	    (b->stop_break & BREAK_ID_UNTIL))
		strbuf_addstr(sb, "  [until]"); /* until/advance */
	else if (verbose && b->state == RS_STOPPED && b->stop_reason == STOP_BREAK)
		strbuf_addf(sb, "  [breakpoint %u]", b->stop_break);
	else if (verbose && b->state == RS_STOPPED &&
	    b->stop_reason == STOP_INTERRUPT)
		strbuf_addstr(sb, "  [interrupted]");
}

void
describe_rank(struct session *s, int r, struct strbuf *sb, int verbose)
{
	s->kind->describe(s, r, sb, verbose);
}

void
describe_defers(struct session *s, int r, struct strbuf *sb)
{
	const struct seg_defer *d[DEFER_MAX];
	size_t n = session_defers(s, r, d, DEFER_MAX), k = 0;

	for (size_t i = 0; i < n; i++) {
		if (d[i]->tag != 0)
			continue; /* carried: the program shows it */
		strbuf_addstr(sb,
		    k++ == 0 ? "deferred for its next command: " : ", ");
		describe_cell(&s->view, d[i]->off, 1, sb);
		strbuf_addf(sb, " >= %d (now %d)", d[i]->expected,
		    view_cell(&s->view, r, d[i]->off));
	}
}

void
describe_unstarted(struct session *s, int r, const struct job *j,
    struct strbuf *sb)
{
	struct view_board b;

	view_board(&s->view, r, &b);
	if (b.prog_tag == j->tag) {
		strbuf_addstr(sb, " (ended; its report not read yet)");
		return;
	}
	switch (rank_frozen(s, r)) {
	case RANK_FROZEN_SIGNAL:
		strbuf_addstr(sb,
		    " (not taken up yet: the rank is stopped by a signal, SIGCONT resumes it)");
		break;
	case RANK_FROZEN_TRACED:
		strbuf_addstr(sb,
		    " (not taken up yet: the rank is held by a debugger)");
		break;
	default:
		strbuf_addstr(sb, " (not taken up yet)");
		break;
	}
}

void
describe_rank_name(struct view *v, int r, int domain, struct strbuf *sb)
{
	const struct seg_domain *d = view_domain(v, domain);
	int dense = view_domain_rank(v, domain, r);

	strbuf_addf(sb, "rank %d", r);
	if (d != NULL && dense >= 0)
		strbuf_addf(sb, " (%s:%d)", d->name, dense);
}

#define PLAN_HEAD 400 /* long programs: this many ops, ... , the tail */
#define PLAN_TAIL 20

void
plan_print(struct session *s, const struct prog *p, int rank,
    const char *indent, uint64_t from)
{
	struct strbuf sb = STRBUF_INIT, nm = STRBUF_INIT;
	uint64_t len = prog_len(p), ranges[2][2];
	size_t wphase = 5, wop = 2;
	struct prog_rd rd;
	struct uop u;
	char num[24];
	int wnum = snprintf(num, sizeof num, "%llu", (unsigned long long)len);

	/* the ops shown, as at most two runs */
	if (len <= PLAN_HEAD + PLAN_TAIL) {
		ranges[0][0] = MIN(from, len); /* from=N: from op N on */
		ranges[0][1] = len;
		ranges[1][0] = ranges[1][1] = len;
	} else {
		ranges[0][0] = MIN(from, len);
		ranges[0][1] = MIN(len, from + PLAN_HEAD);
		ranges[1][0] = from == 0 ? len - PLAN_TAIL : len;
		ranges[1][1] = len;
	}
	prog_rd_init(&rd, p);
	for (int k = 0; k < 2; k++) {
		for (uint64_t i = ranges[k][0]; i < ranges[k][1]; i++) {
			prog_rd_op(&rd, i, &u);
			strbuf_reset(&sb);
			describe_uop(&s->view, &u, rank, &sb);
			wop = MAX(wop, sb.len);
			strbuf_reset(&nm);
			prog_rd_phase(&rd, i, &nm);
			wphase = MAX(wphase, nm.len);
		}
	}
	for (int k = 0; k < 2; k++) {
		uint64_t lo = ranges[k][0], hi = ranges[k][1];

		if (k == 1 && lo > ranges[0][1] && lo < len)
			out_printf("%s%*s  ... %llu more micro-ops ...\n", indent,
			    wnum, "", (unsigned long long)(lo - ranges[0][1]));
		for (uint64_t i = lo; i < hi; i++) {
			struct strbuf ph = STRBUF_INIT;

			prog_rd_op(&rd, i, &u);
			strbuf_reset(&sb);
			describe_uop(&s->view, &u, rank, &sb);
			strbuf_addchars(&sb, ' ', wop - MIN(wop, sb.len));
			strbuf_addstr(&sb, "  ");
			prog_rd_name(&rd, i, &sb);
			strbuf_rtrim(&sb); /* single ops have no span name */
			prog_rd_phase(&rd, i, &ph);
			out_printf("%s%*llu  %-*s  %s\n", indent, wnum,
			    (unsigned long long)(i + 1), (int)wphase, ph.buf,
			    sb.buf);
			strbuf_release(&ph);
		}
	}
	if (ranges[1][0] == len && ranges[0][1] < len)
		out_printf("%s%*s  ... %llu more micro-ops (from=%llu shows the next) ...\n",
		    indent, wnum, "", (unsigned long long)(len - ranges[0][1]),
		    (unsigned long long)(ranges[0][1] + 1));
	strbuf_release(&sb);
	strbuf_release(&nm);
}

int
describe_last_words(struct session *s, int r, struct strbuf *sb)
{
	struct rankproc *rp = &s->rp[r];

	if (rp->jobs != NULL)
		describe_rank(s, r, sb, 0);
	else if (rp->last_op.len > 0)
		strbuf_addf(sb, "after %s", rp->last_op.buf);
	else
		strbuf_addstr(sb, "while idle");
	return rp->jobs != NULL;
}
