/*
 * coll.h - collectives as per-rank micro-op programs.
 *
 * coll_validate() rejects what PyPTO rejects (docs/protocols.md), before any
 * rank moves; coll_build() transcribes the protocol for one rank.  Every
 * caller (the shell's plan/start/where/diagnose/bench, the rank agents,
 * libcolldb) builds from here, so the protocols are written exactly once.
 *
 * Windows are described by struct win_ref (offset in the symmetric window
 * area, dtype, shape).  Ownership: coll_build() returns a program the
 * caller frees with prog_free(); cause strings are the caller's to free();
 * const char * results are static.
 *
 * What a built program looks like (docs/protocols.md has the details):
 * - span names are dotted, "<collective>.<part>...<role>", e.g.
 *   "allreduce.ready.notify", "allreduce.chunk3.reduce",
 *   "allreduce.rs.row0.chunk0.ready.wait", "barrier.epilogue"; phases are
 *   "ready", "chunk 3", "tile 3", "rs row 0", "ag row 2", "final",
 *   "push", "barrier", "get", "reduce", "read done", "store", "epilogue";
 * - the first micro-op of each credit barrier has UOP_F_BARRIER, the
 *   epilogue's notifies UOP_F_EPILOGUE;
 * - a WAIT's peer field names the rank whose notifies the cell counts, so
 *   "who still owes this cell" is a scan for NOTIFYs to that cell;
 * - data ops use SP_ACC for the accumulator (prog->acc_bytes is set);
 * - one rank (N == 1) gives barriers without any op, and builtins on more
 *   than 16 ranks give an empty program (see coll_warning()).
 */
#ifndef COLLDB_COLL_H
#define COLLDB_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "prog.h"

#define COLLDB_MAX_DIMS 8
#define COLL_MAX_RANKS 16384 /* = SEG_MAX_RANKS */

struct win_ref {
	const char *name; /* for messages; may be NULL */
	uint64_t off;	  /* byte offset in the window area */
	enum dtype dtype;
	int ndim;
	uint64_t shape[COLLDB_MAX_DIMS];
	uint64_t count; /* product of shape */
};

enum coll_kind {
	COLL_ALLREDUCE,
	COLL_BARRIER,
	COLL_BROADCAST,
	COLL_ALLGATHER,
	COLL_REDUCE_SCATTER,
	COLL_ALL_TO_ALL,
	COLL_ALL_TO_ALL_V, /* variable-size all_to_all (MoE dispatch) */
	COLL__COUNT
};

enum coll_mode { MODE_MESH, MODE_RING };
enum coll_impl { IMPL_COMPOSITE, IMPL_BUILTIN };

/* Which argument a validation error is about (for the caret). */
enum coll_arg {
	CARG_NONE,
	CARG_BUF,
	CARG_SRC,
	CARG_SIG,
	CARG_OPTION,
	CARG_SCOUNT,
	CARG_RCOUNT
};

struct coll_args {
	enum coll_kind kind;
	enum coll_mode mode;
	enum coll_impl impl;
	enum reduce_op op;
	int root;	       /* broadcast */
	int core_num;	       /* builtin mesh allreduce: AIV blocks (0 = 1) */
	bool neighbour;	       /* builtin ring allreduce with PyPTO PR #2280's
				 * neighbour-only barrier (impl=builtin-neighbour) */
	bool strict;	       /* PyPTO's op/dtype limits (default true) */
	bool has_sig;	       /* false only for a mesh allreduce that
				 * will get a synthesized signal */
	struct win_ref buf;    /* target: allreduce, broadcast, reduce_scatter;
				 * DST for allgather and all_to_all */
	struct win_ref src;    /* SRC of allgather and all_to_all(_v) */
	struct win_ref sig;    /* i32 signal */
	struct win_ref scount; /* all_to_all_v: SEND_COUNTS [N] / [N,1] i32 */
	struct win_ref rcount; /* all_to_all_v: RECV_COUNTS [N,1] i32 */
	/*
	 * The comm domain it runs on (0: every rank).  Inside it N is the
	 * member count and a rank's number its place among the members, in
	 * rank order (PyPTO's domain_rank = workers.index(chip)); the
	 * programs are built that way and their peers mapped back to world
	 * ranks.  root is a domain rank.
	 */
	int domain;
	uint64_t members[COLL_MAX_RANKS / 64];
};

/* The collective's N: the domain's size, or nranks. */
int coll_size(const struct coll_args *a, int nranks);
/* World rank r's place in the domain (-1: not a member); the world rank of
 * domain rank d (-1: none).  The world maps to itself. */
int coll_dense(const struct coll_args *a, int r);
int coll_world(const struct coll_args *a, int d);

