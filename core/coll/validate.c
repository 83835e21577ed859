/*
 * validate.c - reject what PyPTO rejects, before any rank moves.
 *
 * Sources (docs/protocols.md, "Validation"): the deducers in
 * src/ir/op/distributed/{allreduce,collective}.cpp, the composite rules'
 * ValidateMeshSignalShape and ring checks in lower_composite_ops_pass.cpp,
 * and CheckStaticSignalCapacity / CheckRingSignalCapacity /
 * CheckRingChunkConstraints / CheckPairwiseDistinctWindows in
 * lower_host_tensor_collectives_pass.cpp.
 *
 * Decisions:
 * - Signal shapes.  Composites take a rank-2 [N',1] signal
 *   (ValidateMeshSignalShape rejects rank 1); builtins take [N'] or
 *   [N',1] ([N',stride] for the mesh allreduce).  PyPTO checks only
 *   N' >= N for builtins and nothing for composites; colldb knows N, so a
 *   smaller N' (which would address cells past the window) is rejected for
 *   both and a larger one is accepted for both.  Ring signals must be
 *   exactly [2(N-1),N] (composite) or [2(N-1)+1,N] (builtin), as PyPTO
 *   checks; a signal shaped for the other impl gets a hint.
 * - Composite ring on one rank is rejected: [0,1] cannot be allocated.
 *   Builtin ring on one rank passes PyPTO's checks and the kernel returns
 *   at once; we accept it and build an empty program.
 * - Builtins on more than 16 ranks: PyPTO rejects the ring at compile time
 *   (we do too); the other kernels silently return, which we emulate
 *   (coll_warning() reports it) instead of rejecting.
 * - core_num (1..48, PyPTO's bound is the AIV core count) is for the
 *   builtin mesh allreduce only; more blocks than the signal has lanes
 *   are clamped by the kernel, which we emulate with a warning.
 *   impl=builtin-neighbour (PR #2280) is a builtin ring allreduce with
 *   the builtin's shapes and limits.
 * - root must be in [0,N) for both impls (PyPTO checks the upper bound
 *   only on static device subsets; a root outside the world is a bug).
 * - Every data window must differ from the signal, and SRC from DST: the
 *   builtins require pairwise-distinct windows, the composites require
 *   input != target and would corrupt data otherwise.  "Different" means
 *   the byte ranges do not overlap.
 * - Strict dtype/op limits (lifted by "set strict off"): allreduce f16/f32
 *   (allreduce.cpp deducer), builtin ring sum+f32, reduce_scatter sum,
 *   builtin broadcast/allgather/all_to_all/reduce_scatter f32.  Composite
 *   broadcast/allgather/all_to_all/reduce_scatter take any dtype (the
 *   sources do not restrict them).  Reductions on untyped bytes (u8) are
 *   rejected even with strict off.
 * - The i32 generations must not overflow: a call needing more than
 *   INT32_MAX barriers on one cell is rejected.
 *
 * PyPTO's open points, as colldb settles them:
 * - "HOST allreduce is not yet self-clearing" (tensor_ops.py docstring)
 *   versus the builtin kernel's epilogue: code wins, every call (composite
 *   or builtin, explicit signal) is self-clearing and reusable.
 * - Synthesized signals inside loops: colldb has no loops; the shell gives
 *   each signal-less mesh allreduce a fresh [N,1] window, for either impl
 *   (PyPTO synthesizes only on the HOST rail; the shape is the same).
 * - all_to_all_v (5 windows, PyPTO's argument order): SRC and DST
 *   [N*MAX_RECV,SIZE] of one dtype, SIG [N,1] (rank 2 for both impls, as
 *   DeduceTensorAllToAllVType / the builtin's deducer require),
 *   SEND_COUNTS [N] or [N,1] i32, RECV_COUNTS [N,1] i32, all five
 *   pairwise different windows (CheckPairwiseDistinctWindows; colldb asks
 *   it of the composite too: the same window twice is a data race).  The
 *   host-loop rejection of pass 41 has no colldb counterpart (a repeat is
 *   a script, not a compiled loop).
 * - The composite broadcast's missing read-complete barrier is emulated
 *   as written (broadcast.c).
 * - Composite allgather/broadcast/all_to_all dtypes are unrestricted;
 *   only the builtins are f32-only (strict).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../xmalloc.h"
#include "coll-int.h"

struct vctx {
	char **cause;
	enum coll_arg *bad;
	const struct coll_args *a;
	int n;	       /* the collective's N (its domain's size) */
	char what[48]; /* "ring allreduce", "builtin barrier" */
	char scope[8]; /* "world" or "domain", for messages */
};

