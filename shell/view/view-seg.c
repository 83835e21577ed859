/*
 * view-seg.c - the world as the session segment mapped in this process
 * shows it (view.h).  Always current: sample() has nothing to do.
 *
 * Reads of a page or more go through the segment's file (pread), not the
 * mapping: the bytes are the same, but pages read that way do not become
 * this process's memory, and holes (never written) read as zeros without
 * being allocated.  `check` on 1024 ranks reads 1024 inputs; through the
 * mapping each would stay in the shell's resident set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view.h"
#include "xmalloc.h"

#define PAGE 4096u

static struct seg *
seg_of(struct view *v)
{
	return v->data;
}

static const char *
seg_session_name(struct view *v)
{
	return seg_of(v)->name; /* copied at create/attach: terminated */
}

static int
seg_nranks(struct view *v)
{
	return seg_of(v)->nranks;
}

static void
seg_sample(struct view *v)
{
	(void)v;
}

static void
seg_board_of(struct view *v, int r, struct view_board *out)
{
	struct seg_rank *b = seg_board(seg_of(v), r);

	out->state = seg_rank_state(b); /* ranks write it: checked */
	out->state_ns = atomic_load(&b->state_ns);
	out->progress = atomic_load(&b->progress);
	out->pc = atomic_load(&b->pc);
	out->nops = atomic_load(&b->nops);
	out->prog_tag = atomic_load(&b->prog_tag);
	out->stop_reason = (enum stop_reason)atomic_load(&b->stop_reason);
	out->stop_break = atomic_load(&b->stop_break);
	out->site = b->site;
	out->site.file[sizeof out->site.file - 1] = '\0';
	out->wait_off = atomic_load(&b->wait_off);
	out->wait_cmp = (enum wait_cmp)atomic_load(&b->wait_cmp);
	out->wait_expected = atomic_load(&b->wait_expected);
	out->sleeping = atomic_load(&b->sleeping) != 0;
	out->pending = atomic_load(&b->interrupt) || atomic_load(&b->abort);
	out->acted = atomic_load(&b->ctl_seen) == atomic_load(&b->ctl);
	out->site = b->site;
	out->n_yield = atomic_load_explicit(&b->n_yield, memory_order_relaxed);
	out->n_sleep = atomic_load_explicit(&b->n_sleep, memory_order_relaxed);
	out->n_wake = atomic_load_explicit(&b->n_wake, memory_order_relaxed);
}

static void
seg_cur(struct view *v, int r, struct uop *cur, char *title, size_t title_size)
{
	seg_read_cur(seg_board(seg_of(v), r), cur, title, title_size);
}

static int
seg_read(struct view *v, int r, uint64_t off, void *dst, size_t n)
{
	struct seg *sg = seg_of(v);
	const uint8_t *src;

	if (r < 0 || r >= sg->nranks || off > sg->area_size ||
	    n > sg->area_size - off) {
		memset(dst, 0, n);
		return -1;
	}
	if (n >= PAGE && sg->fd >= 0) {
		off_t at =
		    (off_t)(sg->area_off + (uint64_t)r * sg->area_size + off);
		size_t done = 0;

		while (done < n) {
			ssize_t k = pread(sg->fd, (uint8_t *)dst + done,
			    n - done, at + (off_t)done);
			if (k <= 0)
				break;
			done += (size_t)k;
		}
		if (done == n)
			return 0;
	}
	src = seg_area(sg, r) + off;
	if (n == sizeof(int32_t) && off % sizeof(int32_t) == 0) {
		/* a cell ranks write with atomics */
		int32_t x = atomic_load((const _Atomic int32_t *)src);
		memcpy(dst, &x, sizeof x);
	} else {
		memcpy(dst, src, n);
	}
	return 0;
}

/* Data extents only (SEEK_DATA / SEEK_HOLE on the segment's file), read
 * in pieces. */
