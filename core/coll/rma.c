/*
 * rma.c - put, get, remote_store and remote_load as micro-ops; see rma.h.
 *
 * PyPTO (tensor_ops.py put/get/remote_store, comm_op_utils.h
 * ValidateTransferShapeContract / ValidateRegionArgs / ValidatePushFitsTarget
 * / ValidatePipelineHasChunk, remote_load.cpp): the three region arguments
 * come together; each has one entry per dimension; shapes are positive,
 * offsets non-negative, and the region fits its window in every dimension;
 * chunk sizes are non-negative (0 = the full extent) and pipeline needs
 * both; remote_store pushes the whole of a 2-D SRC (leading dims 1) into a
 * target of rank >= 2; remote_load reads a shape-sized region (its
 * valid_shape part) into a local tile.
 *
 * Decisions:
 * - The staging tile is colldb's accumulator space (SP_ACC with
 *   UOP_F_RAW): a load copies a chunk row into it, a store writes it out,
 *   one micro-op per chunk row, so `plan` and stepping show the bounce.
 *   Without chunk sizes the transfer moves directly, one micro-op per run
 *   of contiguous rows (a whole-window put stays one micro-op).
 * - Chunks go in row-major order (row chunks outer, column chunks inner),
 *   the order pto-isa slides its 2-D tile; with pipeline the load of
 *   chunk k+1 precedes the store of chunk k (ping-pong tiles 0 and 1).
 * - remote_load leaves the part of the tile outside valid_shape as it was
 *   (PyPTO leaves it undefined).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../rma.h"
#include "../xmalloc.h"
#include "coll-int.h"

static const char *const form_names[] = { "put", "get", "remote_store",
	"remote_load" };

const char *
rma_form_name(enum rma_form f)
{
	return (unsigned)f < ARRAY_SIZE(form_names) ? form_names[f] : "?";
}

enum uop_kind
rma_kind(enum rma_form f)
{
	return f == RMA_PUT || f == RMA_REMOTE_STORE ? UOP_PUT : UOP_GET;
}

static int printflike(4, 5) bad(char **cause, enum rma_arg *badp,
    enum rma_arg which, const char *fmt, ...)
{
	va_list ap;

	if (cause != NULL) {
		va_start(ap, fmt);
		*cause = xvasprintf(fmt, ap);
		va_end(ap);
	}
	if (badp != NULL)
		*badp = which;
	return -1;
}

static const char *
wname(const struct win_ref *w)
{
	return w->name != NULL ? w->name : "?";
}

/* Transfer geometry: rows x cols, after validation. */
static void
extent(const struct rma_args *a, uint64_t *rows, uint64_t *cols)
{
	if (a->ndim == 0) {
		*rows = 1;
		*cols = a->count;
		return;
	}
	*rows = 1;
	for (int d = 0; d + 1 < a->ndim; d++)
		*rows *= a->shape[d];
	*cols = a->shape[a->ndim - 1];
}

/* Element index in w of transfer row r's first element (region form). */
static uint64_t
row_elem(const struct win_ref *w, const uint64_t *off, const uint64_t *shape,
    int ndim, uint64_t r)
{
	uint64_t e = off[ndim - 1], stride = w->shape[ndim - 1];

	for (int d = ndim - 2; d >= 0; d--) {
		e += (off[d] + r % shape[d]) * stride;
		r /= shape[d];
		stride *= w->shape[d];
	}
	return e;
}

static uint64_t
elem(const struct rma_args *a, int dst, uint64_t r, uint64_t c)
{
	if (a->ndim == 0)
		return (dst ? a->dst_first : a->src_first) + c;
	return row_elem(dst ? &a->dst : &a->src, dst ? a->dst_off : a->src_off,
		   a->shape, a->ndim, r) +
	    c;
}

/* The region is one contiguous run of w: full trailing dims after some k,
 * extent 1 before it. */
