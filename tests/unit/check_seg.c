/* check_seg.c - the session segment: layout, window table, zero invariant. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seg.h"

static struct seg s;

static void
setup(void)
{
	char *cause = NULL;

	ck_assert_msg(seg_create(&s, "unit", 3, 1 << 20, 4096, &cause) == 0,
	    "%s", cause);
	seg_unlink(&s);
}

static void
teardown(void)
{
	seg_close(&s);
}

static struct seg_window *
alloc(const char *name, uint64_t n, enum dtype dt)
{
	uint64_t shape[1] = { n };

	return seg_win_alloc(&s, name, shape, 1, dt, 0, NULL);
}

START_TEST(layout_rounds_to_32_in_order)
{
	struct seg_window *a = alloc("a", 3, DT_I32); /* 12 -> 32 */
	struct seg_window *b = alloc("b", 33, DT_U8); /* 33 -> 64 */
	struct seg_window *c = alloc("c", 8, DT_F32); /* 32 */
	struct seg_window *list[8];

	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->off, 0);
	ck_assert_uint_eq(b->off, 32);
	ck_assert_uint_eq(c->off, 96);
	ck_assert_uint_eq(a->bytes, 12);
	ck_assert_int_eq(seg_win_list(&s, list, 8), 3);
	ck_assert_str_eq(list[0]->name, "a");
	ck_assert_str_eq(list[2]->name, "c");
	ck_assert_ptr_eq(seg_win_at(&s, 40), b);
	ck_assert_ptr_null(seg_win_at(&s, 12)); /* padding is no window */
}
END_TEST

START_TEST(shape_form)
{
	uint64_t shape[2] = { 6, 4 };
	struct seg_window *w =
	    seg_win_alloc(&s, "sig", shape, 2, DT_I32, 0, NULL);

	ck_assert_uint_eq(w->count, 24);
	ck_assert_uint_eq(w->bytes, 96);
	ck_assert_int_eq(w->ndim, 2);
}
END_TEST

START_TEST(errors_change_nothing)
{
	char *cause = NULL;
	uint32_t seq;
	uint64_t zero[1] = { 0 }, big[1] = { 1 << 20 };

	ck_assert_ptr_nonnull(alloc("a", 4, DT_I32));
	seq = atomic_load(&s.h->win_seq);
	ck_assert_ptr_null(seg_win_alloc(&s, "a", big, 1, DT_U8, 0, &cause));
	ck_assert_str_eq(cause, "window 'a' already exists");
	ck_assert_ptr_null(seg_win_alloc(&s, "z", zero, 1, DT_U8, 0, &cause));
	ck_assert_ptr_null(seg_win_alloc(&s, "big", big, 1, DT_I32, 0, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "does not fit"));
	ck_assert_ptr_null(seg_win_alloc(&s, "", big, 1, DT_U8, 0, &cause));
	ck_assert_uint_eq(atomic_load(&s.h->win_seq), seq);
	free(cause);
}
END_TEST

START_TEST(free_zeroes_and_reuses_top_only)
{
	struct seg_window *a = alloc("a", 8192, DT_U8);
	struct seg_window *b = alloc("b", 64, DT_U8);
	uint64_t boff = b->off;

	for (int r = 0; r < 3; r++) {
		memset(seg_area(&s, r) + a->off, 0xab, 8192);
		memset(seg_area(&s, r) + b->off, 0xcd, 64);
	}
	seg_win_free(&s, a);
	for (int r = 0; r < 3; r++) {
		for (int i = 0; i < 8192; i++)
			ck_assert_int_eq(seg_area(&s, r)[i], 0);
	}
	/* a hole below a live window is not reused: offsets never move */
	b = seg_win_find(&s, "b");
	ck_assert_uint_eq(b->off, boff);
	ck_assert_uint_eq(alloc("c", 16, DT_U8)->off, boff + 64);
	seg_win_free(&s, seg_win_find(&s, "c"));
	seg_win_free(&s, b);
	ck_assert_uint_eq(alloc("d", 16, DT_U8)->off, 0);
	ck_assert_int_eq(seg_area(&s, 2)[boff], 0);
}
END_TEST

START_TEST(board_and_names)
{
	struct seg_rank *b = seg_board(&s, 2);
	struct uop u = { .kind = UOP_WAIT, .value = 7 }, got;
	char title[SEG_TITLE_MAX];

	ck_assert_uint_eq((uintptr_t)b % 64, 0);
	seg_write_cur(b, &u, "wait");
	seg_read_cur(b, &got, title, sizeof title);
	ck_assert_int_eq(got.value, 7);
	ck_assert_str_eq(title, "wait");
	ck_assert_str_eq(rank_state_name(RS_BLOCKED), "blocked");
	ck_assert_uint_eq(seg_default_area(4), 1ull << 30);
	ck_assert_uint_le(seg_default_area(256) * 256, 16ull << 30);
}
END_TEST

START_TEST(attach_rejects_foreign)
{
	struct seg t;
	char *cause = NULL;
	FILE *fp = tmpfile();

	static const char junk[] =
	    "hello, not a segment, but long enough to look at it...";

	fwrite(junk, 1, sizeof junk, fp);
	fflush(fp);
	ck_assert_int_eq(seg_attach_fd(&t, fileno(fp), 0, &cause), -1);
	ck_assert_str_eq(cause, "not a colldb session segment");
	fclose(fp);
	free(cause);
}
END_TEST

/* What a rank writes over the window table or the layout is reported once
 * and never used: the handle keeps its last good copy. */
