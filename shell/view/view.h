/*
 * view.h - one view of the world for everything that reads it.
 *
 * `print`, `ranks`, `where`, `expect`, `watch`, `diagnose`, the words
 * for what a rank does (session/describe.c) and the session's own
 * settling read the world's three kinds of state only through a view:
 *
 *   the board    one status slot per rank: state, where its program is,
 *                what it waits for (struct view_board, view_cur());
 *   cells        bytes of a rank's window area (view_read(), view_cell());
 *   windows      the window table: names, shapes, offsets (view_win_*).
 *
 * A view is a const vtable (struct view_ops) and the implementation's
 * data, like viz/pane.h's panes.  Two implementations exist, and no
 * command knows which one it reads:
 *
 *   view_seg_init()     the session segment mapped in this process (the
 *                       shm transport, and an observer's `colldb watch
 *                       NAME`).
 *   view_mirror_init()  ranks on other hosts (the mpi transport): the
 *                       segment is the shell's mirror of them.  sample()
 *                       asks every rank's control thread for its board and
 *                       waits for the answers (bounded; a rank that does
 *                       not answer keeps its last board), which land in
 *                       the mirror; board() and cur() answer from it and
 *                       never block.  read() fetches the bytes from the
 *                       rank (a bounded wait; the cell a blocked rank
 *                       waits on comes with its board, as it was then).
 *                       The window table is the shell's own (alloc and
 *                       free sub-allocate in it): the win_* members answer
 *                       from the segment as for shm.
 *
 * And for what comes:
 *
 *   - many ranks (1024 and more): nothing here is sized by a rank count.
 *     Every member takes one rank number, callers loop, and no member
 *     hands out per-rank arrays or a rank's program: programs stay with
 *     the session's jobs, which may describe them by their generator.
 *
 * Rules for callers.  Call view_sample() once before reading a picture
 * that must hang together (a command's output, one watch frame); a local
 * view is always current and sample() costs nothing.  Read the board
 * with view_board() (scalars, cheap) and the current micro-op with
 * view_cur() (a consistent copy, dearer) only when it is shown.  Ranks
 * are 0 .. view_nranks() - 1; an offset and length outside the area make
 * view_read() fail.  Nothing here writes: control goes through
 * core/ctl.h, operations through the session.
 *
 * Ownership: the window pointers returned are borrowed until the window
 * table next changes (view_win_gen() tells) or the view is released;
 * everything else is copied out.
 */
#ifndef COLLDB_VIEW_H
#define COLLDB_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "coll.h"
#include "prog.h"
#include "seg.h"
#include "site.h"

/* One rank's board slot, sampled. */
struct view_board {
	enum rank_state state;
	uint64_t state_ns;	      /* mono_ns() of the last state change */
	uint64_t progress;	      /* micro-ops completed, ever */
	uint32_t pc;		      /* current micro-op index */
	uint32_t nops;		      /* ops in the current program (0: none) */
	uint32_t prog_tag;	      /* the shell's tag of that program */
	enum stop_reason stop_reason; /* when stopped */
	uint32_t stop_break;	      /* breakpoint id, when STOP_BREAK */
	uint64_t wait_off;	      /* the cell a wait is on (blocked) */
	enum wait_cmp wait_cmp;
	int32_t wait_expected;
	int sleeping;	  /* in the futex of its wait */
	int pending;	  /* an interrupt or abort not acted on yet */
	int acted;	  /* its gate saw the shell's latest control */
	struct site site; /* a user program's current (or last) call */
	/* how its waits ended up waiting, ever (bench reports differences) */
	uint64_t n_yield; /* sched_yield() calls */
	uint64_t n_sleep; /* futex sleeps */
	uint64_t n_wake;  /* futex wakes its notifies made */
};

struct view;

struct view_ops {
	const char *name; /* the transport: "shm" */
	/* The session's name (`colldb watch NAME`), borrowed. */
	const char *(*session_name)(struct view *v);
	int (*nranks)(struct view *v);
	/* Take a fresh sample of every rank (see above). */
	void (*sample)(struct view *v);
	void (*board)(struct view *v, int r, struct view_board *out);
	/* The current micro-op and program title (title_size >= 1). */
	void (*cur)(struct view *v, int r, struct uop *cur, char *title,
	    size_t title_size);
	/* n bytes at offset off of rank r's area: 0, or -1 (dst zeroed)
	 * when they are not all inside it. */
	int (*read)(struct view *v, int r, uint64_t off, void *dst, size_t n);
	/* The first non-zero byte of [off, off + n) of rank r's area: 1
	 * with *at its offset, 0 when all are zero, -1 when the range is
	 * not inside the area.  May be NULL (view_first_nonzero() reads). */
	int (*first_nonzero)(struct view *v, int r, uint64_t off, uint64_t n,
	    uint64_t *at);
	uint64_t (*area_size)(struct view *v);
	/* Live windows in allocation order; returns how many were stored. */
	int (*win_list)(struct view *v, struct seg_window **out, int max);
	struct seg_window *(*win_find)(struct view *v, const char *name);
	/* The window whose range holds area offset off, or NULL. */
	struct seg_window *(*win_at)(struct view *v, uint64_t off);
	/* Changes whenever the window table does. */
	uint64_t (*win_gen)(struct view *v);
	/* The collective in progress (its id, 0: none), so an observer can
	 * rebuild who owes which cell without the shell's jobs. */
	uint32_t (*cur_coll)(struct view *v, struct coll_args *out);
	/* Rank r's deferred conditions (defer_wait), pending or carried by
	 * its program, into out; returns how many (entries that do not make
	 * sense are skipped).  May be NULL: none. */
	size_t (
	    *defers)(struct view *v, int r, struct seg_defer *out, size_t max);
	/* Comm domain k (1..SEG_MAX_DOMAINS), NULL if none or malformed;
	 * borrowed like the windows.  May be NULL: no domains. */
	const struct seg_domain *(*domain)(struct view *v, int k);
	/* Whether the session behind it has ended. */
	int (*ended)(struct view *v);
	/* What the view found corrupt in what ranks can write, since last
	 * asked: lines ("segment header corrupted at window 3 (dtype
	 * 0x41)"), the caller's to free; NULL if nothing.  May be NULL. */
	char *(*take_reports)(struct view *v);
};

