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
#include "site.h"

#define SEG_MAGIC 0x31474553424443ull /* "CDBSEG1" */
#define SEG_MAX_RANKS \
	16384 /* the mpi transport's worlds; shm sessions
				 * are meant for up to 1024 on one machine */
#define SEG_MAX_WINDOWS 128
#define SEG_MAX_BREAKS 32
#define SEG_NAME_MAX 32
#define SEG_ALIGN 32 /* PyPTO's kCommBufferAlignmentBytes */
#define SEG_TITLE_MAX 64
#define SEG_MAX_DEFERS 256 /* deferred conditions, all ranks together */
/* Limits checked before any size arithmetic: a segment's window areas
 * together at most 64 TiB (the address space is 128 TiB), a span ring at
 * most 4 GiB, corruption reports kept at most 4 KiB. */
#define SEG_AREA_MAX (1ull << 46)
#define SEG_SPANS_MAX (1ull << 32)
#define SEG_REPORTS_MAX 4096

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
	WIN_BYTES = 1 << 0, /* allocated by size: untyped u8 view */
	WIN_SYNTH = 1 << 1, /* synthesized signal of a mesh allreduce */
};

struct seg_window {
	char name[SEG_NAME_MAX];
	uint8_t used;
	uint8_t dtype; /* enum dtype */
	uint8_t ndim;
	uint8_t flags;	/* enum win_flags */
	uint8_t domain; /* 0: every rank; k: on domains[k-1]'s ranks */
	uint8_t reserved0;
	uint16_t reserved;
	uint64_t shape[COLLDB_MAX_DIMS];
	uint64_t count; /* elements */
	uint64_t bytes; /* logical bytes (count * dtype size) */
	uint64_t off;	/* byte offset in every rank's area */
	uint64_t seq;	/* allocation order */
	uint64_t doff;	/* offset in its domain's own layout (PyPTO's:
				 * the domain's buffers, 32-byte rounded, in
				 * allocation order); off for the world */
};

/*
 * A comm domain: a named subset of the ranks with its own window layout.
 * Inside it a rank's rank is its place among the members (dense, in rank
 * order) and the size is the member count.  Written by the shell only.
 */
#define SEG_MAX_DOMAINS 16
struct seg_domain {
	char name[SEG_NAME_MAX];
	uint32_t used;
	uint32_t nranks;		    /* members */
	uint64_t ranks[SEG_MAX_RANKS / 64]; /* member bit set */
};

enum break_flags {
	BRK_AT_CALL = 1 << 0,	 /* only a user call's first micro-op, when
				 * its site matches file/line/fn */
	BRK_LINE_AFTER = 1 << 1, /* with BRK_AT_CALL: a line past `line` in
				 * `file` (until without a location) */
	BRK_CELLS = 1 << 2,	 /* a micro-op touching the cells win/row/col
				 * or the elements [lo, hi) */
	BRK_ONCE = 1 << 3, /* tbreak: the first hit (any rank) spends it */
	BRK_ONCE_PER_RANK = 1 << 4, /* until/advance: each rank stops once;
				 * its hit clears its bit in ranks */
};

/*
 * Breakpoint: stop a rank before a micro-op that matches everything the
 * entry asks: a kind, a call site, cells, and a condition on a cell.
 * Evaluated by the ranks at their gate (core/brk.c), written by the shell.
 */