static int printflike(3, 4)
    fail(struct vctx *v, enum coll_arg which, const char *fmt, ...)
{
	va_list ap;

	if (v->cause != NULL) {
		va_start(ap, fmt);
		*v->cause = xvasprintf(fmt, ap);
		va_end(ap);
	}
	if (v->bad != NULL)
		*v->bad = which;
	return -1;
}

const char *
coll_shape_str(const struct win_ref *w, char *buf, size_t len)
{
	size_t at = 0;

	at += (size_t)snprintf(buf, len, "[");
	for (int i = 0; i < w->ndim && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%llu",
		    i ? "," : "", (unsigned long long)w->shape[i]);
	if (at < len)
		snprintf(buf + at, len - at, "]");
	return buf;
}

static uint64_t
win_bytes(const struct win_ref *w)
{
	return w->count * dtype_size(w->dtype);
}

static int
overlaps(const struct win_ref *x, const struct win_ref *y)
{
	return x->off < y->off + win_bytes(y) && y->off < x->off + win_bytes(x);
}

static int
is2(const struct win_ref *w, uint64_t d0, uint64_t d1)
{
	return w->ndim == 2 && w->shape[0] == d0 && w->shape[1] == d1;
}

static const char *
quoted(const struct win_ref *w, char *buf, size_t len)
{
	if (w->name == NULL)
		return "";
	snprintf(buf, len, " '%s'", w->name);
	return buf;
}

/* Signal present, i32, [rows >= N, 1] (rank 1 allowed for builtins). */
static int
check_mesh_sig(struct vctx *v, int allow_stride)
{
	const struct coll_args *a = v->a;
	const struct win_ref *s = &a->sig;
	uint64_t n = (uint64_t)v->n;
	int builtin = a->impl == IMPL_BUILTIN;
	char sh[96];
	int ok;

	if (s->ndim == 1)
		ok = builtin && s->shape[0] >= n;
	else if (s->ndim == 2)
		ok = s->shape[0] >= n &&
		    (allow_stride ? s->shape[1] >= 1 : s->shape[1] == 1);
	else
		ok = 0;
	if (ok)
		return 0;
	coll_shape_str(s, sh, sizeof sh);
	if (builtin)
		return fail(v, CARG_SIG,
		    "%s needs a signal of shape [%d] or [%d,1], got %s",
		    v->what, v->n, v->n, sh);
	if (s->ndim == 1 && s->shape[0] >= n)
		return fail(v, CARG_SIG,
		    "%s needs a signal of shape [%d,1], got %s (a rank-1 "
		    "signal is for impl=builtin)",
		    v->what, v->n, sh);
	if (v->n > 1 && (is2(s, 2 * n - 2, n) || is2(s, 2 * n - 1, n)))
		return fail(v, CARG_SIG,
		    "%s needs a signal of shape [%d,1], got %s (shaped for a "
		    "ring allreduce)",
		    v->what, v->n, sh);
	return fail(v, CARG_SIG, "%s needs a signal of shape [%d,1], got %s",
	    v->what, v->n, sh);
}

static int
check_ring_sig(struct vctx *v)
{
	const struct win_ref *s = &v->a->sig;
	uint64_t n = (uint64_t)v->n;
	int builtin = v->a->impl == IMPL_BUILTIN;
	uint64_t rows = builtin ? 2 * n - 1 : 2 * n - 2;
	char sh[96];

	if (is2(s, rows, n))
		return 0;
	coll_shape_str(s, sh, sizeof sh);
	if (builtin && is2(s, 2 * n - 2, n))
		return fail(v, CARG_SIG,
		    "%s needs a signal of shape [%llu,%d], got %s (the composite "
		    "ring shape; the builtin has a final barrier row)",
		    v->what, (unsigned long long)rows, v->n, sh);
	if (!builtin && is2(s, 2 * n - 1, n))
		return fail(v, CARG_SIG,
		    "%s needs a signal of shape [%llu,%d], got %s (the "
		    "impl=builtin shape, with its final barrier row)",
		    v->what, (unsigned long long)rows, v->n, sh);
	return fail(v, CARG_SIG, "%s needs a signal of shape [%llu,%d], got %s",
	    v->what, (unsigned long long)rows, v->n, sh);
}

