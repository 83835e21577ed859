/* diag.c - hang diagnosis; see diag.h for the rules. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "xmalloc.h"

const char *
diag_verdict_name(enum diag_verdict v)
{
	return v == DIAG_HANG ? "HANG" : v == DIAG_SLOW ? "SLOW" : "OK";
}

static int
is_dead(enum rank_state st)
{
	return st == RS_DEAD || st == RS_EXITED;
}

static void
add_owe(struct diag_block *b, const struct diag_owe *o)
{
	if (b->nowes == b->aowes) {
		b->aowes = b->aowes ? 2 * b->aowes : 4;
		b->owes = xreallocarray(b->owes, b->aowes, sizeof *b->owes);
	}
	b->owes[b->nowes++] = *o;
}

/* Could the owed notifies bring the cell to what the wait needs? */
static int
releasable(const struct diag_rank *r, const struct diag_block *b)
{
	int64_t lo = r->now, hi = r->now, pos = 0, neg = 0;

	for (size_t i = 0; i < b->nowes; i++) {
		const struct diag_owe *o = &b->owes[i];
		if (o->op == NOTIFY_SET) {
			lo = lo < o->value ? lo : o->value;
			hi = hi > o->value ? hi : o->value;
		} else if (o->value > 0) {
			pos += (int64_t)o->value * (int64_t)o->count;
		} else {
			neg += (int64_t)o->value * (int64_t)o->count;
		}
	}
	if (r->cmp == CMP_GE)
		return hi + pos >= r->expected;
	if (r->cmp == CMP_UGE) /* a negative value reads as huge */
		return hi + pos >= r->expected || lo + neg < 0;
	if (r->cmp == CMP_EQ)
		return lo + neg <= r->expected && r->expected <= hi + pos;
	return b->nowes > 0;
}

static const struct diag_event *
last_write(const struct diag_in *in, int target, uint64_t off, int *nwriters,
    int *any_set, int *set_writer)
{
	const struct diag_event *last = NULL;
	uint8_t *seen = xcalloc((size_t)in->nranks, 1);

	*nwriters = 0;
	*any_set = 0;
	*set_writer = -1;
	for (size_t i = 0; i < in->nhist; i++) {
		const struct diag_event *e = &in->hist[i];
		if (e->kind != UOP_NOTIFY || e->target != target || e->off != off)
			continue;
		last = e;
		if (e->writer >= 0 && e->writer < in->nranks && !seen[e->writer]) {
			seen[e->writer] = 1;
			(*nwriters)++;
		}
		if (e->op == NOTIFY_SET) {
			*any_set = 1;
			*set_writer = e->writer;
		}
	}
	free(seen);
	return last;
}

static int
waited_before(const struct diag_in *in, int rank, uint64_t off)
{
	for (size_t i = 0; i < in->nhist; i++) {
		const struct diag_event *e = &in->hist[i];
		if (e->kind == UOP_WAIT && e->writer == rank && e->off == off)
			return 1;
	}
	return 0;
}

static void
found(struct diag_result *out, enum diag_cause c, int rank, int other,
    uint64_t off, uint64_t off2, int32_t v)
{
	struct diag_found *f;

	for (int i = 0; i < out->nfound; i++) {
		if (out->found[i].cause == c)
			return; /* one line per kind of cause is enough */
	}
	if (out->nfound == (int)(sizeof out->found / sizeof out->found[0]))
		return;
	f = &out->found[out->nfound++];
	f->cause = c;
	f->rank = rank;
	f->other = other;
	f->off = off;
	f->off2 = off2;
	f->v = v;
}

/* A notify into rank's window near the awaited cell that nobody waits on. */
static int
mismatch(const struct diag_in *in, int rank, uint64_t off, uint64_t *off2,
    int *writer)
{
	const struct seg_window *w =
	    in->win_at != NULL ? in->win_at(in->win_arg, off) : NULL;

	if (w == NULL)
		return 0;
	for (size_t i = in->nhist; i-- > 0;) {
		const struct diag_event *e = &in->hist[i];
		if (e->kind == UOP_NOTIFY && e->target == rank && e->off != off &&
		    e->off >= w->off && e->off < w->off + w->bytes &&
		    !waited_before(in, rank, e->off)) {
			*off2 = e->off;
			*writer = e->writer;
			return 1;
		}
	}
	/* or still owed elsewhere in the window by a plain command (a
	 * collective's other rows are not a mismatch) */
	for (int q = 0; q < in->nranks; q++) {
		const struct diag_rank *r = &in->r[q];
		for (size_t p = 0; p < r->nprogs; p++) {
			struct prog_rd rd;
			if (r->progs[p].nops > (size_t)in->nranks)
				continue;
			prog_rd_init(&rd, r->progs[p].p);
			for (size_t k = r->progs[p].pc; k < r->progs[p].nops;
			     k++) {
				struct uop uu, *u = &uu;
				prog_rd_op(&rd, k, u);
				if (u->kind == UOP_NOTIFY && u->peer == rank &&
				    u->dst != off && u->dst >= w->off &&
				    u->dst < w->off + w->bytes) {
					*off2 = u->dst;
					*writer = q;
					return 1;
				}
			}
		}
	}
	return 0;
}