static int
contiguous(const struct win_ref *w, const uint64_t *shape, int ndim)
{
	int k = ndim - 1;

	while (k > 0 && shape[k] == w->shape[k])
		k--;
	for (int d = 0; d < k; d++) {
		if (shape[d] != 1)
			return 0;
	}
	return 1;
}

static void
tile(const struct rma_args *a, uint64_t *cr, uint64_t *cc)
{
	uint64_t rows, cols;

	extent(a, &rows, &cols);
	*cr = a->chunk_rows > 0 ? MIN((uint64_t)a->chunk_rows, rows) : rows;
	*cc = a->chunk_cols > 0 ? MIN((uint64_t)a->chunk_cols, cols) : cols;
}

static int
staged(const struct rma_args *a)
{
	return a->chunk_rows > 0 || a->chunk_cols > 0;
}

uint64_t
rma_nops(const struct rma_args *a)
{
	uint64_t rows, cols, cr, cc, n = 0, pd = 0, ps = 0;

	extent(a, &rows, &cols);
	if (rows == 0 || cols == 0)
		return 0;
	if (staged(a)) {
		tile(a, &cr, &cc);
		return 2 * rows * ceil_div(cols, cc);
	}
	if (a->ndim == 0 ||
	    (contiguous(&a->dst, a->shape, a->ndim) &&
		contiguous(&a->src, a->shape, a->ndim)))
		return 1;
	if (rows > RMA_MAX_OPS)
		return rows; /* an upper bound is enough to refuse it */
	for (uint64_t r = 0; r < rows; r++) {
		uint64_t d = elem(a, 1, r, 0), s = elem(a, 0, r, 0);
		if (r == 0 || d != pd + cols || s != ps + cols)
			n++;
		pd = d;
		ps = s;
	}
	return n;
}

/* Raw (signed) entries to unsigned ones: offsets >= 0, shapes > 0. */
static int
entries(const char *what, const char *arg, const int64_t *raw, int n,
    int positive, uint64_t *out, enum rma_arg which, char **cause,
    enum rma_arg *badp)
{
	for (int d = 0; d < n; d++) {
		if (positive && raw[d] <= 0)
			return bad(cause, badp, which,
			    "%s %s dimension %d must be positive, got %lld",
			    what, arg, d, (long long)raw[d]);
		if (!positive && raw[d] < 0)
			return bad(cause, badp, which,
			    "%s %s dimension %d must be non-negative, got %lld",
			    what, arg, d, (long long)raw[d]);
		out[d] = (uint64_t)raw[d];
	}
	return 0;
}

static int
fits(const char *what, const char *side, const struct win_ref *w,
    const uint64_t *off, const uint64_t *shape, int ndim, enum rma_arg which,
    char **cause, enum rma_arg *badp)
{
	for (int d = 0; d < ndim; d++) {
		if (off[d] > w->shape[d] || shape[d] > w->shape[d] - off[d])
			return bad(cause, badp, which,
			    "%s %s subregion dimension %d exceeds %s shape (offset=%llu, shape=%llu, %s_dim=%llu)",
			    what, side, d, side, (unsigned long long)off[d],
			    (unsigned long long)shape[d], side,
			    (unsigned long long)w->shape[d]);
	}
	return 0;
}

static int
check_chunks(const struct rma_args *a, const char *what, char **cause,
    enum rma_arg *badp)
{
	if (a->chunk_rows < 0)
		return bad(cause, badp, RARG_CHUNK_ROWS,
		    "%s chunk_rows must be non-negative (0 = full), got %lld",
		    what, (long long)a->chunk_rows);
	if (a->chunk_cols < 0)
		return bad(cause, badp, RARG_CHUNK_COLS,
		    "%s chunk_cols must be non-negative (0 = full), got %lld",
		    what, (long long)a->chunk_cols);
	if (a->pipeline && !(a->chunk_rows > 0 && a->chunk_cols > 0))
		return bad(cause, badp, RARG_PIPELINE,
		    "%s pipeline requires both chunk_rows>0 and chunk_cols>0 (got chunk_rows=%lld, chunk_cols=%lld)",
		    what, (long long)a->chunk_rows, (long long)a->chunk_cols);
	return 0;
}

