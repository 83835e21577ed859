/* exec.c - run one micro-op; see exec.h. */
#include <stdatomic.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "kern.h"
#include "xmalloc.h"

void
exec_init(struct exec *ex, struct transport *t)
{
	memset(ex, 0, sizeof *ex);
	ex->t = t;
}

void
exec_release(struct exec *ex)
{
	free(ex->acc);
	free(ex->tmp);
	ex->acc = ex->tmp = NULL;
	ex->acc_cap = ex->tmp_cap = 0;
}

static void *
grow(void *p, size_t *cap, size_t want)
{
	if (want <= *cap)
		return p;
	free(p);
	*cap = want;
	return xmalloc(want);
}

void
exec_reserve(struct exec *ex, size_t bytes)
{
	ex->acc = grow(ex->acc, &ex->acc_cap, bytes);
}

/*
 * From this buffer size on, the mesh allreduce streams its stores into
 * the own window (kern_copy_stream(); prog.h's stream_bytes says which
 * programs may): nothing reads those chunks again within the call, and a
 * cached store costs a read for ownership of each line and evicts what
 * the next chunks read.  Whether that pays depends on the cache
 * hierarchy, so the default is the machine's:
 *
 * - AMD (and any CPU not below): 4 MiB.  Measured on a 2-vCPU EPYC (2 MiB
 *   L2 a core, 32 MiB L3), 2-rank mesh f32, busbw streamed over not
 *   (COLLDB_STREAM_MIN=1 vs off, interleaved, 10 pairs, median ratio):
 *   512 KiB 1.15, 1 MiB 1.05, 2 MiB 1.08-1.20 (spreads 0.4-8x), 4 MiB
 *   1.20, 8 MiB 1.50, 16 and 64 MiB: docs/design.md.  Below 4 MiB the
 *   gain did not stand out of the noise.
 * - Intel: the last-level cache's size (never, where it is unknown).
 *   On a 2-vCPU Xeon (2 MiB L2 a core, 300 MiB shared L3) the cached
 *   stores won: off over the 4 MiB default, 8 interleaved pairs, 4 MiB
 *   1.26x, 16 MiB 1.21x, 64 MiB 1.26x (load 4-5): what a rank stores
 *   stays in the shared L3, where its peers read it in the next call,
 *   and a streamed store sends it to memory.
 */
#define EXEC_STREAM_MIN (4u << 20)

static uint64_t
stream_default(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_is("intel")) {
		long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);

		return llc > 0 ? (uint64_t)llc : UINT64_MAX;
	}
#endif
	return EXEC_STREAM_MIN;
}

uint64_t
exec_stream_min(void)
{
	static _Atomic uint64_t min; /* 0: not read yet */
	uint64_t m = atomic_load_explicit(&min, memory_order_relaxed);
	const char *env;
	char *end;

	if (m != 0)
		return m;
	m = stream_default();
	if ((env = getenv("COLLDB_STREAM_MIN")) != NULL) {
		unsigned long long v = strtoull(env, &end, 0);

		if (strcmp(env, "off") == 0)
			m = UINT64_MAX;
		else if (end != env && *end == '\0')
			m = v > 0 ? v : 1;
	}
	atomic_store_explicit(&min, m, memory_order_relaxed);
	return m;
}

void
exec_prepare(struct exec *ex, const struct prog *p)
{
	exec_reserve(ex, p->acc_bytes);
	ex->stream = p->stream_bytes != 0 && p->stream_bytes >= exec_stream_min();
}

static int
span_ok(uint64_t off, uint64_t bytes, uint64_t limit)
{
	return off <= limit && bytes <= limit - off;
}