struct seg_break {
	uint32_t id;	/* 0 = free slot */
	uint32_t kinds; /* bit (1 << enum uop_kind); BREAK_BARRIER */
	uint8_t has_cond;
	uint8_t cmp;   /* enum wait_cmp */
	uint8_t flags; /* enum break_flags */
	uint8_t fn;    /* BRK_AT_CALL: enum api_fn, FN_NONE = any */
	int32_t value;
	uint64_t cell_off;	  /* condition cell, in the rank's own area */
	int32_t line;		  /* BRK_AT_CALL: the call's line, 0 = any */
	char file[SITE_FILE_MAX]; /* BRK_AT_CALL: its file, "" = any */
	char win[SEG_NAME_MAX];	  /* BRK_CELLS: the window, "" = any 2-D i32
				 * window (break row R) */
	int32_t line_end;	  /* BRK_AT_CALL: a call spanning the lines
				 * line..line_end (0: line alone) */
	int64_t row, col;	  /* BRK_CELLS: index per dimension, -1 = any */
	uint64_t lo, hi;	  /* BRK_CELLS: flat elements [lo, hi) when
				 * hi > 0 (then row/col are unused) */
	uint64_t ranks[SEG_MAX_RANKS / 64];
	_Atomic uint64_t hits;
};
#define BREAK_BARRIER (1u << 31)
#define BREAK_ANY_KIND 0x7fffffffu /* every micro-op kind */
#define BREAK_ID_UNTIL \
	0x80000000u /* id bit of until/advance's momentary
					 * entries (not numbered for the user) */

/*
 * A deferred condition (defer_wait) the shell holds for a rank: pending
 * until the rank's next program is sent (tag 0), then carried by that
 * program as its last WAITs (tag = the program's) until it ends.  Written
 * by the shell only, so observers can show them.
 */
struct seg_defer {
	uint32_t used;
	int32_t rank;
	uint32_t tag; /* 0: pending */
	int32_t expected;
	uint64_t off; /* the cell in the rank's own area */
};

/*
 * One rank's slot on the status board, in three cache lines and up: what a
 * notifier reads (the waiter's announcement, written only when the rank
 * blocks), what the rank writes as it runs (every micro-op), what the
 * shell writes.  Keeping them apart means a notify never misses on a line
 * its peer is busy writing.
 */
struct seg_rank {
	/* written by the rank when it blocks in a wait */
	_Atomic uint32_t sleeping; /* in FUTEX_WAIT on wait_off */
	_Atomic uint32_t wait_cmp;
	_Atomic uint64_t wait_off; /* cell being waited on */
	_Atomic int32_t wait_expected;

	/* written by the rank as it runs */
	_Atomic uint32_t state __attribute__((aligned(64))); /* enum rank_state */
	_Atomic uint64_t progress;    /* micro-ops completed, ever */
	_Atomic uint64_t state_ns;    /* mono_ns() of the last state change */
	_Atomic uint32_t pc;	      /* current micro-op index */
	_Atomic uint32_t nops;	      /* ops in the current program */
	_Atomic uint32_t prog_tag;    /* shell's tag of the current program */
	_Atomic uint32_t stop_reason; /* enum stop_reason, when stopped */
	_Atomic uint32_t stop_break;  /* breakpoint id, when STOP_BREAK */
	_Atomic uint32_t cur_seq;     /* seqlock over cur and title */
	_Atomic uint32_t ctl_seen;    /* the ctl value the gate last acted on:
					 * stopped with ctl_seen != ctl means a
					 * reaction to the shell is pending */
	int32_t pid;
	/* how waits ended up waiting, ever (bench reports the difference) */
	_Atomic uint64_t n_yield;  /* sched_yield() calls */
	_Atomic uint64_t n_sleep;  /* FUTEX_WAITs */
	_Atomic uint64_t n_wake;   /* FUTEX_WAKEs this rank's notifies made */
	struct uop cur;		   /* the current micro-op */
	char title[SEG_TITLE_MAX]; /* current program title */
	struct site site;	   /* a user program's current call (its
					 * fn is FN_NONE between calls and for
					 * agents); written before prog_tag */

	/* written by the shell */
	_Atomic uint32_t ctl __attribute__((aligned(64))); /* futex word: bumped
							    * on every change */
	_Atomic uint32_t mode;				   /* enum run_mode */
	_Atomic uint32_t credits;   /* step credits left */
	_Atomic uint32_t interrupt; /* interrupt requested */
	_Atomic uint32_t abort;	    /* abandon the current program */
	_Atomic uint32_t skip_pc;   /* pc + 1 whose breakpoint to ignore once */
} __attribute__((aligned(64)));

