/*
 * check_call.c - LOAD and CALL micro-ops (core/call.c): descriptors
 * survive encoding, malformed ones are errors, and programs run through
 * rank_run() call real functions (libc, libm) with every argument kind and
 * leave their return value for the DONE reply.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call.h"
#include "rank.h"
#include "seg.h"
#include "xmalloc.h"

static struct seg s;
static struct rank_ctx rc;
static struct seg_window *w;

static void
setup(void)
{
	uint64_t shape = 64;
	char *cause = NULL;

	ck_assert_msg(seg_create(&s, "unit", 1, 1 << 20, 4096, &cause) == 0,
	    "%s", cause);
	seg_unlink(&s);
	ck_assert_int_eq(rank_attach(&rc, fcntl(s.fd, F_DUPFD_CLOEXEC, 0), -1,
			     0, &cause),
	    0);
	shape = 64;
	seg_win_alloc(&s, "pad", &shape, 1, DT_U8, WIN_BYTES, &cause);
	w = seg_win_alloc(&s, "buf", &shape, 1, DT_U8, WIN_BYTES, &cause);
	ck_assert_ptr_nonnull(w);
}

static void
teardown(void)
{
	rank_detach(&rc);
	seg_close(&s);
}

START_TEST(descriptor_round_trip)
{
	struct call_desc d, e;
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;

	memset(&d, 0, sizeof d);
	d.lib = xstrdup("k%1F");
	d.sym = xstrdup("f");
	d.ret = CT_PTR;
	d.args[0] = (struct call_arg){ .kind = CA_INT, .type = CT_I8, .i = -5 };
	d.args[1] = (struct call_arg){ .kind = CA_INT, .type = CT_U64, .i = -1 };
	d.args[2] =
	    (struct call_arg){ .kind = CA_FLOAT, .type = CT_F32, .f = 0.1 };
	d.args[3] = (struct call_arg){ .kind = CA_STR,
		.type = CT_PTR,
		.s = xstrdup("100% \x1f sure\n") };
	d.args[4] =
	    (struct call_arg){ .kind = CA_WIN, .type = CT_PTR, .off = 96 };
	d.args[5] = (struct call_arg){ .kind = CA_NULL, .type = CT_PTR };
	d.nargs = 6;
	call_desc_encode(&d, &sb);
	ck_assert_int_eq(call_desc_decode(sb.buf, &e, &cause), 0);
	ck_assert_str_eq(e.lib, "k%1F");
	ck_assert_str_eq(e.sym, "f");
	ck_assert_int_eq(e.ret, CT_PTR);
	ck_assert_int_eq(e.nargs, 6);
	ck_assert_int_eq(e.args[0].i, -5);
	ck_assert_int_eq(e.args[0].type, CT_I8);
	ck_assert_int_eq(e.args[1].i, -1);
	ck_assert_int_eq(e.args[1].type, CT_U64);
	ck_assert_double_eq(e.args[2].f, 0.1); /* %a is exact */
	ck_assert_str_eq(e.args[3].s, "100% \x1f sure\n");
	ck_assert_int_eq(e.args[4].kind, CA_WIN);
	ck_assert_uint_eq(e.args[4].off, 96);
	ck_assert_int_eq(e.args[5].kind, CA_NULL);
	call_desc_release(&d);
	call_desc_release(&e);
	strbuf_release(&sb);
}
END_TEST

static void
bad_desc(const char *text, const char *what)
{
	struct call_desc d;
	char *cause = NULL;

	ck_assert_int_eq(call_desc_decode(text, &d, &cause), -1);
	if (strstr(cause, what) == NULL)
		ck_abort_msg("'%s': '%s' lacks '%s'", text, cause, what);
	ck_assert_ptr_null(d.sym);
	free(cause);
}

START_TEST(malformed_descriptors)
{
	bad_desc("", "malformed call descriptor");
	bad_desc("L\x1fk\x1fpath", "malformed call descriptor");
	bad_desc("C\x1f\x1f"
		 "f\x1fint",
	    "bad return type 'int'");
	bad_desc("C\x1f\x1f"
		 "f\x1fi32\x1fq:1",
	    "malformed call argument");
	bad_desc("C\x1f\x1f"
		 "f\x1fi32\x1fni33:1",
	    "unknown argument type 'i33'");
	bad_desc("C\x1f\x1f"
		 "f\x1fi32\x1fnf32:1",
	    "integer argument of type f32");
	bad_desc("C\x1f\x1f"
		 "f\x1fi32\x1fni32:1x",
	    "malformed call argument");
	bad_desc("C\x1f\x1f"
		 "f\x1fi32\x1fw:",
	    "malformed window argument");
	bad_desc("C\x1f\x1f"
		 "f\x1fi32\x1fni32:1\x1fni32:2\x1fni32:3\x1fni32:4"
		 "\x1fni32:5\x1fni32:6\x1fni32:7\x1fni32:8\x1fni32:9\x1fni32:10"
		 "\x1fni32:11\x1fni32:12\x1fni32:13\x1fni32:14\x1fni32:15\x1fni32:16"
		 "\x1fni32:17",
	    "too many call arguments (at most 16)");
}
END_TEST

