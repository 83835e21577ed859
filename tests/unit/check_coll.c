/*
 * check_coll.c - collectives as programs (core/coll), run on the in-process
 * simulator (tests/helper/sim.c) in several interleavings.
 *
 * For every world size in {1,2,3,4,5,8}, collective, mode and impl, dtype
 * and op, and sizes that do and do not divide by N (SIZE < N included):
 * the result equals coll_expect() (coll_wrong() == 0), nothing outside the
 * output region changed, every signal cell is zero afterwards, and a
 * second call on the same signal, queued behind the first so that fast
 * ranks start it while slow ones finish the first, is also correct.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll.h"
#include "exec.h"
#include "prog.h"
#include "xmalloc.h"

#include "sim.h"

static const int world_sizes[] = { 1, 2, 3, 4, 5, 8 };

/* Rank r's program, materialised: these tests read its ops. */
static struct prog *
build(const struct coll_args *a, int n, int r)
{
	struct prog *p = coll_build(a, n, r), *m = prog_materialise(p);

	prog_free(p);
	return m;
}

/* ---- windows -------------------------------------------------------- */

struct layout {
	uint64_t next;
};

static struct win_ref
win(struct layout *l, const char *name, enum dtype dt, int ndim, ...)
{
	struct win_ref w;
	va_list ap;

	memset(&w, 0, sizeof w);
	w.name = name;
	w.dtype = dt;
	w.ndim = ndim;
	w.count = 1;
	va_start(ap, ndim);
	for (int i = 0; i < ndim; i++) {
		w.shape[i] = va_arg(ap, uint64_t);
		w.count *= w.shape[i];
	}
	va_end(ap);
	w.off = l->next;
	l->next += (w.count * dtype_size(dt) + 31) / 32 * 32;
	return w;
}