struct seg_header {
	uint64_t magic;
	uint32_t version;
	uint32_t nranks;
	uint64_t total_size;
	uint64_t area_size; /* bytes of one rank's window area */
	uint64_t board_off;
	uint64_t spans_off;
	uint64_t span_bytes; /* bytes of one rank's span ring */
	uint64_t area_off;
	int32_t shell_pid;
	uint32_t reserved;
	char name[64]; /* session name */

	_Atomic uint32_t lock;	      /* seg_lock() futex mutex */
	_Atomic int32_t lock_owner;   /* its holder's pid: a holder that dies
					 * (a user rank killed in cdb_alloc)
					 * does not keep it for ever */
	_Atomic uint32_t gate_active; /* ranks consult the gate at all */
	_Atomic uint32_t win_seq;     /* bumped on window-table changes */
	_Atomic uint32_t break_seq;   /* bumped on breakpoint changes */
	_Atomic uint32_t ended;	      /* the shell ended the session */
	_Atomic uint32_t wait_giveup; /* sim mode: polls before a wait gives
					 * up as if satisfied (0 = never) */
	_Atomic uint64_t next_win_seq;
	/* The collective in progress (0: none), so an observer attached from
	 * outside (`colldb watch NAME`) can rebuild its programs and show who
	 * still owes which cell.  Written by the shell before it issues one. */
	_Atomic uint32_t cur_coll_id;
	struct coll_args cur_coll; /* names are NULL */
	struct seg_window windows[SEG_MAX_WINDOWS];
	struct seg_break breaks[SEG_MAX_BREAKS];
	struct seg_defer defers[SEG_MAX_DEFERS];
	struct seg_domain domains[SEG_MAX_DOMAINS];
};

/*
 * A mapped segment (the mapping itself is shared; this handle is not).
 *
 * Any rank can write anywhere in the segment (a `call` into a library that
 * scribbles over it), so a process never trusts what it reads there
 * twice: the layout is copied into the handle at create/attach (after
 * checking it adds up), and the window table is read through a private,
 * checked copy (seg_win_find/list/at return pointers into it).  A slot
 * whose shared contents stop making sense keeps its last good copy and is
 * reported once (seg_take_reports()).
 */
struct seg {
	struct seg_header *h;
	size_t size;
	int fd; /* -1 once closed */
	int writable;
	int creator;	   /* made by seg_create: repairs the layout */
	char shm_name[64]; /* "" once unlinked */
	/* the layout, as created or checked at attach */
	char name[64]; /* the session's name, terminated */
	int nranks;
	uint64_t area_size, board_off, spans_off, span_bytes, area_off;
	struct seg_window *wins; /* [SEG_MAX_WINDOWS]: checked copy */
	struct seg_window *raw;	 /* [SEG_MAX_WINDOWS]: as last read */
	char *reports;		 /* "segment header corrupted ..." lines */
	size_t reports_len;
	uint32_t bad_coll; /* cur_coll_id last reported corrupt */
	/* The ranks live elsewhere (the mpi transport): what this process
	 * changes for them is also handed to sync (NULL: they map this
	 * segment and see it themselves). */
	const struct seg_sync *sync;
	void *sync_arg;
	/* A rank's own segment (seg_create_local): its window area is
	 * own_area, and no other rank's area is mapped (seg_area() gives
	 * NULL for them). */
	uint8_t *own_area;
	int own_rank;
};

/*
 * Where the ranks of a segment with sync set learn what the shell changed
 * (called after the change was made here):
 *   ctl    a step-gate control change (core/ctl.h): op->rank, or every
 *          rank when op->rank is -1;
 *   wins   the window table changed (alloc, free);
 *   zero   bytes [off, off + len) of rank r's area (r -1: every rank's)
 *          became zero (free, reset).
 */
