/*
 * check_api.c - libcolldb (core/colldb.h) in a standalone one-rank world (COLLDB_NRANKS=1):
 * every function's success and each documented error, with the message
 * naming the bad argument.  Tests run in order and each starts with
 * cdb_init(), so they also pass with CK_FORK=no (valgrind), where the
 * world lives across tests; the last one finalizes.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colldb.h"

static void
init(void)
{
	unsetenv("COLLDB_SEG_FD");
	setenv("COLLDB_NRANKS", "1", 1); /* the default is 4 ranks */
	ck_assert_int_eq(cdb_init(), CDB_OK);
}

/* err is what the last call returned; its message contains what */
static void
failed(int err, int want, const char *what)
{
	ck_assert_int_eq(err, want);
	if (strstr(cdb_errmsg(), what) == NULL)
		ck_abort_msg("errmsg '%s' lacks '%s'", cdb_errmsg(), what);
}

START_TEST(before_init)
{
	int32_t x;

	failed(cdb_rank(), CDB_ERR_INIT, "cdb_init has not been called");
	failed(cdb_nranks(), CDB_ERR_INIT, "cdb_init has not been called");
	failed(cdb_notify(0, &x, 1, CDB_ADD), CDB_ERR_INIT,
	    "cdb_init has not been called");
	failed(cdb_finalize(), CDB_ERR_INIT, "cdb_init has not been called");
	ck_assert_ptr_null(cdb_local("x"));
}
END_TEST

START_TEST(world_and_windows)
{
	void *a, *b;
	float *f;
	struct cdb_window info;

	init();
	ck_assert_int_eq(cdb_init(), CDB_OK); /* again: harmless */
	ck_assert_int_eq(cdb_rank(), 0);
	ck_assert_int_eq(cdb_nranks(), 1);
	ck_assert_int_eq(cdb_alloc("bytes", 100, &a), CDB_OK);
	ck_assert_str_eq(cdb_errmsg(), "");
	ck_assert_int_eq(cdb_alloc("bytes", 100, &b), CDB_OK);
	ck_assert_ptr_eq(a, b);
	ck_assert_ptr_eq(cdb_local("bytes"), a);
	ck_assert_int_eq(cdb_alloc_shape("fl", 2, (size_t[]){ 3, 4 }, CDB_F32,
			     (void **)&f),
	    CDB_OK);
	/* PyPTO's layout: 100 bytes round up to 128 */
	ck_assert_int_eq((char *)f - (char *)a, 128);
	for (int i = 0; i < 12; i++)
		ck_assert(f[i] == 0.0f);
	ck_assert_int_eq(cdb_window(&f[5], &info), CDB_OK);
	ck_assert_str_eq(info.name, "fl");
	ck_assert_int_eq(info.dtype, CDB_F32);
	ck_assert_int_eq(info.ndim, 2);
	ck_assert_uint_eq(info.shape[1], 4);
	ck_assert_uint_eq(info.count, 12);
	ck_assert_uint_eq(info.bytes, 48);
	ck_assert_ptr_eq(info.base, f);
	ck_assert_uint_eq(info.index, 5);

	failed(cdb_alloc("bytes", 101, &b), CDB_ERR_SHAPE,
	    "window 'bytes' exists as [100] u8; this rank asked for [101] u8");
	failed(cdb_alloc_shape("fl", 1, (size_t[]){ 12 }, CDB_F32, &b),
	    CDB_ERR_SHAPE, "exists as [3,4] f32");
	failed(cdb_alloc_shape("fl", 2, (size_t[]){ 3, 4 }, CDB_I32, &b),
	    CDB_ERR_SHAPE, "asked for [3,4] i32");
	failed(cdb_alloc("1x", 4, &b), CDB_ERR_ARG, "bad window name '1x'");
	failed(cdb_alloc("a-b", 4, &b), CDB_ERR_ARG, "bad window name 'a-b'");
	failed(cdb_alloc("", 4, &b), CDB_ERR_ARG, "must be 1..31 characters");
	failed(cdb_alloc(NULL, 4, &b), CDB_ERR_ARG, "window name is NULL");
	failed(cdb_alloc("z", 0, &b), CDB_ERR_ARG, "at least 1 byte");
	failed(cdb_alloc("z", 4, NULL), CDB_ERR_ARG, "local is NULL");
	failed(cdb_alloc("huge", (size_t)1 << 40, &b), CDB_ERR_NOSPACE,
	    "does not fit");
	failed(cdb_alloc_shape("z", 0, (size_t[]){ 1 }, CDB_F32, &b),
	    CDB_ERR_ARG, "ndim 0");
	failed(cdb_alloc_shape("z", 1, NULL, CDB_F32, &b), CDB_ERR_ARG,
	    "shape is NULL");
	failed(cdb_alloc_shape("z", 1, (size_t[]){ 0 }, CDB_F32, &b),
	    CDB_ERR_ARG, "bad dimension 0");
	failed(cdb_alloc_shape("z", 1, (size_t[]){ 4 }, CDB_U8, &b),
	    CDB_ERR_ARG, "bad dtype 0");
	failed(cdb_alloc_shape("z", 1, (size_t[]){ 4 }, (enum cdb_dtype)42, &b),
	    CDB_ERR_ARG, "bad dtype 42");
	ck_assert_ptr_null(cdb_local("nope"));
	failed(CDB_ERR_WINDOW, CDB_ERR_WINDOW, "no window named 'nope'");
	failed(cdb_window(&info, &info), CDB_ERR_WINDOW,
	    "does not point into a window");
	failed(cdb_window((char *)f + 1, &info), CDB_ERR_WINDOW,
	    "not aligned to an element of 'fl' (f32)");
}
END_TEST