static int
check_sig(struct vctx *v)
{
	const struct coll_args *a = v->a;
	char nm[80];

	if (!a->has_sig)
		return fail(v, CARG_SIG, "%s needs a signal window", v->what);
	if (a->sig.dtype != DT_I32)
		return fail(v, CARG_SIG, "signal%s must be i32, got %s",
		    quoted(&a->sig, nm, sizeof nm), dtype_name(a->sig.dtype));
	if (a->kind == COLL_ALLREDUCE && a->mode == MODE_RING)
		return check_ring_sig(v);
	if (a->kind == COLL_ALL_TO_ALL_V && !is2(&a->sig, (uint64_t)v->n, 1)) {
		char sh[96];
		return fail(v, CARG_SIG,
		    "%s needs a signal of shape [%d,1], got %s", v->what, v->n,
		    coll_shape_str(&a->sig, sh, sizeof sh));
	}
	return check_mesh_sig(v,
	    a->kind == COLL_ALLREDUCE && a->impl == IMPL_BUILTIN);
}

static int
check_distinct(struct vctx *v, const struct win_ref *x, const char *xn,
    const struct win_ref *y, const char *yn, enum coll_arg which)
{
	if (!overlaps(x, y))
		return 0;
	return fail(v, which, "%s needs %s and %s to be different windows",
	    v->what, xn, yn);
}

/*
 * The restrictions "set strict off" lifts.  Returns 0, or -1 with a message
 * (when v is not NULL) and *lifted set to a static description.
 */
static int
strict_limits(struct vctx *v, const char **lifted)
{
	const struct coll_args *a = v->a;
	enum dtype dt = a->buf.dtype;
	int builtin = a->impl == IMPL_BUILTIN;

	switch (a->kind) {
	case COLL_ALLREDUCE:
		if (builtin && a->mode == MODE_RING) {
			if (a->op == RED_SUM && dt == DT_F32)
				return 0;
			*lifted = "the builtin ring allreduce's sum-on-f32 limit";
			return fail(v, CARG_OPTION,
			    "%s supports only op=sum on f32, got op=%s on %s "
			    "(set strict off to allow it)",
			    v->what, reduce_op_name(a->op), dtype_name(dt));
		}
		if (dt == DT_F16 || dt == DT_F32)
			return 0;
		*lifted = "allreduce's f16/f32 dtype limit";
		return fail(v, CARG_BUF,
		    "%s supports f16 and f32, got %s (set "
		    "strict off to allow it)",
		    v->what, dtype_name(dt));
	case COLL_REDUCE_SCATTER:
		if (a->op != RED_SUM) {
			*lifted = "reduce_scatter's sum-only limit";
			return fail(v, CARG_OPTION,
			    "%s supports only op=sum, got "
			    "op=%s (set strict off to allow it)",
			    v->what, reduce_op_name(a->op));
		}
		/* FALLTHROUGH */
	case COLL_BROADCAST:
	case COLL_ALLGATHER:
	case COLL_ALL_TO_ALL:
	case COLL_ALL_TO_ALL_V:
		if (!builtin || dt == DT_F32)
			return 0;
		*lifted = "the builtin kernels' f32-only limit";
		return fail(v, CARG_BUF,
		    "%s supports only f32, got %s (set "
		    "strict off to allow it)",
		    v->what, dtype_name(dt));
	default:
		return 0;
	}
}

static int
check_reducible(struct vctx *v, const struct win_ref *w)
{
	char nm[80];

	if (w->dtype != DT_U8)
		return 0;
	return fail(v, CARG_BUF,
	    "%s cannot reduce the untyped window%s "
	    "(allocate it with a dtype)",
	    v->what, quoted(w, nm, sizeof nm));
}

static int
check_generations(struct vctx *v)
{
	const struct coll_args *a = v->a;
	uint64_t count = a->buf.count, esz = dtype_size(a->buf.dtype), need;

	if (a->kind == COLL_ALLREDUCE && a->mode == MODE_MESH)
		need = 1 +
		    ceil_div(ceil_div(count,
				 a->impl == IMPL_BUILTIN ? COLL_TILE :
							   COLL_CHUNK_BYTES / esz),
			a->core_num > 1 ? (uint64_t)a->core_num : 1);
	else if (a->kind == COLL_ALLREDUCE && a->impl == IMPL_COMPOSITE)
		need = 2 *
		    ceil_div(ceil_div(count, (uint64_t)v->n) + COLL_ALIGN_BYTES,
			COLL_CHUNK_BYTES / esz);
	else if (a->kind == COLL_BROADCAST && a->impl == IMPL_BUILTIN)
		need = ceil_div(count, COLL_TILE);
	else
		need = 2;
	if (need <= INT32_MAX)
		return 0;
	return fail(v, CARG_BUF,
	    "%s on %llu elements needs more barriers than "
	    "an i32 signal cell can count",
	    v->what, (unsigned long long)count);
}

