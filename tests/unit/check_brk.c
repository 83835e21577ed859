/*
 * check_brk.c - breakpoint matching at the gate (core/brk.c): call sites
 * (file, line, function, "a later line"), cells touched by each micro-op
 * kind (rows, columns, flat ranges, any 2-D signal), and one-shot entries
 * (tbreak: one hit in all; until: one per rank).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "brk.h"
#include "ctl.h"
#include "seg.h"

static struct seg s;
static struct seg_window *sig, *buf;

static void
setup(void)
{
	char *cause = NULL;
	uint64_t ss[2] = { 6, 4 }, bs[1] = { 16 };

	ck_assert_msg(seg_create(&s, "unit-brk", 4, 1 << 16, 4096, &cause) == 0,
	    "%s", cause);
	seg_unlink(&s);
	buf = seg_win_alloc(&s, "buf", bs, 1, DT_F32, 0, &cause);
	sig = seg_win_alloc(&s, "sig", ss, 2, DT_I32, 0, &cause);
	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(sig);
}

static void
teardown(void)
{
	seg_close(&s);
}

static struct uop
cellop(enum uop_kind k, uint64_t row, uint64_t col)
{
	struct uop u;

	memset(&u, 0, sizeof u);
	u.kind = (uint8_t)k;
	u.dtype = DT_I32;
	u.peer = 1;
	u.value = 1;
	u.count = 1;
	u.dst = sig->off + (row * 4 + col) * 4;
	return u;
}

static struct seg_break
cells(const char *win, int64_t row, int64_t col)
{
	struct seg_break b;

	memset(&b, 0, sizeof b);
	b.flags = BRK_CELLS;
	b.kinds = BREAK_ANY_KIND;
	snprintf(b.win, sizeof b.win, "%s", win);
	b.row = row;
	b.col = col;
	return b;
}

START_TEST(cells_of_each_kind)
{
	struct seg_break row3 = cells("", 3, -1), col2 = cells("sig", -1, 2),
			 one = cells("sig", 3, 2), flat = cells("buf", -1, -1);
	struct uop n = cellop(UOP_NOTIFY, 3, 1), w = cellop(UOP_WAIT, 2, 2), p;

	ck_assert(brk_touches(&s, &row3, &n));
	ck_assert(!brk_touches(&s, &row3, &w));
	ck_assert(brk_touches(&s, &col2, &w));
	ck_assert(!brk_touches(&s, &col2, &n));
	ck_assert(!brk_touches(&s, &one, &n));
	n = cellop(UOP_NOTIFY, 3, 2);
	ck_assert(brk_touches(&s, &one, &n));
	/* a put of row 1 into row 3 touches row 3 through its destination */
	p = cellop(UOP_PUT, 3, 0);
	p.src = sig->off + 16;
	p.count = 4;
	ck_assert(brk_touches(&s, &row3, &p));
	ck_assert(brk_touches(&s, &col2, &p));
	/* a put of columns 0..1 misses column 2, wrapping or not */
	p.count = 2;
	ck_assert(!brk_touches(&s, &col2, &p));
	p.dst = sig->off + (3 * 4 + 3) * 4; /* [3,3] and [4,0] */
	p.src = p.dst;
	ck_assert(!brk_touches(&s, &col2, &p));
	ck_assert(brk_touches(&s, &row3, &p));
	/* flat elements: buf[4:8] against a put of buf[6:10] */
	flat.lo = 4;
	flat.hi = 8;
	p = cellop(UOP_PUT, 0, 0);
	p.dtype = DT_F32;
	p.dst = p.src = buf->off + 6 * 4;
	p.count = 4;
	ck_assert(brk_touches(&s, &flat, &p));
	p.dst = p.src = buf->off + 8 * 4;
	ck_assert(!brk_touches(&s, &flat, &p));
	/* "any 2-D i32 window" is not buf; a reduce in the accumulator
	 * touches nothing */
	ck_assert(!brk_touches(&s, &row3, &p));
	p.kind = UOP_REDUCE;
	p.dsp = p.ssp = SP_ACC;
	p.dst = p.src = buf->off + 4 * 4;
	ck_assert(!brk_touches(&s, &flat, &p));
}
END_TEST

