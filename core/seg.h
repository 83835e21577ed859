/*
 * seg.h - the session segment: one POSIX shared-memory object per session.
 *
 * Layout (every part page-aligned):
 *
 *   struct seg_header   magic, sizes, window table, breakpoint table
 *   struct seg_rank[N]  the status board: one 320-byte slot per rank
 *   span rings[N]       per-rank span records (see span.h)
 *   window areas[N]     each rank's symmetric window area, area_size bytes
 *
 * Who writes what: the shell (or, under `colldb run`, the first rank to
 * allocate a name) writes the window table under seg_lock(); ranks write
 * their own board slot's "rank" fields; the shell writes the "control"
 * fields and the breakpoint table.  Observers (`watch`) only read.
 *
 * Invariant: every byte of a window area that is not inside a live window
 * is zero.  New windows are therefore zero-filled without a memset, and
 * seg_win_free() zeroes (and returns to the kernel) what it releases.
 *
 * Windows follow PyPTO's comm-domain layout: each window's size is rounded
 * up to 32 bytes and windows are placed consecutively in allocation order;
 * a freed window leaves a hole that is reused only once every window above
 * it is freed too (offsets of live windows never move).
 */
#ifndef COLLDB_SEG_H
#define COLLDB_SEG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "coll.h"
#include "dtype.h"
#include "prog.h"

#define SEG_MAGIC 0x31474553424443ull /* "CDBSEG1" */
#define SEG_MAX_RANKS 256
#define SEG_MAX_WINDOWS 128
#define SEG_MAX_BREAKS 32
#define SEG_NAME_MAX 32
#define SEG_ALIGN 32		/* PyPTO's kCommBufferAlignmentBytes */
#define SEG_TITLE_MAX 64

enum rank_state {
	RS_STARTING,
	RS_IDLE,
	RS_RUNNING,
	RS_STOPPED,
	RS_BLOCKED,
	RS_EXITED,
	RS_DEAD,
	RS__COUNT
};

enum stop_reason { STOP_NONE, STOP_STEP, STOP_BREAK, STOP_INTERRUPT };
enum run_mode { RUN_FREE, RUN_STEP };

enum win_flags {
	WIN_BYTES = 1 << 0,	/* allocated by size: untyped u8 view */
	WIN_SYNTH = 1 << 1,	/* synthesized signal of a mesh allreduce */
};

struct seg_window {
	char name[SEG_NAME_MAX];
	uint8_t used;
	uint8_t dtype;		/* enum dtype */
	uint8_t ndim;
	uint8_t flags;		/* enum win_flags */
	uint32_t reserved;
	uint64_t shape[COLLDB_MAX_DIMS];
	uint64_t count;		/* elements */
	uint64_t bytes;		/* logical bytes (count * dtype size) */
	uint64_t off;		/* byte offset in every rank's area */
	uint64_t seq;		/* allocation order */
};

/* Breakpoint: stop a rank before a micro-op that matches. */
struct seg_break {
	uint32_t id;		/* 0 = free slot */
	uint32_t kinds;		/* bit (1 << enum uop_kind); BREAK_BARRIER */
	uint8_t has_cond;
	uint8_t cmp;		/* enum wait_cmp */
	uint16_t reserved;
	int32_t value;
	uint64_t cell_off;	/* condition cell, in the rank's own area */
	uint64_t ranks[SEG_MAX_RANKS / 64];
	_Atomic uint64_t hits;
};
#define BREAK_BARRIER (1u << 31)

/*
 * One rank's slot on the status board, in three cache lines and up: what a
 * notifier reads (the waiter's announcement, written only when the rank
 * blocks), what the rank writes as it runs (every micro-op), what the
 * shell writes.  Keeping them apart means a notify never misses on a line
 * its peer is busy writing.
 */
struct seg_rank {
	/* written by the rank when it blocks in a wait */
	_Atomic uint32_t sleeping;	/* in FUTEX_WAIT on wait_off */
	_Atomic uint32_t wait_cmp;
	_Atomic uint64_t wait_off;	/* cell being waited on */
	_Atomic int32_t wait_expected;

	/* written by the rank as it runs */
	_Atomic uint32_t state __attribute__((aligned(64))); /* enum rank_state */
	_Atomic uint64_t progress;	/* micro-ops completed, ever */
	_Atomic uint64_t state_ns;	/* mono_ns() of the last state change */
	_Atomic uint32_t pc;		/* current micro-op index */
	_Atomic uint32_t nops;		/* ops in the current program */
	_Atomic uint32_t prog_tag;	/* shell's tag of the current program */
	_Atomic uint32_t stop_reason;	/* enum stop_reason, when stopped */
	_Atomic uint32_t stop_break;	/* breakpoint id, when STOP_BREAK */
	_Atomic uint32_t cur_seq;	/* seqlock over cur and title */
	_Atomic uint32_t ctl_seen;	/* the ctl value the gate last acted on:
					 * stopped with ctl_seen != ctl means a
					 * reaction to the shell is pending */
	int32_t pid;
	/* how waits ended up waiting, ever (bench reports the difference) */
	_Atomic uint64_t n_yield;	/* sched_yield() calls */
	_Atomic uint64_t n_sleep;	/* FUTEX_WAITs */
	_Atomic uint64_t n_wake;	/* FUTEX_WAKEs this rank's notifies made */
	struct uop cur;			/* the current micro-op */
	char title[SEG_TITLE_MAX];	/* current program title */

