/* check_parse.c - the command language's lexical layer (shell/lang/parse.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/loop.h"
#include "lang/parse.h"

static struct words w;

static int
split(const char *line)
{
	char *cause = NULL;
	int rc = parse_line(line, &w, &cause, NULL);

	free(cause);
	return rc;
}

START_TEST(words_basic)
{
	ck_assert_int_eq(split("  notify 1  sig[0] 2 set "), PARSE_OK);
	ck_assert_uint_eq(w.n, 5);
	ck_assert_str_eq(w.v[0].s, "notify");
	ck_assert_str_eq(w.v[2].s, "sig[0]");
	ck_assert_uint_eq(w.v[2].col, 12);
	ck_assert_uint_eq(w.v[2].len, 6);
	words_free(&w);
}
END_TEST

START_TEST(words_groups_and_quotes)
{
	ck_assert_int_eq(split("alloc sig [4, 1] i32 # comment"), PARSE_OK);
	ck_assert_uint_eq(w.n, 4);
	ck_assert_str_eq(w.v[2].s, "[4, 1]");
	words_free(&w);
	ck_assert_int_eq(split("say \"a  b\\\"c\" 'x y'"), PARSE_OK);
	ck_assert_uint_eq(w.n, 3);
	ck_assert_str_eq(w.v[1].s, "a  b\"c");
	ck_assert_int_eq(w.v[1].quoted, 1);
	ck_assert_str_eq(w.v[2].s, "x y");
	words_free(&w);
	ck_assert_int_eq(split("call f(a, b) -> i32"), PARSE_OK);
	ck_assert_uint_eq(w.n, 4);
	ck_assert_str_eq(w.v[1].s, "f(a, b)");
	words_free(&w);
	ck_assert_int_eq(split("say a#b"), PARSE_OK);
	ck_assert_uint_eq(w.n, 2);
	ck_assert_str_eq(w.v[1].s, "a#b");
	words_free(&w);
}
END_TEST

START_TEST(words_incomplete_and_errors)
{
	ck_assert_int_eq(split("say \"open"), PARSE_INCOMPLETE);
	ck_assert_int_eq(split("alloc x [4,"), PARSE_INCOMPLETE);
	ck_assert_int_eq(split("call f(1"), PARSE_INCOMPLETE);
	ck_assert_int_eq(split("print x]"), PARSE_ERROR);
	ck_assert_int_eq(split("print x[1)"), PARSE_ERROR);
	ck_assert_int_eq(split(""), PARSE_OK);
	ck_assert_uint_eq(w.n, 0);
	words_free(&w);
	ck_assert_int_eq(split("   # only a comment"), PARSE_OK);
	ck_assert_uint_eq(w.n, 0);
	words_free(&w);
}
END_TEST

/* An unfinished line says what is open and where (the innermost). */
static void
open_at(const char *line, size_t col, const char *want)
{
	char *cause = NULL;
	size_t at = 999;

	ck_assert_int_eq(parse_line(line, &w, &cause, &at), PARSE_INCOMPLETE);
	ck_assert_uint_eq(at, col);
	ck_assert_str_eq(cause, want);
	free(cause);
}

/* The one did-you-mean rule. */
static const char *
near(const char *typed, const char *const *cands)
{
	struct nearest n = NEAREST_INIT;

	for (; *cands != NULL; cands++)
		nearest_try(&n, typed, *cands);
	return n.best;
}

START_TEST(nearest_one_rule)
{
	static const char *const cmds[] = { "alloc", "allreduce", "bench",
		"expect", "q", NULL };
	static const char *const sets[] = { "times", "color", "timeout",
		"settle", NULL };

	ck_assert_str_eq(near("alocate", cmds), "alloc"); /* a longer form */
	ck_assert_str_eq(near("bencj", cmds), "bench");
	ck_assert_str_eq(near("expectation", cmds), "expect");
	ck_assert_ptr_null(near("x", cmds)); /* "q" is 1 away, but 1 letter */
	ck_assert_ptr_null(near("zzzzz", cmds));
	{
		static const char *const f[] = { "free", "fill", NULL };
		static const char *const wins[] = { "b2", "buf", NULL };
		ck_assert_ptr_null(near("frobnicate", f));
		ck_assert_str_eq(near("bfu", wins), "buf");
	}
	ck_assert_str_eq(near("timeot", sets), "timeout"); /* not "times" */
	ck_assert_str_eq(near("time", sets), "times");
	ck_assert_str_eq(near("colour", sets), "color");
}
END_TEST