static int
check_region(struct rma_args *a, const char *what, char **cause,
    enum rma_arg *badp)
{
	int n = a->dst.ndim;

	if (!(a->have_dst_off && a->have_src_off && a->have_shape))
		return bad(cause, badp,
		    a->have_dst_off	? RARG_DST_OFF :
			a->have_src_off ? RARG_SRC_OFF :
					  RARG_SHAPE,
		    "%s dst_offsets, src_offsets and shape must be given together (missing %s)",
		    what,
		    !a->have_dst_off	 ? "dst_offsets" :
			!a->have_src_off ? "src_offsets" :
					   "shape");
	if (a->src.ndim != n)
		return bad(cause, badp, RARG_SRC,
		    "%s dst rank (%d) must match src rank (%d)", what, n,
		    a->src.ndim);
	if (a->ndst_off != n)
		return bad(cause, badp, RARG_DST_OFF,
		    "%s dst_offsets rank must match dst rank ('%s' has %d dimension%s, got %d offset%s)",
		    what, wname(&a->dst), n, n == 1 ? "" : "s", a->ndst_off,
		    a->ndst_off == 1 ? "" : "s");
	if (a->nsrc_off != n)
		return bad(cause, badp, RARG_SRC_OFF,
		    "%s src_offsets rank must match src rank ('%s' has %d dimension%s, got %d offset%s)",
		    what, wname(&a->src), n, n == 1 ? "" : "s", a->nsrc_off,
		    a->nsrc_off == 1 ? "" : "s");
	if (a->nshape != n)
		return bad(cause, badp, RARG_SHAPE,
		    "%s shape rank must match tensor rank (%d, got %d)", what,
		    n, a->nshape);
	if (entries(what, "shape", a->shape_raw, n, 1, a->shape, RARG_SHAPE,
		cause, badp) != 0 ||
	    entries(what, "dst_offsets", a->dst_off_raw, n, 0, a->dst_off,
		RARG_DST_OFF, cause, badp) != 0 ||
	    entries(what, "src_offsets", a->src_off_raw, n, 0, a->src_off,
		RARG_SRC_OFF, cause, badp) != 0)
		return -1;
	if (fits(what, "dst", &a->dst, a->dst_off, a->shape, n, RARG_DST_OFF,
		cause, badp) != 0 ||
	    fits(what, "src", &a->src, a->src_off, a->shape, n, RARG_SRC_OFF,
		cause, badp) != 0)
		return -1;
	a->ndim = n;
	return 0;
}

