/*
 * view-mirror.c - the world as the shell's mirror of ranks elsewhere
 * shows it (view.h): the segment view, with samples and cells from the
 * ranks themselves.
 */
#include <string.h>

#include "view.h"

static struct view_mirror *
mirror_of(struct view *v)
{
	return v->data;
}

#define SEG(v) (&mirror_of(v)->seg)

static const char *
m_session(struct view *v)
{
	return SEG(v)->ops->session_name(SEG(v));
}

static int
m_nranks(struct view *v)
{
	return SEG(v)->ops->nranks(SEG(v));
}

static void
m_sample(struct view *v)
{
	struct view_mirror *m = mirror_of(v);

	m->src->sample(m->arg);
}

static void
m_board(struct view *v, int r, struct view_board *out)
{
	SEG(v)->ops->board(SEG(v), r, out);
}

static void
m_cur(struct view *v, int r, struct uop *cur, char *title, size_t title_size)
{
	SEG(v)->ops->cur(SEG(v), r, cur, title, title_size);
}

static int
m_read(struct view *v, int r, uint64_t off, void *dst, size_t n)
{
	struct view_mirror *m = mirror_of(v);
	uint64_t area = SEG(v)->ops->area_size(SEG(v));

	if (r < 0 || r >= m_nranks(v) || off > area || n > area - off) {
		memset(dst, 0, n);
		return -1;
	}
	return m->src->read(m->arg, r, off, dst, n);
}

static uint64_t
m_area_size(struct view *v)
{
	return SEG(v)->ops->area_size(SEG(v));
}

static int
m_wins(struct view *v, struct seg_window **out, int max)
{
	return SEG(v)->ops->win_list(SEG(v), out, max);
}

static struct seg_window *
m_find(struct view *v, const char *name)
{
	return SEG(v)->ops->win_find(SEG(v), name);
}

static struct seg_window *
m_at(struct view *v, uint64_t off)
{
	return SEG(v)->ops->win_at(SEG(v), off);
}

static uint64_t
m_gen(struct view *v)
{
	return SEG(v)->ops->win_gen(SEG(v));
}

static uint32_t
m_coll(struct view *v, struct coll_args *out)
{
	return SEG(v)->ops->cur_coll(SEG(v), out);
}

static size_t
m_defers(struct view *v, int r, struct seg_defer *out, size_t max)
{
	return SEG(v)->ops->defers(SEG(v), r, out, max); /* the shell's */
}

static const struct seg_domain *
m_domain(struct view *v, int k)
{
	return SEG(v)->ops->domain(SEG(v), k); /* the shell's table */
}

static int
m_ended(struct view *v)
{
	return SEG(v)->ops->ended(SEG(v));
}

static char *
m_reports(struct view *v)
{
	return SEG(v)->ops->take_reports(SEG(v));
}

static const struct view_ops view_mirror_ops = {
	.name = "mpi",
	.session_name = m_session,
	.nranks = m_nranks,
	.sample = m_sample,
	.board = m_board,
	.cur = m_cur,
	.read = m_read,
	.area_size = m_area_size,
	.win_list = m_wins,
	.win_find = m_find,
	.win_at = m_at,
	.win_gen = m_gen,
	.cur_coll = m_coll,
	.defers = m_defers,
	.domain = m_domain,
	.ended = m_ended,
	.take_reports = m_reports,
};

void
view_mirror_init(struct view *v, struct view_mirror *m, struct seg *sg,
    const struct view_source *src, void *arg)
{
	view_seg_init(&m->seg, sg);
	m->src = src;
	m->arg = arg;
	v->ops = &view_mirror_ops;
	v->data = m;
}
