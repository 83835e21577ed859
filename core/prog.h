/*
 * prog.h - micro-op programs: what every rank executes.
 *
 * Every rank operation colldb knows (a single notify, a whole ring
 * allreduce) is a program: an array of micro-ops plus a string table for
 * their dotted span names and phase labels.  The same array is what `plan`
 * prints, what the executor runs, what `where` indexes ("step 7/22"), what
 * `diagnose` reads to know who still owes a notify to which cell, and what
 * `bench` names spans after.
 *
 * Offsets are byte offsets inside a rank's window area (the symmetric
 * layout makes them the same on every rank), or inside the rank's private
 * accumulator (SP_ACC).  Counts are elements of uop.dtype.
 *
 * Ownership: prog_new() returns a program the caller frees with prog_free();
 * strings returned by prog_str_at() are borrowed from the program.
 */
#ifndef COLLDB_PROG_H
#define COLLDB_PROG_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "strbuf.h"

enum uop_kind {
	UOP_NOTIFY, /* peer's cell dst op= value (op: enum notify_op) */
	UOP_WAIT,   /* block until own cell dst cmp value (op: enum wait_cmp) */
	UOP_PUT,    /* peer dst[0:count] = src (op: enum atomic_kind); src
			 * is own (ssp SP_OWN) or a staging tile (SP_ACC with
			 * UOP_F_RAW) */
	UOP_GET,    /* dst = peer src[0:count]; dst is own (dsp SP_OWN) or
			 * a staging tile (SP_ACC with UOP_F_RAW) */
	UOP_REDUCE, /* dst(dsp) op= src(ssp), op: enum reduce_op */
	UOP_COPY,   /* dst(dsp) = src(ssp), converting to/from the acc type */
	UOP_FILL,   /* own dst[0:count] = pattern (op: enum fill_pattern) */
	UOP_CALL,   /* call a C function through libffi (core/call.h) */
	UOP_LOAD,   /* dlopen a library (core/call.h) */
	UOP__COUNT
};

enum notify_op { NOTIFY_ADD, NOTIFY_SET };
/* CMP_UGE compares the cell and the value as uint32: defer_wait's polling
 * (a cell holding -1 reads as UINT32_MAX and satisfies every value). */
enum wait_cmp { CMP_EQ, CMP_GE, CMP_NE, CMP_GT, CMP_LT, CMP_LE, CMP_UGE };
enum atomic_kind { ATOMIC_NONE, ATOMIC_ADD };
enum fill_pattern {
	FILL_VALUE,  /* fval */
	FILL_RANK,   /* rank + fval */
	FILL_IOTA,   /* element index + fval */
	FILL_RANDOM, /* deterministic PRNG seeded with (fval, rank) */
};

/* Operand spaces of COPY and REDUCE. */
enum uop_space {
	SP_OWN,	 /* this rank's window area */
	SP_PEER, /* uop.peer's window area */
	SP_ACC,	 /* this rank's private accumulator, in dtype_acc(dtype) */
};

enum uop_flags {
	UOP_F_BARRIER = 1 << 0,	  /* first micro-op of a credit barrier */
	UOP_F_EPILOGUE = 1 << 1,  /* part of a collective's epilogue */
	UOP_F_INT = 1 << 2,	  /* FILL: the value is the exact int64 in src
				 * (i64 beyond 2^53 does not fit fval) */
	UOP_F_RAW = 1 << 3,	  /* COPY/PUT/GET: SP_ACC is a staging tile that
				 * holds the data dtype itself (no widening) */
	UOP_F_DEFER = 1 << 4,	  /* WAIT: a deferred condition (defer_wait) the
				 * shell appended to the program */
	UOP_F_FROM_CELL = 1 << 5, /* NOTIFY: the amount is min(own i32 cell at
				 * src, value), read when the op runs (a
				 * data-dependent count: all_to_all_v) */
};

struct uop {
	uint8_t kind;	  /* enum uop_kind */
	uint8_t dtype;	  /* enum dtype of the data (i32 for signals) */
	uint8_t op;	  /* per kind, see enum uop_kind */
	uint8_t flags;	  /* enum uop_flags */
	uint8_t dsp, ssp; /* enum uop_space for COPY/REDUCE */
	uint16_t reserved;
	int32_t peer;	/* remote rank, when the kind has one */
	int32_t value;	/* notify amount / wait expected value */
	uint32_t name;	/* dotted span name: index into the string table */
	uint32_t phase; /* phase label ("rs row 0"): string table index */
	uint64_t dst;	/* byte offset of the destination / the cell */
	uint64_t src;	/* byte offset of the source */
	uint64_t count; /* elements */
	double fval;	/* FILL value / offset / seed (see UOP_F_INT) */
};