struct view {
	const struct view_ops *ops;
	void *data; /* the implementation's */
};

/* A view of segment sg (borrowed: it must outlive the view). */
void view_seg_init(struct view *v, struct seg *sg);

/* Where a mirror view gets what is not in the segment: a fresh sample of
 * every rank, and a rank's bytes.  name is the transport ("mpi"). */
struct view_source {
	const char *name;
	void (*sample)(void *arg);
	int (*read)(void *arg, int r, uint64_t off, void *dst, size_t n);
};
/* A view of mirror segment sg kept by src; m is its storage (both
 * borrowed: they must outlive the view). */
struct view_mirror {
	struct view seg;
	const struct view_source *src;
	void *arg;
};
void view_mirror_init(struct view *v, struct view_mirror *m, struct seg *sg,
    const struct view_source *src, void *arg);

/* ---- what callers use (one line each over the ops) ------------------------ */

static inline const char *
view_session_name(struct view *v)
{
	return v->ops->session_name(v);
}

static inline int
view_nranks(struct view *v)
{
	return v->ops->nranks(v);
}

static inline void
view_sample(struct view *v)
{
	v->ops->sample(v);
}

static inline void
view_board(struct view *v, int r, struct view_board *out)
{
	v->ops->board(v, r, out);
}

static inline enum rank_state
view_state(struct view *v, int r)
{
	struct view_board b;

	v->ops->board(v, r, &b);
	return b.state;
}

static inline void
view_cur(struct view *v, int r, struct uop *cur, char *title, size_t title_size)
{
	v->ops->cur(v, r, cur, title, title_size);
}

static inline int
view_read(struct view *v, int r, uint64_t off, void *dst, size_t n)
{
	return v->ops->read(v, r, off, dst, n);
}

/* The i32 cell at off of rank r (0 when outside the area). */
static inline int32_t
view_cell(struct view *v, int r, uint64_t off)
{
	int32_t x = 0;

	v->ops->read(v, r, off, &x, sizeof x);
	return x;
}

/* See view_ops.first_nonzero: a 1 GiB signal that was never written
 * costs nothing to look at in the segment (its holes are skipped). */
int view_first_nonzero(struct view *v, int r, uint64_t off, uint64_t n,
    uint64_t *at);
/* The same by reading (implementations fall back to it). */
int view_first_nonzero_read(struct view *v, int r, uint64_t off, uint64_t n,
    uint64_t *at);

static inline uint64_t
view_area_size(struct view *v)
{
	return v->ops->area_size(v);
}

static inline int
view_win_list(struct view *v, struct seg_window **out, int max)
{
	return v->ops->win_list(v, out, max);
}

static inline struct seg_window *
view_win_find(struct view *v, const char *name)
{
	return v->ops->win_find(v, name);
}

static inline struct seg_window *
view_win_at(struct view *v, uint64_t off)
{
	return v->ops->win_at(v, off);
}

static inline uint64_t
view_win_gen(struct view *v)
{
	return v->ops->win_gen(v);
}

static inline uint32_t
view_cur_coll(struct view *v, struct coll_args *out)
{
	return v->ops->cur_coll(v, out);
}

static inline size_t
view_defers(struct view *v, int r, struct seg_defer *out, size_t max)
{
	return v->ops->defers != NULL ? v->ops->defers(v, r, out, max) : 0;
}

static inline const struct seg_domain *
view_domain(struct view *v, int k)
{
	return v->ops->domain != NULL ? v->ops->domain(v, k) : NULL;
}

/* World rank r's place in domain k (-1: not a member; k 0: r). */
static inline int
view_domain_rank(struct view *v, int k, int r)
{
	const struct seg_domain *d;
	int dense = 0;

	if (k == 0)
		return r;
	if ((d = view_domain(v, k)) == NULL || r < 0 || r >= SEG_MAX_RANKS ||
	    !((d->ranks[r / 64] >> (r % 64)) & 1))
		return -1;
	for (int q = 0; q < r; q++)
		dense += (int)((d->ranks[q / 64] >> (q % 64)) & 1);
	return dense;
}

static inline int
view_ended(struct view *v)
{
	return v->ops->ended(v);
}

static inline char *
view_take_reports(struct view *v)
{
	return v->ops->take_reports != NULL ? v->ops->take_reports(v) : NULL;
}

#endif