static uint64_t
rng(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

enum fillmode { FILL_FRACTION, FILL_SMALL_INT };

/*
 * FILL_FRACTION: values in [0.5, 1.5) with a random mantissa (float
 * reductions round); FILL_SMALL_INT: small integers, exact in every dtype
 * even after two reductions, so two calls compose exactly.
 */
static void
fill(uint8_t *area, const struct win_ref *w, int rank, uint64_t seed,
    enum fillmode mode, enum reduce_op op)
{
	uint64_t x = seed * 7919 + (uint64_t)rank * 104729 + w->off;

	for (uint64_t i = 0; i < w->count; i++) {
		uint64_t r = rng(&x);
		int64_t v;

		if (!dtype_is_float(w->dtype)) {
			if (op == RED_PROD)
				v = 1 + (int64_t)(r % 2);
			else if (mode == FILL_SMALL_INT)
				v = (int64_t)(r % 7) - 3;
			else
				v = (int64_t)(r % 201) - 100;
			dtype_put_int(w->dtype, area + w->off, i, v);
		} else if (mode == FILL_SMALL_INT) {
			v = op == RED_PROD ? 1 + (int64_t)(r % 2) :
					     (int64_t)(r % 7) - 3;
			dtype_put(w->dtype, area + w->off, i, (double)v);
		} else {
			dtype_put(w->dtype, area + w->off, i,
			    0.5 + (double)(r >> 11) * 0x1p-53);
		}
	}
}

/* ---- one simulated case ---------------------------------------------- */

struct ccase {
	struct coll_args a;
	uint64_t area;
	enum fillmode mode;
};

static const char *
case_str(const struct ccase *c, int n, char *buf, size_t len)
{
	const struct coll_args *a = &c->a;

	snprintf(buf, len, "%s mode=%s impl=%s op=%s dtype=%s count=%llu n=%d",
	    coll_kind_name(a->kind), a->mode == MODE_RING ? "ring" : "mesh",
	    a->impl == IMPL_BUILTIN ? "builtin" : "composite",
	    reduce_op_name(a->op), dtype_name(a->buf.dtype),
	    (unsigned long long)a->buf.count, n);
	return buf;
}

/* After `calls` calls: the expected area of every rank. */
static uint8_t **
expected_areas(const struct ccase *c, int n, uint8_t **in, int calls)
{
	uint8_t **cur = xcalloc((size_t)n, sizeof *cur);

	for (int r = 0; r < n; r++) {
		cur[r] = xmalloc(c->area);
		memcpy(cur[r], in[r], c->area);
	}
	for (int k = 0; k < calls; k++) {
		uint8_t **next = xcalloc((size_t)n, sizeof *next);

		for (int r = 0; r < n; r++) {
			struct coll_output o;

			uint8_t *tmp;
			uint64_t n1;

			next[r] = xmalloc(c->area);
			memcpy(next[r], cur[r], c->area);
			coll_output(&c->a, n, r, &o);
			tmp = xmalloc(coll_output_bytes(&o) + 1);
			coll_expect(&c->a, n, r, (const void *const *)cur, tmp);
			/* back into place: the output and RECV_COUNTS */
			n1 = o.count * dtype_size(o.dtype);
			memcpy(next[r] + o.off, tmp, n1);
			memcpy(next[r] + o.off2, tmp + n1, o.count2 * 4);
			free(tmp);
		}
		for (int r = 0; r < n; r++)
			free(cur[r]);
		free(cur);
		cur = next;
	}
	return cur;
}

static void
free_areas(uint8_t **a, int n)
{
	for (int r = 0; r < n; r++)
		free(a[r]);
	free(a);
}

/*
 * Run c on n ranks, `calls` times back to back, in the given order.
 * Checks results, untouched bytes and the all-zero signal.
 */
static void
run_case(const struct ccase *c, int n, int calls, enum sim_order order,
    uint64_t seed)
{
	struct sim *s = sim_new(n, c->area);
	uint8_t **in = xcalloc((size_t)n, sizeof *in), **want;
	char *cause = NULL, desc[160];

	case_str(c, n, desc, sizeof desc);
	for (int r = 0; r < n; r++) {
		uint8_t *area = sim_area(s, r);

		if (c->a.kind != COLL_BARRIER)
			fill(area, &c->a.buf, r, seed, c->mode, c->a.op);
		if (c->a.kind == COLL_ALLGATHER || c->a.kind == COLL_ALL_TO_ALL ||
		    c->a.kind == COLL_ALL_TO_ALL_V)
			fill(area, &c->a.src, r, seed + 1, c->mode, c->a.op);
		if (c->a.kind == COLL_ALL_TO_ALL_V) {
			/* counts from -1 to MAX_RECV + 1: clamped, never floored */
			uint64_t x = seed + 13 * (uint64_t)r;
			int32_t mr = (int32_t)(c->a.buf.shape[0] / (uint64_t)n);
			for (uint64_t i = 0; i < c->a.scount.count; i++)
				((int32_t *)(area + c->a.scount.off))[i] =
				    (int32_t)(rng(&x) % (uint64_t)(mr + 3)) - 1;
			for (uint64_t i = 0; i < c->a.rcount.count; i++)
				((int32_t *)(area + c->a.rcount.off))[i] = 77;
		}
		in[r] = xmalloc(c->area);
		memcpy(in[r], area, c->area);
	}
	want = expected_areas(c, n, in, calls);
	for (int k = 0; k < calls; k++) {
		for (int r = 0; r < n; r++)
			sim_push(s, r, build(&c->a, n, r));
	}
	ck_assert_msg(sim_run(s, order, seed, &cause) == 0, "%s order %d: %s",
	    desc, order, cause);
	for (int r = 0; r < n; r++) {
		uint8_t *got = sim_area(s, r);
		struct coll_output o;
		uint64_t esz, wrong;
		const struct win_ref *sig = &c->a.sig;

		uint8_t *wb, *gb;

		coll_output(&c->a, n, r, &o);
		esz = dtype_size(o.dtype);
		wb = xmalloc(coll_output_bytes(&o) + 1);
		gb = xmalloc(coll_output_bytes(&o) + 1);
		coll_output_copy(&o, want[r], wb);
		coll_output_copy(&o, got, gb);
		wrong = coll_wrong(&c->a, n, &o, wb, gb);
		free(wb);
		free(gb);
		ck_assert_msg(wrong == 0,
		    "%s order %d calls %d: rank %d has "
		    "%llu wrong",
		    desc, order, calls, r, (unsigned long long)wrong);
		/* (plain ifs: every ck_assert writes to check's pipe) */
		for (uint64_t i = 0; i < sig->count; i++) {
			if (((int32_t *)(got + sig->off))[i] != 0)
				ck_abort_msg("%s order %d: rank %d signal cell "
					     "%llu = %d",
				    desc, order, r, (unsigned long long)i,
				    ((int32_t *)(got + sig->off))[i]);
		}
		/* everything else is byte-identical to the input */
		for (uint64_t b = 0; b < c->area; b++) {
			if ((b >= o.off && b < o.off + o.count * esz) ||
			    (b >= o.off2 && b < o.off2 + o.count2 * 4))
				continue;
			if (got[b] != in[r][b])
				ck_abort_msg("%s: rank %d byte %llu changed "
					     "outside the output",
				    desc, r, (unsigned long long)b);
		}
	}
	free_areas(want, n);
	free_areas(in, n);
	sim_free(s);
}

/* Validate, then run single and double calls in four orders. */
static void
run_all_orders(struct ccase *c, int n, uint64_t seed)
{
	char *cause = NULL, desc[160];

	ck_assert_msg(coll_validate(&c->a, n, &cause, NULL) == 0, "%s: %s",
	    case_str(c, n, desc, sizeof desc), cause);
	c->mode = FILL_FRACTION;
	run_case(c, n, 1, SIM_ROUND_ROBIN, seed);
	run_case(c, n, 1, SIM_GREEDY, seed + 1);
	c->mode = FILL_SMALL_INT;
	run_case(c, n, 2, SIM_REVERSE, seed + 2);
	run_case(c, n, 2, SIM_RANDOM, seed + 3);
}

static void
base_args(struct coll_args *a, enum coll_kind k)
{
	memset(a, 0, sizeof *a);
	a->kind = k;
	a->strict = true;
	a->has_sig = true;
	a->op = RED_SUM;
}

static int
strict_ok(enum coll_kind k, enum coll_impl impl, enum coll_mode mode,
    enum dtype dt, enum reduce_op op)
{
	if (k == COLL_ALLREDUCE && impl == IMPL_BUILTIN && mode == MODE_RING)
		return dt == DT_F32 && op == RED_SUM;
	if (k == COLL_ALLREDUCE)
		return dt == DT_F32 || dt == DT_F16;
	if (k == COLL_REDUCE_SCATTER && op != RED_SUM)
		return 0;
	return impl == IMPL_COMPOSITE || dt == DT_F32;
}

/* ---- allreduce --------------------------------------------------------- */

static const enum dtype reduce_dtypes[] = { DT_F32, DT_F16, DT_BF16, DT_I32 };

static void
allreduce_case(int n, enum coll_mode mode, enum coll_impl impl, enum dtype dt,
    enum reduce_op op, uint64_t count, uint64_t seed)
{
	struct layout l = { 0 };
	struct ccase c;
	uint64_t nn = (uint64_t)n;

	memset(&c, 0, sizeof c);
	base_args(&c.a, COLL_ALLREDUCE);
	c.a.mode = mode;
	c.a.impl = impl;
	c.a.op = op;
	c.a.strict = strict_ok(COLL_ALLREDUCE, impl, mode, dt, op);
	c.a.buf = win(&l, "buf", dt, 1, count);
	if (mode == MODE_RING)
		c.a.sig = win(&l, "sig", DT_I32, 2,
		    impl == IMPL_BUILTIN ? 2 * nn - 1 : 2 * nn - 2, nn);
	else
		c.a.sig = win(&l, "sig", DT_I32, 2, nn, (uint64_t)1);
	c.area = l.next + 64;
	run_all_orders(&c, n, seed);
}

/* The builtin mesh allreduce on core_num blocks: each block its own lane
 * (cell j*stride + b) and tiles b, b+B, ...; more blocks than lanes are
 * clamped.  Two calls in every order, signal back to zero. */
START_TEST(test_allreduce_core_num)
{
	int n = world_sizes[_i];
	uint64_t nn = (uint64_t)n, sizes[] = { 1, 256, 257, 1300 };
	int cores[] = { 2, 3, 4 };
	uint64_t strides[] = { 4, 2 };

	for (size_t z = 0; z < ARRAY_SIZE(sizes); z++)
		for (size_t k = 0; k < ARRAY_SIZE(cores); k++)
			for (size_t st = 0; st < ARRAY_SIZE(strides); st++) {
				struct layout l = { 0 };
				struct ccase c;
				struct prog *p;
				int lanes_used = 0;

				memset(&c, 0, sizeof c);
				base_args(&c.a, COLL_ALLREDUCE);
				c.a.impl = IMPL_BUILTIN;
				c.a.core_num = cores[k];
				c.a.buf = win(&l, "buf", DT_F32, 1, sizes[z]);
				c.a.sig =
				    win(&l, "sig", DT_I32, 2, nn, strides[st]);
				c.area = l.next + 64;
				run_all_orders(&c, n, 500 + 10 * z + k);
				/* every notify is on lane b < min(core_num, stride) of a row */
				p = build(&c.a, n, 0);
				for (size_t i = 0; i < p->nmops; i++) {
					const struct uop *u = &p->mops[i];
					uint64_t cell =
					    (u->dst - c.a.sig.off) / 4;
					if (u->kind != UOP_NOTIFY)
						continue;
					ck_assert_uint_lt(cell % strides[st],
					    MIN((uint64_t)cores[k], strides[st]));
					lanes_used |= 1 << (cell % strides[st]);
				}
				/* a block with no tile still runs its ready barrier */
				if (n > 1 && n <= 16)
					ck_assert_int_eq(lanes_used,
					    (1 << MIN((uint64_t)cores[k],
						 strides[st])) -
						1);
				prog_free(p);
			}
}
END_TEST

/*
 * impl=builtin-neighbour (PyPTO PR #2280): one call on a zero signal sums
 * right in every order tried; what it leaves in the signal is what the
 * protocol's imbalance predicts: +1 in every row's peer cell at N=2,
 * nothing at N=3, -1 in the non-neighbour cells at N >= 4.
 */
START_TEST(test_ring_neighbour)
{
	int n = world_sizes[_i];
	uint64_t nn = (uint64_t)n;
	enum sim_order orders[] = { SIM_ROUND_ROBIN, SIM_GREEDY, SIM_REVERSE,
		SIM_RANDOM };

	if (n < 2)
		return;
	for (size_t o = 0; o < ARRAY_SIZE(orders); o++)
		for (uint64_t seed = 1;
		     seed <= (orders[o] == SIM_RANDOM ? 20u : 1u); seed++) {
			struct layout l = { 0 };
			struct coll_args a;
			struct sim *s;
			char *cause = NULL;
			uint64_t count = 4 * nn;
			float want;

			base_args(&a, COLL_ALLREDUCE);
			a.mode = MODE_RING;
			a.impl = IMPL_BUILTIN;
			a.neighbour = true;
			a.buf = win(&l, "buf", DT_F32, 1, count);
			a.sig = win(&l, "sig", DT_I32, 2, 2 * nn - 1, nn);
			ck_assert_int_eq(coll_validate(&a, n, &cause, NULL), 0);
			s = sim_new(n, l.next + 64);
			for (int r = 0; r < n; r++) {
				for (uint64_t i = 0; i < count; i++)
					((float *)(sim_area(s, r) +
					    a.buf.off))[i] = (float)(r + 1);
				sim_push(s, r, coll_build(&a, n, r));
			}
			ck_assert_msg(sim_run(s, orders[o], seed, &cause) == 0,
			    "n=%d: %s", n, cause);
			want = (float)(n * (n + 1) / 2);
			for (int r = 0; r < n; r++) {
				const float *b =
				    (const float *)(sim_area(s, r) + a.buf.off);
				const int32_t *c =
				    (const int32_t *)(sim_area(s, r) + a.sig.off);
				int left = (r - 1 + n) % n, right = (r + 1) % n;

				for (uint64_t i = 0; i < count; i++)
					ck_assert_msg(b[i] == want,
					    "n=%d order %d seed %llu: rank %d "
					    "element %llu = %g",
					    n, orders[o],
					    (unsigned long long)seed, r,
					    (unsigned long long)i, (double)b[i]);
				for (uint64_t row = 0; row < 2 * nn - 1; row++)
					for (int j = 0; j < n; j++) {
						int32_t v = c[row * nn + (uint64_t)j],
							expect;

						if (j == r)
							expect = 0;
						else if (n == 2)
							expect =
							    1; /* notified twice, -1 once */
						else if (j == left || j == right)
							expect = 0;
						else
							expect =
							    -1; /* no credit, -1 anyway */
						ck_assert_int_eq(v, expect);
					}
			}
			sim_free(s);
		}
}
END_TEST

/*
 * A collective on a comm domain (world 6, members 1,2,4,5): the programs
 * speak domain ranks, only members run, their peers are world ranks in
 * the domain, the results are the collective's over the members, the
 * non-members' areas do not change and the signal is zero again.
 */
START_TEST(test_domain)
{
	static const enum coll_kind kinds[] = { COLL_ALLREDUCE, COLL_BARRIER,
		COLL_BROADCAST, COLL_ALLGATHER, COLL_REDUCE_SCATTER,
		COLL_ALL_TO_ALL, COLL_ALL_TO_ALL_V };
	const int world = 6, member[] = { 1, 2, 4, 5 }, dn = 4;

	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
		for (int variant = 0; variant < 3; variant++) {
			struct layout l = { 0 };
			struct coll_args a;
			struct sim *s;
			uint8_t *in[6];
			char *cause = NULL;
			uint64_t area;

			base_args(&a, kinds[k]);
			a.domain = 1;
			for (int i = 0; i < dn; i++)
				a.members[0] |= 1ull << member[i];
			if (kinds[k] == COLL_ALLREDUCE) {
				a.mode = variant == 1 ? MODE_RING : MODE_MESH;
				a.impl = variant == 2 ? IMPL_BUILTIN :
							IMPL_COMPOSITE;
			} else {
				a.impl = variant == 2 ? IMPL_BUILTIN :
							IMPL_COMPOSITE;
			}
			a.root = 2;
			switch (kinds[k]) {
			case COLL_ALLGATHER:
				a.src = win(&l, "src", DT_F32, 2, (uint64_t)1,
				    (uint64_t)5);
				a.buf = win(&l, "dst", DT_F32, 2, (uint64_t)dn,
				    (uint64_t)5);
				break;
			case COLL_ALL_TO_ALL:
			case COLL_REDUCE_SCATTER:
				a.src = win(&l, "src", DT_F32, 2, (uint64_t)dn,
				    (uint64_t)5);
				a.buf = win(&l, "dst", DT_F32, 2, (uint64_t)dn,
				    (uint64_t)5);
				break;
			case COLL_ALL_TO_ALL_V:
				a.src = win(&l, "src", DT_F32, 2,
				    (uint64_t)dn * 2, (uint64_t)3);
				a.buf = win(&l, "dst", DT_F32, 2,
				    (uint64_t)dn * 2, (uint64_t)3);
				a.scount = win(&l, "sc", DT_I32, 1, (uint64_t)dn);
				a.rcount = win(&l, "rc", DT_I32, 2,
				    (uint64_t)dn, (uint64_t)1);
				break;
			case COLL_BARRIER:
				break;
			default:
				a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)12);
			}
			if (kinds[k] == COLL_REDUCE_SCATTER)
				memset(&a.src, 0, sizeof a.src);
			if (kinds[k] == COLL_ALLREDUCE && a.mode == MODE_RING)
				a.sig = win(&l, "sig", DT_I32, 2,
				    (uint64_t)(2 * dn - 1 -
					(a.impl == IMPL_COMPOSITE)),
				    (uint64_t)dn);
			else
				a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)dn,
				    (uint64_t)1);
			ck_assert_msg(coll_validate(&a, world, &cause, NULL) == 0,
			    "%s %d: %s", coll_kind_name(kinds[k]), variant,
			    cause);
			area = l.next + 64;
			s = sim_new(world, area);
			for (int r = 0; r < world; r++) {
				uint8_t *ar = sim_area(s, r);
				for (uint64_t b = 0; b < area; b++)
					ar[b] =
					    (uint8_t)(r * 37 + b * 11); /* noise */
				if (a.buf.count)
					for (uint64_t i = 0; i < a.buf.count; i++)
						((float *)(ar + a.buf.off))[i] =
						    (float)(r + 1 + (int)(i % 3));
				if (a.src.count)
					for (uint64_t i = 0; i < a.src.count; i++)
						((float *)(ar + a.src.off))[i] =
						    (float)(10 * r + (int)i);
				for (uint64_t i = 0; i < a.scount.count; i++)
					((int32_t *)(ar + a.scount.off))[i] =
					    (int32_t)(i % 3);
				memset(ar + a.sig.off, 0, a.sig.count * 4);
				in[r] = xmalloc(area);
				memcpy(in[r], ar, area);
			}
			for (int i = 0; i < dn; i++) {
				struct prog *p = build(&a, world, member[i]);
				for (size_t q = 0; q < p->nmops; q++) {
					int peer = p->mops[q].peer;
					if (peer >= 0 &&
					    p->mops[q].kind != UOP_COPY)
						ck_assert_msg(coll_dense(&a,
								  peer) >= 0,
						    "%s: peer %d "
						    "outside the domain",
						    coll_kind_name(kinds[k]),
						    peer);
				}
				sim_push(s, member[i], p);
			}
			ck_assert_msg(sim_run(s, SIM_RANDOM,
					  7 + (uint64_t)variant, &cause) == 0,
			    "%s: %s", coll_kind_name(kinds[k]), cause);
			for (int r = 0; r < world; r++) {
				uint8_t *got = sim_area(s, r);
				struct coll_output o;
				uint8_t *want, *gb;

				if (coll_dense(&a, r) < 0) {
					ck_assert_msg(memcmp(got, in[r], area) ==
						0,
					    "%s: non-member rank %d changed",
					    coll_kind_name(kinds[k]), r);
					continue;
				}
				for (uint64_t i = 0; i < a.sig.count; i++)
					ck_assert_int_eq(((int32_t *)(got +
							     a.sig.off))[i],
					    0);
				coll_output(&a, world, r, &o);
				want = xmalloc(coll_output_bytes(&o) + 1);
				gb = xmalloc(coll_output_bytes(&o) + 1);
				coll_expect(&a, world, r,
				    (const void *const *)in, want);
				coll_output_copy(&o, got, gb);
				ck_assert_msg(coll_wrong(&a, world, &o, want,
						  gb) == 0,
				    "%s variant %d: rank %d wrong",
				    coll_kind_name(kinds[k]), variant, r);
				free(want);
				free(gb);
			}
			for (int r = 0; r < world; r++)
				free(in[r]);
			sim_free(s);
		}
}
END_TEST

