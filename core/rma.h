/*
 * rma.h - one-sided transfers (put, get, remote_store, remote_load) as
 * micro-op programs.
 *
 * rma_validate() rejects what PyPTO's put/get/remote_* deducers reject
 * (python/pypto/language/distributed/op/tensor_ops.py, put.cpp, get.cpp,
 * remote_load.cpp, remote_store.cpp, comm_op_utils.h), before anything is
 * sent; rma_build() appends the micro-ops one rank runs for one peer.  The
 * shell's put/get/remote_store/remote_load commands and `plan` build from
 * here, so the transfer is written once (docs/protocols.md, "One-sided
 * transfers").
 *
 * Two forms:
 *  - flat: DST and SRC are flat runs of count elements (dst_first,
 *    src_first), the transfer is [1, count];
 *  - region (ndim > 0): dst_offsets, src_offsets and shape, one entry per
 *    dimension of DST (SRC has as many); the transfer is flattened to
 *    [rows = product of the leading dims, cols = the innermost dim].
 * Without chunk sizes each transfer row moves directly (contiguous rows
 * merged into one op).  With chunk_rows or chunk_cols the data is bounced
 * through a staging tile of chunk_rows x chunk_cols elements (0 = the full
 * extent, oversized values clamped), chunk by chunk in row-major order:
 * each chunk is a load into the tile then a store out of it, one micro-op
 * per chunk row, so `plan` shows the staging.  pipeline uses two tiles
 * (ping-pong): chunk k+1 is loaded before chunk k is stored.
 *
 * Ownership: everything is the caller's; cause strings are the caller's to
 * free().
 */
#ifndef COLLDB_RMA_H
#define COLLDB_RMA_H

#include <stdint.h>

#include "coll.h"
#include "prog.h"

/* A transfer with more micro-ops than this is refused (chunks too small). */
#define RMA_MAX_OPS (1u << 20)

enum rma_form { RMA_PUT, RMA_GET, RMA_REMOTE_STORE, RMA_REMOTE_LOAD };

/* Which argument a validation error is about (for the caret). */
enum rma_arg {
	RARG_NONE,
	RARG_DST,
	RARG_SRC,
	RARG_DST_OFF,
	RARG_SRC_OFF,
	RARG_SHAPE,
	RARG_VALID,
	RARG_CHUNK_ROWS,
	RARG_CHUNK_COLS,
	RARG_PIPELINE,
	RARG_ATOMIC,
};

struct rma_args {
	enum rma_form form;
	int peer;
	int atomic;		 /* put/remote_store: atomic=add */
	struct win_ref dst, src; /* whole windows */
	/* flat form (ndim == 0) */
	uint64_t dst_first, src_first, count;
	/* region form */
	int ndim; /* dimensions of the region (DST's) */
	int have_dst_off, have_src_off, have_shape; /* what was given */
	uint64_t dst_off[COLLDB_MAX_DIMS];
	uint64_t src_off[COLLDB_MAX_DIMS];
	uint64_t shape[COLLDB_MAX_DIMS];
	int64_t dst_off_raw[COLLDB_MAX_DIMS], src_off_raw[COLLDB_MAX_DIMS],
	    shape_raw[COLLDB_MAX_DIMS]; /* as typed (signs checked) */
	int ndst_off, nsrc_off, nshape; /* entries given */
	/* remote_load's valid_shape ([] when absent) */
	int nvalid;
	int64_t valid_raw[COLLDB_MAX_DIMS];
	/* staging */
	int64_t chunk_rows, chunk_cols;
	int pipeline;
};

/* "put", "get", "remote_store", "remote_load". */
const char *rma_form_name(enum rma_form f);
/* The micro-op kind of the form (UOP_PUT or UOP_GET). */
enum uop_kind rma_kind(enum rma_form f);

/*
 * Check a and complete it: for the region form, the raw entries become
 * dst_off/src_off/shape (remote_store derives shape from SRC and zero
 * source offsets; remote_load derives the transfer from shape and
 * valid_shape, DST viewed as a tile of that shape).  0, or -1 with *cause
 * and *bad.
 */
int rma_validate(struct rma_args *a, char **cause, enum rma_arg *bad);

/* Append the micro-ops of a validated transfer to p (p->acc_bytes grows
 * to the staging tiles' size). */
void rma_build(struct prog *p, const struct rma_args *a);

/* How many micro-ops rma_build() will append. */
uint64_t rma_nops(const struct rma_args *a);

#endif
