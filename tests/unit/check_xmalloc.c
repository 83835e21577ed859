/*
 * check_xmalloc.c - the allocation hook core/xmalloc.h promises: every
 * wrapper allocates through it, a test can make the Nth allocation fail,
 * and a failed allocation aborts instead of returning NULL.
 */
#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xmalloc.h"

static size_t calls, last_size, fail_at;

/* realloc, counted; the fail_at-th call (1-based, 0: none) fails. */
static void *
counting(void *ptr, size_t size)
{
	calls++;
	last_size = size;
	if (fail_at != 0 && calls == fail_at)
		return NULL;
	return realloc(ptr, size);
}

static void
setup(void)
{
	calls = last_size = fail_at = 0;
	xalloc_set_hook(counting);
}

static void
teardown(void)
{
	xalloc_set_hook(NULL);
}

START_TEST(every_wrapper_goes_through_the_hook)
{
	char *p;
	int *v;

	free(xmalloc(10));
	ck_assert_uint_eq(calls, 1);
	ck_assert_uint_eq(last_size, 10);
	free(xmalloc(0)); /* size 0 is never passed on */
	ck_assert_uint_eq(last_size, 1);
	v = xcalloc(4, sizeof *v);
	ck_assert_uint_eq(last_size, 4 * sizeof *v);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(v[i], 0);
	v = xreallocarray(v, 8, sizeof *v);
	ck_assert_uint_eq(last_size, 8 * sizeof *v);
	v = xrealloc(v, 3);
	ck_assert_uint_eq(last_size, 3);
	free(v);
	p = xstrdup("abc");
	ck_assert_uint_eq(last_size, 4);
	ck_assert_str_eq(p, "abc");
	free(p);
	p = xstrndup("abcdef", 2);
	ck_assert_str_eq(p, "ab");
	free(p);
	p = xasprintf("%d-%s", 7, "x");
	ck_assert_str_eq(p, "7-x");
	ck_assert_uint_eq(last_size, 4);
	free(p);
	ck_assert_uint_eq(calls, 8);
}
END_TEST

START_TEST(setting_a_hook_returns_the_old_one)
{
	xalloc_hook_fn old = xalloc_set_hook(NULL);

	ck_assert_ptr_eq(old, counting);
	free(xmalloc(5));
	ck_assert_uint_eq(calls, 0); /* realloc again */
	ck_assert_ptr_ne(xalloc_set_hook(counting), counting);
}
END_TEST

/* The Nth allocation of a module fails: colldb aborts, never goes on
 * with NULL. */
START_TEST(a_failed_allocation_aborts)
{
	struct strbuf sb = STRBUF_INIT;

	fail_at = 3;
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d, ", i); /* grows: allocates again */
	ck_abort_msg("the third allocation failed, yet strbuf_addf went on");
}
END_TEST

static void *
must_not_run(void *ptr, size_t size)
{
	(void)ptr;
	ck_abort_msg("the hook was asked for %zu bytes of an overflowing array",
	    size);
	return NULL;
}

START_TEST(an_overflowing_array_aborts_before_allocating)
{
	void *p;

	xalloc_set_hook(must_not_run);
	p = xreallocarray(NULL, SIZE_MAX / 2, 4);
	(void)p;
	ck_abort_msg("xreallocarray returned for SIZE_MAX / 2 x 4 bytes");
}
END_TEST

int
main(void)
{
	Suite *su = suite_create("xmalloc");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_wrapper_goes_through_the_hook);
	tcase_add_test(tc, setting_a_hook_returns_the_old_one);
	/* an abort is testable only in a forked child (not CK_FORK=no) */
	if (getenv("CK_FORK") == NULL || strcmp(getenv("CK_FORK"), "no") != 0) {
		tcase_add_test_raise_signal(tc, a_failed_allocation_aborts,
		    SIGABRT);
		tcase_add_test_raise_signal(tc,
		    an_overflowing_array_aborts_before_allocating, SIGABRT);
	}
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