START_TEST(test_allreduce)
{
	int n = world_sizes[_i];
	uint64_t nn = (uint64_t)n;
	uint64_t sizes[] = { 1, nn > 1 ? nn - 1 : 2, nn, 3 * nn + 1, 7 * nn,
		1001 };

	for (int m = 0; m < 2; m++)
		for (int impl = 0; impl < 2; impl++)
			for (size_t d = 0; d < ARRAY_SIZE(reduce_dtypes); d++)
				for (int op = 0; op < RED__COUNT; op++)
					for (size_t z = 0;
					     z < ARRAY_SIZE(sizes); z++) {
						if (m == MODE_RING &&
						    impl == IMPL_COMPOSITE &&
						    n < 2)
							continue;
						if (m == MODE_RING &&
						    impl == IMPL_BUILTIN &&
						    sizes[z] % nn != 0)
							continue;
						allreduce_case(n,
						    (enum coll_mode)m,
						    (enum coll_impl)impl,
						    reduce_dtypes[d],
						    (enum reduce_op)op, sizes[z],
						    1000 * z + 10 * d +
							(uint64_t)op);
					}
}
END_TEST

/* Several 16 KiB chunks per segment or buffer, and the f16 boundaries. */
START_TEST(test_allreduce_chunks)
{
	int n = world_sizes[_i];
	uint64_t nn = (uint64_t)n;
	/* f32 chunk = 4096 elements, f16 = 8192: > 2 chunks per segment */
	uint64_t sizes[] = { 2 * 8192 * nn + 17, 8192 * nn };

	for (size_t z = 0; z < ARRAY_SIZE(sizes); z++) {
		for (int m = 0; m < 2; m++) {
			if (m == MODE_RING && n < 2)
				continue;
			allreduce_case(n, (enum coll_mode)m, IMPL_COMPOSITE,
			    DT_F32, RED_SUM, sizes[z], 77 + z);
			allreduce_case(n, (enum coll_mode)m, IMPL_COMPOSITE,
			    DT_F16, RED_MAX, sizes[z], 78 + z);
		}
		if (sizes[z] % nn == 0)
			allreduce_case(n, MODE_RING, IMPL_BUILTIN, DT_F32,
			    RED_SUM, sizes[z], 79);
		allreduce_case(n, MODE_MESH, IMPL_BUILTIN, DT_F32, RED_SUM,
		    sizes[z] / 8 + 3, 80);
	}
}
END_TEST

/*
 * Streaming stores (COLLDB_STREAM_MIN=1: every mesh streams): the same
 * results, odd sizes and tails included; the mesh says its stores may
 * stream (stream_bytes, its buffer's bytes), the ring, whose stores the
 * next row reads, does not.
 */
START_TEST(test_allreduce_stream)
{
	int n = world_sizes[_i];
	uint64_t nn = (uint64_t)n;
	uint64_t sizes[] = { 2 * 4096 * nn + 17, 4096 + 5, 37 };
	struct layout l = { 0 };
	struct coll_args a;
	struct prog *p;

	ck_assert_int_eq(setenv("COLLDB_STREAM_MIN", "1", 1), 0);
	for (size_t z = 0; z < ARRAY_SIZE(sizes); z++) {
		allreduce_case(n, MODE_MESH, IMPL_COMPOSITE, DT_F32, RED_SUM,
		    sizes[z], 91 + z);
		allreduce_case(n, MODE_MESH, IMPL_COMPOSITE, DT_I32, RED_MAX,
		    sizes[z], 92 + z);
		allreduce_case(n, MODE_MESH, IMPL_BUILTIN, DT_F32, RED_SUM,
		    sizes[z], 93 + z);
	}
	base_args(&a, COLL_ALLREDUCE);
	a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)1000);
	a.sig = win(&l, "sig", DT_I32, 2, nn, (uint64_t)1);
	p = coll_build(&a, n, 0);
	ck_assert_uint_eq(p->stream_bytes, 4000);
	prog_free(p);
	a.impl = IMPL_BUILTIN;
	p = coll_build(&a, n, 0);
	ck_assert_uint_eq(p->stream_bytes, 0);
	prog_free(p);
	a.impl = IMPL_COMPOSITE;
	if (n >= 2) {
		a.mode = MODE_RING;
		a.sig = win(&l, "sig2", DT_I32, 2, 2 * nn - 2, nn);
		p = coll_build(&a, n, 0);
		ck_assert_uint_eq(p->stream_bytes, 0);
		prog_free(p);
	}
}
END_TEST

