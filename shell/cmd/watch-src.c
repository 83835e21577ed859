/*
 * watch-src.c - fill the watch pane's snapshot (viz/snap.h) from a view of
 * the world (view/view.h).  Observation never messages a rank: everything
 * comes from the status board, the window table and the windows themselves.  With the
 * shell's own session the queued programs tell who owes which cell; an
 * observer attached from outside rebuilds the collective in progress from
 * the segment's cur_coll record.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "watch-src.h"
#include "xmalloc.h"

#define WIN_CELLS_MAX 4096 /* larger i32 windows show a prefix */
#define OWED_SCAN_MAX 8192 /* micro-ops looked ahead per rank */
#define OWED_SCAN_ALL \
	(1 << 20) /* ... and by all ranks together: a large
				 * world looks less far (at 1024 ranks, one
				 * barrier's notifies) */

static enum snap_state
snap_state_of(enum rank_state st)
{
	switch (st) {
	case RS_RUNNING:
		return SNAP_RUNNING;
	case RS_STOPPED:
		return SNAP_STOPPED;
	case RS_BLOCKED:
		return SNAP_BLOCKED;
	case RS_EXITED:
		return SNAP_EXITED;
	case RS_DEAD:
		return SNAP_DEAD;
	default:
		return SNAP_IDLE;
	}
}

/* Windows in the snapshot: which segment window each index shows. */
struct shown {
	struct seg_window *w[SEG_MAX_WINDOWS];
	int n;
};

static void
add_windows(struct watch_src *ws, struct snap *out, struct shown *sh)
{
	struct seg_window *list[SEG_MAX_WINDOWS];
	int n = view_win_list(ws->view, list, SEG_MAX_WINDOWS);

	sh->n = 0;
	for (int i = 0; i < n; i++) {
		struct seg_window *w = list[i];
		int shape[SNAP_DIMS_MAX], nd = w->ndim, k = 0;
		uint64_t cells = w->count;
		char name[SNAP_NAME_MAX];
		struct snap_win *sw;

		if (w->dtype != DT_I32)
			continue;
		while (nd > 1 && w->shape[nd - 1] == 1)
			nd--;
		if (cells > WIN_CELLS_MAX) {
			snprintf(name, sizeof name, "%s[0:%d]", w->name,
			    WIN_CELLS_MAX);
			shape[0] = WIN_CELLS_MAX;
			k = 1;
			cells = WIN_CELLS_MAX;
		} else {
			uint64_t lead = 1;
			snprintf(name, sizeof name, "%s", w->name);
			/* fold leading dims so at most SNAP_DIMS_MAX remain */
			for (int d = 0; d <= nd - SNAP_DIMS_MAX; d++)
				lead *= w->shape[d];
			if (nd > SNAP_DIMS_MAX) {
				shape[k++] = (int)lead;
				for (int d = nd - SNAP_DIMS_MAX + 1; d < nd; d++)
					shape[k++] = (int)w->shape[d];
			} else {
				for (int d = 0; d < nd; d++)
					shape[k++] = (int)w->shape[d];
			}
		}
		sw = snap_add_win(out, name, k, shape);
		for (int r = 0; r < out->nranks; r++) {
			if (w->domain != 0 &&
			    view_domain_rank(ws->view, w->domain, r) < 0) {
				snap_mark_absent(sw, r); /* not a member */
				continue;
			}
			view_read(ws->view, r, w->off, snap_row(sw, r),
			    cells * 4);
		}
		sh->w[sh->n++] = w;
	}
}

/* Mark the cell notify u of rank q writes; *wi caches the window. */
static void
mark_one(struct snap *out, const struct shown *sh, int q, const struct uop *u,
    int *wi)
{
	const struct seg_window *w;
	uint64_t cell;

	/* a credit for a peer; not a rank's notify to itself, nor a
	 * negative add (the epilogue's reset of its own cells) */
	if (u->peer < 0 || u->peer >= out->nranks || u->peer == q ||
	    (u->op != NOTIFY_SET && u->value <= 0))
		return;
	if (*wi < 0 || u->dst < sh->w[*wi]->off ||
	    u->dst >= sh->w[*wi]->off + sh->w[*wi]->bytes) {
		for (*wi = 0; *wi < sh->n; (*wi)++) {
			w = sh->w[*wi];
			if (u->dst >= w->off && u->dst < w->off + w->bytes)
				break;
		}
		if (*wi == sh->n) {
			*wi = -1;
			return;
		}
	}
	w = sh->w[*wi];
	cell = (u->dst - w->off) / 4;
	if (cell < (uint64_t)out->wins[*wi].ncells)
		snap_mark_owed(&out->wins[*wi], u->peer, (int)cell, q);
}