/*
 * Blocks.  A described program (a collective) is a sequence of blocks: a
 * block is a run of micro-ops that share one span name and one phase and
 * differ only by the rank each is for.  Op i of a block is its template t
 * with, for the rank p(i) it is for,
 *
 *	BLK_ONE     one op, p = me
 *	BLK_ALL     p(i) = i            (every rank, me included)
 *	BLK_OTHERS  p(i) = i + (i >= me) (every rank but me)
 *
 *	peer = p(i) when peer_p is set (else t.peer)
 *	dst  = t.dst + p(i) * dst_step,  src = t.src + p(i) * src_step
 *	flags |= first_flags for op 0 only
 *	peer = world[peer] when world is set (a comm domain's program: the
 *	       protocol counts the members 0..N-1, the ranks are the world's)
 *
 * so a credit barrier is two blocks (its notifies, its waits), an
 * epilogue one, a mesh reduce over the peers one.  Names are printf-like
 * formats with their arguments kept apart (struct blk_name), formatted
 * only when someone reads them (spans, plan, where).
 */
struct blk_name {
	const char *fmt; /* %s takes the next of s[], %d the next of
				 * i[]; NULL: no name ("") */
	const char *sfx; /* appended as is (".notify"), or NULL */
	const char *s[2];
	int64_t i[3];
};

enum blk_rep { BLK_ONE, BLK_ALL, BLK_OTHERS };

struct blk {
	uint64_t start;	     /* pc of its first op */
	uint64_t len;	     /* ops (>= 1) */
	uint8_t rep;	     /* enum blk_rep */
	uint8_t peer_p;	     /* op.peer = p(i) */
	uint8_t first_flags; /* enum uop_flags of op 0 only */
	int me;		     /* the rank the program is for (the
				 * generator's numbering) */
	int64_t dst_step, src_step;
	const int32_t *world; /* generator rank -> world rank, or NULL */
	struct uop t;	      /* the template (name and phase 0) */
	struct blk_name name, phase;
	/* The generator's own position (its loop counters), so that the
	 * next lookup near this block starts from here. */
	uint64_t base;
	int64_t pos[4];
};

/* The p(i) of op i of b: the peer index its peer and offsets step by. */
static inline int64_t
blk_p(const struct blk *b, uint64_t i)
{
	return b->rep == BLK_ALL ? (int64_t)i :
	    b->rep == BLK_OTHERS ? (int64_t)i + ((int64_t)i >= b->me) :
				   b->me;
}

/* Op i (< b->len) of b. */
static inline void
blk_op(const struct blk *b, uint64_t i, struct uop *u)
{
	int64_t p = blk_p(b, i);

	*u = b->t;
	if (b->peer_p)
		u->peer = (int32_t)p;
	u->dst += (uint64_t)(p * b->dst_step);
	u->src += (uint64_t)(p * b->src_step);
	if (i == 0)
		u->flags |= b->first_flags;
	if (b->world != NULL && u->peer >= 0)
		u->peer = b->world[u->peer];
}

/* The text of a name or phase, appended to sb. */
void blk_name_add(const struct blk_name *n, struct strbuf *sb);

/*
 * A generator: the description a described program reads its micro-ops
 * from (a collective's arguments and the world size, core/coll/).  One
 * generator serves every rank's program (refs counts them); the
 * programs themselves hold only the rank.
 */
struct prog_gen;
struct prog_owe {
	uint64_t pc;	/* the first of them */
	uint64_t count; /* notifies, all with op and value */
	uint8_t op;	/* enum notify_op */
	int32_t value;
};
typedef void (*prog_owe_fn)(void *arg, const struct prog_owe *o);

/*
 * A generator numbers its ranks itself: a comm domain's members are 0..N-1
 * there.  rank arguments below are that numbering; dense() maps a world
 * rank to it (-1: not one of them; NULL: the same numbering), and the
 * blocks' world table maps back.  writer() answers in world ranks.
 */