static int
seg_first_nonzero(struct view *v, int r, uint64_t off, uint64_t n, uint64_t *at)
{
	struct seg *sg = seg_of(v);
	uint64_t base, pos, end;
	uint8_t buf[16384];

	if (r < 0 || r >= sg->nranks || off > sg->area_size ||
	    n > sg->area_size - off)
		return -1;
	base = sg->area_off + (uint64_t)r * sg->area_size;
	pos = base + off;
	end = pos + n;
	while (pos < end) {
		off_t d = sg->fd >= 0 ? lseek(sg->fd, (off_t)pos, SEEK_DATA) :
					(off_t)pos;
		off_t h;

		if (d < 0)
			return errno == ENXIO ? 0 :
						view_first_nonzero_read(v, r,
						    pos - base, end - pos, at);
		if ((uint64_t)d >= end)
			return 0;
		h = sg->fd >= 0 ? lseek(sg->fd, d, SEEK_HOLE) : (off_t)end;
		if (h < 0 || (uint64_t)h > end)
			h = (off_t)end;
		for (pos = (uint64_t)d; pos < (uint64_t)h;) {
			size_t k = (size_t)MIN(sizeof buf, (uint64_t)h - pos);

			seg_read(v, r, pos - base, buf, k);
			for (size_t i = 0; i < k; i++) {
				if (buf[i] != 0) {
					*at = pos - base + i;
					return 1;
				}
			}
			pos += k;
		}
	}
	return 0;
}

static uint64_t
seg_area_size(struct view *v)
{
	return seg_of(v)->area_size;
}

static int
seg_wins(struct view *v, struct seg_window **out, int max)
{
	return seg_win_list(seg_of(v), out, max);
}

static struct seg_window *
seg_find(struct view *v, const char *name)
{
	return seg_win_find(seg_of(v), name);
}

static struct seg_window *
seg_at(struct view *v, uint64_t off)
{
	return seg_win_at(seg_of(v), off);
}

static uint64_t
seg_gen(struct view *v)
{
	return atomic_load(&seg_of(v)->h->win_seq);
}

static uint32_t
seg_coll(struct view *v, struct coll_args *out)
{
	struct coll_args a;

	/* checked like a command's: ranks can write it (core/seg.h) */
	return seg_cur_coll(seg_of(v), out != NULL ? out : &a);
}

static size_t
seg_defers(struct view *v, int r, struct seg_defer *out, size_t max)
{
	struct seg *sg = seg_of(v);
	size_t n = 0;

	/* the shell writes the table, but ranks could scribble on it */
	for (int i = 0; i < SEG_MAX_DEFERS && n < max; i++) {
		struct seg_defer d = sg->h->defers[i];

		if (d.used != 1 || d.rank != r || d.expected < 0 ||
		    d.off % 4 != 0 || d.off > sg->h->area_size - 4)
			continue;
		out[n++] = d;
	}
	return n;
}

static const struct seg_domain *
seg_dom(struct view *v, int k)
{
	return seg_domain_get(seg_of(v), k);
}

static int
seg_ended(struct view *v)
{
	return atomic_load(&seg_of(v)->h->ended) != 0;
}

static char *
seg_reports(struct view *v)
{
	seg_win_sync(seg_of(v));
	return seg_take_reports(seg_of(v));
}

static const struct view_ops view_seg_ops = {
	.name = "shm",
	.session_name = seg_session_name,
	.nranks = seg_nranks,
	.sample = seg_sample,
	.board = seg_board_of,
	.cur = seg_cur,
	.read = seg_read,
	.first_nonzero = seg_first_nonzero,
	.area_size = seg_area_size,
	.win_list = seg_wins,
	.win_find = seg_find,
	.win_at = seg_at,
	.win_gen = seg_gen,
	.cur_coll = seg_coll,
	.defers = seg_defers,
	.domain = seg_dom,
	.ended = seg_ended,
	.take_reports = seg_reports,
};

void
view_seg_init(struct view *v, struct seg *sg)
{
	v->ops = &view_seg_ops;
	v->data = sg;
}