START_TEST(signals)
{
	int32_t *sig;
	float *f;

	init();
	ck_assert_int_eq(cdb_alloc_shape("sig", 2, (size_t[]){ 2, 2 }, CDB_I32,
			     (void **)&sig),
	    CDB_OK);
	ck_assert_int_eq(cdb_alloc_shape("fs", 1, (size_t[]){ 4 }, CDB_F32,
			     (void **)&f),
	    CDB_OK);
	ck_assert_int_eq(cdb_notify(0, &sig[3], 5, CDB_ADD), CDB_OK);
	ck_assert_int_eq(cdb_notify(0, &sig[3], 2, CDB_ADD), CDB_OK);
	ck_assert_int_eq(sig[3], 7);
	ck_assert_int_eq(cdb_notify(0, &sig[3], 1, CDB_SET), CDB_OK);
	ck_assert_int_eq(sig[3], 1);
	ck_assert_int_eq(cdb_wait(&sig[3], CDB_GE, 1), CDB_OK);
	ck_assert_int_eq(cdb_wait(&sig[3], CDB_EQ, 1), CDB_OK);
	ck_assert_int_eq((cdb_wait)(&sig[3], CDB_EQ, 1), CDB_OK); /* the function */
	failed(cdb_notify(1, &sig[0], 1, CDB_ADD), CDB_ERR_ARG,
	    "peer 1 out of range (world has 1 ranks)");
	failed(cdb_notify(-1, &sig[0], 1, CDB_ADD), CDB_ERR_ARG,
	    "peer -1 out of range");
	failed(cdb_notify(0, NULL, 1, CDB_ADD), CDB_ERR_ARG, "cell is NULL");
	failed(cdb_notify(0, (int32_t *)f, 1, CDB_ADD), CDB_ERR_SHAPE,
	    "cell is in 'fs', which is f32; signal cells must be i32");
	failed(cdb_notify(0, &sig[4], 1, CDB_ADD), CDB_ERR_WINDOW, "cell");
	failed(cdb_notify(0, &sig[0], 1, (enum cdb_notify_op)7), CDB_ERR_ARG,
	    "bad notify op 7");
	failed(cdb_wait((int32_t *)((char *)sig + 2), CDB_GE, 1),
	    CDB_ERR_WINDOW, "cell is not aligned to an element of 'sig' (i32)");
	failed(cdb_wait(&sig[0], (enum cdb_cmp)9, 1), CDB_ERR_ARG,
	    "bad comparison 9");
	ck_assert_int_eq(sig[0], 0); /* failed calls changed nothing */
}
END_TEST