struct ctl_op;
struct seg_sync {
	void (*ctl)(void *arg, const struct ctl_op *op);
	void (*wins)(void *arg);
	void (*zero)(void *arg, int r, uint64_t off, uint64_t len);
};

/* Create a new segment (O_EXCL, 0600) sized for nranks ranks with
 * area_size bytes of window area each; its name is unlinked at once (it
 * lives on in s->fd, which the ranks inherit); 0 or -1 + cause. */
int seg_create(struct seg *s, const char *session, int nranks,
    uint64_t area_size, uint64_t span_bytes, char **cause);
/*
 * A rank's private segment when the ranks do not share memory (the mpi
 * transport): the same layout, unnamed (memfd), with no window areas:
 * rank own_rank's area is own_area (area_size bytes, the transport's).
 * The rank's control thread fills in what the shell sends.  0 or -1 +
 * cause.
 */
int seg_create_local(struct seg *s, const char *session, int nranks,
    uint64_t area_size, uint64_t span_bytes, int own_rank, uint8_t *own_area,
    char **cause);
/* Map an existing segment from an inherited or opened fd (read-only if
 * writable is 0); 0 or -1 + cause.  The fd is kept open in s->fd. */
int seg_attach_fd(struct seg *s, int fd, int writable, char **cause);
/* Remove the shm name (the mapping and fds stay valid); a no-op after
 * seg_create, which has done it. */
void seg_unlink(struct seg *s);
/* Unmap and close. */
void seg_close(struct seg *s);

/* Default per-rank window area for nranks ranks. */
uint64_t seg_default_area(int nranks);

static inline struct seg_rank *
seg_board(const struct seg *s, int r)
{
	return (struct seg_rank *)((char *)s->h + s->board_off) + r;
}

/* Rank r's window area, or NULL when it is not mapped here (another
 * rank's, in a rank's own segment). */
static inline uint8_t *
seg_area(const struct seg *s, int r)
{
	if (s->own_area != NULL)
		return r == s->own_rank ? s->own_area : NULL;
	return (uint8_t *)s->h + s->area_off + (uint64_t)r * s->area_size;
}

static inline void *
seg_spans(const struct seg *s, int r)
{
	return (char *)s->h + s->spans_off + (uint64_t)r * s->span_bytes;
}

/* A board slot's state; a value no rank writes reads as running (doing
 * something colldb does not know). */
static inline enum rank_state
seg_rank_state(struct seg_rank *b)
{
	uint32_t st = atomic_load(&b->state);

	return st < RS__COUNT ? (enum rank_state)st : RS_RUNNING;
}

/* Rank r's i32 cell at area offset off, or NULL if off is not a 4-aligned
 * offset inside the area (offsets a rank published on its board). */
static inline _Atomic int32_t *
seg_cell(const struct seg *s, int r, uint64_t off)
{
	uint8_t *a;

	if (r < 0 || r >= s->nranks || off % 4 != 0 || off > s->area_size - 4 ||
	    (a = seg_area(s, r)) == NULL)
		return NULL;
	return (_Atomic int32_t *)(a + off);
}

/* The value of that cell, 0 if there is no such cell. */
static inline int32_t
seg_cell_get(const struct seg *s, int r, uint64_t off)
{
	_Atomic int32_t *c = seg_cell(s, r, off);

	return c != NULL ? atomic_load(c) : 0;
}

/* Wake every waiter sleeping on that cell (nothing if there is none). */
void seg_cell_wake(const struct seg *s, int r, uint64_t off);

/* Corruption reports not taken yet, one line each without "error: "
 * ("segment header corrupted at window 3 (dtype 0x41)"), or NULL; the
 * caller's to free.  Each corrupt value is reported once. */
char *seg_take_reports(struct seg *s);