/* remote_store SRC PEER DST offsets=: the whole 2-D SRC at offsets. */
static int
check_remote_store(struct rma_args *a, char **cause, enum rma_arg *badp)
{
	const char *what = "remote_store";
	int n = a->dst.ndim, s = a->src.ndim;
	uint64_t e0, e1;
	char sh[96];

	if (n < 2)
		return bad(cause, badp, RARG_DST,
		    "%s target rank must be >= 2 to hold a 2-D push, got %d ('%s' is %s)",
		    what, n, wname(&a->dst),
		    coll_shape_str(&a->dst, sh, sizeof sh));
	if (s < 2)
		return bad(cause, badp, RARG_SRC,
		    "%s src must be 2-D (or have leading dimensions of 1), got %s",
		    what, coll_shape_str(&a->src, sh, sizeof sh));
	for (int d = 0; d + 2 < s; d++) {
		if (a->src.shape[d] != 1)
			return bad(cause, badp, RARG_SRC,
			    "%s src leading dimension %d must be 1, got %s",
			    what, d, coll_shape_str(&a->src, sh, sizeof sh));
	}
	if (!a->have_dst_off)
		return bad(cause, badp, RARG_DST,
		    "%s needs offsets=[...] (one per dimension of '%s')", what,
		    wname(&a->dst));
	if (a->ndst_off != n)
		return bad(cause, badp, RARG_DST_OFF,
		    "%s offsets rank must match target rank ('%s' has %d dimensions, got %d offset%s)",
		    what, wname(&a->dst), n, a->ndst_off,
		    a->ndst_off == 1 ? "" : "s");
	if (entries(what, "offsets", a->dst_off_raw, n, 0, a->dst_off,
		RARG_DST_OFF, cause, badp) != 0)
		return -1;
	e0 = a->src.shape[s - 2];
	e1 = a->src.shape[s - 1];
	for (int d = 0; d < n; d++) {
		uint64_t ext = d == n - 2 ? e0 : d == n - 1 ? e1 : 1;
		if (a->dst_off[d] > a->dst.shape[d] ||
		    ext > a->dst.shape[d] - a->dst_off[d])
			return bad(cause, badp, RARG_DST_OFF,
			    "%s push exceeds the peer's target region in dimension %d (offset=%llu, extent=%llu, target_dim=%llu)",
			    what, d, (unsigned long long)a->dst_off[d],
			    (unsigned long long)ext,
			    (unsigned long long)a->dst.shape[d]);
		a->shape[d] = ext;
		a->src_off[d] = 0;
	}
	/* SRC read as the target's rank: leading dims 1, then [e0, e1] */
	a->src.ndim = n;
	for (int d = 0; d < n; d++)
		a->src.shape[d] = a->shape[d];
	a->ndim = n;
	return 0;
}

/* remote_load DST PEER SRC offsets= shape= [valid_shape=]: a tile. */
static int
check_remote_load(struct rma_args *a, char **cause, enum rma_arg *badp)
{
	const char *what = "remote_load";
	int n = a->src.ndim;
	uint64_t tile_n = 1, valid[COLLDB_MAX_DIMS];
	char sh[96];

	if (!a->have_src_off || !a->have_shape)
		return bad(cause, badp, !a->have_src_off ? RARG_SRC : RARG_SHAPE,
		    "%s needs offsets=[...] and shape=[...] (one entry per dimension of '%s')",
		    what, wname(&a->src));
	if (a->nsrc_off != n)
		return bad(cause, badp, RARG_SRC_OFF,
		    "%s offsets rank must match target rank ('%s' has %d dimension%s, got %d offset%s)",
		    what, wname(&a->src), n, n == 1 ? "" : "s", a->nsrc_off,
		    a->nsrc_off == 1 ? "" : "s");
	if (a->nshape != n)
		return bad(cause, badp, RARG_SHAPE,
		    "%s shape rank must match target rank (%d, got %d)", what,
		    n, a->nshape);
	if (a->nvalid != 0 && a->nvalid != n)
		return bad(cause, badp, RARG_VALID,
		    "%s valid_shape rank must match target rank (%d, got %d)",
		    what, n, a->nvalid);
	if (entries(what, "shape", a->shape_raw, n, 1, a->shape, RARG_SHAPE,
		cause, badp) != 0 ||
	    entries(what, "offsets", a->src_off_raw, n, 0, a->src_off,
		RARG_SRC_OFF, cause, badp) != 0)
		return -1;
	if (fits(what, "target", &a->src, a->src_off, a->shape, n, RARG_SRC_OFF,
		cause, badp) != 0)
		return -1;
	for (int d = 0; d < n; d++)
		tile_n *= a->shape[d];
	if (a->dst.count != tile_n) {
		struct win_ref t = { .ndim = n };

		memcpy(t.shape, a->shape, sizeof t.shape);
		return bad(cause, badp, RARG_DST,
		    "%s needs a DST tile of %llu elements (shape %s), got '%s' with %llu",
		    what, (unsigned long long)tile_n,
		    coll_shape_str(&t, sh, sizeof sh), wname(&a->dst),
		    (unsigned long long)a->dst.count);
	}
	if (a->nvalid != 0) {
		if (entries(what, "valid_shape", a->valid_raw, n, 1, valid,
			RARG_VALID, cause, badp) != 0)
			return -1;
		for (int d = 0; d < n; d++) {
			if (valid[d] > a->shape[d])
				return bad(cause, badp, RARG_VALID,
				    "%s valid_shape dimension %d is %llu, more than shape's %llu",
				    what, d, (unsigned long long)valid[d],
				    (unsigned long long)a->shape[d]);
		}
	}
	/* DST is the tile, viewed with shape; the valid part moves */
	a->dst.ndim = n;
	for (int d = 0; d < n; d++) {
		a->dst.shape[d] = a->shape[d];
		a->dst_off[d] = 0;
		if (a->nvalid != 0)
			a->shape[d] = valid[d];
	}
	a->ndim = n;
	return 0;
}