/* Ops [i, n) of b, a block of q's credits.  The common one (every peer's
 * copy of one cell: a barrier's notifies) finds its window once. */
static void
mark_block(struct snap *out, const struct shown *sh, int q, const struct blk *b,
    uint64_t i, uint64_t n, int *wi)
{
	const struct snap_win *sw;
	struct uop u;
	uint64_t cell;

	if (!b->peer_p || b->dst_step != 0 || i >= n) {
		for (; i < n; i++) {
			blk_op(b, i, &u);
			mark_one(out, sh, q, &u, wi);
		}
		return;
	}
	blk_op(b, i, &u);
	mark_one(out, sh, q, &u, wi); /* finds the window */
	if (*wi < 0)
		return;
	cell = (u.dst - sh->w[*wi]->off) / 4;
	sw = &out->wins[*wi];
	if (cell >= (uint64_t)sw->ncells)
		return;
	for (i++; i < n; i++) {
		int64_t p = blk_p(b, i);
		int peer = b->world != NULL ? b->world[p] : (int)p;

		if (peer >= 0 && peer < out->nranks && peer != q)
			snap_mark_owed(&out->wins[*wi], peer, (int)cell, q);
	}
}

/* The notifies among the next OWED_SCAN_MAX micro-ops of q's program p
 * from pc from (fewer in a large world: OWED_SCAN_ALL); blocks without a
 * notify are skipped whole. */
static void
mark_owed(struct snap *out, const struct shown *sh, int q, const struct prog *p,
    uint64_t from)
{
	uint64_t ahead =
	    MAX(256, MIN(OWED_SCAN_MAX, OWED_SCAN_ALL / (uint64_t)out->nranks));
	uint64_t len = prog_len(p), end = MIN(len, from + ahead);
	struct prog_rd rd;
	struct uop u;
	int wi = -1;

	prog_rd_init(&rd, p);
	for (uint64_t k = from; k < end;) {
		if (k < p->ngen) {
			const struct blk *b = prog_rd_block(&rd, k);
			uint64_t stop = MIN(end, b->start + b->len);

			/* (an epilogue: my own cells, negative: none) */
			int credits = b->t.kind == UOP_NOTIFY &&
			    (b->peer_p || b->t.op == NOTIFY_SET ||
				b->t.value > 0);

			if (credits)
				mark_block(out, sh, q, b, k - b->start,
				    stop - b->start, &wi);
			k = stop;
		} else {
			prog_rd_op(&rd, k++, &u);
			if (u.kind == UOP_NOTIFY)
				mark_one(out, sh, q, &u, &wi);
		}
	}
}

/* Observer: programs of the collective in progress, rebuilt once per id. */
static void
observer_owed(struct watch_src *ws, struct snap *out, const struct shown *sh)
{
	struct coll_args cur;
	uint32_t id = view_cur_coll(ws->view, &cur);

	if (id == 0)
		return;
	if (id != ws->coll_id) {
		struct prog_gen *g = coll_describe(&cur, out->nranks);

		for (int r = 0; r < ws->nprogs; r++)
			prog_free(ws->progs[r]);
		free(ws->progs);
		ws->nprogs = out->nranks;
		ws->progs = xcalloc((size_t)ws->nprogs, sizeof *ws->progs);
		for (int r = 0; r < ws->nprogs; r++) {
			if (coll_dense(&cur, r) >= 0) /* a domain's members */
				ws->progs[r] = coll_prog(g, r);
		}
		prog_gen_put(g);
		ws->coll_id = id;
	}
	for (int q = 0; q < out->nranks && q < ws->nprogs; q++) {
		struct view_board b;

		if (ws->progs[q] == NULL)
			continue;
		view_board(ws->view, q, &b);
		if ((b.state == RS_RUNNING || b.state == RS_STOPPED ||
			b.state == RS_BLOCKED) &&
		    b.nops == prog_len(ws->progs[q]))
			mark_owed(out, sh, q, ws->progs[q], b.pc);
	}
}