static int
find_cycle(const struct diag_in *in, const struct diag_result *out,
    const int *blk, int start, int *cyc)
{
	int *path = xreallocarray(NULL, (size_t)in->nranks + 1, sizeof *path);
	uint8_t *on = xcalloc((size_t)in->nranks, 1);
	int depth = 0, cur = start, n = 0;

	/* follow the first blocked ower each time: a walk in the graph */
	while (cur >= 0 && depth <= in->nranks) {
		const struct diag_block *b;
		int next = -1;

		if (on[cur]) {
			int k = 0;
			while (path[k] != cur)
				k++;
			for (; k < depth; k++)
				cyc[n++] = path[k];
			cyc[n++] = cur;
			break;
		}
		on[cur] = 1;
		path[depth++] = cur;
		if (blk[cur] < 0)
			break;
		b = &out->blocked[blk[cur]];
		for (size_t i = 0; i < b->nowes && next < 0; i++) {
			if (blk[b->owes[i].rank] >= 0)
				next = b->owes[i].rank;
		}
		cur = next;
	}
	free(path);
	free(on);
	return n;
}

/* The awaited cell notified on another rank instead (by a rank other
 * than the waiter, that never notified the waiter's cell): the rank it
 * went to, and *writer; or -1. */
static int
wrong_peer(const struct diag_in *in, int rank, uint64_t off, int *writer)
{
	for (size_t i = in->nhist; i-- > 0;) {
		const struct diag_event *e = &in->hist[i];
		if (e->kind == UOP_NOTIFY && e->off == off && e->target != rank &&
		    e->writer != rank && e->writer != e->target) {
			*writer = e->writer;
			return e->target;
		}
	}
	return -1;
}

/*
 * What the history says of who writes the cell rank waits on, for a user
 * program's ranks (colldb cannot see the calls they would still make):
 * the last rank, with keep(q) true, that notified that cell before, or
 * whose notify released an earlier wait of rank in the cell's window
 * (its partner there, as a ring's previous rank); or -1.  A rank that
 * never wrote rank's window that way is no evidence of anything.
 */
static int
partner(const struct diag_in *in, int rank,
    int (*keep)(const struct diag_in *, int))
{
	uint64_t off = in->r[rank].wait_off;
	const struct seg_window *w =
	    in->win_at != NULL ? in->win_at(in->win_arg, off) : NULL;

	for (size_t i = in->nhist; i-- > 0;) {
		const struct diag_event *e = &in->hist[i];
		if (e->kind != UOP_NOTIFY || e->target != rank ||
		    e->writer == rank || e->writer < 0 ||
		    e->writer >= in->nranks || !keep(in, e->writer))
			continue;
		if (e->off == off)
			return e->writer;
		if (w != NULL && e->off >= w->off && e->off < w->off + w->bytes &&
		    waited_before(in, rank, e->off))
			return e->writer;
	}
	return -1;
}

static int
is_ended_open(const struct diag_in *in, int q)
{
	return in->r[q].ended_open;
}

static int
is_blocked(const struct diag_in *in, int q)
{
	return in->r[q].state == RS_BLOCKED && in->r[q].waiting;
}

/* A gone rank that owed a notify outranks every other cause: first. */
static void
dead_first(struct diag_result *out)
{
	struct diag_found dead[ARRAY_SIZE(out->found)],
	    rest[ARRAY_SIZE(out->found)];
	int nd = 0, nr = 0;

	for (int i = 0; i < out->nfound; i++) {
		if (out->found[i].cause == CAUSE_DEAD_OWER)
			dead[nd++] = out->found[i];
		else
			rest[nr++] = out->found[i];
	}
	memcpy(out->found, dead, (size_t)nd * sizeof *dead);
	memcpy(out->found + nd, rest, (size_t)nr * sizeof *rest);
}

static void
put_after_notify(const struct diag_in *in, struct diag_result *out)
{
	for (size_t i = 0; i < in->nhist; i++) {
		const struct diag_event *n = &in->hist[i];
		if (n->kind != UOP_NOTIFY || n->writer == n->target)
			continue;
		for (size_t k = i + 1; k < in->nhist; k++) {
			const struct diag_event *p = &in->hist[k];
			if (p->writer != n->writer || p->target != n->target)
				continue;
			if (p->kind == UOP_NOTIFY)
				break; /* a later notify covers what follows */
			if (p->kind == UOP_PUT && p->value == 1) {
				found(out, CAUSE_PUT_AFTER_NOTIFY, n->target,
				    n->writer, n->off, p->off, 0);
				break;
			}
		}
	}
}