/*
 * The threshold's default is the machine's (core/exec.c): on Intel the
 * last-level cache's size (its cached stores measured faster below it),
 * elsewhere 4 MiB; found here from cpuid's vendor string and sysconf, not
 * the compiler's builtins the executor asks.  exec_prepare() streams a
 * mesh of that many bytes, not one byte less.
 */
START_TEST(test_stream_default)
{
	uint64_t want = 4u << 20;
	struct exec ex;
	struct prog *p = prog_new("mesh");
#if defined(__x86_64__)
	unsigned int eax, ebx, ecx, edx;
	char vendor[13];

	__asm__("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(0));
	memcpy(vendor, &ebx, 4);
	memcpy(vendor + 4, &edx, 4);
	memcpy(vendor + 8, &ecx, 4);
	vendor[12] = '\0';
	if (strcmp(vendor, "GenuineIntel") == 0) {
		long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);

		want = llc > 0 ? (uint64_t)llc : UINT64_MAX;
	}
#endif
	ck_assert_int_eq(unsetenv("COLLDB_STREAM_MIN"), 0);
	ck_assert_uint_eq(exec_stream_min(), want);
	exec_init(&ex, NULL);
	if (want != UINT64_MAX) {
		p->stream_bytes = want;
		exec_prepare(&ex, p);
		ck_assert_int_eq(ex.stream, 1);
	}
	p->stream_bytes = want - 1;
	exec_prepare(&ex, p);
	ck_assert_int_eq(ex.stream, 0);
	exec_release(&ex);
	prog_free(p);
}
END_TEST

/* The dtypes PyPTO does not take, reachable with strict off. */
START_TEST(test_allreduce_more_dtypes)
{
	static const enum dtype more[] = { DT_I8, DT_I16, DT_I64, DT_F64 };
	int n = world_sizes[_i];

	for (size_t d = 0; d < ARRAY_SIZE(more); d++) {
		for (int op = 0; op < RED__COUNT; op++) {
			allreduce_case(n, MODE_MESH, IMPL_COMPOSITE, more[d],
			    (enum reduce_op)op, 3 * (uint64_t)n + 2, 5 + d);
			if (n > 1)
				allreduce_case(n, MODE_RING, IMPL_COMPOSITE,
				    more[d], (enum reduce_op)op,
				    3 * (uint64_t)n + 2, 6 + d);
		}
	}
}
END_TEST

/* The mesh allreduce without a signal gets a synthesized [N,1] one. */
START_TEST(test_allreduce_synth_sig)
{
	int n = world_sizes[_i];
	struct layout l = { 0 };
	struct ccase c;
	char *cause = NULL;

	for (int impl = 0; impl < 2; impl++) {
		memset(&c, 0, sizeof c);
		l.next = 0;
		base_args(&c.a, COLL_ALLREDUCE);
		c.a.impl = (enum coll_impl)impl;
		c.a.has_sig = false;
		c.a.buf = win(&l, "buf", DT_F32, 2, (uint64_t)3, (uint64_t)5);
		ck_assert_int_eq(coll_validate(&c.a, n, &cause, NULL), 0);
		coll_synth_sig_shape(n, 1, &c.a.sig);
		ck_assert_int_eq(c.a.sig.dtype, DT_I32);
		ck_assert_int_eq(c.a.sig.ndim, 2);
		ck_assert_uint_eq(c.a.sig.shape[0], (uint64_t)n);
		ck_assert_uint_eq(c.a.sig.shape[1], 1);
		ck_assert_uint_eq(c.a.sig.count, (uint64_t)n);
		c.a.sig.off = l.next;
		c.area = l.next + 4 * (uint64_t)n + 32;
		c.mode = FILL_FRACTION;
		run_case(&c, n, 1, SIM_RANDOM, 11);
		c.mode = FILL_SMALL_INT;
		run_case(&c, n, 2, SIM_RANDOM, 12);
	}
}
END_TEST

/* ---- the other collectives -------------------------------------------- */

static void
simple_case(int n, enum coll_kind k, enum coll_impl impl, enum dtype dt,
    enum reduce_op op, uint64_t size, int root, int sig_rank1, uint64_t seed)
{
	struct layout l = { 0 };
	struct ccase c;
	uint64_t nn = (uint64_t)n;

	memset(&c, 0, sizeof c);
	base_args(&c.a, k);
	c.a.impl = impl;
	c.a.op = op;
	c.a.root = root;
	c.a.strict = strict_ok(k, impl, MODE_MESH, dt, op);
	switch (k) {
	case COLL_BROADCAST:
		c.a.buf = win(&l, "buf", dt, 1, size);
		break;
	case COLL_ALLGATHER:
		c.a.src = size % 2 ? win(&l, "src", dt, 1, size) :
				     win(&l, "src", dt, 2, (uint64_t)1, size);
		c.a.buf = win(&l, "dst", dt, 2, nn, size);
		break;
	case COLL_ALL_TO_ALL:
		c.a.src = win(&l, "src", dt, 2, nn, size);
		c.a.buf = win(&l, "dst", dt, 2, nn, size);
		break;
	case COLL_REDUCE_SCATTER:
		c.a.buf = win(&l, "buf", dt, 2, nn, size);
		break;
	case COLL_ALL_TO_ALL_V:
		/* size is SIZE; MAX_RECV is root + 1 here */
		c.a.src = win(&l, "src", dt, 2, nn * (uint64_t)(root + 1), size);
		c.a.buf = win(&l, "dst", dt, 2, nn * (uint64_t)(root + 1), size);
		c.a.scount = sig_rank1 ?
		    win(&l, "sc", DT_I32, 1, nn) :
		    win(&l, "sc", DT_I32, 2, nn, (uint64_t)1);
		c.a.rcount = win(&l, "rc", DT_I32, 2, nn, (uint64_t)1);
		c.a.root = 0;
		sig_rank1 = 0; /* its signal is [N,1] for both impls */
		break;
	default:
		break;
	}
	c.a.sig = sig_rank1 ? win(&l, "sig", DT_I32, 1, nn) :
			      win(&l, "sig", DT_I32, 2, nn, (uint64_t)1);
	c.area = l.next + 64;
	run_all_orders(&c, n, seed);
}

START_TEST(test_barrier)
{
	int n = world_sizes[_i];

	simple_case(n, COLL_BARRIER, IMPL_COMPOSITE, DT_F32, RED_SUM, 0, 0, 0, 1);
	simple_case(n, COLL_BARRIER, IMPL_BUILTIN, DT_F32, RED_SUM, 0, 0, 0, 2);
	simple_case(n, COLL_BARRIER, IMPL_BUILTIN, DT_F32, RED_SUM, 0, 0, 1, 3);
}
END_TEST

static const enum dtype move_dtypes[] = { DT_F32, DT_F16, DT_I8, DT_U8 };

START_TEST(test_broadcast)
{
	int n = world_sizes[_i];
	uint64_t sizes[] = { 1, (uint64_t)n + 1, 300, 777 };

	for (int impl = 0; impl < 2; impl++)
		for (size_t d = 0; d < ARRAY_SIZE(move_dtypes); d++)
			for (size_t z = 0; z < ARRAY_SIZE(sizes); z++) {
				simple_case(n, COLL_BROADCAST,
				    (enum coll_impl)impl, move_dtypes[d],
				    RED_SUM, sizes[z], 0, impl, 20 + z);
				simple_case(n, COLL_BROADCAST,
				    (enum coll_impl)impl, move_dtypes[d],
				    RED_SUM, sizes[z], n - 1, 0, 30 + z);
			}
}
END_TEST

START_TEST(test_allgather)
{
	int n = world_sizes[_i];
	uint64_t sizes[] = { 1, 2, (uint64_t)n + 3, 300 };

	for (int impl = 0; impl < 2; impl++)
		for (size_t d = 0; d < ARRAY_SIZE(move_dtypes); d++)
			for (size_t z = 0; z < ARRAY_SIZE(sizes); z++)
				simple_case(n, COLL_ALLGATHER,
				    (enum coll_impl)impl, move_dtypes[d],
				    RED_SUM, sizes[z], 0, impl, 40 + z);
}
END_TEST

START_TEST(test_all_to_all)
{
	int n = world_sizes[_i];
	uint64_t sizes[] = { 1, 2, (uint64_t)n + 3, 300 };

	for (int impl = 0; impl < 2; impl++)
		for (size_t d = 0; d < ARRAY_SIZE(move_dtypes); d++)
			for (size_t z = 0; z < ARRAY_SIZE(sizes); z++)
				simple_case(n, COLL_ALL_TO_ALL,
				    (enum coll_impl)impl, move_dtypes[d],
				    RED_SUM, sizes[z], 0, impl, 50 + z);
}
END_TEST