/* allreduce's checks that come before the dtype limits. */
static int
check_allreduce(struct vctx *v)
{
	const struct coll_args *a = v->a;
	int ring = a->mode == MODE_RING, builtin = a->impl == IMPL_BUILTIN;

	if (a->core_num < 0 || a->core_num > COLL_MAX_CORE_NUM)
		return fail(v, CARG_OPTION,
		    "core_num %d out of range (1..%d, the "
		    "AIV cores of a 910B)",
		    a->core_num, COLL_MAX_CORE_NUM);
	if (a->core_num > 1 && (ring || !builtin))
		return fail(v, CARG_OPTION,
		    "core_num=%d needs impl=builtin "
		    "mode=mesh (only the builtin mesh allreduce runs on several "
		    "AIV blocks)",
		    a->core_num);
	if (a->neighbour && !ring)
		return fail(v, CARG_OPTION,
		    "impl=builtin-neighbour is a ring "
		    "allreduce (PyPTO PR #2280's builtin ring): add mode=ring");
	if (ring && !a->has_sig)
		return fail(v, CARG_SIG,
		    "%s needs an explicit signal of shape "
		    "[%d,%d] (only mesh synthesizes one)",
		    v->what, builtin ? 2 * v->n - 1 : 2 * v->n - 2, v->n);
	if (ring && !builtin && v->n < 2)
		return fail(v, CARG_OPTION,
		    "%s needs at least 2 ranks (its "
		    "signal would be [0,1])",
		    v->what);
	if (ring && builtin && v->n > COLL_BUILTIN_MAX_RANKS)
		return fail(v, CARG_OPTION,
		    "%s supports at most %d ranks (world "
		    "has %d)",
		    v->what, COLL_BUILTIN_MAX_RANKS, v->n);
	if (ring && builtin && a->buf.count % (uint64_t)v->n != 0)
		return fail(v, CARG_BUF,
		    "%s needs numel divisible by %d, got "
		    "%llu",
		    v->what, v->n, (unsigned long long)a->buf.count);
	return check_reducible(v, &a->buf);
}

static int
check_counts(struct vctx *v, const struct win_ref *w, const char *what,
    int rank1_ok, enum coll_arg which)
{
	uint64_t n = (uint64_t)v->n;
	char sh[96], nm[80];

	if (w->count == 0 || w->ndim < 1)
		return fail(v, which, "%s needs a %s window", v->what, what);
	if (w->dtype != DT_I32)
		return fail(v, which, "%s%s must be i32, got %s", what,
		    quoted(w, nm, sizeof nm), dtype_name(w->dtype));
	if (is2(w, n, 1) || (rank1_ok && w->ndim == 1 && w->shape[0] == n))
		return 0;
	if (rank1_ok)
		return fail(v, which,
		    "%s needs %s of shape [%d] or [%d,1], got %s", v->what,
		    what, v->n, v->n, coll_shape_str(w, sh, sizeof sh));
	return fail(v, which, "%s needs %s of shape [%d,1], got %s", v->what,
	    what, v->n, coll_shape_str(w, sh, sizeof sh));
}

/* all_to_all_v SRC DST SIG SEND_COUNTS RECV_COUNTS (the signal is
 * checked with the others'). */
