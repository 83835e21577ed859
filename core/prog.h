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

enum uop_kind {
	UOP_NOTIFY,	/* peer's cell dst op= value (op: enum notify_op) */
	UOP_WAIT,	/* block until own cell dst cmp value (op: enum wait_cmp) */
	UOP_PUT,	/* peer dst[0:count] = src (op: enum atomic_kind); src
			 * is own (ssp SP_OWN) or a staging tile (SP_ACC with
			 * UOP_F_RAW) */
	UOP_GET,	/* dst = peer src[0:count]; dst is own (dsp SP_OWN) or
			 * a staging tile (SP_ACC with UOP_F_RAW) */
	UOP_REDUCE,	/* dst(dsp) op= src(ssp), op: enum reduce_op */
	UOP_COPY,	/* dst(dsp) = src(ssp), converting to/from the acc type */
	UOP_FILL,	/* own dst[0:count] = pattern (op: enum fill_pattern) */
	UOP_CALL,	/* call a C function through libffi (core/call.h) */
	UOP_LOAD,	/* dlopen a library (core/call.h) */
	UOP__COUNT
};

enum notify_op { NOTIFY_ADD, NOTIFY_SET };
/* CMP_UGE compares the cell and the value as uint32: defer_wait's polling
 * (a cell holding -1 reads as UINT32_MAX and satisfies every value). */
enum wait_cmp { CMP_EQ, CMP_GE, CMP_NE, CMP_GT, CMP_LT, CMP_LE, CMP_UGE };
enum atomic_kind { ATOMIC_NONE, ATOMIC_ADD };
enum fill_pattern {
	FILL_VALUE,	/* fval */
	FILL_RANK,	/* rank + fval */
	FILL_IOTA,	/* element index + fval */
	FILL_RANDOM,	/* deterministic PRNG seeded with (fval, rank) */
};

/* Operand spaces of COPY and REDUCE. */
enum uop_space {
	SP_OWN,		/* this rank's window area */
	SP_PEER,	/* uop.peer's window area */
	SP_ACC,		/* this rank's private accumulator, in dtype_acc(dtype) */
};

enum uop_flags {
	UOP_F_BARRIER = 1 << 0,	/* first micro-op of a credit barrier */
	UOP_F_EPILOGUE = 1 << 1, /* part of a collective's epilogue */
	UOP_F_INT = 1 << 2,	/* FILL: the value is the exact int64 in src
				 * (i64 beyond 2^53 does not fit fval) */
	UOP_F_RAW = 1 << 3,	/* COPY/PUT/GET: SP_ACC is a staging tile that
				 * holds the data dtype itself (no widening) */
	UOP_F_DEFER = 1 << 4,	/* WAIT: a deferred condition (defer_wait) the
				 * shell appended to the program */
	UOP_F_FROM_CELL = 1 << 5, /* NOTIFY: the amount is min(own i32 cell at
				 * src, value), read when the op runs (a
				 * data-dependent count: all_to_all_v) */
};

struct uop {
	uint8_t kind;		/* enum uop_kind */
	uint8_t dtype;		/* enum dtype of the data (i32 for signals) */
	uint8_t op;		/* per kind, see enum uop_kind */
	uint8_t flags;		/* enum uop_flags */
	uint8_t dsp, ssp;	/* enum uop_space for COPY/REDUCE */
	uint16_t reserved;
	int32_t peer;		/* remote rank, when the kind has one */
	int32_t value;		/* notify amount / wait expected value */
	uint32_t name;		/* dotted span name: index into the string table */
	uint32_t phase;		/* phase label ("rs row 0"): string table index */
	uint64_t dst;		/* byte offset of the destination / the cell */
	uint64_t src;		/* byte offset of the source */
	uint64_t count;		/* elements */
	double fval;		/* FILL value / offset / seed (see UOP_F_INT) */
};

struct prog {
	char *title;		/* "allreduce(ring)", "wait" ... */
	struct uop *ops;
	size_t nops, aops;
	char **strs;		/* interned strings; index 0 is "" */
	size_t nstrs, astrs;
	size_t acc_bytes;	/* accumulator the program needs */
	/* Private to prog.c: open-addressing index over strs (slot = string
	 * index + 1, 0 = empty), built lazily; NULL after prog_decode(). */
	uint32_t *shash;
	size_t shcap;
};

struct prog *prog_new(const char *title);
void prog_free(struct prog *p);
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
	uint64_t off;		/* the cell, in the rank's own area */
	int32_t expected;	/* 0 .. INT32_MAX */
	uint32_t reserved;
};
/* Append one WAIT per condition (CMP_UGE, UOP_F_DEFER, phase "deferred",
 * span "defer_wait"): the program ends only once they all hold. */
void prog_add_deferred(struct prog *p, const struct defer_cond *c, size_t n);

/* Serialise to/from a flat byte buffer (sent to ranks, stored in shm). */
void prog_encode(const struct prog *p, struct strbuf *out);
struct prog *prog_decode(const void *buf, size_t len, char **cause);

#endif