/* Every blocked rank gets a block; blk[q] is rank q's, or -1. */
static void
blocked_list(const struct diag_in *in, struct diag_result *out, int *blk)
{
	for (int q = 0; q < in->nranks; q++) {
		blk[q] = -1;
		if (in->r[q].state == RS_BLOCKED && in->r[q].waiting)
			out->nblocked++;
	}
	out->blocked =
	    xcalloc(out->nblocked ? out->nblocked : 1, sizeof *out->blocked);
	out->nblocked = 0;
	for (int q = 0; q < in->nranks; q++) {
		if (in->r[q].state == RS_BLOCKED && in->r[q].waiting) {
			blk[q] = (int)out->nblocked;
			out->blocked[out->nblocked++].rank = q;
		}
	}
}

struct owe_ctx {
	struct diag_block *b;
	int rank;
	size_t prog;
};

static void
owe_add(void *arg, const struct prog_owe *o)
{
	struct owe_ctx *c = arg;
	struct diag_owe d = { c->rank, c->prog, (size_t)o->pc, (size_t)o->count,
		o->op, o->value };

	add_owe(c->b, &d);
}

/*
 * What program p of rank q still owes the blocked ranks: its generated
 * part asked per blocked rank (the generator answers from the
 * collective's structure, without a scan), the ops after it scanned.
 */
static void
owes_of(const struct diag_in *in, struct diag_result *out, const int *blk,
    int q, size_t p)
{
	const struct diag_prog *pg = &in->r[q].progs[p];
	const struct prog *pr = pg->p;
	struct prog_rd rd;

	if (pg->pc < pr->ngen) {
		for (size_t i = 0; i < out->nblocked; i++) {
			int t = out->blocked[i].rank;
			uint64_t off = in->r[t].wait_off;
			struct owe_ctx c = { &out->blocked[i], q, p };

			if (t != q && prog_gen_may_owe(pr, t, off))
				prog_gen_owed(pr, pg->pc, t, off, owe_add, &c);
		}
	}
	prog_rd_init(&rd, pr);
	for (size_t k = MAX(pg->pc, pr->ngen); k < pg->nops; k++) {
		struct uop u;
		struct diag_owe o;

		prog_rd_op(&rd, k, &u);
		if (u.kind != UOP_NOTIFY || u.peer < 0 ||
		    u.peer >= in->nranks || u.peer == q || blk[u.peer] < 0 ||
		    in->r[u.peer].wait_off != u.dst)
			continue;
		o.rank = q;
		o.prog = p;
		o.index = k;
		o.count = 1;
		o.op = u.op;
		o.value = u.value;
		add_owe(&out->blocked[blk[u.peer]], &o);
	}
}

/* Everything still to run: who owes the awaited cells. */
static void
owes_collect(const struct diag_in *in, struct diag_result *out, const int *blk)
{
	for (int q = 0; q < in->nranks; q++) {
		const struct diag_rank *r = &in->r[q];
		for (size_t p = 0; p < r->nprogs; p++)
			owes_of(in, out, blk, q, p);
	}
	for (size_t i = 0; i < out->nblocked; i++)
		out->blocked[i].releasable =
		    releasable(&in->r[out->blocked[i].rank], &out->blocked[i]);
}

/* can_progress: a path to an ower that runs or is stopped; and the
 * verdict from it. */
static void
progress_propagate(const struct diag_in *in, struct diag_result *out,
    const int *blk)
{
	int changed;

	/* a rank in code colldb cannot see may release anybody */
	for (int q = 0; q < in->nranks; q++) {
		if (in->r[q].open && !is_dead(in->r[q].state) && !in->r[q].stuck) {
			for (size_t i = 0; i < out->nblocked; i++)
				out->blocked[i].can_progress = 1;
			break;
		}
	}
	do {
		changed = 0;
		for (size_t i = 0; i < out->nblocked; i++) {
			struct diag_block *b = &out->blocked[i];
			if (b->can_progress || !b->releasable)
				continue;
			for (size_t k = 0; k < b->nowes; k++) {
				int q = b->owes[k].rank;
				enum rank_state st = in->r[q].state;
				if ((blk[q] < 0 && !is_dead(st) &&
					!in->r[q].stuck) ||
				    (blk[q] >= 0 &&
					out->blocked[blk[q]].can_progress)) {
					b->can_progress = 1;
					changed = 1;
					break;
				}
			}
		}
	} while (changed);

	out->verdict = out->nblocked == 0 ? DIAG_OK : DIAG_SLOW;
	for (size_t i = 0; i < out->nblocked; i++) {
		if (!out->blocked[i].can_progress)
			out->verdict = DIAG_HANG;
	}
	for (int q = 0; q < in->nranks; q++) {
		if (in->r[q].stuck && !is_dead(in->r[q].state))
			out->verdict = DIAG_HANG;
	}
}