struct prog_gen_ops {
	/* Micro-ops of rank's program. */
	uint64_t (*len)(const struct prog_gen *g, int rank);
	/* The block holding pc (< len).  hint is NULL or a block of the
	 * same rank returned before: a place to search from. */
	void (*block)(const struct prog_gen *g, int rank, uint64_t pc,
	    const struct blk *hint, struct blk *out);
	/* The rank whose notifies write cell off of another rank (-1: no
	 * notify of this program writes it, -2: any may).  May be NULL. */
	int (*writer)(const struct prog_gen *g, uint64_t off);
	/* The notifies rank runs at pc >= from into rank t's cell off
	 * (t != rank), in order, as runs (prog_owe).  May be NULL: the
	 * blocks are walked. */
	void (*owed)(const struct prog_gen *g, int rank, uint64_t from, int t,
	    uint64_t off, prog_owe_fn fn, void *arg);
	int (*dense)(const struct prog_gen *g, int world_rank);
	void (*free)(struct prog_gen *g);
};

struct prog_gen {
	const struct prog_gen_ops *ops;
	unsigned refs;
};

/*
 * A program.  Materialised (gen NULL): mops[0..nmops) is all of it.
 * Described (gen set): micro-ops 0..ngen-1 come from gen for rank, and
 * mops[] follows them (the deferred conditions appended to it); memory
 * does not grow with the program.  Read both kinds through the
 * accessors below, never through mops[] alone.
 */
struct prog {
	char *title;	  /* "allreduce(ring)", "wait" ... */
	struct uop *mops; /* materialised micro-ops */
	size_t nmops, amops;
	char **strs; /* interned strings; index 0 is "" */
	size_t nstrs, astrs;
	size_t acc_bytes;      /* accumulator the program needs */
	uint64_t stream_bytes; /* a collective whose stores into the own
				* window no rank reads again within the
				* call (the mesh allreduce's store of the
				* accumulator): its buffer's bytes, which
				* decide whether the executor streams them
				* (exec_prepare()); 0 for the others and for
				* programs read from the wire */
	struct prog_gen *gen;  /* described: a reference, or NULL */
	int rank;	       /* described: whose program it is (world) */
	int grank;	       /* ... in the generator's numbering */
	uint64_t ngen;	       /* described: micro-ops from gen */
	char *name_prefix;     /* described: put before every generated
				 * op's span name ("span." of a user
				 * program's open spans), or NULL */
	/* Private to prog.c: open-addressing index over strs (slot = string
	 * index + 1, 0 = empty), built lazily; NULL after prog_decode(). */
	uint32_t *shash;
	size_t shcap;
	unsigned refs; /* owners beyond the first (prog_ref()) */
	void *pack;    /* prog_decode()'s one block holding title, mops,
			* strs and the strings (freed whole; prog_add() and
			* prog_str() copy them out of it first), or NULL */
};

struct prog *prog_new(const char *title);
/* A described program: world rank's (grank in g's numbering), read from
 * g (takes a reference). */
struct prog *prog_new_gen(const char *title, struct prog_gen *g, int rank,
    int grank, size_t acc_bytes);
/* Drop one owner of p; the last frees it. */
void prog_free(struct prog *p);
/* One more owner of p (returned): the shell shares one decoded program
 * among a user rank's calls that announced the same bytes.  A program
 * with several owners must not change (prog_add, prog_str, prog_shrink
 * are for a program one owner still builds). */
struct prog *prog_ref(struct prog *p);
/* Drop one reference to g (the last frees it). */
void prog_gen_put(struct prog_gen *g);
/* The bytes of heap p holds (its arrays and strings, about malloc's
 * overhead per string). */
size_t prog_mem(const struct prog *p);
/* Intern s; returns its index (equal strings share an index). */
uint32_t prog_str(struct prog *p, const char *s);
const char *prog_str_at(const struct prog *p, uint32_t idx);
/* Give back the spare room of a program that is done growing (one kept
 * for a long time: the trace's); it stays usable. */
void prog_shrink(struct prog *p);
/* Append a copy of u; returns the stored op (valid until the next add). */
struct uop *prog_add(struct prog *p, const struct uop *u);

/* ---- reading a program (both kinds) ----------------------------------- */

/* Micro-ops in p. */
static inline uint64_t
prog_len(const struct prog *p)
{
	return p->ngen + p->nmops;
}

/*
 * A reader: random access with the generator's last block kept, so runs
 * of nearby lookups cost O(1) each (the first costs O(log K)).  The
 * uops it returns have name 0 and phase 0 when they are generated: ask
 * prog_rd_name()/prog_rd_phase() for the text.
 */