	/* written by the shell */
	_Atomic uint32_t ctl __attribute__((aligned(64))); /* futex word: bumped
							    * on every change */
	_Atomic uint32_t mode;		/* enum run_mode */
	_Atomic uint32_t credits;	/* step credits left */
	_Atomic uint32_t interrupt;	/* interrupt requested */
	_Atomic uint32_t abort;		/* abandon the current program */
	_Atomic uint32_t skip_pc;	/* pc + 1 whose breakpoint to ignore once */
} __attribute__((aligned(64)));

struct seg_header {
	uint64_t magic;
	uint32_t version;
	uint32_t nranks;
	uint64_t total_size;
	uint64_t area_size;	/* bytes of one rank's window area */
	uint64_t board_off;
	uint64_t spans_off;
	uint64_t span_bytes;	/* bytes of one rank's span ring */
	uint64_t area_off;
	int32_t shell_pid;
	uint32_t reserved;
	char name[64];		/* session name */

	_Atomic uint32_t lock;		/* seg_lock() futex mutex */
	_Atomic int32_t lock_owner;	/* its holder's pid: a holder that dies
					 * (a user rank killed in cdb_alloc)
					 * does not keep it for ever */
	_Atomic uint32_t gate_active;	/* ranks consult the gate at all */
	_Atomic uint32_t win_seq;	/* bumped on window-table changes */
	_Atomic uint32_t break_seq;	/* bumped on breakpoint changes */
	_Atomic uint32_t ended;		/* the shell ended the session */
	_Atomic uint32_t wait_giveup;	/* sim mode: polls before a wait gives
					 * up as if satisfied (0 = never) */
	_Atomic uint64_t next_win_seq;
	/* The collective in progress (0: none), so an observer attached from
	 * outside (`colldb watch NAME`) can rebuild its programs and show who
	 * still owes which cell.  Written by the shell before it issues one. */
	_Atomic uint32_t cur_coll_id;
	struct coll_args cur_coll;	/* names are NULL */
	struct seg_window windows[SEG_MAX_WINDOWS];
	struct seg_break breaks[SEG_MAX_BREAKS];
};

/* A mapped segment (the mapping itself is shared; this handle is not). */
struct seg {
	struct seg_header *h;
	size_t size;
	int fd;			/* -1 once closed */
	int writable;
	char shm_name[64];	/* "" once unlinked */
};

/* Create a new segment (O_EXCL, 0600) sized for nranks ranks with
 * area_size bytes of window area each; 0 or -1 + cause. */
int seg_create(struct seg *s, const char *session, int nranks,
    uint64_t area_size, uint64_t span_bytes, char **cause);
/* Map an existing segment from an inherited or opened fd (read-only if
 * writable is 0); 0 or -1 + cause.  The fd is kept open in s->fd. */
int seg_attach_fd(struct seg *s, int fd, int writable, char **cause);
/* Remove the shm name (the mapping and fds stay valid). */
void seg_unlink(struct seg *s);
/* Unmap and close. */
void seg_close(struct seg *s);

/* Default per-rank window area for nranks ranks. */
uint64_t seg_default_area(int nranks);

static inline struct seg_rank *
seg_board(const struct seg *s, int r)
{
	return (struct seg_rank *)((char *)s->h + s->h->board_off) + r;
}

static inline uint8_t *
seg_area(const struct seg *s, int r)
{
	return (uint8_t *)s->h + s->h->area_off + (uint64_t)r * s->h->area_size;
}

static inline void *
seg_spans(const struct seg *s, int r)
{
	return (char *)s->h + s->h->spans_off + (uint64_t)r * s->h->span_bytes;
}

void seg_lock(struct seg *s);
void seg_unlock(struct seg *s);

/* Window table (callers hold seg_lock() when several processes may write). */
struct seg_window *seg_win_find(struct seg *s, const char *name);
/* Allocate name with the given shape and dtype (ndim 1..8, dims > 0);
 * flags from enum win_flags.  Returns the window or NULL + cause. */
struct seg_window *seg_win_alloc(struct seg *s, const char *name,
    const uint64_t *shape, int ndim, enum dtype dt, unsigned flags,
    char **cause);
/* Release a window; its bytes become zero on every rank. */
void seg_win_free(struct seg *s, struct seg_window *w);
/* Live windows in allocation order; returns how many were stored. */
int seg_win_list(struct seg *s, struct seg_window **out, int max);
/* The window whose range holds area offset off, or NULL. */
struct seg_window *seg_win_at(struct seg *s, uint64_t off);
/* Fill a win_ref from a window. */
void seg_win_ref(const struct seg_window *w, struct win_ref *ref);

/* Publish a rank state change (updates state_ns). */
void seg_set_state(struct seg_rank *b, enum rank_state st);
const char *rank_state_name(enum rank_state st);

/* Bump a board slot's ctl word and wake a rank sleeping at its gate. */
void seg_ctl_kick(struct seg_rank *b);

/* Read a consistent copy of a board slot's current op and title. */
void seg_read_cur(struct seg_rank *b, struct uop *cur, char *title,
    size_t title_size);
/* Write the current op / title (rank side: the slot's only writer). */
void seg_write_cur(struct seg_rank *b, const struct uop *cur,
    const char *title);

#endif