/* Run one LOAD/CALL op through the gate; returns the done status and
 * leaves rc.result / *cause. */
static int
run(enum uop_kind kind, const char *desc, char **cause)
{
	struct prog *p = prog_new("call");
	struct done_info di;
	struct uop u;
	int st;

	memset(&u, 0, sizeof u);
	u.kind = (uint8_t)kind;
	u.src = prog_str(p, desc);
	prog_add(p, &u);
	free(rc.result);
	rc.result = NULL;
	st = rank_run(&rc, p, 1, 0, &di, cause);
	prog_free(p);
	return st;
}

static void
call_ok(const char *desc, const char *result)
{
	char *cause = NULL;

	ck_assert_msg(run(UOP_CALL, desc, &cause) == DONE_OK, "%s", cause);
	ck_assert_str_eq(rc.result, result);
}

static void
call_fails(enum uop_kind kind, const char *desc, const char *what)
{
	char *cause = NULL;

	ck_assert_int_eq(run(kind, desc, &cause), DONE_ERROR);
	if (strstr(cause, what) == NULL)
		ck_abort_msg("cause '%s' lacks '%s'", cause, what);
	free(cause);
}

START_TEST(calls_run_on_the_rank)
{
	uint8_t *buf = seg_area(&s, 0) + w->off;
	char d[128];

	call_ok("C\x1f\x1f"
		"abs\x1fi32\x1fni32:-42",
	    "i32 42");
	call_ok("C\x1f\x1f"
		"labs\x1fi64\x1fni64:-5000000000",
	    "i64 5000000000");
	call_ok("C\x1f\x1f"
		"strlen\x1fi64\x1fs:h%25llo",
	    "i64 5");
	call_ok("C\x1f\x1f"
		"getpid\x1fvoid",
	    "void");
	/* a window pointer in, a pointer into the area out */
	snprintf(d, sizeof d,
	    "C\x1f\x1fmemset\x1fptr\x1fw:%llu\x1fni32:7\x1fnu64:5",
	    (unsigned long long)w->off);
	snprintf(d + 100, 28, "ptr area+%llu", (unsigned long long)w->off);
	call_ok(d, d + 100);
	ck_assert_int_eq(buf[4], 7);
	ck_assert_int_eq(buf[5], 0);
	call_ok("C\x1f\x1f"
		"getenv\x1fptr\x1fs:COLLDB_SURELY_UNSET",
	    "ptr NULL");
	call_ok("C\x1f\x1f"
		"free\x1fvoid\x1fz:",
	    "void");
	/* a library by name, an f64 result */
	ck_assert_int_eq(run(UOP_LOAD, "L\x1fm\x1flibm.so.6", NULL), DONE_OK);
	call_ok("C\x1fm\x1f"
		"ldexp\x1f"
		"f64\x1f"
		"ff64:0x1.8p+0\x1fni32:3",
	    "f64 12");
	call_fails(UOP_LOAD, "L\x1fm\x1flibm.so.6",
	    "a library named 'm' is already loaded");
	call_fails(UOP_LOAD, "L\x1fx\x1f/nonexistent/libx.so",
	    "cannot open shared object");
	call_fails(UOP_LOAD, "L\x1f\x1flibm.so.6", "malformed load descriptor");
	call_fails(UOP_CALL, "C\x1fm\x1fno_such_symbol\x1fi32",
	    "unknown symbol 'no_such_symbol' in m (libm.so.6)");
	call_fails(UOP_CALL, "C\x1f\x1fno_such_symbol\x1fi32",
	    "unknown symbol 'no_such_symbol'");
	call_fails(UOP_CALL,
	    "C\x1fnope\x1f"
	    "abs\x1fi32",
	    "no library named 'nope' is loaded");
	call_fails(UOP_CALL,
	    "C\x1f\x1f"
	    "abs\x1fi32\x1fw:99999999999",
	    "outside the window area");
	call_fails(UOP_CALL, "C", "malformed call descriptor");
}
END_TEST

int
main(void)
{
	Suite *su = suite_create("call");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, descriptor_round_trip);
	tcase_add_test(tc, malformed_descriptors);
	tcase_add_test(tc, calls_run_on_the_rank);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