START_TEST(transfers)
{
	float *x, *y;
	int32_t *iw;
	double *d;

	init();
	ck_assert_int_eq(cdb_alloc_shape("x", 1, (size_t[]){ 8 }, CDB_F32,
			     (void **)&x),
	    CDB_OK);
	ck_assert_int_eq(cdb_alloc_shape("y", 1, (size_t[]){ 8 }, CDB_F32,
			     (void **)&y),
	    CDB_OK);
	ck_assert_int_eq(cdb_alloc_shape("iw", 1, (size_t[]){ 8 }, CDB_I32,
			     (void **)&iw),
	    CDB_OK);
	ck_assert_int_eq(cdb_alloc_shape("dw", 1, (size_t[]){ 8 }, CDB_F64,
			     (void **)&d),
	    CDB_OK);
	for (int i = 0; i < 8; i++)
		x[i] = (float)i;
	ck_assert_int_eq(cdb_put(&y[2], 0, &x[4], 3, 0), CDB_OK);
	ck_assert(y[2] == 4.0f && y[4] == 6.0f && y[5] == 0.0f);
	ck_assert_int_eq(cdb_put(&y[2], 0, &x[4], 3, CDB_PUT_ADD), CDB_OK);
	ck_assert(y[2] == 8.0f && y[4] == 12.0f);
	ck_assert_int_eq(cdb_get(&x[0], 0, &y[2], 2), CDB_OK);
	ck_assert(x[0] == 8.0f && x[1] == 10.0f && x[2] == 2.0f);
	ck_assert_int_eq(cdb_put(y, 0, x, 0, 0), CDB_OK); /* nothing */
	failed(cdb_put(&y[6], 0, x, 3, 0), CDB_ERR_WINDOW,
	    "count 3 runs past the end of 'y' (8 elements from element 6)");
	failed(cdb_put(y, 0, iw, 2, 0), CDB_ERR_SHAPE,
	    "dtype mismatch: dst is in 'y' (f32), src in 'iw' (i32)");
	failed(cdb_put(d, 0, d, 2, CDB_PUT_ADD), CDB_ERR_SHAPE,
	    "CDB_PUT_ADD needs f32, f16, bf16, i32, i16 or i8; 'dw' is f64");
	failed(cdb_put(y, 0, x, 2, 4), CDB_ERR_ARG, "unknown flags 0x4");
	failed(cdb_put(y, 3, x, 2, 0), CDB_ERR_ARG, "peer 3 out of range");
	failed(cdb_get(y, 0, NULL, 2), CDB_ERR_ARG, "src is NULL");
	failed(cdb_get(&d, 0, y, 1), CDB_ERR_WINDOW,
	    "dst does not point into a window");
	ck_assert(y[6] == 0.0f && y[0] == 0.0f);
}
END_TEST

START_TEST(collectives)
{
	float *buf, *dst;
	int32_t *sig, *rsig, *bad;

	init();
	ck_assert_int_eq(cdb_alloc_shape("cbuf", 1, (size_t[]){ 16 }, CDB_F32,
			     (void **)&buf),
	    CDB_OK);
	ck_assert_int_eq(cdb_alloc_shape("cdst", 2, (size_t[]){ 1, 16 },
			     CDB_F32, (void **)&dst),
	    CDB_OK);
	ck_assert_int_eq(cdb_alloc_shape("csig", 2, (size_t[]){ 1, 1 }, CDB_I32,
			     (void **)&sig),
	    CDB_OK);
	ck_assert_int_eq(cdb_alloc_shape("rsig", 2, (size_t[]){ 1, 1 }, CDB_I32,
			     (void **)&rsig),
	    CDB_OK);
	ck_assert_int_eq(cdb_alloc_shape("bsig", 2, (size_t[]){ 2, 2 }, CDB_I32,
			     (void **)&bad),
	    CDB_OK);
	for (int i = 0; i < 16; i++)
		buf[i] = (float)i;
	ck_assert_int_eq(cdb_allreduce(buf, sig, CDB_SUM, 0), CDB_OK);
	ck_assert(buf[3] == 3.0f);
	ck_assert_int_eq(cdb_allreduce(buf, sig, CDB_MAX, CDB_BUILTIN), CDB_OK);
	ck_assert_int_eq(cdb_barrier(sig, 0), CDB_OK);
	ck_assert_int_eq(cdb_broadcast(buf, sig, 0, 0), CDB_OK);
	ck_assert_int_eq(cdb_allgather(buf, dst, sig, 0), CDB_OK);
	ck_assert(dst[5] == 5.0f);
	failed(cdb_all_to_all(dst, dst, sig, 0), CDB_ERR_SHAPE,
	    "different windows");
	ck_assert_int_eq(sig[0], 0); /* the epilogues leave it zero */
	failed(cdb_allreduce(buf, bad, CDB_SUM, 0), CDB_ERR_SHAPE,
	    "mesh allreduce needs a signal of shape [1,1], got [2,2]");
	failed(cdb_allreduce(&buf[1], sig, CDB_SUM, 0), CDB_ERR_WINDOW,
	    "buf must be the start of a window ('cbuf' starts 4 bytes earlier)");
	failed(cdb_allreduce(buf, sig, (enum cdb_reduce)9, 0), CDB_ERR_ARG,
	    "bad reduce op 9");
	failed(cdb_barrier(sig, CDB_RING), CDB_ERR_ARG,
	    "CDB_RING is for cdb_allreduce");
	failed(cdb_broadcast(buf, sig, 1, 0), CDB_ERR_ARG, "root 1 out of range");
	failed(cdb_reduce_scatter(dst, sig, CDB_MAX, 0), CDB_ERR_SHAPE, "sum");
	ck_assert_int_eq(cdb_reduce_scatter(dst, sig, CDB_MAX, CDB_LOOSE),
	    CDB_OK);
}
END_TEST

