/* check_ffi.c - the syntax of `call` (shell/lang/call-expr.c): every
 * argument kind, casts, return types, the conversion of literals, and
 * where errors point. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/call-expr.h"

static struct call_expr fc;
static char *cause;
static size_t col, len;

static int
parse(const char *text)
{
	free(cause);
	cause = NULL;
	col = len = 999;
	return call_expr_parse(text, &fc, &cause, &col, &len);
}

/* parse fails at column c with a message containing what */
static void
fails(const char *text, size_t c, size_t l, const char *what)
{
	ck_assert_int_eq(parse(text), -1);
	ck_assert_ptr_nonnull(cause);
	if (strstr(cause, what) == NULL)
		ck_abort_msg("'%s': cause '%s' lacks '%s'", text, cause, what);
	ck_assert_uint_eq(col, c);
	ck_assert_uint_eq(len, l);
	ck_assert_ptr_null(fc.sym); /* nothing left to release */
}

START_TEST(call_shapes)
{
	ck_assert_int_eq(parse("f()"), 0);
	ck_assert_str_eq(fc.sym, "f");
	ck_assert_ptr_null(fc.lib);
	ck_assert_int_eq(fc.nargs, 0);
	ck_assert_int_eq(fc.ret, CT_I32);
	ck_assert_str_eq(fc.text, "f()");
	call_expr_release(&fc);

	ck_assert_int_eq(parse("kern:scale ( buf , 256, 2.0 )  ->  f64"), 0);
	ck_assert_str_eq(fc.lib, "kern");
	ck_assert_str_eq(fc.sym, "scale");
	ck_assert_uint_eq(fc.lib_col, 0);
	ck_assert_uint_eq(fc.sym_col, 5);
	ck_assert_int_eq(fc.nargs, 3);
	ck_assert_int_eq(fc.ret, CT_F64);
	ck_assert_uint_eq(fc.ret_col, 35);
	ck_assert_str_eq(fc.text, "kern:scale ( buf , 256, 2.0 )");
	ck_assert_int_eq(fc.args[0].kind, CW_NAME);
	ck_assert_str_eq(fc.args[0].s, "buf");
	ck_assert_uint_eq(fc.args[0].col, 13);
	ck_assert_uint_eq(fc.args[0].len, 3);
	ck_assert_int_eq(fc.args[1].kind, CW_INT);
	ck_assert_int_eq(fc.args[1].i, 256);
	ck_assert_int_eq(fc.args[2].kind, CW_FLOAT);
	ck_assert_double_eq(fc.args[2].f, 2.0);
	call_expr_release(&fc);

	/* every type is a return type */
	for (int t = CT_VOID; t < CT__COUNT; t++) {
		char text[32];

		snprintf(text, sizeof text, "g(1)->%s", call_type_name(t));
		ck_assert_int_eq(parse(text), 0);
		ck_assert_int_eq(fc.ret, t);
		call_expr_release(&fc);
	}
}
END_TEST

START_TEST(argument_kinds)
{
	ck_assert_int_eq(parse("f(-7, 0x10, 1e3, -2.5, \"a \\\"q\\\"\\n\", 'x\\y', "
			       "rank, nranks, NULL, &buf[3], &sig[1, 2], &w, (f32)1.5, (u8)255, "
			       "18446744073709551615, (i64)rank)"),
	    0);
	ck_assert_int_eq(fc.nargs, 16);
	ck_assert_int_eq(fc.args[0].kind, CW_INT);
	ck_assert_int_eq(fc.args[0].i, -7);
	ck_assert_int_eq(fc.args[1].i, 16);
	ck_assert_int_eq(fc.args[2].kind, CW_FLOAT);
	ck_assert_double_eq(fc.args[2].f, 1000.0);
	ck_assert_double_eq(fc.args[3].f, -2.5);
	ck_assert_int_eq(fc.args[4].kind, CW_STR);
	ck_assert_str_eq(fc.args[4].s, "a \"q\"\n");
	ck_assert_str_eq(fc.args[5].s, "x\\y"); /* '...' is literal */
	ck_assert_int_eq(fc.args[6].kind, CW_NAME);
	ck_assert_str_eq(fc.args[7].s, "nranks");
	ck_assert_int_eq(fc.args[8].kind, CW_NULL);
	ck_assert_int_eq(fc.args[9].kind, CW_ADDR);
	ck_assert_str_eq(fc.args[9].s, "buf[3]");
	ck_assert_str_eq(fc.args[10].s, "sig[1, 2]");
	ck_assert_str_eq(fc.args[11].s, "w");
	ck_assert_int_eq(fc.args[12].cast, CT_F32);
	ck_assert_int_eq(fc.args[13].cast, CT_U8);
	ck_assert_int_eq(fc.args[14].big, 1);
	ck_assert_uint_eq(fc.args[14].u, UINT64_MAX);
	ck_assert_int_eq(fc.args[15].kind, CW_NAME);
	ck_assert_int_eq(fc.args[15].cast, CT_I64);
	call_expr_release(&fc);
	/* the domain's integers take a cast; a window named like them does
	 * not exist to the parser */
	ck_assert_int_eq(parse("f(domain_rank, (i64)domain_size, domain_x)"), 0);
	ck_assert_int_eq(fc.args[0].kind, CW_NAME);
	ck_assert_int_eq(fc.args[1].cast, CT_I64);
	ck_assert(call_name_is_int(fc.args[0].s));
	ck_assert(call_name_is_int(fc.args[1].s));
	ck_assert(!call_name_is_int(fc.args[2].s));
	call_expr_release(&fc);
	fails("f((i32)domain_x)", 2, 13, "not to 'domain_x'");
}
END_TEST

