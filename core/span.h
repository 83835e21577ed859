/*
 * span.h - spans: every micro-op a rank runs, and every named phase around
 * it, timed into a per-rank ring in the session segment.
 *
 * Names.  A micro-op's span is named by its dotted name in the program's
 * string table ("allreduce.rs.row0.chunk0.ready.notify").  Its phases are
 * the proper dotted prefixes of that name ("allreduce", "allreduce.rs",
 * "allreduce.rs.row0", ..., "allreduce.rs.row0.chunk0.ready"): a phase
 * opens when the first of a run of consecutive micro-ops sharing the
 * prefix starts, and closes when the last one ends.  Level 1 (the first
 * component, the collective's name) is the run's root: it covers the
 * program from its first micro-op's start to its last one's end.  Phases
 * deeper than SPAN_MAX_LEVEL components are not recorded.
 *
 * A record does not carry text: it names its span by (pc, level), the
 * micro-op at pc itself (level SPAN_LEVEL_OP) or the first `level`
 * components of the name of micro-op pc, which opened the phase.  The
 * reader resolves the text with the same program (the shell keeps a copy
 * of every program it sends; span_name() does the cut).
 *
 * Time.  ts and dur are CLOCK_MONOTONIC nanoseconds (mono_ns()), the same
 * clock in every process of the machine.  The spans of one run tile it:
 * a micro-op starts where the previous one ended (the step gate's stopped
 * time is excluded: after the gate stops a rank, its next micro-op starts
 * when the gate lets it go), so the root's duration is the sum of its
 * micro-ops'.  A wait interrupted and retried records only the attempt
 * that completed.
 *
 * The ring.  One per rank, span_bytes of the segment (seg_spans()), zero
 * when the segment is created.  Single producer (the rank), single
 * consumer (the shell), no locks: the producer writes a record into slot
 * head % cap and then publishes head (release); the consumer copies
 * records [tail, head) and then publishes tail (release).  When the ring
 * is full the producer drops the record and counts it in `lost`; it never
 * waits for the consumer.  The last SPAN_ROOT_RESERVE slots are kept for
 * level-1 records (roots), so a consumer that falls behind loses micro-op
 * detail before it loses a run's time.  span_bytes == 0 turns spans off.
 *
 * Detail.  What a run records is one of three levels (enum span_detail):
 * every micro-op and every phase (SPAN_DETAIL_OPS, the default); the
 * phases only (SPAN_DETAIL_PHASES: no micro-op records, and the clock is
 * read only where the phases change); or the roots only
 * (SPAN_DETAIL_ROOTS: the clock is read when the run starts and when it
 * ends).  Phase and root times are the same at every level; a level below
 * OPS is meant for runs that go free (bench: at the step gate the stopped
 * time is then part of the phase).
 *
 * Cost on the rank per micro-op at SPAN_DETAIL_OPS: one mono_ns() (about
 * 22 ns on the development machine), one 40-byte store per record, a few
 * compares for the phases; `make bench` measures every level.
 * Free-running ranks do not consult the step gate for spans.
 *
 * Ownership: a struct span_writer belongs to the rank running a program;
 * its phase table (per micro-op: name depth and phases shared with the
 * previous one; for a program longer than a table holds, a window of it
 * refilled as the rank moves on) belongs to span.c, which keeps the last
 * one for the repetitions of the same program (so one writer per
 * process); the rings belong to the segment.
 */
#ifndef COLLDB_SPAN_H
#define COLLDB_SPAN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "prog.h"
#include "strbuf.h"

#define SPAN_LEVEL_OP 255     /* record.level of a micro-op's own span */
#define SPAN_MAX_LEVEL 32     /* deepest phase recorded */
#define SPAN_ROOT_RESERVE 256 /* slots only level-1 records may use */

enum span_detail {
	SPAN_DETAIL_OPS,    /* micro-ops and phases */
	SPAN_DETAIL_PHASES, /* phases (the root included), no micro-ops */
	SPAN_DETAIL_ROOTS,  /* level 1 only */
	SPAN_DETAIL__COUNT
};

/* "ops", "phases", "roots"; and back (0, or -1 if s is none of them). */
const char *span_detail_name(enum span_detail d);
int span_detail_from_name(const char *s, enum span_detail *out);

enum span_rec_flags {
	SPAN_R_VALUE = 1 << 0,	/* value is meaningful (see struct span_rec) */
	SPAN_R_GAVEUP = 1 << 1, /* a wait that gave up (set wait-giveup) */
};

/* One record, 40 bytes. */
struct span_rec {
	uint64_t ts;   /* start, CLOCK_MONOTONIC ns */
	uint64_t dur;  /* ns */
	uint32_t tag;  /* the shell's tag of the program (msg_hdr.tag) */
	uint32_t iter; /* repetition of the program, 0-based (bench) */
	uint32_t pc;   /* the micro-op, or the first of the phase */
	int32_t value; /* with SPAN_R_VALUE: WAIT the value seen,
				 * NOTIFY the cell's value right after it */
	uint16_t rank;
	uint8_t level; /* SPAN_LEVEL_OP, or the phase's components */
	uint8_t flags; /* enum span_rec_flags */
	uint32_t reserved;
};

struct span_ring {
	_Atomic uint64_t head; /* records ever written (producer) */
	uint64_t slot;	       /* head % the ring's slots (the
					 * producer's own, kept with head) */
	char pad0[48];
	_Atomic uint64_t tail; /* records ever consumed (consumer) */
	char pad1[56];
	_Atomic uint64_t lost; /* records dropped: ring full */
	char pad2[56];
	struct span_rec recs[]; /* span_ring_cap() slots */
};