int
watch_src_fill(struct watch_src *ws, struct snap *out)
{
	struct view *v = ws->view;
	struct session *s = ws->sess;
	struct strbuf sb = STRBUF_INIT;
	struct shown sh;
	char *corrupt;
	uint64_t now = mono_ns();
	int n = view_nranks(v), obs_domain = 0;

	if (s != NULL && s->rp != NULL)
		session_pump(s, 0); /* events wait until the pane closes */
	if (view_ended(v) || (ws->pid > 0 && kill(ws->pid, 0) != 0))
		return -1;
	view_sample(v);
	snap_set_ranks(out, n);
	out->world = n;
	snprintf(out->session, sizeof out->session, "%s",
	    s != NULL && strcmp(view_session_name(v), s->name) == 0 ?
		session_name_shown(s) :
		view_session_name(v));
	out->readonly = ws->readonly;
	out->show_times = s != NULL ? s->set.times : 0;
	add_windows(ws, out, &sh);
	if (s == NULL) {
		/* an observer: the collective in progress says its domain */
		struct coll_args cur;
		obs_domain = view_cur_coll(v, &cur) != 0 ? cur.domain : 0;
	}
	for (int r = 0; r < n; r++) {
		struct snap_rank *rk = &out->ranks[r];
		struct view_board b;
		int dk = 0;

		view_board(v, r, &b);
		rk->state = snap_state_of(b.state);
		rk->secs = (double)(now - b.state_ns) / 1e9;
		strbuf_reset(&sb);
		if (s != NULL && rank_job(s, r) != NULL)
			dk = rank_job(s, r)->domain;
		else if (s == NULL &&
		    (b.state == RS_RUNNING || b.state == RS_STOPPED ||
			b.state == RS_BLOCKED))
			dk = obs_domain;
		if (dk != 0 && view_domain_rank(v, dk, r) >= 0) {
			/* a domain's job: the rank's place in it too */
			const struct seg_domain *d = view_domain(v, dk);
			if (d != NULL)
				strbuf_addf(&sb, "(%s:%d) ", d->name,
				    view_domain_rank(v, dk, r));
		}
		if (s != NULL && s->rp[r].death != NULL)
			strbuf_addstr(&sb, s->rp[r].death);
		else if (s != NULL && rank_job(s, r) != NULL)
			describe_rank(s, r, &sb, 1);
		else
			describe_board(v, r, &sb);
		{
			/* deferred conditions still waiting for a program */
			struct seg_defer d[DEFER_MAX];
			size_t nd = view_defers(v, r, d, DEFER_MAX), k = 0;

			for (size_t i = 0; i < nd; i++) {
				if (d[i].tag != 0)
					continue;
				strbuf_addstr(&sb,
				    k++ == 0 ?
					(sb.len ? "  deferred: " : "deferred: ") :
					", ");
				describe_cell(v, d[i].off, 1, &sb);
				strbuf_addf(&sb, " >= %d", d[i].expected);
			}
		}
		snprintf(rk->op, sizeof rk->op, "%s", sb.buf);
		if (b.state == RS_BLOCKED) {
			uint64_t off = b.wait_off;
			rk->now = view_cell(v, r, off);
			rk->expected = b.wait_expected;
			strbuf_reset(&sb);
			describe_cell(v, off, 1, &sb);
			strbuf_addf(&sb, " %s %d", wait_cmp_name(b.wait_cmp),
			    rk->expected);
			snprintf(rk->on, sizeof rk->on, "%s", sb.buf);
			for (int i = 0; i < sh.n; i++) {
				const struct seg_window *w = sh.w[i];
				if (off >= w->off && off < w->off + w->bytes &&
				    (off - w->off) / 4 <
					(uint64_t)out->wins[i].ncells) {
					rk->win = i;
					rk->cell = (int)((off - w->off) / 4);
				}
			}
		}
	}
	snap_mark_awaited(out);
	if (s != NULL) {
		for (int q = 0; q < n; q++) {
			struct view_board b;

			view_board(v, q, &b);
			for (struct job *j = rank_job(s, q); j != NULL;
			     j = j->next) {
				size_t from = 0;
				if (j == rank_job(s, q) && b.prog_tag == j->tag)
					from = b.pc;
				if (j->prog != NULL)
					mark_owed(out, &sh, q, j->prog, from);
			}
		}
	} else {
		observer_owed(ws, out, &sh);
	}
	if (s == NULL && (corrupt = view_take_reports(v)) != NULL) {
		/* the observer's only line to say it on */
		snprintf(ws->status, sizeof ws->status, "error: %.*s",
		    (int)strcspn(corrupt, "\n"), corrupt);
		free(corrupt);
	}
	if (ws->status[0] != '\0')
		snprintf(out->status, sizeof out->status, "%s", ws->status);
	strbuf_release(&sb);
	return 0;
}

void
watch_src_release(struct watch_src *ws)
{
	for (int r = 0; r < ws->nprogs; r++)
		prog_free(ws->progs[r]);
	free(ws->progs);
	ws->progs = NULL;
	ws->nprogs = 0;
}
