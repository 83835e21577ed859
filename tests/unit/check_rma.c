/*
 * check_rma.c - one-sided transfers as programs (core/coll/rma.c), run on
 * the in-process simulator with the real executor.
 *
 * Random windows of rank 2 and 3, regions that fit them, chunk sizes (0,
 * small, oversized) with and without pipeline: a put or get must move
 * exactly the region (atomic=add accumulating) and touch nothing else,
 * whether it moves directly or is staged; validation rejects what PyPTO
 * rejects.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "prog.h"
#include "rma.h"
#include "xmalloc.h"

#include "sim.h"

#define AREA (1u << 16)

static void
window(struct win_ref *w, uint64_t off, enum dtype dt, int ndim,
    const uint64_t *shape)
{
	memset(w, 0, sizeof *w);
	w->name = "w";
	w->off = off;
	w->dtype = dt;
	w->ndim = ndim;
	w->count = 1;
	for (int d = 0; d < ndim; d++) {
		w->shape[d] = shape[d];
		w->count *= shape[d];
	}
}

/* Element index of multi-index idx + off in w. */
static uint64_t
flat(const struct win_ref *w, const uint64_t *off, const uint64_t *idx)
{
	uint64_t e = 0;

	for (int d = 0; d < w->ndim; d++)
		e = e * w->shape[d] + off[d] + idx[d];
	return e;
}

static void
fill(uint8_t *area, const struct win_ref *w, int base)
{
	for (uint64_t i = 0; i < w->count; i++)
		dtype_put_int(w->dtype, area + w->off, i,
		    (int64_t)((base + i) % 100));
}

static const enum dtype dts[] = { DT_F32, DT_F16, DT_I8, DT_I32 };

static void
one_trial(uint64_t *seed)
{
	struct rma_args a;
	enum dtype dt = dts[sim_rng(seed) % 4];
	int ndim = 2 + (int)(sim_rng(seed) % 2), put = (int)(sim_rng(seed) % 2);
	uint64_t dshape[3], sshape[3], rshape[3], idx[3], total = 1;
	size_t esz = dtype_size(dt);
	struct sim *s = sim_new(2, AREA);
	struct prog *p;
	uint8_t *want;
	char *cause = NULL;
	enum rma_arg bad;
	int target = put ? 1 : 0; /* whose dst changes */

	memset(&a, 0, sizeof a);
	a.form = put ? RMA_PUT : RMA_GET;
	a.peer = 1;
	for (int d = 0; d < ndim; d++) {
		dshape[d] = 1 + sim_rng(seed) % 6;
		sshape[d] = 1 + sim_rng(seed) % 6;
		rshape[d] = 1 +
		    sim_rng(seed) %
			(dshape[d] < sshape[d] ? dshape[d] : sshape[d]);
		a.shape_raw[d] = (int64_t)rshape[d];
		a.dst_off_raw[d] =
		    (int64_t)(sim_rng(seed) % (dshape[d] - rshape[d] + 1));
		a.src_off_raw[d] =
		    (int64_t)(sim_rng(seed) % (sshape[d] - rshape[d] + 1));
		total *= rshape[d];
	}
	window(&a.dst, 0, dt, ndim, dshape);
	window(&a.src, 4096, dt, ndim, sshape);
	a.have_dst_off = a.have_src_off = a.have_shape = 1;
	a.ndst_off = a.nsrc_off = a.nshape = ndim;
	a.chunk_rows = (int64_t)(sim_rng(seed) % 5);
	a.chunk_cols = (int64_t)(sim_rng(seed) % 7);
	a.pipeline = a.chunk_rows > 0 && a.chunk_cols > 0 && sim_rng(seed) % 2;
	a.atomic = put && (dt == DT_I32 || dt == DT_F32) && sim_rng(seed) % 2;
	ck_assert_msg(rma_validate(&a, &cause, &bad) == 0, "%s", cause);

	for (int r = 0; r < 2; r++) {
		fill(sim_area(s, r), &a.dst, 7 * r + 3);
		fill(sim_area(s, r), &a.src, 11 * r + 5);
	}
	/* expected dst of the target rank, from the source rank's src */
	want = xmalloc(a.dst.count * esz);
	memcpy(want, sim_area(s, target) + a.dst.off, a.dst.count * esz);
	for (uint64_t i = 0; i < total; i++) {
		uint64_t rem = i, di, si;
		for (int d = ndim - 1; d >= 0; d--) {
			idx[d] = rem % rshape[d];
			rem /= rshape[d];
		}
		di = flat(&a.dst, a.dst_off, idx);
		si = flat(&a.src, a.src_off, idx);
		int64_t v =
		    dtype_get_int(dt, sim_area(s, 1 - target) + a.src.off, si);
		if (a.atomic)
			v += dtype_get_int(dt, want, di);
		dtype_put_int(dt, want, di, v);
	}
	p = prog_new("t");
	rma_build(p, &a);
	ck_assert_uint_eq(p->nmops, rma_nops(&a));
	sim_push(s, 0, p);
	ck_assert_int_eq(sim_run(s, SIM_ROUND_ROBIN, 1, &cause), 0);
	ck_assert_msg(memcmp(want, sim_area(s, target) + a.dst.off,
			  a.dst.count * esz) == 0,
	    "%s %s ndim %d chunk %lldx%lld%s%s: wrong data",
	    put ? "put" : "get", dtype_name(dt), ndim, (long long)a.chunk_rows,
	    (long long)a.chunk_cols, a.pipeline ? " pipeline" : "",
	    a.atomic ? " atomic" : "");
	free(want);
	sim_free(s);
}