START_TEST(call_sites)
{
	struct seg_break b;
	struct site at76, at80, none;

	memset(&b, 0, sizeof b);
	site_set(&at76, "docs/examples/ring.c", 76, FN_WAIT);
	site_set(&at80, "ring.c", 80, FN_NOTIFY);
	site_set(&none, NULL, 0, FN_NONE);
	ck_assert_str_eq(at76.file, "ring.c");
	b.flags = BRK_AT_CALL;
	snprintf(b.file, sizeof b.file, "ring.c");
	b.line = 76;
	ck_assert(brk_site_matches(&b, &at76));
	ck_assert(!brk_site_matches(&b, &at80));
	ck_assert(!brk_site_matches(&b, &none));
	b.flags |= BRK_LINE_AFTER;
	ck_assert(!brk_site_matches(&b, &at76));
	ck_assert(brk_site_matches(&b, &at80));
	memset(&b, 0, sizeof b);
	b.flags = BRK_AT_CALL;
	b.fn = FN_WAIT;
	ck_assert(brk_site_matches(&b, &at76));
	ck_assert(!brk_site_matches(&b, &at80));
	snprintf(b.file, sizeof b.file, "other.c");
	ck_assert(!brk_site_matches(&b, &at76));
	/* a call over lines 75-77: any line the compiler recorded */
	memset(&b, 0, sizeof b);
	b.flags = BRK_AT_CALL;
	snprintf(b.file, sizeof b.file, "ring.c");
	b.line = 75;
	b.line_end = 77;
	ck_assert(brk_site_matches(&b, &at76));
	ck_assert(!brk_site_matches(&b, &at80));
	b.line = 77;
	ck_assert(!brk_site_matches(&b, &at76));
	b.line = 76;
	b.line_end = 76; /* no span: the line alone */
	ck_assert(brk_site_matches(&b, &at76));
}
END_TEST

static void
put_break(int slot, const struct seg_break *b, uint32_t id)
{
	struct seg_break nb = *b;

	nb.id = id;
	ctl_break_set(&s, &s.h->breaks[slot], &nb);
}

START_TEST(one_shots)
{
	struct seg_break b = cells("sig", 3, -1);
	struct uop n = cellop(UOP_NOTIFY, 3, 1);
	struct site at;

	site_set(&at, "ring.c", 76, FN_NOTIFY);
	b.ranks[0] = 0xf;
	b.flags |= BRK_ONCE;
	put_break(0, &b, 7);
	ck_assert_uint_eq(brk_match(&s, 2, &at, 5, &n), 7);
	ck_assert_uint_eq(brk_match(&s, 1, &at, 5, &n), 0); /* spent */
	ck_assert_uint_eq(brk_match(&s, 2, &at, 5, &n), 0);
	b.flags = BRK_ONCE_PER_RANK | BRK_AT_CALL;
	b.fn = FN_NOTIFY;
	put_break(0, &b, BREAK_ID_UNTIL | 1);
	ck_assert_uint_eq(brk_match(&s, 1, &at, 1, &n),
	    0); /* not a call's first op */
	ck_assert_uint_eq(brk_match(&s, 1, &at, 0, &n), BREAK_ID_UNTIL | 1);
	ck_assert_uint_eq(brk_match(&s, 1, &at, 0, &n), 0);
	ck_assert_uint_eq(brk_match(&s, 3, &at, 0, &n), BREAK_ID_UNTIL | 1);
	ck_assert_uint_eq(s.h->breaks[0].ranks[0], 0x5);
	ck_assert_uint_eq(brk_match(&s, 0, NULL, 0, &n), 0); /* no call */
	ck_assert_uint_eq(atomic_load(&s.h->breaks[0].hits), 2);
}
END_TEST

/* A breakpoint on the line an until runs to reports the stop; the until
 * is spent for that rank all the same (it does not stop it again on the
 * next pass of the loop), and stays for the ranks still on their way. */
START_TEST(until_spent_by_a_breakpoint_there)
{
	struct seg_break t, u;
	struct uop w = cellop(UOP_WAIT, 0, 0);
	struct site at;

	site_set(&at, "ring.c", 76, FN_WAIT);
	memset(&t, 0, sizeof t);
	t.flags = BRK_AT_CALL | BRK_ONCE;
	t.kinds = BREAK_ANY_KIND;
	snprintf(t.file, sizeof t.file, "ring.c");
	t.line = 76;
	t.ranks[0] = 0xf;
	u = t;
	u.flags = BRK_AT_CALL | BRK_ONCE_PER_RANK;
	u.ranks[0] = 0x6;
	put_break(0, &t, 1);
	put_break(1, &u, BREAK_ID_UNTIL | 1);
	ck_assert_uint_eq(brk_match(&s, 1, &at, 0, &w), 1);
	ck_assert_uint_eq(s.h->breaks[1].ranks[0], 0x4);
	ck_assert_uint_eq(brk_match(&s, 1, &at, 0, &w), 0); /* next pass */
	ck_assert_uint_eq(brk_match(&s, 2, &at, 0, &w), BREAK_ID_UNTIL | 1);
	ck_assert_uint_eq(s.h->breaks[1].ranks[0], 0);
	ck_assert_uint_eq(atomic_load(&s.h->breaks[1].hits), 1);
}
END_TEST

int
main(void)
{
	Suite *su = suite_create("brk");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cells_of_each_kind);
	tcase_add_test(tc, call_sites);
	tcase_add_test(tc, one_shots);
	tcase_add_test(tc, until_spent_by_a_breakpoint_there);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