/* A detached copy of s's (checked) window table in out, for describing
 * offsets later (seg_win_find/list/at work on it; nothing is mapped);
 * seg_close(out) frees it. */
void seg_win_snapshot(struct seg *s, struct seg *out);

/* Re-read the shared window table into the checked copy (the lookups do
 * this themselves; the shell calls it after each command to report). */
void seg_win_sync(struct seg *s);

/* A checked copy of the collective in progress (seg_header.cur_coll) for
 * an observer: its id, or 0 if none or if it does not make sense (then
 * reported once). */
uint32_t seg_cur_coll(struct seg *s, struct coll_args *out);

void seg_lock(struct seg *s);
void seg_unlock(struct seg *s);

/* Window table (callers hold seg_lock() when several processes may write). */
struct seg_window *seg_win_find(struct seg *s, const char *name);
/* Allocate name with the given shape and dtype (ndim 1..8, dims > 0);
 * flags from enum win_flags.  Returns the window or NULL + cause. */
struct seg_window *seg_win_alloc(struct seg *s, const char *name,
    const uint64_t *shape, int ndim, enum dtype dt, unsigned flags, char **cause);
/* Zero a window's bytes (its 32-byte padding included) on rank, or on
 * every rank when rank is -1; whole pages go back to the kernel. */
void seg_win_zero(struct seg *s, struct seg_window *w, int rank);
/* seg_win_alloc() on a domain: domain 0 is every rank, k the domain in
 * slot k-1 of the table (which must be in use). */
struct seg_window *seg_win_alloc_in(struct seg *s, const char *name,
    const uint64_t *shape, int ndim, enum dtype dt, unsigned flags, int domain,
    char **cause);
/* The domain in slot k-1 of the table, or NULL (k 0: the world; unused or
 * malformed entries). */
const struct seg_domain *seg_domain_get(struct seg *s, int k);
/* Declare a domain; returns its number (1..SEG_MAX_DOMAINS) or -1 +
 * cause (name taken, table full). */
int seg_domain_add(struct seg *s, const char *name, const uint64_t *ranks,
    char **cause);
/* The domain named name, 0 if none. */
int seg_domain_find(struct seg *s, const char *name);
/* Delete domain k: its slot becomes free for the next seg_domain_add().
 * The caller makes sure no window is on it (seg_win_alloc_in() and the
 * table's readers take a window on an unused domain as malformed). */
void seg_domain_free(struct seg *s, int k);
/* Dense rank of world rank r in domain k (-1: not a member); the world
 * rank of dense rank d (-1: out of range).  k 0 is the world. */
int seg_domain_rank(struct seg *s, int k, int r);
int seg_domain_member(struct seg *s, int k, int d);
/* Release a window; its bytes become zero on every rank. */
void seg_win_free(struct seg *s, struct seg_window *w);
/* Live windows in allocation order; returns how many were stored. */
int seg_win_list(struct seg *s, struct seg_window **out, int max);
/* The window whose range holds area offset off, or NULL. */
struct seg_window *seg_win_at(struct seg *s, uint64_t off);
/* Fill a win_ref from a window. */
void seg_win_ref(const struct seg_window *w, struct win_ref *ref);

/* Publish a rank state change (updates state_ns: now, or the clock
 * read the caller already made). */
void seg_set_state(struct seg_rank *b, enum rank_state st);
void seg_set_state_at(struct seg_rank *b, enum rank_state st, uint64_t now);
const char *rank_state_name(enum rank_state st);

/* Read a consistent copy of a board slot's current op and title; an op
 * whose kind, dtype, spaces or reduce op are out of range reads as kind
 * UOP__COUNT, all else zero. */
void seg_read_cur(struct seg_rank *b, struct uop *cur, char *title,
    size_t title_size);
/* Write the current op / title (rank side: the slot's only writer). */
void seg_write_cur(struct seg_rank *b, const struct uop *cur, const char *title);

#endif