START_TEST(test_all_to_all_v)
{
	int n = world_sizes[_i];
	uint64_t sizes[] = { 1, 3, 40 };

	for (int impl = 0; impl < 2; impl++)
		for (size_t d = 0; d < ARRAY_SIZE(move_dtypes); d++)
			for (size_t z = 0; z < ARRAY_SIZE(sizes); z++)
				for (int mr = 1; mr <= 3; mr += 2)
					simple_case(n, COLL_ALL_TO_ALL_V,
					    (enum coll_impl)impl, move_dtypes[d],
					    RED_SUM, sizes[z], mr - 1,
					    (int)z % 2, 70 + z + (uint64_t)mr);
}
END_TEST

START_TEST(test_reduce_scatter)
{
	int n = world_sizes[_i];
	uint64_t sizes[] = { 1, 2, (uint64_t)n + 3, 300 };

	for (int impl = 0; impl < 2; impl++)
		for (size_t d = 0; d < ARRAY_SIZE(reduce_dtypes); d++)
			for (int op = 0; op < RED__COUNT; op++)
				for (size_t z = 0; z < ARRAY_SIZE(sizes); z++)
					simple_case(n, COLL_REDUCE_SCATTER,
					    (enum coll_impl)impl,
					    reduce_dtypes[d], (enum reduce_op)op,
					    sizes[z], 0, impl, 60 + z);
}
END_TEST

/* Many seeded random interleavings of a few representative calls. */
START_TEST(test_many_interleavings)
{
	struct layout l = { 0 };
	struct ccase c[4];

	memset(c, 0, sizeof c);
	/* ring on 5 ranks, SIZE not divisible, 2 sub-chunks per segment */
	base_args(&c[0].a, COLL_ALLREDUCE);
	c[0].a.mode = MODE_RING;
	c[0].a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)(5 * 4096 + 1234));
	c[0].a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)8, (uint64_t)5);
	/* mesh f16 on 5 ranks, 3 chunks */
	base_args(&c[1].a, COLL_ALLREDUCE);
	c[1].a.buf = win(&l, "m", DT_F16, 1, (uint64_t)(2 * 8192 + 5));
	c[1].a.sig = win(&l, "msig", DT_I32, 2, (uint64_t)5, (uint64_t)1);
	/* builtin ring, builtin reduce_scatter */
	c[2].a = c[0].a;
	c[2].a.impl = IMPL_BUILTIN;
	c[2].a.buf = win(&l, "b", DT_F32, 1, (uint64_t)(5 * 300));
	c[2].a.sig = win(&l, "bsig", DT_I32, 2, (uint64_t)9, (uint64_t)5);
	base_args(&c[3].a, COLL_REDUCE_SCATTER);
	c[3].a.impl = IMPL_BUILTIN;
	c[3].a.buf = win(&l, "rs", DT_F32, 2, (uint64_t)5, (uint64_t)700);
	c[3].a.sig = c[1].a.sig;
	for (int k = 0; k < 4; k++) {
		c[k].area = l.next;
		for (uint64_t seed = 1; seed <= 12; seed++) {
			c[k].mode = FILL_FRACTION;
			run_case(&c[k], 5, 1, SIM_RANDOM, seed * 31);
			c[k].mode = FILL_SMALL_INT;
			run_case(&c[k], 5, 3, SIM_RANDOM, seed * 37);
		}
	}
}
END_TEST

/* ---- protocol structure ------------------------------------------------ */

static size_t
count_flag(const struct prog *p, int flag)
{
	size_t k = 0;

	for (size_t i = 0; i < p->nmops; i++)
		k += (p->mops[i].flags & flag) != 0;
	return k;
}

static int
has_name(const struct prog *p, const char *name)
{
	for (size_t i = 0; i < p->nmops; i++) {
		if (strcmp(prog_str_at(p, p->mops[i].name), name) == 0)
			return 1;
	}
	return 0;
}

static void
ring_args(struct coll_args *a, struct layout *l, int n, enum coll_impl impl,
    enum dtype dt, uint64_t count)
{
	uint64_t nn = (uint64_t)n;

	base_args(a, COLL_ALLREDUCE);
	a->mode = MODE_RING;
	a->impl = impl;
	a->buf = win(l, "buf", dt, 1, count);
	a->sig = win(l, "sig", DT_I32, 2,
	    impl == IMPL_BUILTIN ? 2 * nn - 1 : 2 * nn - 2, nn);
}

/*
 * SIZE < N: some segments are empty, yet every rank runs the same number
 * of barriers on every row (2 per sub-chunk) and owes -2C per row.
 */
START_TEST(test_ring_uniform_barriers)
{
	static const uint64_t counts[] = { 1, 2, 5, 9, 8195 * 5 + 1 };
	int n = 5;

	for (size_t z = 0; z < ARRAY_SIZE(counts); z++) {
		for (int f16 = 0; f16 < 2; f16++) {
			struct layout l = { 0 };
			struct coll_args a;
			long per_row[8][8];
			int32_t epi = 0;

			ring_args(&a, &l, n, IMPL_COMPOSITE,
			    f16 ? DT_F16 : DT_F32, counts[z]);
			memset(per_row, 0, sizeof per_row);
			for (int r = 0; r < n; r++) {
				struct prog *p = build(&a, n, r);

				for (size_t i = 0; i < p->nmops; i++) {
					const struct uop *u = &p->mops[i];
					uint64_t cell = (u->dst - a.sig.off) / 4;

					if (u->kind == UOP_NOTIFY &&
					    (u->flags & UOP_F_EPILOGUE)) {
						ck_assert_int_eq(u->peer, r);
						ck_assert(epi == 0 ||
						    epi == u->value);
						epi = u->value;
					} else if (u->kind == UOP_NOTIFY) {
						ck_assert_uint_eq(cell % 5,
						    (uint64_t)r);
						per_row[r][cell / 5]++;
					}
				}
				prog_free(p);
			}
			for (int row = 0; row < 8; row++) {
				for (int r = 1; r < n; r++)
					ck_assert_int_eq(per_row[r][row],
					    per_row[0][row]);
				/* 2C barriers of N-1 notifies, C = -epi/2 */
				ck_assert_int_eq(per_row[0][row],
				    (long)(-epi / 2) * 2 * (n - 1));
			}
			ck_assert_int_eq(epi,
			    counts[z] > 8195 ? (f16 ? -4 : -6) : -2);
		}
	}
}
END_TEST

/* Names, phases and flags of a ring on 4 ranks (docs/protocols.md). */
START_TEST(test_ring_names)
{
	struct layout l = { 0 };
	struct coll_args a;
	struct prog *p;

	ring_args(&a, &l, 4, IMPL_COMPOSITE, DT_F32, 1024);
	p = build(&a, 4, 0);
	ck_assert_str_eq(p->title, "allreduce(ring)");
	ck_assert(has_name(p, "allreduce.rs.row0.chunk0.ready.notify"));
	ck_assert(has_name(p, "allreduce.rs.row0.chunk0.ready.wait"));
	ck_assert(has_name(p, "allreduce.rs.row2.chunk0.reduce"));
	ck_assert(has_name(p, "allreduce.ag.row5.chunk0.store"));
	ck_assert(has_name(p, "allreduce.epilogue"));
	/* 12 barriers (6 rows x 2), each starting with one flagged op */
	ck_assert_uint_eq(count_flag(p, UOP_F_BARRIER), 12);
	/* 6 rows x 3 peers */
	ck_assert_uint_eq(count_flag(p, UOP_F_EPILOGUE), 18);
	ck_assert_str_eq(prog_str_at(p, p->mops[0].phase), "rs row 0");
	ck_assert_str_eq(prog_str_at(p, p->mops[p->nmops - 1].phase), "epilogue");
	ck_assert_uint_eq(p->acc_bytes, 256 * 4);
	/* the first op is rank 0's +1 into rank 1's cell [0,0] */
	ck_assert_int_eq(p->mops[0].kind, UOP_NOTIFY);
	ck_assert_int_eq(p->mops[0].peer, 1);
	ck_assert_uint_eq(p->mops[0].dst, a.sig.off);
	/* then it waits for [0,1] >= 1, owed by rank 1 */
	ck_assert_int_eq(p->mops[3].kind, UOP_WAIT);
	ck_assert_int_eq(p->mops[3].peer, 1);
	ck_assert_int_eq(p->mops[3].value, 1);
	ck_assert_uint_eq(p->mops[3].dst, a.sig.off + 4);
	prog_free(p);

	l.next = 0;
	ring_args(&a, &l, 4, IMPL_BUILTIN, DT_F32, 1024);
	p = build(&a, 4, 1);
	ck_assert_str_eq(p->title, "allreduce(ring, builtin)");
	ck_assert(has_name(p, "allreduce.final.row6.wait"));
	ck_assert_uint_eq(count_flag(p, UOP_F_BARRIER), 7);
	ck_assert_uint_eq(count_flag(p, UOP_F_EPILOGUE), 21);
	ck_assert_uint_eq(p->acc_bytes, 0);
	prog_free(p);
}
END_TEST