int
exec_check(const struct uop *u, int nranks, uint64_t area_size,
    size_t acc_bytes, char **cause)
{
	size_t esz = dtype_size(u->dtype);
	size_t asz = dtype_size(dtype_acc(u->dtype));
	int needs_peer = u->kind == UOP_NOTIFY || u->kind == UOP_PUT ||
	    u->kind == UOP_GET ||
	    ((u->kind == UOP_COPY || u->kind == UOP_REDUCE) &&
		(u->dsp == SP_PEER || u->ssp == SP_PEER));

	if (u->kind >= UOP__COUNT || u->dtype >= DT__COUNT)
		return cause_set(cause, "malformed micro-op");
	if (needs_peer && (u->peer < 0 || u->peer >= nranks))
		return cause_set(cause,
		    "peer %d out of range (world has %d ranks)", u->peer, nranks);
	if (u->count > UINT64_MAX / 8)
		return cause_set(cause, "count %llu too large",
		    (unsigned long long)u->count);
	switch (u->kind) {
	case UOP_NOTIFY:
	case UOP_WAIT:
		if (!span_ok(u->dst, 4, area_size) || u->dst % 4 != 0)
			return cause_set(cause,
			    "cell offset %llu outside the window area",
			    (unsigned long long)u->dst);
		if ((u->flags & UOP_F_FROM_CELL) &&
		    (!span_ok(u->src, 4, area_size) || u->src % 4 != 0))
			return cause_set(cause,
			    "cell offset %llu outside the window area",
			    (unsigned long long)u->src);
		return 0;
	case UOP_PUT:
	case UOP_GET:
	case UOP_FILL: {
		/* a staging tile (SP_ACC) on the local side of a put or get */
		int dacc = u->kind == UOP_GET && u->dsp == SP_ACC;
		int sacc = u->kind == UOP_PUT && u->ssp == SP_ACC;

		if ((dacc || sacc) && !(u->flags & UOP_F_RAW))
			return cause_set(cause, "malformed micro-op");
		if (!span_ok(u->dst, u->count * esz,
			dacc ? acc_bytes : area_size) ||
		    (u->kind != UOP_FILL &&
			!span_ok(u->src, u->count * esz,
			    sacc ? acc_bytes : area_size)))
			return cause_set(cause, "region outside the window area");
		return 0;
	}
	case UOP_COPY:
	case UOP_REDUCE:
		if (u->flags & UOP_F_RAW)
			asz = esz;
		if (!span_ok(u->dst, u->count * (u->dsp == SP_ACC ? asz : esz),
			u->dsp == SP_ACC ? acc_bytes : area_size) ||
		    !span_ok(u->src, u->count * (u->ssp == SP_ACC ? asz : esz),
			u->ssp == SP_ACC ? acc_bytes : area_size))
			return cause_set(cause, "region outside the window area");
		if (u->kind == UOP_REDUCE && u->op >= RED__COUNT)
			return cause_set(cause, "bad reduce op");
		return 0;
	default:
		return 0;
	}
}

/* Resolve an operand to a pointer, staging peer data when needed. */
static void *
operand(struct exec *ex, int space, int peer, uint64_t off, size_t bytes,
    int for_read, char **cause)
{
	struct transport *t = ex->t;
	uint8_t *base;

	switch (space) {
	case SP_ACC:
		return (uint8_t *)ex->acc + off;
	case SP_OWN:
		return t->ops->area(t, t->rank) + off;
	default:
		base = t->ops->area(t, peer);
		if (base != NULL)
			return base + off;
		if (!for_read) {
			cause_set(cause,
			    "transport %s cannot write peers directly",
			    t->ops->name);
			return NULL;
		}
		ex->tmp = grow(ex->tmp, &ex->tmp_cap, bytes);
		if (t->ops->get(t, peer, off, ex->tmp, bytes) != 0) {
			cause_set(cause, "get from rank %d failed", peer);
			return NULL;
		}
		return ex->tmp;
	}
}