START_TEST(corruption_reported_once_and_not_used)
{
	struct seg_window *a = alloc("a", 4, DT_I32), *list[8];
	struct seg_rank *b0 = seg_board(&s, 0);
	char *r;

	ck_assert_ptr_nonnull(alloc("b", 4, DT_F32));
	ck_assert_ptr_null(seg_take_reports(&s));
	s.h->windows[1].dtype = 0x41;
	s.h->windows[0].off = s.area_size; /* a past the end */
	ck_assert_int_eq(seg_win_list(&s, list, 8), 2);
	ck_assert_int_eq(list[1]->dtype, DT_F32);
	ck_assert_uint_eq(seg_win_find(&s, "a")->off, 0);
	r = seg_take_reports(&s);
	ck_assert_str_eq(r,
	    "segment header corrupted at window 0 (offset 1048576)\n"
	    "segment header corrupted at window 1 (dtype 0x41)\n");
	free(r);
	seg_win_sync(&s);
	ck_assert_ptr_null(seg_take_reports(&s)); /* once */
	/* a new window cannot take a corrupt slot, nor overlap a kept one */
	ck_assert_uint_eq(alloc("c", 4, DT_I32)->off, 64);
	/* the layout is put back by the creator */
	s.h->area_off = 12;
	s.h->nranks = 200;
	seg_win_sync(&s);
	ck_assert_uint_eq(s.h->area_off, s.area_off);
	ck_assert_uint_eq(s.h->nranks, 3);
	r = seg_take_reports(&s);
	ck_assert_str_eq(r,
	    "segment header corrupted (nranks 0xc8)\n"
	    "segment header corrupted (area_off 0xc)\n");
	free(r);
	/* offsets a rank publishes are checked before use */
	ck_assert_ptr_null(seg_cell(&s, 0, s.area_size));
	ck_assert_ptr_null(seg_cell(&s, 0, 2));
	ck_assert_ptr_null(seg_cell(&s, 3, 0));
	ck_assert_int_eq(seg_cell_get(&s, 0, UINT64_MAX - 1), 0);
	atomic_store(&b0->state, 0x41);
	ck_assert_int_eq(seg_rank_state(b0), RS_RUNNING);
	(void)a;
}
END_TEST

/* Sizes are range-checked before any arithmetic (--window-area). */
START_TEST(domain_free_clears_and_reuses_its_slot)
{
	uint64_t ranks[SEG_MAX_RANKS / 64] = { 0x5 }; /* @0,2 */
	uint64_t shape[1] = { 4 };
	char name[8], *cause = NULL;
	int k;

	for (int i = 1; i <= SEG_MAX_DOMAINS; i++) {
		snprintf(name, sizeof name, "d%d", i);
		ck_assert_int_eq(seg_domain_add(&s, name, ranks, NULL), i);
	}
	ck_assert_int_eq(seg_domain_add(&s, "more", ranks, &cause), -1);
	free(cause);
	cause = NULL;
	seg_domain_free(&s, 5);
	ck_assert_ptr_null(seg_domain_get(&s, 5));
	ck_assert_int_eq(seg_domain_find(&s, "d5"), 0);
	ck_assert_int_eq(seg_domain_rank(&s, 5, 2), -1);
	ck_assert_ptr_null(
	    seg_win_alloc_in(&s, "w", shape, 1, DT_F32, 0, 5, &cause));
	free(cause);
	ck_assert_ptr_nonnull(seg_domain_get(&s, 4));
	ck_assert_ptr_nonnull(seg_domain_get(&s, 6));
	/* the freed slot takes the next one, with its own name and ranks */
	ranks[0] = 0x2;
	k = seg_domain_add(&s, "again", ranks, NULL);
	ck_assert_int_eq(k, 5);
	ck_assert_str_eq(seg_domain_get(&s, k)->name, "again");
	ck_assert_int_eq(seg_domain_rank(&s, k, 1), 0);
	ck_assert_int_eq(seg_domain_rank(&s, k, 0), -1);
	seg_domain_free(&s, 0); /* the world and out of range: nothing */
	seg_domain_free(&s, SEG_MAX_DOMAINS + 1);
	ck_assert_ptr_nonnull(seg_domain_get(&s, 1));
}
END_TEST

START_TEST(create_rejects_huge_sizes)
{
	struct seg t;
	char *cause = NULL;

	ck_assert_int_eq(seg_create(&t, "huge", 8, UINT64_MAX / 2, 4096, &cause),
	    -1);
	ck_assert_str_eq(cause,
	    "window area of 9223372036854775807 bytes per rank "
	    "out of range (1..8796093022208 for 8 ranks)");
	free(cause);
	cause = NULL;
	ck_assert_int_eq(seg_create(&t, "huge", 1, UINT64_MAX, 4096, &cause), -1);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(seg_create(&t, "huge", 1, 4096, UINT64_MAX, &cause), -1);
	free(cause);
}
END_TEST

START_TEST(lock_survives_a_dead_holder)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		seg_lock(&s);
		_exit(0); /* dies holding it */
	}
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	seg_lock(&s); /* would hang for ever without the takeover */
	ck_assert_int_eq(atomic_load(&s.h->lock_owner), getpid());
	seg_unlock(&s);
	ck_assert_uint_eq(atomic_load(&s.h->lock), 0);
}
END_TEST

int
main(void)
{
	Suite *su = suite_create("seg");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, layout_rounds_to_32_in_order);
	tcase_add_test(tc, shape_form);
	tcase_add_test(tc, errors_change_nothing);
	tcase_add_test(tc, free_zeroes_and_reuses_top_only);
	tcase_add_test(tc, board_and_names);
	tcase_add_test(tc, attach_rejects_foreign);
	tcase_add_test(tc, lock_survives_a_dead_holder);
	tcase_add_test(tc, corruption_reported_once_and_not_used);
	tcase_add_test(tc, create_rejects_huge_sizes);
	tcase_add_test(tc, domain_free_clears_and_reuses_its_slot);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