/* Records a ring of `bytes` bytes holds (0 if too small to be useful). */
uint64_t span_ring_cap(uint64_t bytes);
/* The ring size session_open() uses for nranks ranks. */
uint64_t span_ring_default_bytes(int nranks);

/*
 * Consumer: copy up to max records (oldest first) into out, then release
 * their slots.  Returns how many were copied.
 */
size_t span_ring_read(struct span_ring *r, uint64_t bytes, struct span_rec *out,
    size_t max);
/*
 * Producer: append n finished records (a rank elsewhere sent them; the
 * ring's one producer is then whoever receives them), shifting ts by
 * ts_shift ns (their clock to ours) and adding lost to the ring's count.
 * What does not fit is dropped and counted, keeping the root reserve.
 */
void span_ring_append(struct span_ring *r, uint64_t bytes,
    const struct span_rec *recs, size_t n, int64_t ts_shift, uint64_t lost);
/* Records waiting in the ring, and records lost so far. */
uint64_t span_ring_pending(struct span_ring *r);
uint64_t span_ring_lost(struct span_ring *r);

/* Producer state while one program runs on one rank. */
struct span_writer {
	struct span_ring *ring; /* NULL: spans off */
	uint64_t cap;
	uint64_t head; /* our copy of ring->head */
	uint64_t tail; /* the consumer's tail as last read */
	uint64_t slot; /* head % cap */
	const struct prog *p;
	uint8_t *depth;	   /* per op of the table: name components
				 * (capped) */
	uint8_t *keep;	   /* per op: phases shared with the op before */
	uint64_t tab_base; /* the table covers ops tab_base .. */
	uint32_t tab_n;	   /* ... + tab_n (the whole program, or a
				 * window of a long one) */
	uint32_t tag, iter;
	uint16_t rank;
	uint8_t ops;	   /* micro-op records wanted (SPAN_DETAIL_OPS) */
	uint8_t max_level; /* deepest phase recorded (1: roots only) */
	uint8_t flat;	   /* roots only, and one root over every micro-op:
				 * the first micro-op is the only boundary */
	uint8_t quiet;	   /* no boundary ahead: spans off, or flat and
				 * the root open (span_boundary's fast path) */
	uint32_t started;  /* pc whose phases are open, UINT32_MAX none */
	int open;	   /* levels 1..open are open */
	uint64_t last_end; /* end of the last micro-op recorded */
	uint64_t phase_ts[SPAN_MAX_LEVEL + 1];
	uint32_t phase_pc[SPAN_MAX_LEVEL + 1];
};

/*
 * Start recording program p (tag, iteration iter) of rank into ring (NULL
 * or bytes == 0: every call below is a no-op) at the given detail.
 * Iteration 0 builds the phase table; later iterations of the same p and
 * tag reuse it.
 */
void span_writer_begin(struct span_writer *w, struct span_ring *ring,
    uint64_t bytes, const struct prog *p, int rank, uint32_t tag, uint32_t iter,
    enum span_detail detail);
/* Close every open phase at `end`. */
void span_writer_end(struct span_writer *w, uint64_t end);

/* Refill the writer's table with the window of ops from pc. */
void span_table_window(struct span_writer *w, uint32_t pc);
void span_put(struct span_writer *w, uint64_t ts, uint64_t end, uint32_t pc,
    unsigned level, int32_t value, unsigned flags);
void span_phases(struct span_writer *w, uint32_t pc, uint64_t start);

/* Micro-op pc starts at `start`: close the phases it does not share with
 * the previous micro-op (at that one's end), open its own.  Calling it
 * again for the same pc (a retried wait) changes nothing. */
static inline void
span_op_start(struct span_writer *w, uint32_t pc, uint64_t start)
{
	if (w->ring != NULL && w->started != pc)
		span_phases(w, pc, start);
}

/* Micro-op pc ran from start to end (recorded at SPAN_DETAIL_OPS only). */
static inline void
span_op_end(struct span_writer *w, uint32_t pc, uint64_t start, uint64_t end,
    int32_t value, unsigned flags)
{
	if (w->ring == NULL)
		return;
	if (w->ops)
		span_put(w, start, end, pc, SPAN_LEVEL_OP, value, flags);
	w->last_end = end;
}

/*
 * Below SPAN_DETAIL_OPS the caller reads the clock only where this says
 * so: before micro-op pc, whose start (the previous one's end) closes or
 * opens a recorded phase; then span_op_start() with that time.  Always
 * false once spans are off.  (It may move the writer's table window.)
 */
static inline int
span_boundary(struct span_writer *w, uint32_t pc)
{
	unsigned want, keep;

	if (w->quiet || w->started == pc)
		return 0;
	if (w->started == UINT32_MAX)
		return 1;
	if (pc - w->tab_base >= w->tab_n)
		span_table_window(w, pc);
	want = (unsigned)w->depth[pc - w->tab_base] - 1;
	keep = w->keep[pc - w->tab_base];
	if (want > w->max_level)
		want = w->max_level;
	if (keep > w->max_level)
		keep = w->max_level;
	return (unsigned)w->open != keep || want != keep;
}

/*
 * Reader side: the name of (pc, level) in p into sb (appended): the
 * micro-op's name (its kind, "notify", when the program gave it none), or
 * the first `level` components of it.  Returns 0, or -1 when pc is out of
 * range.
 */
int span_name(const struct prog *p, uint32_t pc, unsigned level,
    struct strbuf *sb);
/* The same through a reader (nearby pcs cost O(1) each: the trace). */
int span_name_rd(struct prog_rd *rd, uint32_t pc, unsigned level,
    struct strbuf *sb);
/* Components in a dotted name ("a.b.c" has 3). */
unsigned span_name_levels(const char *name);

#endif