/* The likely cause of block b, a rank that cannot be released. */
static void
block_cause(const struct diag_in *in, struct diag_result *out,
    const struct diag_block *b)
{
	const struct diag_rank *r = &in->r[b->rank];
	const struct diag_event *lw;
	int nwriters, any_set, set_writer, dead = -1, writer = -1, other;
	uint64_t off2 = 0;

	for (size_t k = 0; k < b->nowes; k++) {
		if (is_dead(in->r[b->owes[k].rank].state))
			dead = b->owes[k].rank;
	}
	if (dead < 0)
		dead = partner(in, b->rank, is_ended_open);
	lw = last_write(in, b->rank, r->wait_off, &nwriters, &any_set,
	    &set_writer);
	if (dead >= 0) {
		found(out, CAUSE_DEAD_OWER, b->rank, dead, r->wait_off, 0, 0);
	} else if (lw != NULL && lw->op == NOTIFY_SET && lw->value == 0 &&
	    !wait_cmp_holds((enum wait_cmp)r->cmp, 0, r->expected) &&
	    nwriters <= 1) {
		found(out, CAUSE_TAG0, b->rank, lw->writer, r->wait_off, 0,
		    lw->value);
	} else if (any_set && nwriters >= 2) {
		found(out, CAUSE_SET_SHARED, b->rank, set_writer, r->wait_off,
		    0, r->now);
	} else if (r->cmp == CMP_EQ && r->now > r->expected) {
		found(out,
		    waited_before(in, b->rank, r->wait_off) ? CAUSE_REUSED :
							      CAUSE_EQ_OVERSHOOT,
		    b->rank, lw != NULL ? lw->writer : -1, r->wait_off, 0,
		    r->now);
	} else if (b->nowes == 0 && lw == NULL &&
	    (other = wrong_peer(in, b->rank, r->wait_off, &writer)) >= 0) {
		found(out, CAUSE_WRONG_PEER, b->rank, writer, r->wait_off, 0,
		    other);
	} else if (b->nowes == 0 &&
	    mismatch(in, b->rank, r->wait_off, &off2, &writer)) {
		found(out, CAUSE_ROW_MISMATCH, b->rank, writer, r->wait_off,
		    off2, 0);
	} else if (b->nowes > 0 && !b->releasable) {
		found(out, CAUSE_SHORT, b->rank, b->owes[0].rank, r->wait_off,
		    0, 0);
	} else if (b->nowes == 0 && partner(in, b->rank, is_blocked) < 0) {
		/* (a >= wait on a used cell waits for a rising
		 * generation: that is the right way, not reuse; and a
		 * rank whose partner in the window is blocked too waits
		 * behind it: the cause is the partner's) */
		found(out, CAUSE_NOBODY, b->rank, lw != NULL ? lw->writer : -1,
		    r->wait_off, 0, r->now);
	}
}

void
diag_analyze(const struct diag_in *in, struct diag_result *out)
{
	int *blk = xcalloc(in->nranks > 0 ? (size_t)in->nranks : 1, sizeof *blk);

	memset(out, 0, sizeof *out);
	out->cycle = xcalloc((size_t)in->nranks + 1, sizeof *out->cycle);
	blocked_list(in, out, blk);
	owes_collect(in, out, blk);
	progress_propagate(in, out, blk);
	/* likely causes, for ranks that cannot be released */
	for (size_t i = 0; i < out->nblocked; i++) {
		if (!out->blocked[i].can_progress)
			block_cause(in, out, &out->blocked[i]);
	}
	for (size_t i = 0; i < out->nblocked && out->ncycle == 0; i++) {
		if (!out->blocked[i].can_progress && out->blocked[i].releasable)
			out->ncycle = find_cycle(in, out, blk,
			    out->blocked[i].rank, out->cycle);
	}
	if (out->ncycle > 0)
		found(out, CAUSE_WAIT_FIRST, out->cycle[0], out->cycle[1], 0, 0,
		    0);
	put_after_notify(in, out);
	dead_first(out);
	free(blk);
}

void
diag_result_release(struct diag_result *out)
{
	for (size_t i = 0; i < out->nblocked; i++)
		free(out->blocked[i].owes);
	free(out->blocked);
	free(out->cycle);
	memset(out, 0, sizeof *out);
}