static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void
fill(struct exec *ex, const struct uop *u)
{
	uint8_t *base = ex->t->ops->area(ex->t, ex->t->rank) + u->dst;
	enum dtype dt = u->dtype;
	/* fval is the value for the other patterns: only random's is a seed
	 * (and converting, say, 3.4e38 to an integer would be undefined) */
	uint64_t seed = u->op != FILL_RANDOM || !(fabs(u->fval) < 0x1p63) ?
	    0 :
	    (uint64_t)(int64_t)u->fval * 1000003u + (uint64_t)ex->t->rank;

	if ((u->flags & UOP_F_INT) && u->op != FILL_RANDOM) {
		int64_t k = (int64_t)u->src;
		for (uint64_t i = 0; i < u->count; i++)
			dtype_put_int(dt, base, i,
			    u->op == FILL_VALUE	   ? k :
				u->op == FILL_RANK ? k + ex->t->rank :
						     k + (int64_t)i);
		return;
	}
	for (uint64_t i = 0; i < u->count; i++) {
		switch (u->op) {
		case FILL_VALUE:
			dtype_put(dt, base, i, u->fval);
			break;
		case FILL_RANK:
			dtype_put(dt, base, i, ex->t->rank + u->fval);
			break;
		case FILL_IOTA:
			dtype_put(dt, base, i, (double)i + u->fval);
			break;
		default: {
			uint64_t r = splitmix64(&seed);
			if (dtype_is_float(dt))
				dtype_put(dt, base, i,
				    (double)(r >> 11) * 0x1p-53);
			else
				dtype_put_int(dt, base, i, (int64_t)(r % 100));
		}
		}
	}
}