START_TEST(test_rma_random_regions)
{
	uint64_t seed = 42;

	for (int t = 0; t < 400; t++)
		one_trial(&seed);
}
END_TEST

START_TEST(test_rma_staging_shape)
{
	struct rma_args a;
	struct prog *p = prog_new("t");
	uint64_t shape[2] = { 4, 8 };
	char *cause = NULL;
	int loads = 0, stores = 0;

	memset(&a, 0, sizeof a);
	a.form = RMA_PUT;
	a.peer = 1;
	window(&a.dst, 0, DT_F32, 2, shape);
	window(&a.src, 256, DT_F32, 2, shape);
	a.count = 32;
	a.chunk_rows = 2; /* flat form: one row of 32, so rows clamp to 1 */
	a.chunk_cols = 5;
	a.pipeline = 1;
	ck_assert_int_eq(rma_validate(&a, &cause, NULL), 0);
	rma_build(p, &a);
	/* 7 chunks of <= 5 columns, each a load and a store */
	ck_assert_uint_eq(p->nmops, 14);
	ck_assert_uint_eq(p->acc_bytes, 2 * 5 * 4);
	for (size_t i = 0; i < p->nmops; i++) {
		loads += p->mops[i].kind == UOP_COPY;
		stores += p->mops[i].kind == UOP_PUT;
		ck_assert(p->mops[i].flags & UOP_F_RAW);
	}
	ck_assert_int_eq(loads, 7);
	ck_assert_int_eq(stores, 7);
	/* ping-pong: load 0, load 1, store 0, load 2, store 1, ... */
	ck_assert_int_eq(p->mops[0].kind, UOP_COPY);
	ck_assert_int_eq(p->mops[1].kind, UOP_COPY);
	ck_assert_int_eq(p->mops[2].kind, UOP_PUT);
	ck_assert_uint_eq(p->mops[1].dst, 5 * 4); /* the second tile */
	prog_free(p);
}
END_TEST

static int
refused(struct rma_args *a, const char *needle)
{
	char *cause = NULL;
	int ok = rma_validate(a, &cause, NULL) != 0 && cause != NULL &&
	    strstr(cause, needle) != NULL;

	if (!ok)
		fprintf(stderr, "cause: %s (wanted %s)\n",
		    cause ? cause : "(none)", needle);
	free(cause);
	return ok;
}

START_TEST(test_rma_validate)
{
	struct rma_args a, b;
	uint64_t shape[2] = { 4, 8 }, three[3] = { 1, 2, 4 };

	memset(&a, 0, sizeof a);
	a.form = RMA_PUT;
	window(&a.dst, 0, DT_F32, 2, shape);
	window(&a.src, 256, DT_F32, 2, shape);
	a.have_dst_off = a.have_shape = 1;
	a.ndst_off = a.nshape = 2;
	a.shape_raw[0] = a.shape_raw[1] = 1;
	b = a;
	ck_assert(refused(&b, "must be given together (missing src_offsets)"));
	a.have_src_off = 1;
	a.nsrc_off = 2;
	b = a;
	ck_assert_int_eq(rma_validate(&b, NULL, NULL), 0);
	b = a;
	b.dst_off_raw[1] = 8;
	ck_assert(refused(&b,
	    "dst subregion dimension 1 exceeds dst shape (offset=8, shape=1, dst_dim=8)"));
	b = a;
	b.src_off_raw[0] = -1;
	ck_assert(refused(&b, "src_offsets dimension 0 must be non-negative"));
	b = a;
	b.shape_raw[1] = 0;
	ck_assert(refused(&b, "shape dimension 1 must be positive"));
	b = a;
	b.nshape = 1;
	ck_assert(refused(&b, "shape rank must match tensor rank"));
	b = a;
	b.chunk_rows = 1;
	b.pipeline = 1;
	ck_assert(
	    refused(&b, "pipeline requires both chunk_rows>0 and chunk_cols>0"));
	b = a;
	b.chunk_cols = -2;
	ck_assert(refused(&b, "chunk_cols must be non-negative"));
	b = a;
	b.src.dtype = DT_I32;
	ck_assert(refused(&b, "same element type"));
	b = a;
	b.form = RMA_REMOTE_STORE;
	window(&b.src, 256, DT_F32, 3, three);
	b.dst_off_raw[0] = 3;
	ck_assert(
	    refused(&b, "push exceeds the peer's target region in dimension 0"));
	b.dst_off_raw[0] = 2;
	ck_assert_int_eq(rma_validate(&b, NULL, NULL), 0);
	ck_assert_uint_eq(b.shape[0], 2);
	ck_assert_uint_eq(b.shape[1], 4);
	b = a;
	b.form = RMA_REMOTE_STORE;
	window(&b.dst, 0, DT_F32, 1, &shape[1]);
	ck_assert(refused(&b, "target rank must be >= 2"));
	/* tiny chunks of a big transfer are refused, not built */
	b = a;
	b.have_dst_off = b.have_src_off = b.have_shape = 0;
	window(&b.dst, 0, DT_F32, 1, (uint64_t[]){ 1u << 21 });
	window(&b.src, 8u << 20, DT_F32, 1, (uint64_t[]){ 1u << 21 });
	b.count = 1u << 21;
	b.chunk_cols = 1;
	ck_assert(refused(&b, "micro-ops; colldb moves at most"));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("rma");
	TCase *tc = tcase_create("transfers");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_rma_random_regions);
	tcase_add_test(tc, test_rma_staging_shape);
	tcase_add_test(tc, test_rma_validate);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