int
rma_validate(struct rma_args *a, char **cause, enum rma_arg *badp)
{
	const char *what = rma_form_name(a->form);
	int region = a->have_dst_off || a->have_src_off || a->have_shape;
	int rc;

	if (cause != NULL)
		*cause = NULL;
	if (badp != NULL)
		*badp = RARG_NONE;
	if (a->dst.dtype != a->src.dtype)
		return bad(cause, badp, RARG_SRC,
		    "%s dst and src must have the same element type, got %s ('%s') and %s ('%s')",
		    what, dtype_name(a->dst.dtype), wname(&a->dst),
		    dtype_name(a->src.dtype), wname(&a->src));
	if (check_chunks(a, what, cause, badp) != 0)
		return -1;
	if (a->form == RMA_REMOTE_STORE)
		rc = check_remote_store(a, cause, badp);
	else if (a->form == RMA_REMOTE_LOAD)
		rc = check_remote_load(a, cause, badp);
	else if (region)
		rc = check_region(a, what, cause, badp);
	else
		rc = 0;
	if (rc != 0)
		return -1;
	if (rma_nops(a) > RMA_MAX_OPS)
		return bad(cause, badp, staged(a) ? RARG_CHUNK_ROWS : RARG_SHAPE,
		    "%s would take %llu micro-ops; colldb moves at most %u per transfer (larger chunks, or fewer rows)",
		    what, (unsigned long long)rma_nops(a), RMA_MAX_OPS);
	return 0;
}

static void
add(struct prog *p, const struct rma_args *a, uint8_t kind, uint8_t dsp,
    uint64_t dst, uint8_t ssp, uint64_t src, uint64_t count, uint8_t op,
    uint32_t name, uint32_t phase)
{
	struct uop u;

	memset(&u, 0, sizeof u);
	u.kind = kind;
	u.dtype = (uint8_t)a->dst.dtype;
	u.op = op;
	u.dsp = dsp;
	u.ssp = ssp;
	u.peer = a->peer;
	u.dst = dst;
	u.src = src;
	u.count = count;
	u.name = name;
	u.phase = phase;
	if (dsp == SP_ACC || ssp == SP_ACC)
		u.flags = UOP_F_RAW;
	prog_add(p, &u);
}

static void
direct(struct prog *p, const struct rma_args *a)
{
	size_t esz = dtype_size(a->dst.dtype);
	uint64_t rows, cols;
	uint8_t kind = (uint8_t)rma_kind(a->form);
	uint8_t op = a->atomic ? ATOMIC_ADD : ATOMIC_NONE;
	struct uop *last = NULL;

	extent(a, &rows, &cols);
	if (a->ndim > 0 && contiguous(&a->dst, a->shape, a->ndim) &&
	    contiguous(&a->src, a->shape, a->ndim)) {
		cols *= rows;
		rows = 1;
	}
	for (uint64_t r = 0; r < rows; r++) {
		uint64_t d = a->dst.off + elem(a, 1, r, 0) * esz;
		uint64_t s = a->src.off + elem(a, 0, r, 0) * esz;

		if (last != NULL && last->dst + last->count * esz == d &&
		    last->src + last->count * esz == s) {
			last->count += cols;
			continue;
		}
		/* dsp/ssp stay SP_OWN: only a staging tile is marked */
		add(p, a, kind, SP_OWN, d, SP_OWN, s, cols, op, 0, 0);
		last = &p->mops[p->nmops - 1];
	}
}