int
exec_uop(struct exec *ex, const struct uop *u, int32_t *seen, char **cause)
{
	struct transport *t = ex->t;
	enum dtype dt = u->dtype, adt = dtype_acc(u->dtype);
	size_t bytes = u->count * dtype_size(dt);
	void *d, *s;
	int rc;

	switch (u->kind) {
	case UOP_NOTIFY: {
		int32_t v = u->value;

		if (u->flags & UOP_F_FROM_CELL) {
			/* a count read now from this rank's data, clamped */
			int32_t c = atomic_load(
			    (_Atomic int32_t *)(void *)(t->ops->area(t, t->rank) +
				u->src));
			v = c < u->value ? c : u->value;
		}
		if (t->ops->notify(t, u->peer, u->dst, v, u->op) != 0)
			return cause_set(cause, "notify to rank %d failed",
			    u->peer);
		return EXEC_OK;
	}
	case UOP_WAIT:
		rc = t->ops->wait(t, u->dst, u->op, u->value, seen);
		if (rc == WAIT_PENDING)
			return EXEC_PENDING;
		if (rc == WAIT_INTERRUPTED)
			return EXEC_INTERRUPTED;
		if (rc == WAIT_GAVEUP)
			return EXEC_GAVEUP;
		return rc == 0 ? EXEC_OK : cause_set(cause, "wait failed");
	case UOP_PUT:
		s = u->ssp == SP_ACC ? (uint8_t *)ex->acc + u->src :
				       t->ops->area(t, t->rank) + u->src;
		if (u->op == ATOMIC_ADD && u->ssp != SP_ACC &&
		    u->peer == t->rank && u->src < u->dst + bytes &&
		    u->dst < u->src + bytes) {
			/* onto itself: add what the source held before, as a
			 * plain put copies it (memmove) */
			ex->tmp = grow(ex->tmp, &ex->tmp_cap, bytes);
			memcpy(ex->tmp, s, bytes);
			s = ex->tmp;
		}
		rc = u->op == ATOMIC_ADD ?
		    t->ops->put_add(t, u->peer, u->dst, s, u->count, dt) :
		    t->ops->put(t, u->peer, u->dst, s, bytes);
		return rc == 0 ?
		    EXEC_OK :
		    cause_set(cause, "put to rank %d failed", u->peer);
	case UOP_GET:
		d = u->dsp == SP_ACC ? (uint8_t *)ex->acc + u->dst :
				       t->ops->area(t, t->rank) + u->dst;
		if (t->ops->get(t, u->peer, u->src, d, bytes) != 0)
			return cause_set(cause, "get from rank %d failed",
			    u->peer);
		return EXEC_OK;
	case UOP_COPY:
	case UOP_REDUCE: {
		size_t sbytes;

		if (u->flags & UOP_F_RAW)
			adt = dt; /* a staging tile holds the data as is */
		sbytes = u->count * dtype_size(u->ssp == SP_ACC ? adt : dt);
		enum dtype sdt = u->ssp == SP_ACC ? adt : dt;
		enum dtype ddt = u->dsp == SP_ACC ? adt : dt;

		s = operand(ex, u->ssp, u->peer, u->src, sbytes, 1, cause);
		if (s == NULL)
			return EXEC_ERROR;
		d = operand(ex, u->dsp, u->peer, u->dst, 0, 0, cause);
		if (d == NULL)
			return EXEC_ERROR;
		if (u->kind == UOP_COPY) {
			if (ex->stream && ddt == sdt && u->dsp == SP_OWN)
				kern_copy_stream(d, s, sbytes);
			else
				dtype_convert(ddt, d, sdt, s, u->count);
		} else if (sdt == ddt) {
			reduce_apply(ddt, u->op, d, s, u->count);
		} else if (ddt == DT_F32) {
			/* acc op= the widened source, in one pass */
			kern_reduce_f32(u->op, d, DT_F32, d, sdt, s, u->count);
		} else {
			/* widen the source into staging, then reduce */
			size_t need = u->count * dtype_size(ddt);
			void *w;
			if (s == ex->tmp) {
				w = xmalloc(need);
				dtype_convert(ddt, w, sdt, s, u->count);
				reduce_apply(ddt, u->op, d, w, u->count);
				free(w);
			} else {
				ex->tmp = grow(ex->tmp, &ex->tmp_cap, need);
				dtype_convert(ddt, ex->tmp, sdt, s, u->count);
				reduce_apply(ddt, u->op, d, ex->tmp, u->count);
			}
		}
		return EXEC_OK;
	}
	case UOP_FILL:
		fill(ex, u);
		if (ex->after_op != NULL)
			ex->after_op(ex, u, ex->after_arg);
		return EXEC_OK;
	default:
		return cause_set(cause, "%s is not executed here",
		    uop_kind_name(u->kind));
	}
}

/* A source of a COPY/REDUCE as a direct pointer, or NULL. */
static const void *
direct(const struct exec *ex, int space, int peer, uint64_t off)
{
	struct transport *t = ex->t;
	uint8_t *base;

	if (space == SP_ACC)
		return NULL;
	base = t->ops->area(t, space == SP_OWN ? t->rank : peer);
	return base != NULL ? base + off : NULL;
}

int
exec_fusable(const struct exec *ex, const struct uop *a, const struct uop *b)
{
	return a->kind == UOP_COPY && b->kind == UOP_REDUCE &&
	    a->dsp == SP_ACC && b->dsp == SP_ACC && a->dst == b->dst &&
	    a->count == b->count && a->dtype == b->dtype &&
	    direct(ex, a->ssp, a->peer, a->src) != NULL &&
	    direct(ex, b->ssp, b->peer, b->src) != NULL;
}

int
exec_fused(struct exec *ex, const struct uop *a, const struct uop *b)
{
	enum dtype dt = a->dtype, adt = dtype_acc(dt);
	void *acc = (uint8_t *)ex->acc + a->dst;
	const void *x = direct(ex, a->ssp, a->peer, a->src);
	const void *y = direct(ex, b->ssp, b->peer, b->src);

	if (adt == dt)
		kern_reduce(dt, b->op, acc, x, y, a->count);
	else
		kern_reduce_f32(b->op, acc, dt, x, dt, y, a->count);
	return EXEC_OK;
}