START_TEST(test_mesh_names)
{
	struct layout l = { 0 };
	struct coll_args a;
	struct prog *p;

	base_args(&a, COLL_ALLREDUCE);
	a.buf = win(&l, "buf", DT_F16, 1, (uint64_t)20000);
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)2, (uint64_t)1);
	p = build(&a, 2, 1);
	ck_assert_str_eq(p->title, "allreduce(mesh)");
	ck_assert(has_name(p, "allreduce.ready.notify"));
	ck_assert(has_name(p, "allreduce.chunk2.wait"));
	ck_assert(!has_name(p, "allreduce.chunk3.wait"));
	ck_assert_uint_eq(count_flag(p, UOP_F_BARRIER), 4);
	/* f16 accumulates in f32: 8192-element chunks, 4 bytes each */
	ck_assert_uint_eq(p->acc_bytes, 8192 * 4);
	/* epilogue: -(1 + 3 chunks) on cell [0,0] of rank 1 itself */
	ck_assert_int_eq(p->mops[p->nmops - 1].value, -4);
	ck_assert_int_eq(p->mops[p->nmops - 1].peer, 1);
	ck_assert_uint_eq(p->mops[p->nmops - 1].dst, a.sig.off);
	ck_assert_str_eq(prog_str_at(p, p->mops[2].phase), "chunk 0");
	prog_free(p);

	a.impl = IMPL_BUILTIN;
	p = build(&a, 2, 0);
	ck_assert_str_eq(p->title, "allreduce(mesh, builtin)");
	ck_assert(has_name(p, "allreduce.tile78.store"));
	ck_assert_int_eq(p->mops[p->nmops - 1].value, -(1 + 79));
	prog_free(p);

	/* one rank: no barrier ops at all, just the chunk's load and store */
	a.impl = IMPL_COMPOSITE;
	a.sig.shape[0] = 1;
	p = build(&a, 1, 0);
	ck_assert_uint_eq(count_flag(p, UOP_F_BARRIER), 0);
	ck_assert_uint_eq(p->nmops, 6);
	prog_free(p);
}
END_TEST

/*
 * The broadcast composite has only a ready barrier: root is done as soon
 * as everyone arrived, and may overwrite its data while a slow rank has
 * not read it yet.  We emulate that as written (docs/protocols.md, "broadcast").
 */
START_TEST(test_broadcast_latent_race)
{
	struct layout l = { 0 };
	struct coll_args a;
	struct sim *s;
	char *cause = NULL;
	float *rootbuf;
	int n = 3;

	base_args(&a, COLL_BROADCAST);
	a.root = 0;
	a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)64);
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)3, (uint64_t)1);
	ck_assert_int_eq(coll_validate(&a, n, &cause, NULL), 0);
	s = sim_new(n, l.next);
	rootbuf = (float *)(sim_area(s, 0) + a.buf.off);
	for (int i = 0; i < 64; i++)
		rootbuf[i] = 1.0f;
	for (int r = 0; r < n; r++) {
		struct prog *p = build(&a, n, r);

		ck_assert_uint_eq(count_flag(p, UOP_F_BARRIER), 1);
		sim_push(s, r, p);
	}
	/* ranks 1 and 2 arrive and block in the ready barrier */
	ck_assert_int_eq(sim_run_rank(s, 1, &cause), 2);
	ck_assert_int_eq(sim_run_rank(s, 2, &cause), 2);
	/* root passes it, has nothing to read, and leaves */
	ck_assert_int_gt(sim_run_rank(s, 0, &cause), 0);
	ck_assert(sim_done(s, 0));
	/* root's next statement overwrites its buffer ... */
	for (int i = 0; i < 64; i++)
		rootbuf[i] = 2.0f;
	/* ... and the slow ranks read the new data, not what was broadcast */
	ck_assert_int_eq(sim_run(s, SIM_ROUND_ROBIN, 0, &cause), 0);
	for (int r = 1; r < n; r++)
		ck_assert(((float *)(sim_area(s, r) + a.buf.off))[5] == 2.0f);
	sim_free(s);
}
END_TEST

/* Signals wider or longer than needed, and the builtin's [N,stride]. */
START_TEST(test_signal_shapes)
{
	int n = world_sizes[_i];
	uint64_t nn = (uint64_t)n;

	for (int v = 0; v < 3; v++) {
		struct layout l = { 0 };
		struct ccase c;

		memset(&c, 0, sizeof c);
		base_args(&c.a, COLL_ALLREDUCE);
		c.a.impl = v == 2 ? IMPL_COMPOSITE : IMPL_BUILTIN;
		c.a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)600);
		/* builtin [N,2] (lane 0 of each row), builtin [N+1] and
		 * composite [N+2,1]: the spare cells must stay untouched */
		c.a.sig = v == 0 ? win(&l, "sig", DT_I32, 2, nn, (uint64_t)2) :
		    v == 1	 ? win(&l, "sig", DT_I32, 1, nn + 1) :
				   win(&l, "sig", DT_I32, 2, nn + 2, (uint64_t)1);
		c.area = l.next + 32;
		run_all_orders(&c, n, 300 + (uint64_t)v);
	}
}
END_TEST

/* f16 segment boundaries are rounded up to 16 elements (32 bytes). */
START_TEST(test_ring_f16_boundaries)
{
	/* SIZE 40 on 4 ranks: f16 [0,16) [16,32) [32,32) [32,40);
	 * f32 (floor): [0,10) [10,20) [20,30) [30,40) */
	static const uint64_t want[2][4][2] = {
		{ { 20, 10 }, { 30, 10 }, { 0, 10 }, { 10, 10 } },
		{ { 0, 0 }, { 32, 8 }, { 0, 16 }, { 16, 16 } },
	};

	for (int f16 = 0; f16 < 2; f16++) {
		for (int r = 0; r < 4; r++) {
			struct layout l = { 0 };
			struct coll_args a;
			struct prog *p;
			const struct uop *load = NULL;
			size_t esz = f16 ? 2 : 4;

			ring_args(&a, &l, 4, IMPL_COMPOSITE,
			    f16 ? DT_F16 : DT_F32, 40);
			p = build(&a, 4, r);
			/* RS row 0 of rank r reduces segment (r - 2) mod 4 */
			for (size_t i = 0; i < p->nmops && load == NULL; i++) {
				if (strcmp(prog_str_at(p, p->mops[i].name),
					"allreduce.rs.row0.chunk0.load") == 0)
					load = &p->mops[i];
			}
			if (want[f16][r][1] == 0) {
				ck_assert_ptr_null(load);
			} else {
				ck_assert_ptr_nonnull(load);
				ck_assert_uint_eq(load->src,
				    a.buf.off + want[f16][r][0] * esz);
				ck_assert_uint_eq(load->count, want[f16][r][1]);
			}
			prog_free(p);
		}
	}
}
END_TEST

/* Builtins on more than 16 ranks return at once: nothing is done. */
START_TEST(test_builtin_over_16_ranks)
{
	struct layout l = { 0 };
	struct coll_args a;
	struct prog *p;

	base_args(&a, COLL_ALLREDUCE);
	a.impl = IMPL_BUILTIN;
	a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)100);
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)17, (uint64_t)1);
	ck_assert_int_eq(coll_validate(&a, 17, NULL, NULL), 0);
	ck_assert_ptr_nonnull(coll_warning(&a, 17));
	p = build(&a, 17, 3);
	ck_assert_uint_eq(p->nmops, 0);
	prog_free(p);
	a.kind = COLL_BARRIER;
	p = build(&a, 17, 16);
	ck_assert_uint_eq(p->nmops, 0);
	prog_free(p);
	a.impl = IMPL_COMPOSITE;
	p = build(&a, 17, 16);
	ck_assert_uint_eq(p->nmops, 2 * 16 + 16);
	prog_free(p);
}
END_TEST

/* ---- negative controls: the harness itself catches broken protocols --- */

START_TEST(test_sim_detects_deadlock)
{
	struct layout l = { 0 };
	struct coll_args a;
	struct sim *s;
	char *cause = NULL;
	struct prog *p;

	ring_args(&a, &l, 3, IMPL_COMPOSITE, DT_F32, 10);
	s = sim_new(3, l.next);
	for (int r = 0; r < 3; r++) {
		p = build(&a, 3, r);
		if (r == 2) {
			/* drop rank 2's first notify: rank 0 never gets it */
			ck_assert_int_eq(p->mops[0].kind, UOP_NOTIFY);
			memmove(p->mops, p->mops + 1,
			    (p->nmops - 1) * sizeof *p->mops);
			p->nmops--;
		}
		sim_push(s, r, p);
	}
	ck_assert_int_eq(sim_run(s, SIM_RANDOM, 3, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "deadlock"));
	ck_assert_ptr_nonnull(strstr(cause, "rank 0"));
	free(cause);
	sim_free(s);
}
END_TEST