/* One chunk's load (into stage) or store (out of it), one op per row. */
static void
chunk_pass(struct prog *p, const struct rma_args *a, int store, uint64_t k,
    uint64_t r0, uint64_t h, uint64_t c0, uint64_t w, uint64_t stage_off,
    uint64_t cc)
{
	size_t esz = dtype_size(a->dst.dtype);
	char name[96], phase[48];
	uint32_t nm, ph;
	int put = rma_kind(a->form) == UOP_PUT;

	snprintf(phase, sizeof phase, "chunk %llu", (unsigned long long)k);
	snprintf(name, sizeof name, "%s.chunk%llu.%s", rma_form_name(a->form),
	    (unsigned long long)k, store ? "store" : "load");
	nm = prog_str(p, name);
	ph = prog_str(p, phase);
	for (uint64_t i = 0; i < h; i++) {
		uint64_t st = stage_off + i * cc * esz;
		uint64_t d = a->dst.off + elem(a, 1, r0 + i, c0) * esz;
		uint64_t s = a->src.off + elem(a, 0, r0 + i, c0) * esz;

		if (!store && put) /* own src row -> stage */
			add(p, a, UOP_COPY, SP_ACC, st, SP_OWN, s, w, 0, nm, ph);
		else if (!store) /* peer src row -> stage */
			add(p, a, UOP_GET, SP_ACC, st, SP_PEER, s, w, 0, nm, ph);
		else if (put) /* stage -> peer dst row */
			add(p, a, UOP_PUT, SP_PEER, d, SP_ACC, st, w,
			    a->atomic ? ATOMIC_ADD : ATOMIC_NONE, nm, ph);
		else /* stage -> own dst row */
			add(p, a, UOP_COPY, SP_OWN, d, SP_ACC, st, w, 0, nm, ph);
	}
}

static void
staging(struct prog *p, const struct rma_args *a)
{
	size_t esz = dtype_size(a->dst.dtype);
	uint64_t rows, cols, cr, cc, nrc, ncc, nk, tile_bytes;

	extent(a, &rows, &cols);
	tile(a, &cr, &cc);
	nrc = ceil_div(rows, cr);
	ncc = ceil_div(cols, cc);
	nk = nrc * ncc;
	tile_bytes = cr * cc * esz;
	p->acc_bytes = MAX(p->acc_bytes, (a->pipeline ? 2 : 1) * tile_bytes);
	for (uint64_t k = 0; k < nk; k++) {
		uint64_t kk, r0, c0;

		/* with pipeline, load chunk k+1 before storing chunk k */
		if (!a->pipeline || k == 0) {
			r0 = k / ncc * cr;
			c0 = k % ncc * cc;
			chunk_pass(p, a, 0, k, r0, MIN(cr, rows - r0), c0,
			    MIN(cc, cols - c0),
			    a->pipeline ? (k % 2) * tile_bytes : 0, cc);
		}
		if (a->pipeline && k + 1 < nk) {
			kk = k + 1;
			r0 = kk / ncc * cr;
			c0 = kk % ncc * cc;
			chunk_pass(p, a, 0, kk, r0, MIN(cr, rows - r0), c0,
			    MIN(cc, cols - c0), (kk % 2) * tile_bytes, cc);
		}
		r0 = k / ncc * cr;
		c0 = k % ncc * cc;
		chunk_pass(p, a, 1, k, r0, MIN(cr, rows - r0), c0,
		    MIN(cc, cols - c0), a->pipeline ? (k % 2) * tile_bytes : 0,
		    cc);
	}
}

void
rma_build(struct prog *p, const struct rma_args *a)
{
	if (staged(a))
		staging(p, a);
	else
		direct(p, a);
}