START_TEST(words_incomplete_says_what_is_open)
{
	open_at("alloc s [2", 8, "unclosed '[' (no ']' after it)");
	open_at("call f(1, [2", 10, "unclosed '[' (no ']' after it)");
	open_at("call f([1], 2", 6, "unclosed '(' (no ')' after it)");
	open_at("say a \"open", 6, "unclosed quote (\")");
	open_at("print x[ 'a", 9, "unclosed quote (')");
}
END_TEST

START_TEST(numbers)
{
	int64_t v;
	uint64_t u;
	double d;
	char *cause = NULL;

	ck_assert_int_eq(parse_int("42", &v, 0, NULL), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(parse_int("-7", &v, 0, NULL), 0);
	ck_assert_int_eq(v, -7);
	ck_assert_int_eq(parse_int("010", &v, 0, NULL), 0);
	ck_assert_int_eq(v, 10); /* not octal */
	ck_assert_int_eq(parse_int("0x10", &v, 0, NULL), 0);
	ck_assert_int_eq(v, 16);
	ck_assert_int_eq(parse_uint("4k", &u, 1, NULL), 0);
	ck_assert_uint_eq(u, 4096);
	ck_assert_int_eq(parse_uint("64M", &u, 1, NULL), 0);
	ck_assert_uint_eq(u, 64ull << 20);
	ck_assert_int_eq(parse_uint("1GiB", &u, 1, NULL), 0);
	ck_assert_uint_eq(u, 1ull << 30);
	ck_assert_int_eq(parse_uint("2kB", &u, 1, NULL), 0);
	ck_assert_uint_eq(u, 2048);
	ck_assert_int_eq(parse_uint("4k", &u, 0, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "'4k'"));
	ck_assert_int_eq(parse_uint("-1", &u, 0, &cause), -1);
	ck_assert_int_eq(parse_int("12x", &v, 1, &cause), -1);
	ck_assert_int_eq(parse_int("", &v, 1, &cause), -1);
	ck_assert_int_eq(parse_int("99999999999999999999", &v, 0, &cause), -1);
	ck_assert_int_eq(parse_int("8G", &v, 1, NULL), 0);
	ck_assert_int_eq(parse_int("9000000000G", &v, 1, &cause), -1);
	ck_assert_int_eq(parse_number("1.5", &d, NULL), 0);
	ck_assert(d == 1.5);
	ck_assert_int_eq(parse_number("-2e3", &d, NULL), 0);
	ck_assert(d == -2000);
	ck_assert_int_eq(parse_number("abc", &d, &cause), -1);
	free(cause);
}
END_TEST

START_TEST(ranks)
{
	struct rankset s;
	char *cause = NULL, *t;

	ck_assert_int_eq(parse_ranks("@all", 4, &s, NULL), 0);
	ck_assert_int_eq(rankset_count(&s), 4);
	ck_assert_int_eq(parse_ranks("@1,3", 4, &s, NULL), 0);
	ck_assert(
	    rankset_has(&s, 1) && rankset_has(&s, 3) && !rankset_has(&s, 2));
	ck_assert_int_eq(parse_ranks("@1-2", 4, &s, NULL), 0);
	ck_assert_int_eq(rankset_count(&s), 2);
	ck_assert_int_eq(parse_ranks("@!0", 4, &s, NULL), 0);
	ck_assert(!rankset_has(&s, 0) && rankset_count(&s) == 3);
	ck_assert_int_eq(parse_ranks("@0,2-3", 4, &s, NULL), 0);
	t = rankset_format(&s, 4);
	ck_assert_str_eq(t, "@0,2-3");
	free(t);
	ck_assert_int_eq(parse_ranks("@7", 4, &s, &cause), -1);
	ck_assert_str_eq(cause, "rank 7 out of range (world has 4 ranks)");
	ck_assert_int_eq(parse_ranks("@2-1", 4, &s, &cause), -1);
	ck_assert_int_eq(parse_ranks("@x", 4, &s, &cause), -1);
	ck_assert_int_eq(parse_ranks("@", 4, &s, &cause), -1);
	ck_assert_int_eq(parse_ranks("@1,", 4, &s, &cause), -1);
	ck_assert_int_eq(parse_ranks("@!0-3", 4, &s, &cause), -1);
	ck_assert_int_eq(parse_ranks("@200", 256, &s, NULL), 0);
	ck_assert(rankset_has(&s, 200));
	free(cause);
}
END_TEST

START_TEST(shapes)
{
	uint64_t d[8];
	int n;
	char *cause = NULL;

	ck_assert_int_eq(parse_shape("[4,1]", d, 8, &n, NULL), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(d[0], 4);
	ck_assert_int_eq(parse_shape("[ 6 , 4 ]", d, 8, &n, NULL), 0);
	ck_assert_uint_eq(d[1], 4);
	ck_assert_int_eq(parse_shape("[0]", d, 8, &n, &cause), -1);
	ck_assert_int_eq(parse_shape("[]", d, 8, &n, &cause), -1);
	ck_assert_int_eq(parse_shape("[1,2,3,4,5,6,7,8,9]", d, 8, &n, &cause),
	    -1);
	ck_assert_int_eq(parse_shape("4,1", d, 8, &n, &cause), -1);
	free(cause);
}
END_TEST

START_TEST(regions)
{
	struct region_syntax rs;
	uint64_t shape[2] = { 6, 4 }, first, count;
	int cell;
	char *cause = NULL;

	ck_assert_int_eq(parse_region_syntax("sig", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     NULL),
	    0);
	ck_assert_uint_eq(count, 24);
	ck_assert_int_eq(parse_region_syntax("sig[1,3]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     NULL),
	    0);
	ck_assert_uint_eq(first, 7);
	ck_assert_uint_eq(count, 1);
	ck_assert_int_eq(cell, 1);
	ck_assert_int_eq(parse_region_syntax("sig[5]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     NULL),
	    0);
	ck_assert_uint_eq(first, 5);
	ck_assert_int_eq(parse_region_syntax("sig[4:12]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     NULL),
	    0);
	ck_assert_uint_eq(first, 4);
	ck_assert_uint_eq(count, 8);
	ck_assert_int_eq(parse_region_syntax("sig[2,:]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     NULL),
	    0);
	ck_assert_uint_eq(first, 8);
	ck_assert_uint_eq(count, 4);
	ck_assert_int_eq(parse_region_syntax("sig[:3]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     NULL),
	    0);
	ck_assert_uint_eq(count, 3);
	/* out of range and malformed */
	ck_assert_int_eq(parse_region_syntax("sig[24]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     &cause),
	    -1);
	ck_assert_int_eq(parse_region_syntax("sig[6,0]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     &cause),
	    -1);
	ck_assert_int_eq(parse_region_syntax("sig[1,2,3]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     &cause),
	    -1);
	ck_assert_int_eq(parse_region_syntax("sig[5:5]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     &cause),
	    -1);
	ck_assert_int_eq(parse_region_syntax("sig[-1]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     &cause),
	    -1);
	ck_assert_int_eq(parse_region_syntax("sig[1:2,0]", &rs, NULL), 0);
	ck_assert_int_eq(region_resolve(&rs, shape, 2, &first, &count, &cell,
			     &cause),
	    -1);
	ck_assert_int_eq(parse_region_syntax("sig[x]", &rs, &cause), -1);
	ck_assert_int_eq(parse_region_syntax("[1]", &rs, &cause), -1);
	ck_assert_int_eq(parse_region_syntax("si$g", &rs, &cause), -1);
	free(cause);
}
END_TEST

START_TEST(distance)
{
	ck_assert_uint_eq(edit_distance("sig", "sgi"), 1); /* a swap */
	ck_assert_uint_eq(edit_distance("abc", "ca"), 3);
	ck_assert_uint_eq(edit_distance("sig", "sig"), 0);
	ck_assert_uint_eq(edit_distance("notfy", "notify"), 1);
	ck_assert_uint_eq(edit_distance("", "abc"), 3);
}
END_TEST

/* The loop tests resolve exact names only (the shell uses its table). */
static const char *
exact(const char *word)
{
	return strcmp(word, "repeat") == 0 || strcmp(word, "end") == 0 ? word :
									 NULL;
}

START_TEST(loop_classify_lines)
{
	uint64_t n = 7;
	char *cause = NULL;
	size_t col = 0, len = 0;

	ck_assert_int_eq(loop_classify("repeat 3 # three", exact, &n, &cause,
			     &col, &len),
	    LOOP_REPEAT);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(loop_classify("  end  ", exact, &n, &cause, &col, &len),
	    LOOP_END);
	ck_assert_int_eq(loop_classify("notify 1 sig[0] 1", exact, &n, &cause,
			     &col, &len),
	    LOOP_PLAIN);
	ck_assert_int_eq(loop_classify("@0 repeat 3", exact, &n, &cause, &col,
			     &len),
	    LOOP_PLAIN);
	ck_assert_int_eq(loop_classify("\"repeat\" 3", exact, &n, &cause, &col,
			     &len),
	    LOOP_PLAIN);
	ck_assert_int_eq(loop_classify("", exact, &n, &cause, &col, &len),
	    LOOP_PLAIN);
	ck_assert_int_eq(loop_classify("repeat -1", exact, &n, &cause, &col, &len),
	    LOOP_BAD);
	ck_assert_uint_eq(col, 7);
	ck_assert_ptr_nonnull(strstr(cause, "'-1'"));
	ck_assert_int_eq(loop_classify("repeat 100000001", exact, &n, &cause,
			     &col, &len),
	    LOOP_BAD);
	ck_assert_int_eq(loop_classify("repeat", exact, &n, &cause, &col, &len),
	    LOOP_BAD);
	ck_assert_int_eq(loop_classify("repeat 2 x", exact, &n, &cause, &col,
			     &len),
	    LOOP_BAD);
	ck_assert_uint_eq(col, 9);
	ck_assert_int_eq(loop_classify("end now", exact, &n, &cause, &col, &len),
	    LOOP_BAD);
	free(cause);
}
END_TEST

static char **
lines(const char *text, size_t *n)
{
	char **v = NULL, *t = strdup(text), *save = NULL;

	*n = 0;
	for (char *l = strtok_r(t, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		v = realloc(v, (*n + 1) * sizeof *v);
		v[(*n)++] = strdup(l);
	}
	free(t);
	return v;
}

static char *
expand(const char *text, size_t max, char **cause)
{
	size_t n, nout;
	char **in = lines(text, &n), **out;
	char *flat = NULL;
	size_t len = 0;

	if (loop_expand(in, n, exact, max, &out, &nout, cause) == 0) {
		flat = calloc(1, 1);
		for (size_t i = 0; i < nout; i++) {
			flat = realloc(flat, len + strlen(out[i]) + 2);
			len += (size_t)sprintf(flat + len, "%s|", out[i]);
		}
		loop_lines_free(out, nout);
	}
	loop_lines_free(in, n);
	return flat;
}

START_TEST(loop_expand_nested)
{
	char *cause = NULL, *got;

	got = expand("a\nrepeat 2\nb\nrepeat 3\nc\nend\nend\nd", 100, &cause);
	ck_assert_str_eq(got, "a|b|c|c|c|b|c|c|c|d|");
	free(got);
	got = expand("repeat 0\nx\nend\ny", 100, &cause);
	ck_assert_str_eq(got, "y|");
	free(got);
	ck_assert_ptr_null(expand("repeat 2\nx", 100, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "no 'end'"));
	free(cause);
	cause = NULL;
	ck_assert_ptr_null(expand("x\nend", 100, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "without a repeat"));
	free(cause);
	cause = NULL;
	ck_assert_ptr_null(
	    expand("repeat 1000\nrepeat 1000\nx\nend\nend", 5000, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "more than 5000"));
	free(cause);
}
END_TEST

static int iters, ran;

static int
count_iter(void *arg, const struct loop_block *b, uint64_t k)
{
	(void)arg;
	(void)b;
	iters++;
	return k == 4 ? 1 : 0; /* stop before the fifth */
}

static int
count_line(void *arg, const char *text)
{
	(void)arg;
	(void)text;
	ran++;
	return 0;
}

START_TEST(loop_block_collect_and_run)
{
	struct loop_block b;
	struct loop_ops ops = { count_iter, count_line, NULL, exact };
	char *cause = NULL;
	size_t col, len;

	loop_block_init(&b, 10, "repeat 10");
	ck_assert_int_eq(loop_block_feed(&b, "x", exact, &cause, &col, &len), 0);
	ck_assert_int_eq(loop_block_feed(&b, "repeat 2", exact, &cause, &col,
			     &len),
	    0);
	ck_assert_int_eq(loop_block_feed(&b, "repeat y", exact, &cause, &col,
			     &len),
	    -1);
	free(cause);
	ck_assert_int_eq(loop_block_feed(&b, "y", exact, &cause, &col, &len), 0);
	ck_assert_int_eq(loop_block_feed(&b, "end", exact, &cause, &col, &len),
	    0);
	ck_assert_int_eq(loop_block_feed(&b, "end", exact, &cause, &col, &len),
	    1);
	ck_assert_uint_eq(b.nlines, 4);
	/* iterations 0..3 of the outer block and 2 inner ones each: the
	 * outer iter hook stops the run at k == 4 (a nested iter counts too) */
	ck_assert_int_eq(loop_block_run(&b, &ops, NULL), 1);
	ck_assert_int_eq(ran, 4 * (1 + 2));
	ck_assert_int_eq(iters, 5 + 4 * 2);
	loop_block_release(&b);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, words_basic);
	tcase_add_test(tc, words_groups_and_quotes);
	tcase_add_test(tc, words_incomplete_and_errors);
	tcase_add_test(tc, words_incomplete_says_what_is_open);
	tcase_add_test(tc, nearest_one_rule);
	tcase_add_test(tc, numbers);
	tcase_add_test(tc, ranks);
	tcase_add_test(tc, shapes);
	tcase_add_test(tc, regions);
	tcase_add_test(tc, distance);
	tcase_add_test(tc, loop_classify_lines);
	tcase_add_test(tc, loop_expand_nested);
	tcase_add_test(tc, loop_block_collect_and_run);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