START_TEST(test_wrong_counts_mismatches)
{
	struct layout l = { 0 };
	struct coll_args a;
	float e[4] = { 1, 2, 3, 4 }, g[4] = { 1, 2.0000002f, 3.5f, NAN };
	uint16_t he[2] = { f16_from_f32(1.0f), f16_from_f32(8.0f) };
	uint16_t hg[2] = { f16_from_f32(1.0f), f16_from_f32(8.0f + 1.0f) };
	float c[2] = { 0.0f, 1.0f }, d[2] = { -0.0f, 1.0f };

	struct coll_output o4 = { 0, 4, DT_F32, 0, 0 },
			   o2 = { 0, 2, DT_F16, 0, 0 };
	struct coll_output o2f = { 0, 2, DT_F32, 0, 0 };
	int32_t v1[3] = { 5, 1, 2 }, v2[3] = { 5, 1, 3 };
	struct coll_output ov = { 0, 1, DT_I32, 64, 2 };

	base_args(&a, COLL_ALLREDUCE);
	a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)4);
	/* a rounding-sized difference passes, a whole operand does not */
	ck_assert_uint_eq(coll_wrong(&a, 4, &o4, e, g), 2);
	a.buf.dtype = DT_F16;
	ck_assert_uint_eq(coll_wrong(&a, 4, &o2, he, hg), 1);
	/* copies are bit-exact */
	a.kind = COLL_BROADCAST;
	a.buf.dtype = DT_F32;
	ck_assert_uint_eq(coll_wrong(&a, 4, &o2f, c, d), 1);
	/* all_to_all_v: the RECV_COUNTS cells after the data count too */
	a.kind = COLL_ALL_TO_ALL_V;
	a.buf.dtype = DT_I32;
	ck_assert_uint_eq(coll_wrong(&a, 4, &ov, v1, v2), 1);
}
END_TEST

/* ---- validation messages ----------------------------------------------- */

struct vcase {
	const char *msg; /* NULL: must pass */
	enum coll_arg bad;
};

static void
expect_msg(const struct coll_args *a, int n, const char *msg, enum coll_arg bad)
{
	char *cause = NULL;
	enum coll_arg which = CARG_NONE;
	int rc = coll_validate(a, n, &cause, &which);

	if (msg == NULL) {
		ck_assert_msg(rc == 0, "unexpected error: %s", cause);
		ck_assert_ptr_null(cause);
		return;
	}
	ck_assert_msg(rc == -1, "accepted, expected '%s'", msg);
	ck_assert_str_eq(cause, msg);
	ck_assert_int_eq(which, bad);
	free(cause);
}

START_TEST(test_validate_allreduce)
{
	struct layout l = { 0 };
	struct coll_args a;

	base_args(&a, COLL_ALLREDUCE);
	a.mode = MODE_RING;
	a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)1022);
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)4, (uint64_t)1);
	expect_msg(&a, 4,
	    "ring allreduce needs a signal of shape [6,4], got "
	    "[4,1]",
	    CARG_SIG);
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)7, (uint64_t)4);
	expect_msg(&a, 4,
	    "ring allreduce needs a signal of shape [6,4], got "
	    "[7,4] (the impl=builtin shape, with its final barrier row)",
	    CARG_SIG);
	a.impl = IMPL_BUILTIN;
	expect_msg(&a, 4,
	    "builtin ring allreduce needs numel divisible by 4, "
	    "got 1022",
	    CARG_BUF);
	a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)1024);
	expect_msg(&a, 4, NULL, CARG_NONE);
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)6, (uint64_t)4);
	expect_msg(&a, 4,
	    "builtin ring allreduce needs a signal of shape "
	    "[7,4], got [6,4] (the composite ring shape; the builtin has a "
	    "final barrier row)",
	    CARG_SIG);
	a.impl = IMPL_COMPOSITE;
	expect_msg(&a, 4, NULL, CARG_NONE);
	a.sig.name = "flag";
	a.sig.dtype = DT_F32;
	expect_msg(&a, 4, "signal 'flag' must be i32, got f32", CARG_SIG);
	a.sig.dtype = DT_I32;
	a.has_sig = false;
	expect_msg(&a, 4,
	    "ring allreduce needs an explicit signal of shape "
	    "[6,4] (only mesh synthesizes one)",
	    CARG_SIG);
	a.has_sig = true;
	expect_msg(&a, 1,
	    "ring allreduce needs at least 2 ranks (its signal "
	    "would be [0,1])",
	    CARG_OPTION);
	a.impl = IMPL_BUILTIN;
	expect_msg(&a, 17,
	    "builtin ring allreduce supports at most 16 ranks "
	    "(world has 17)",
	    CARG_OPTION);
	a.op = RED_MAX;
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)7, (uint64_t)4);
	expect_msg(&a, 4,
	    "builtin ring allreduce supports only op=sum on f32, "
	    "got op=max on f32 (set strict off to allow it)",
	    CARG_OPTION);
	ck_assert_ptr_null(coll_strict_lifted(&a));
	a.strict = false;
	expect_msg(&a, 4, NULL, CARG_NONE);
	ck_assert_ptr_nonnull(coll_strict_lifted(&a));

	/* mesh */
	base_args(&a, COLL_ALLREDUCE);
	a.buf = win(&l, "buf", DT_BF16, 2, (uint64_t)4, (uint64_t)8);
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)4, (uint64_t)1);
	expect_msg(&a, 4,
	    "mesh allreduce supports f16 and f32, got bf16 (set "
	    "strict off to allow it)",
	    CARG_BUF);
	a.strict = false;
	expect_msg(&a, 4, NULL, CARG_NONE);
	ck_assert_ptr_nonnull(coll_strict_lifted(&a));
	a.buf.dtype = DT_U8;
	expect_msg(&a, 4,
	    "mesh allreduce cannot reduce the untyped window "
	    "'buf' (allocate it with a dtype)",
	    CARG_BUF);
	a.buf.dtype = DT_F16;
	a.strict = true;
	ck_assert_ptr_null(coll_strict_lifted(&a));
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)6, (uint64_t)4);
	expect_msg(&a, 4,
	    "mesh allreduce needs a signal of shape [4,1], got "
	    "[6,4] (shaped for a ring allreduce)",
	    CARG_SIG);
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)3, (uint64_t)1);
	expect_msg(&a, 4,
	    "mesh allreduce needs a signal of shape [4,1], got "
	    "[3,1]",
	    CARG_SIG);
	a.sig = win(&l, "sig", DT_I32, 1, (uint64_t)4);
	expect_msg(&a, 4,
	    "mesh allreduce needs a signal of shape [4,1], got "
	    "[4] (a rank-1 signal is for impl=builtin)",
	    CARG_SIG);
	a.impl = IMPL_BUILTIN;
	expect_msg(&a, 4, NULL, CARG_NONE);
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)8, (uint64_t)2);
	expect_msg(&a, 4, NULL, CARG_NONE);
	a.sig = win(&l, "sig", DT_I32, 3, (uint64_t)4, (uint64_t)1, (uint64_t)1);
	expect_msg(&a, 4,
	    "builtin mesh allreduce needs a signal of shape [4] "
	    "or [4,1], got [4,1,1]",
	    CARG_SIG);
	a.sig = a.buf;
	a.sig.dtype = DT_I32;
	a.sig.ndim = 1;
	a.sig.shape[0] = a.sig.count = 4;
	expect_msg(&a, 4,
	    "builtin mesh allreduce needs BUF and SIG to be "
	    "different windows",
	    CARG_SIG);
	/* a larger signal is fine; more than 16 ranks is a silent no-op */
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)20, (uint64_t)1);
	expect_msg(&a, 17, NULL, CARG_NONE);
	ck_assert_ptr_nonnull(coll_warning(&a, 17));
	ck_assert_ptr_null(coll_warning(&a, 16));
	a.impl = IMPL_COMPOSITE;
	ck_assert_ptr_null(coll_warning(&a, 17));
}
END_TEST