struct prog_rd {
	const struct prog *p;
	struct blk b;
	int have; /* b is valid */
};

void prog_rd_init(struct prog_rd *rd, const struct prog *p);
/* Micro-op pc into *u: 0, or -1 when pc is out of range (u zeroed). */
int prog_rd_op(struct prog_rd *rd, uint64_t pc, struct uop *u);
/* Its dotted span name ("" for a single command's op) / its phase,
 * appended to sb; nothing when pc is out of range. */
void prog_rd_name(struct prog_rd *rd, uint64_t pc, struct strbuf *sb);
void prog_rd_phase(struct prog_rd *rd, uint64_t pc, struct strbuf *sb);
/* The block holding generated op pc (pc < p->ngen), borrowed until the
 * next call on rd. */
const struct blk *prog_rd_block(struct prog_rd *rd, uint64_t pc);
/* Up to max micro-ops from pc into out (sequential readers: the
 * executor); returns how many. */
size_t prog_rd_fill(struct prog_rd *rd, uint64_t pc, struct uop *out, size_t max);

/* A materialised copy of p (names and phases interned): for small
 * programs only (tests, an in-process simulation); the caller frees it. */
struct prog *prog_materialise(const struct prog *p);

/* One-off lookups (a reader each time). */
int prog_op(const struct prog *p, uint64_t pc, struct uop *u);
void prog_name(const struct prog *p, uint64_t pc, struct strbuf *sb);
void prog_phase(const struct prog *p, uint64_t pc, struct strbuf *sb);

/* The first micro-op of p at pc >= from of kind on cell off for peer
 * (-1: any) into *out: 1, or 0 when there is none.  O(blocks) for the
 * generated part. */
int prog_find(const struct prog *p, uint64_t from, enum uop_kind kind,
    uint64_t off, int peer, struct uop *out);

/*
 * Who still owes what, in the generated part of p (ops from .. ngen-1):
 * its NOTIFYs whose peer is t and whose cell is off, in order, as runs of
 * equal op and value (fn is called for each run); t is not p's rank.
 * prog_gen_may_owe() is a cheap test first: 0 when p cannot hold any (its
 * generator's writer() says so).  The materialised ops after them are
 * the caller's to scan.
 */
int prog_gen_may_owe(const struct prog *p, int t, uint64_t off);
void prog_gen_owed(const struct prog *p, uint64_t from, int t, uint64_t off,
    prog_owe_fn fn, void *arg);

const char *uop_kind_name(enum uop_kind k);
int uop_kind_from_name(const char *s, enum uop_kind *out);
const char *wait_cmp_name(enum wait_cmp c);

/* Whether `now cmp expected` holds (inline: waits spin on it). */
static inline int
wait_cmp_holds(enum wait_cmp c, int32_t now, int32_t expected)
{
	switch (c) {
	case CMP_EQ:
		return now == expected;
	case CMP_GE:
		return now >= expected;
	case CMP_UGE:
		return (uint32_t)now >= (uint32_t)expected;
	case CMP_NE:
		return now != expected;
	case CMP_GT:
		return now > expected;
	case CMP_LT:
		return now < expected;
	case CMP_LE:
		return now <= expected;
	}
	return 0;
}

/*
 * A deferred completion condition (PyPTO's pld.system.defer_wait): the
 * rank goes on, and the next program it runs does not complete until
 * cell >= expected, compared as uint32.  At most DEFER_MAX per waiter.
 */
#define DEFER_MAX 64
struct defer_cond {
	uint64_t off;	  /* the cell, in the rank's own area */
	int32_t expected; /* 0 .. INT32_MAX */
	uint32_t reserved;
};
/* Append one WAIT per condition (CMP_UGE, UOP_F_DEFER, phase "deferred",
 * span "defer_wait"): the program ends only once they all hold. */
void prog_add_deferred(struct prog *p, const struct defer_cond *c, size_t n);

/* Serialise to/from a flat byte buffer (sent to ranks, stored in shm). */
void prog_encode(const struct prog *p, struct strbuf *out);
struct prog *prog_decode(const void *buf, size_t len, char **cause);
/* Where the micro-op of an encoded program of one op lies in buf (len
 * bytes): 0 with *at its byte offset (unaligned: memcpy it), or -1 when
 * buf is not a program of exactly one op.  A user rank's call is one:
 * the shell reads it without decoding the program. */
int prog_wire_op(const void *buf, size_t len, size_t *at);

#endif