START_TEST(spans_strings_and_the_end)
{
	char name[40];

	init();
	for (int i = 0; i < CDB_SPAN_DEPTH; i++) {
		snprintf(name, sizeof name, "s%d", i);
		ck_assert_int_eq(cdb_span_begin(name), CDB_OK);
	}
	failed(cdb_span_begin("deep"), CDB_ERR_ARG,
	    "spans nested deeper than 8 (at 'deep')");
	for (int i = 0; i < CDB_SPAN_DEPTH; i++)
		ck_assert_int_eq(cdb_span_end(), CDB_OK);
	failed(cdb_span_end(), CDB_ERR_ARG, "no span is open");
	failed(cdb_span_begin(NULL), CDB_ERR_ARG, "1..31 characters");
	failed(cdb_span_begin("0123456789012345678901234567890123"),
	    CDB_ERR_ARG, "1..31 characters");
	ck_assert_str_eq(cdb_strerror(CDB_OK), "success");
	ck_assert_str_eq(cdb_strerror(CDB_ERR_ARG), "invalid argument");
	ck_assert_str_eq(cdb_strerror(CDB_ERR_SYSTEM), "system error");
	ck_assert_str_eq(cdb_strerror(-99), "unknown error");
	ck_assert_str_eq(cdb_strerror(3), "unknown error");
	ck_assert_int_eq(cdb_finalize(), CDB_OK);
	failed(cdb_rank(), CDB_ERR_INIT, "called after cdb_finalize");
	failed(cdb_finalize(), CDB_ERR_INIT, "cdb_finalize called twice");
	failed(cdb_init(), CDB_ERR_INIT, "cdb_init after cdb_finalize");
	failed(cdb_nranks(), CDB_ERR_INIT, "called after cdb_finalize");
	failed(cdb_barrier(NULL, 0), CDB_ERR_INIT, "called after cdb_finalize");
}
END_TEST

START_TEST(bad_nranks)
{
	setenv("COLLDB_NRANKS", "0", 1);
	failed(cdb_init(), CDB_ERR_ARG,
	    "COLLDB_NRANKS='0': expected 1..16384 ranks");
	setenv("COLLDB_NRANKS", "1", 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed_n;

	tcase_add_test(tc, before_init);
	tcase_add_test(tc, world_and_windows);
	tcase_add_test(tc, signals);
	tcase_add_test(tc, transfers);
	tcase_add_test(tc, collectives);
	tcase_add_test(tc, spans_strings_and_the_end);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	/* bad_nranks needs a process that never initialised */
	if (srunner_fork_status(sr) != CK_NOFORK)
		tcase_add_test(tc, bad_nranks);
	srunner_run_all(sr, CK_NORMAL);
	failed_n = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed_n ? 1 : 0;
}