START_TEST(errors_point_at_the_bad_part)
{
	fails("", 0, 1, "bad function");
	fails("9f()", 0, 2, "bad function");
	fails("lib:(1)", 4, 1, "bad function");
	fails("scale", 0, 5, "needs an argument list");
	fails("f(1 2)", 4, 1, "expected ',' or ')'");
	fails("f(1,", 4, 1, "bad argument");
	fails("f(1", 3, 1, "missing ')'");
	fails("f($x)", 2, 2, "bad argument '$x'");
	fails("f(1..2)", 2, 4, "bad number '1..2'");
	fails("f(12abc)", 2, 5, "bad number");
	fails("f(1e400)", 2, 5, "bad number '1e400'");
	fails("f(\"open)", 2, 6, "unterminated string");
	fails("f(\"a\\0\")", 4, 2, "\\0");
	fails("f((f16)1)", 3, 3, "unknown type 'f16'");
	fails("f((ptr)1)", 3, 3, "unknown type 'ptr'");
	fails("f((i32 1)", 3, 5, "unknown type 'i32 1'");
	fails("f(()1)", 2, 1, "bad cast");
	fails("f((i64)buf)", 2, 8, "not to 'buf'");
	fails("f((f32)\"s\")", 2, 8, "not to '\"s\"'");
	fails("f((u8)&b[1])", 2, 9, "not to '&b[1]'");
	fails("f(&)", 2, 1, "bad address '&'");
	fails("f(&9)", 2, 2, "bad address '&9'");
	fails("f(1) int", 5, 3, "expected -> TYPE");
	fails("f(1) -> int", 8, 3, "unknown return type 'int'");
	fails("f(1) ->", 6, 2, "missing return type");
	fails("f(1) -> i32 x", 12, 1, "after the return type");
	fails("f(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)", 41, 2,
	    "too many arguments (at most 16)");
	free(cause);
	cause = NULL;
}
END_TEST

/* the typed argument a literal becomes */
static void
number(const char *text, int kind, enum call_type type, int64_t i, double f)
{
	struct call_arg out;
	char *why = NULL;

	ck_assert_int_eq(parse(text), 0);
	ck_assert_int_eq(call_word_number(&fc.args[0], &out, &why), 0);
	ck_assert_int_eq(out.kind, kind);
	ck_assert_int_eq(out.type, type);
	if (kind == CA_INT)
		ck_assert_int_eq(out.i, i);
	else
		ck_assert_double_eq(out.f, f);
	call_expr_release(&fc);
}

static void
no_number(const char *text, const char *what)
{
	struct call_arg out;
	char *why = NULL;

	ck_assert_int_eq(parse(text), 0);
	ck_assert_int_eq(call_word_number(&fc.args[0], &out, &why), -1);
	if (strstr(why, what) == NULL)
		ck_abort_msg("'%s': '%s' lacks '%s'", text, why, what);
	free(why);
	call_expr_release(&fc);
}

START_TEST(literals_and_casts)
{
	number("f(5)", CA_INT, CT_I32, 5, 0);
	number("f(-2147483648)", CA_INT, CT_I32, INT32_MIN, 0);
	number("f(2147483648)", CA_INT, CT_I64, 2147483648ll, 0);
	number("f(9223372036854775807)", CA_INT, CT_I64, INT64_MAX, 0);
	number("f(18446744073709551615)", CA_INT, CT_U64, -1, 0);
	number("f(0xffffffffffffffff)", CA_INT, CT_U64, -1, 0);
	number("f((i8)-128)", CA_INT, CT_I8, -128, 0);
	number("f((u16)65535)", CA_INT, CT_U16, 65535, 0);
	number("f((u32)4294967295)", CA_INT, CT_U32, 4294967295ll, 0);
	number("f((i64)5)", CA_INT, CT_I64, 5, 0);
	number("f(1.5)", CA_FLOAT, CT_F64, 0, 1.5);
	number("f((f32)1.5)", CA_FLOAT, CT_F32, 0, 1.5);
	number("f((f64)3)", CA_FLOAT, CT_F64, 0, 3.0);
	number("f((f32)-inf)", CA_FLOAT, CT_F32, 0, -__builtin_inf());
	no_number("f((i8)128)", "128 does not fit (i8)");
	no_number("f((u8)-1)", "-1 does not fit (u8)");
	no_number("f((u32)4294967296)", "does not fit (u32)");
	no_number("f((i64)18446744073709551615)", "does not fit (i64)");
	no_number("f((f32)1e40)", "1e+40 does not fit (f32)");
	no_number("f((i32)1.5)", "(i32) needs an integer, got 1.5");
	free(cause);
	cause = NULL;
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("ffi");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, call_shapes);
	tcase_add_test(tc, argument_kinds);
	tcase_add_test(tc, errors_point_at_the_bad_part);
	tcase_add_test(tc, literals_and_casts);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