const char *coll_kind_name(enum coll_kind k);
/* Clear every window name (before a copy leaves this process). */
void coll_args_unname(struct coll_args *a);
/* The program title: "allreduce(ring)", "broadcast(root=1)", "barrier". */
void coll_title(const struct coll_args *a, char *buf, size_t len);
int coll_kind_from_name(const char *s, enum coll_kind *out);

/* 0, or -1 with *cause (and *bad, if not NULL) set. */
int coll_validate(const struct coll_args *a, int nranks, char **cause,
    enum coll_arg *bad);

/* The signal shape a synthesized mesh signal gets: [nranks, core_num] i32
 * (core_num 0 or 1: [nranks, 1]; sets dtype, ndim, shape and count; the
 * caller places it and sets off). */
void coll_synth_sig_shape(int nranks, int core_num, struct win_ref *sig);

/* The most AIV blocks core_num takes (910B's AIV cores). */
#define COLL_MAX_CORE_NUM 48

/*
 * A collective described (prog.h, "described programs"): every rank's
 * program computed on demand from the arguments, O(N) memory for all of
 * them together.  coll_describe() returns one reference (drop it with
 * prog_gen_put()); coll_prog() makes rank's program, which holds its own.
 * a must have validated, as for coll_build().
 */
struct prog_gen *coll_describe(const struct coll_args *a, int nranks);
struct prog *coll_prog(struct prog_gen *g, int rank); /* a world rank */

/* The bytes of the window area a collective's programs touch (its
 * windows, one interval): [*lo, *hi). */
void coll_footprint(const struct coll_args *a, uint64_t *lo, uint64_t *hi);

/* The program world rank `rank` of `nranks` runs (a member of the
 * domain, if any): coll_prog() of a description made for it.  a must
 * have validated and, when has_sig is false, a->sig must describe the
 * synthesized window. */
struct prog *coll_build(const struct coll_args *a, int nranks, int rank);

/* Whether a strict-mode restriction was lifted for a (for the one-time
 * "strict off" note); NULL if not, else a short description. */
const char *coll_strict_lifted(const struct coll_args *a);

/* A warning about a valid call that will not do what it says (builtin
 * kernels return at once on more than 16 ranks, as PyPTO's do); NULL if
 * none. */
const char *coll_warning(const struct coll_args *a, int nranks);

/*
 * Reference results for `check`.  in[r] points at rank r's whole window
 * area as it was before the collective.  coll_expect() writes the expected
 * contents of rank's output region into out (out_count elements of the
 * output dtype, see coll_output()).  coll_wrong() counts mismatching
 * elements (floats compared with a tolerance that accounts for reduction
 * order and, for f16/bf16, rounding).
 */
struct coll_output {
	uint64_t off;	/* byte offset of the checked region */
	uint64_t count; /* elements */
	enum dtype dtype;
	uint64_t off2; /* a second region of count2 i32 cells after
				 * it (all_to_all_v's RECV_COUNTS), or 0 */
	uint64_t count2;
};
void coll_output(const struct coll_args *a, int nranks, int rank,
    struct coll_output *o);
/* Bytes of the output (both regions), and a copy of them from a rank's
 * area into out (what coll_wrong() compares). */
uint64_t coll_output_bytes(const struct coll_output *o);
void coll_output_copy(const struct coll_output *o, const void *area, void *out);
/* The byte range [*lo, *hi) of the area that holds every window
 * coll_expect() reads (snapshot it before the call). */
void coll_inputs(const struct coll_args *a, uint64_t *lo, uint64_t *hi);
/* out: coll_output_bytes() bytes. */
void coll_expect(const struct coll_args *a, int nranks, int rank,
    const void *const *in, void *out);
/* Mismatches between two coll_output_copy()-shaped buffers. */
uint64_t coll_wrong(const struct coll_args *a, int nranks,
    const struct coll_output *o, const void *expected, const void *got);

/*
 * The same reference built from the inputs one rank at a time, so that
 * checking many ranks never holds every input when the result does not
 * need them: an allreduce or reduce_scatter keeps one accumulator over
 * BUF, a broadcast root's buffer (allgather and all_to_all(_v) keep their
 * members' inputs: their result is made of them).  Add every world rank
 * in order 0..N-1 (area as for coll_expect(): the rank's window area,
 * indexed by offset, valid over coll_inputs(); ranks outside a domain are
 * skipped), then ask for any member's expected output (out:
 * coll_output_bytes()).  coll_ref_new() returns what coll_ref_free()
 * frees.
 */
struct coll_ref;
struct coll_ref *coll_ref_new(const struct coll_args *a, int nranks);
void coll_ref_add(struct coll_ref *c, int rank, const void *area);
void coll_ref_expect(struct coll_ref *c, int rank, void *out);
void coll_ref_free(struct coll_ref *c);

/* nccl-tests bus-bandwidth factor for the collective on nranks. */
double coll_busbw_factor(enum coll_kind k, int nranks);

#endif