START_TEST(test_validate_others)
{
	struct layout l = { 0 };
	struct coll_args a;
	struct win_ref sig4 = win(&l, "sig", DT_I32, 2, (uint64_t)4, (uint64_t)1);

	base_args(&a, COLL_BROADCAST);
	a.buf = win(&l, "buf", DT_F16, 1, (uint64_t)256);
	a.sig = sig4;
	a.root = 5;
	expect_msg(&a, 4, "root 5 out of range (world has 4 ranks)", CARG_OPTION);
	a.root = -1;
	expect_msg(&a, 4, "root -1 out of range (world has 4 ranks)",
	    CARG_OPTION);
	a.root = 3;
	expect_msg(&a, 4, NULL, CARG_NONE);
	a.impl = IMPL_BUILTIN;
	expect_msg(&a, 4,
	    "builtin broadcast supports only f32, got f16 (set "
	    "strict off to allow it)",
	    CARG_BUF);
	a.has_sig = false;
	a.strict = false;
	expect_msg(&a, 4, "builtin broadcast needs a signal window", CARG_SIG);

	base_args(&a, COLL_ALLGATHER);
	a.src = win(&l, "src", DT_F32, 1, (uint64_t)256);
	a.buf = win(&l, "dst", DT_F32, 1, (uint64_t)256);
	a.sig = sig4;
	expect_msg(&a, 4, "allgather needs DST of shape [4,256], got [256]",
	    CARG_BUF);
	a.buf = win(&l, "dst", DT_F32, 2, (uint64_t)4, (uint64_t)256);
	expect_msg(&a, 4, NULL, CARG_NONE);
	a.src = a.buf; /* the same window twice is said first */
	expect_msg(&a, 4, "allgather needs SRC and DST to be different windows",
	    CARG_SRC);
	a.src = win(&l, "src", DT_F32, 2, (uint64_t)4, (uint64_t)256);
	expect_msg(&a, 4,
	    "allgather needs SRC of shape [1,SIZE] or [SIZE], got "
	    "[4,256]",
	    CARG_SRC);
	a.src = a.buf;
	a.src.ndim = 1;
	a.src.shape[0] = a.src.count = 256;
	expect_msg(&a, 4, "allgather needs SRC and DST to be different windows",
	    CARG_SRC);
	a.src = win(&l, "src", DT_F16, 2, (uint64_t)1, (uint64_t)256);
	expect_msg(&a, 4,
	    "allgather needs SRC and DST of one dtype, got f16 "
	    "and f32",
	    CARG_SRC);

	base_args(&a, COLL_ALL_TO_ALL);
	a.src = win(&l, "src", DT_F32, 2, (uint64_t)4, (uint64_t)16);
	a.buf = win(&l, "dst", DT_F32, 2, (uint64_t)4, (uint64_t)17);
	a.sig = sig4;
	expect_msg(&a, 4, "all_to_all needs DST of shape [4,16], got [4,17]",
	    CARG_BUF);
	a.src = win(&l, "src", DT_F32, 1, (uint64_t)64);
	expect_msg(&a, 4, "all_to_all needs SRC of shape [4,SIZE], got [64]",
	    CARG_SRC);

	base_args(&a, COLL_REDUCE_SCATTER);
	a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)1024);
	a.sig = sig4;
	expect_msg(&a, 4,
	    "reduce_scatter needs BUF of shape [4,SIZE], got "
	    "[1024]",
	    CARG_BUF);
	a.buf = win(&l, "buf", DT_F32, 2, (uint64_t)2, (uint64_t)512);
	expect_msg(&a, 4,
	    "reduce_scatter needs BUF of shape [4,512], got "
	    "[2,512]",
	    CARG_BUF);
	a.buf = win(&l, "buf", DT_BF16, 2, (uint64_t)4, (uint64_t)256);
	a.op = RED_PROD;
	expect_msg(&a, 4,
	    "reduce_scatter supports only op=sum, got op=prod "
	    "(set strict off to allow it)",
	    CARG_OPTION);
	a.op = RED_SUM;
	expect_msg(&a, 4, NULL, CARG_NONE);
	a.impl = IMPL_BUILTIN;
	expect_msg(&a, 4,
	    "builtin reduce_scatter supports only f32, got bf16 "
	    "(set strict off to allow it)",
	    CARG_BUF);

	base_args(&a, COLL_BARRIER);
	a.sig = win(&l, "sig", DT_I32, 1, (uint64_t)4);
	expect_msg(&a, 4,
	    "barrier needs a signal of shape [4,1], got [4] (a "
	    "rank-1 signal is for impl=builtin)",
	    CARG_SIG);
	a.impl = IMPL_BUILTIN;
	expect_msg(&a, 4, NULL, CARG_NONE);
	a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)4, (uint64_t)2);
	expect_msg(&a, 4,
	    "builtin barrier needs a signal of shape [4] or "
	    "[4,1], got [4,2]",
	    CARG_SIG);
	a.sig = win(&l, "sig", DT_I16, 2, (uint64_t)4, (uint64_t)1);
	a.sig.name = NULL;
	expect_msg(&a, 4, "signal must be i32, got i16", CARG_SIG);
}
END_TEST

/* ---- size of large programs -------------------------------------------- */

/* The program of a 64 MiB ring allreduce: its micro-ops and its size
 * (what it costs to build is a figure of make bench, bench/build-cost.c) */
START_TEST(test_large_ring_build)
{
	struct layout l = { 0 };
	struct coll_args a;

	ring_args(&a, &l, 4, IMPL_COMPOSITE, DT_F32, (uint64_t)16 << 20);
	ck_assert_int_eq(coll_validate(&a, 4, NULL, NULL), 0);
	for (int r = 0; r < 4; r++) {
		struct prog *p = coll_build(&a, 4, r); /* described: */
		size_t bytes = prog_mem(p);	       /* nothing held */

		/* 6 rows x 1024 sub-chunks x (12 barrier ops + 3 or 2) + 18 */
		ck_assert_uint_eq(prog_len(p),
		    3 * 1024 * 15 + 3 * 1024 * 14 + 18);
		ck_assert_msg(bytes < 4096, "program takes %zu bytes", bytes);
		prog_free(p);
	}
}
END_TEST

/* A few MB of f32 through the mesh on 2 ranks (16 KiB chunks). */
START_TEST(test_mesh_few_mb)
{
	struct layout l = { 0 };
	struct ccase c;

	memset(&c, 0, sizeof c);
	base_args(&c.a, COLL_ALLREDUCE);
	c.a.buf = win(&l, "buf", DT_F32, 1, (uint64_t)1 << 20);
	c.a.sig = win(&l, "sig", DT_I32, 2, (uint64_t)2, (uint64_t)1);
	c.area = l.next;
	c.mode = FILL_FRACTION;
	run_case(&c, 2, 1, SIM_RANDOM, 99);
	run_case(&c, 2, 1, SIM_ROUND_ROBIN, 98);
	c.a.mode = MODE_RING;
	c.a.sig = win(&l, "ring", DT_I32, 2, (uint64_t)2, (uint64_t)2);
	c.area = l.next;
	run_case(&c, 2, 1, SIM_RANDOM, 97);
}
END_TEST

START_TEST(test_names_and_busbw)
{
	enum coll_kind k;

	for (int i = 0; i < COLL__COUNT; i++) {
		ck_assert_int_eq(coll_kind_from_name(coll_kind_name(i), &k), 0);
		ck_assert_int_eq(k, i);
	}
	ck_assert_int_eq(coll_kind_from_name("allreduc", &k), -1);
	ck_assert_str_eq(coll_kind_name(COLL_ALL_TO_ALL), "all_to_all");
	ck_assert(fabs(coll_busbw_factor(COLL_ALLREDUCE, 8) - 1.75) < 1e-12);
	ck_assert(fabs(coll_busbw_factor(COLL_ALLREDUCE, 1)) < 1e-12);
	ck_assert(fabs(coll_busbw_factor(COLL_ALLGATHER, 4) - 0.75) < 1e-12);
	ck_assert(fabs(coll_busbw_factor(COLL_REDUCE_SCATTER, 2) - 0.5) < 1e-12);
	ck_assert(fabs(coll_busbw_factor(COLL_ALL_TO_ALL, 4) - 0.75) < 1e-12);
	ck_assert(fabs(coll_busbw_factor(COLL_BROADCAST, 4) - 1) < 1e-12);
	ck_assert(fabs(coll_busbw_factor(COLL_BARRIER, 4) - 1) < 1e-12);
}
END_TEST

static Suite *
coll_suite(void)
{
	Suite *s = suite_create("coll");
	TCase *tc = tcase_create("protocols");
	int nw = (int)ARRAY_SIZE(world_sizes);

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_allreduce, 0, nw);
	tcase_add_loop_test(tc, test_allreduce_core_num, 0, nw);
	tcase_add_loop_test(tc, test_ring_neighbour, 0, nw);
	tcase_add_test(tc, test_domain);
	tcase_add_loop_test(tc, test_allreduce_chunks, 0, nw);
	tcase_add_loop_test(tc, test_allreduce_stream, 0, nw);
	tcase_add_test(tc, test_stream_default);
	tcase_add_loop_test(tc, test_allreduce_more_dtypes, 0, nw);
	tcase_add_loop_test(tc, test_allreduce_synth_sig, 0, nw);
	tcase_add_loop_test(tc, test_barrier, 0, nw);
	tcase_add_loop_test(tc, test_broadcast, 0, nw);
	tcase_add_loop_test(tc, test_allgather, 0, nw);
	tcase_add_loop_test(tc, test_all_to_all, 0, nw);
	tcase_add_loop_test(tc, test_all_to_all_v, 0, nw);
	tcase_add_loop_test(tc, test_reduce_scatter, 0, nw);
	tcase_add_loop_test(tc, test_signal_shapes, 0, nw);
	tcase_add_test(tc, test_many_interleavings);
	tcase_add_test(tc, test_ring_uniform_barriers);
	tcase_add_test(tc, test_ring_f16_boundaries);
	tcase_add_test(tc, test_builtin_over_16_ranks);
	tcase_add_test(tc, test_ring_names);
	tcase_add_test(tc, test_mesh_names);
	tcase_add_test(tc, test_broadcast_latent_race);
	tcase_add_test(tc, test_sim_detects_deadlock);
	tcase_add_test(tc, test_wrong_counts_mismatches);
	tcase_add_test(tc, test_validate_allreduce);
	tcase_add_test(tc, test_validate_others);
	tcase_add_test(tc, test_large_ring_build);
	tcase_add_test(tc, test_mesh_few_mb);
	tcase_add_test(tc, test_names_and_busbw);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(coll_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