static int
check_all_to_all_v(struct vctx *v)
{
	const struct coll_args *a = v->a;
	const struct win_ref *b = &a->buf, *s = &a->src;
	const struct win_ref *w[5] = { s, b, &a->sig, &a->scount, &a->rcount };
	static const char *const names[5] = { "SRC", "DST", "SIG",
		"SEND_COUNTS", "RECV_COUNTS" };
	static const enum coll_arg args[5] = { CARG_SRC, CARG_BUF, CARG_SIG,
		CARG_SCOUNT, CARG_RCOUNT };
	uint64_t n = (uint64_t)v->n;
	char sh[96], sh2[96];

	if (s->count == 0 || s->ndim < 1)
		return fail(v, CARG_SRC, "%s needs a SRC window", v->what);
	if (b->ndim != 2 || b->shape[0] % n != 0)
		return fail(v, CARG_BUF,
		    "%s needs DST of shape [%d*MAX_RECV,SIZE] "
		    "(rows a multiple of %d), got %s",
		    v->what, v->n, v->n, coll_shape_str(b, sh, sizeof sh));
	if (!is2(s, b->shape[0], b->shape[1]))
		return fail(v, CARG_SRC, "%s needs SRC of DST's shape %s, got %s",
		    v->what, coll_shape_str(b, sh, sizeof sh),
		    coll_shape_str(s, sh2, sizeof sh2));
	if (s->dtype != b->dtype)
		return fail(v, CARG_SRC,
		    "%s needs SRC and DST of one dtype, got "
		    "%s and %s",
		    v->what, dtype_name(s->dtype), dtype_name(b->dtype));
	if (check_counts(v, &a->scount, "SEND_COUNTS", 1, CARG_SCOUNT) != 0 ||
	    check_counts(v, &a->rcount, "RECV_COUNTS", 0, CARG_RCOUNT) != 0)
		return -1;
	for (int i = 0; i < 5; i++) {
		for (int k = i + 1; k < 5; k++) {
			if (w[i]->count > 0 && w[k]->count > 0 &&
			    check_distinct(v, w[i], names[i], w[k], names[k],
				args[k]) != 0)
				return -1;
		}
	}
	return 0;
}

static int
check_data(struct vctx *v)
{
	const struct coll_args *a = v->a;
	const struct win_ref *b = &a->buf, *s = &a->src;
	uint64_t n = (uint64_t)v->n, size;
	char sh[96];

	switch (a->kind) {
	case COLL_BROADCAST:
		if (a->root < 0 || a->root >= v->n)
			return fail(v, CARG_OPTION,
			    "root %d out of range (%s "
			    "has %d ranks)",
			    a->root, v->scope, v->n);
		return 0;
	case COLL_REDUCE_SCATTER:
		if (b->ndim != 2 || b->shape[0] != n) {
			if (b->ndim == 2)
				return fail(v, CARG_BUF,
				    "%s needs BUF of shape "
				    "[%d,%llu], got %s",
				    v->what, v->n,
				    (unsigned long long)b->shape[1],
				    coll_shape_str(b, sh, sizeof sh));
			return fail(v, CARG_BUF,
			    "%s needs BUF of shape [%d,SIZE], "
			    "got %s",
			    v->what, v->n, coll_shape_str(b, sh, sizeof sh));
		}
		return check_reducible(v, b);
	case COLL_ALLGATHER:
		if (s->count == 0 || s->ndim < 1)
			return fail(v, CARG_SRC, "%s needs a SRC window",
			    v->what);
		if (s->off == b->off) /* the same window twice: say that first */
			return check_distinct(v, s, "SRC", b, "DST", CARG_SRC);
		if (s->ndim == 1 || (s->ndim == 2 && s->shape[0] == 1))
			size = s->count;
		else
			return fail(v, CARG_SRC,
			    "%s needs SRC of shape [1,SIZE] "
			    "or [SIZE], got %s",
			    v->what, coll_shape_str(s, sh, sizeof sh));
		if (!is2(b, n, size))
			return fail(v, CARG_BUF,
			    "%s needs DST of shape "
			    "[%d,%llu], got %s",
			    v->what, v->n, (unsigned long long)size,
			    coll_shape_str(b, sh, sizeof sh));
		break;
	case COLL_ALL_TO_ALL:
		if (s->count == 0 || s->ndim < 1)
			return fail(v, CARG_SRC, "%s needs a SRC window",
			    v->what);
		if (s->off == b->off)
			return check_distinct(v, s, "SRC", b, "DST", CARG_SRC);
		if (s->ndim != 2 || s->shape[0] != n)
			return fail(v, CARG_SRC,
			    "%s needs SRC of shape [%d,SIZE], "
			    "got %s",
			    v->what, v->n, coll_shape_str(s, sh, sizeof sh));
		if (!is2(b, n, s->shape[1]))
			return fail(v, CARG_BUF,
			    "%s needs DST of shape "
			    "[%d,%llu], got %s",
			    v->what, v->n, (unsigned long long)s->shape[1],
			    coll_shape_str(b, sh, sizeof sh));
		break;
	case COLL_ALL_TO_ALL_V:
		return check_all_to_all_v(v);
	default:
		return 0;
	}
	if (s->dtype != b->dtype)
		return fail(v, CARG_SRC,
		    "%s needs SRC and DST of one dtype, got "
		    "%s and %s",
		    v->what, dtype_name(s->dtype), dtype_name(b->dtype));
	return check_distinct(v, s, "SRC", b, "DST", CARG_SRC);
}

static void
describe(struct vctx *v)
{
	const struct coll_args *a = v->a;

	snprintf(v->what, sizeof v->what, "%s%s%s",
	    a->impl == IMPL_BUILTIN ? "builtin " : "",
	    a->kind != COLL_ALLREDUCE ? "" :
		a->mode == MODE_RING  ? "ring " :
					"mesh ",
	    coll_kind_name(a->kind));
}

int
coll_validate(const struct coll_args *a, int nranks, char **cause,
    enum coll_arg *bad)
{
	struct vctx v = { cause, bad, a, nranks, "", "world" };
	const char *lifted;

	if (cause != NULL)
		*cause = NULL;
	if (bad != NULL)
		*bad = CARG_NONE;
	if ((unsigned)a->kind >= COLL__COUNT || (unsigned)a->op >= RED__COUNT)
		return fail(&v, CARG_OPTION, "bad collective arguments");
	describe(&v);
	if (nranks < 1)
		return fail(&v, CARG_NONE, "world has no ranks");
	if (a->domain != 0) {
		for (int r = nranks; r < COLL_MAX_RANKS; r++) {
			if ((a->members[r / 64] >> (r % 64)) & 1)
				return fail(&v, CARG_NONE,
				    "domain rank %d out of range "
				    "(world has %d ranks)",
				    r, nranks);
		}
		v.n = coll_size(a, nranks);
		if (v.n < 1)
			return fail(&v, CARG_NONE,
			    "the collective's domain has no ranks");
		snprintf(v.scope, sizeof v.scope, "domain");
	}
	if (a->kind != COLL_BARRIER && (a->buf.count == 0 || a->buf.ndim < 1))
		return fail(&v, CARG_BUF, "%s needs a data window", v.what);
	if (a->kind == COLL_ALLREDUCE) {
		if (check_allreduce(&v) != 0)
			return -1;
	} else if (check_data(&v) != 0) {
		return -1;
	}
	if (a->strict && strict_limits(&v, &lifted) != 0)
		return -1;
	if (a->kind == COLL_ALLREDUCE && !a->has_sig)
		return check_generations(&v);
	if (check_sig(&v) != 0)
		return -1;
	if (a->kind != COLL_BARRIER &&
	    check_distinct(&v, &a->buf,
		a->kind == COLL_ALLGATHER || a->kind == COLL_ALL_TO_ALL ||
			a->kind == COLL_ALL_TO_ALL_V ?
		    "DST" :
		    "BUF",
		&a->sig, "SIG", CARG_SIG) != 0)
		return -1;
	if (a->kind == COLL_ALLGATHER || a->kind == COLL_ALL_TO_ALL ||
	    a->kind == COLL_ALL_TO_ALL_V) {
		if (check_distinct(&v, &a->src, "SRC", &a->sig, "SIG",
			CARG_SIG) != 0)
			return -1;
	}
	return check_generations(&v);
}

const char *
coll_strict_lifted(const struct coll_args *a)
{
	struct vctx v = { NULL, NULL, a, 1, "", "world" };
	const char *lifted = NULL;

	if (a->strict)
		return NULL;
	describe(&v);
	if (strict_limits(&v, &lifted) != 0)
		return lifted;
	return NULL;
}

const char *
coll_warning(const struct coll_args *a, int nranks)
{
	uint64_t stride = a->sig.ndim >= 2 ? a->sig.shape[1] : 1;

	nranks = coll_size(a, nranks);
	if (a->impl == IMPL_BUILTIN && nranks > COLL_BUILTIN_MAX_RANKS)
		return "builtin kernels return at once on more than 16 ranks: "
		       "this call does nothing (as in PyPTO)";
	if (a->kind == COLL_ALLREDUCE && a->core_num > 1 &&
	    (uint64_t)a->core_num > stride)
		return "core_num exceeds the signal's lanes (its second "
		       "dimension): the blocks past it return at once, as the "
		       "kernel clamps them, and the others do their tiles";
	return NULL;
}
