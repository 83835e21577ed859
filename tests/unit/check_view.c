/*
 * check_view.c - the readers' one view of the world (shell/view/view.h):
 * the segment view answers from the segment, and a second implementation
 * (samples copied at sample(), as a transport whose ranks live on other
 * hosts would keep them) gives the readers the same words without any of
 * them knowing which one they read.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/session.h"
#include "view/view.h"

static struct seg s;

static void
setup(void)
{
	char *cause = NULL;

	ck_assert_msg(seg_create(&s, "view", 3, 1 << 20, 4096, &cause) == 0,
	    "%s", cause);
	seg_unlink(&s);
}

static void
teardown(void)
{
	seg_close(&s);
}

static struct seg_window *
sig(void)
{
	uint64_t shape[2] = { 3, 2 };

	return seg_win_alloc(&s, "sig", shape, 2, DT_I32, 0, NULL);
}

/* Rank 1 blocked in `wait sig[2,1] >= 5` (cell value 3), step 2/4. */
static void
block_rank1(const struct seg_window *w)
{
	struct seg_rank *b = seg_board(&s, 1);
	struct uop u;

	memset(&u, 0, sizeof u);
	u.kind = UOP_WAIT;
	u.dst = w->off + 5 * 4;
	u.count = 1;
	u.op = CMP_GE;
	u.value = 5;
	seg_write_cur(b, &u, "wait");
	atomic_store(&b->pc, 1);
	atomic_store(&b->nops, 4);
	atomic_store(&b->wait_off, u.dst);
	atomic_store(&b->wait_cmp, CMP_GE);
	atomic_store(&b->wait_expected, 5);
	seg_set_state(b, RS_BLOCKED);
	*(int32_t *)(seg_area(&s, 1) + u.dst) = 3;
}

START_TEST(segment_view_reads_the_segment)
{
	struct seg_window *w = sig(), *list[4];
	struct view v;
	struct view_board b;
	struct uop cur;
	char title[SEG_TITLE_MAX], bytes[8];
	uint64_t gen;

	view_seg_init(&v, &s);
	block_rank1(w);
	ck_assert_int_eq(view_nranks(&v), 3);
	ck_assert_str_eq(view_session_name(&v), "view");
	view_sample(&v);
	view_board(&v, 1, &b);
	ck_assert_int_eq(b.state, RS_BLOCKED);
	ck_assert_uint_eq(b.pc, 1);
	ck_assert_uint_eq(b.nops, 4);
	ck_assert_uint_eq(b.wait_off, w->off + 20);
	ck_assert_int_eq(b.wait_expected, 5);
	ck_assert_int_eq(b.pending, 0);
	ck_assert_int_eq(b.acted, 1);
	ck_assert_int_eq(view_state(&v, 0), RS_STARTING);
	view_cur(&v, 1, &cur, title, sizeof title);
	ck_assert_str_eq(title, "wait");
	ck_assert_int_eq(cur.kind, UOP_WAIT);
	ck_assert_int_eq(view_cell(&v, 1, w->off + 20), 3);
	ck_assert_int_eq(view_cell(&v, 0, w->off + 20), 0);
	/* out of the area: an error and zeroes, never a read past it */
	memset(bytes, 'x', sizeof bytes);
	ck_assert_int_eq(view_read(&v, 1, view_area_size(&v) - 4, bytes, 8), -1);
	ck_assert_int_eq(bytes[0], 0);
	ck_assert_int_eq(view_read(&v, 1, UINT64_MAX - 2, bytes, 4), -1);
	/* the window table */
	ck_assert_ptr_eq(view_win_find(&v, "sig"), w);
	ck_assert_ptr_eq(view_win_at(&v, w->off + 7), w);
	ck_assert_int_eq(view_win_list(&v, list, 4), 1);
	gen = view_win_gen(&v);
	ck_assert_ptr_nonnull(
	    seg_win_alloc(&s, "buf", (uint64_t[]){ 8 }, 1, DT_F32, 0, NULL));
	ck_assert_uint_ne(view_win_gen(&v), gen);
	ck_assert_uint_eq(view_cur_coll(&v, NULL), 0);
	ck_assert_int_eq(view_ended(&v), 0);
	atomic_store(&s.h->ended, 1);
	ck_assert_int_eq(view_ended(&v), 1);
}
END_TEST

/*
 * A second implementation: every rank's board, current op and area
 * copied when sample() runs, then answered from the copies, as a view
 * fed by a remote rank's control channel would be.  The window table is
 * the shell's own (the segment's), as view.h allows.
 */
struct sampled {
	struct seg *sg;
	int n, samples;
	struct view_board *board;
	struct uop *cur;
	char (*title)[SEG_TITLE_MAX];
	uint8_t **area;
	uint64_t area_size;
};

static const char *
sm_session(struct view *v)
{
	return ((struct sampled *)v->data)->sg->h->name;
}

static int
sm_nranks(struct view *v)
{
	return ((struct sampled *)v->data)->n;
}

static void
sm_sample(struct view *v)
{
	struct sampled *sm = v->data;
	struct view seg;

	view_seg_init(&seg, sm->sg);
	for (int r = 0; r < sm->n; r++) {
		view_board(&seg, r, &sm->board[r]);
		view_cur(&seg, r, &sm->cur[r], sm->title[r], SEG_TITLE_MAX);
		view_read(&seg, r, 0, sm->area[r], sm->area_size);
	}
	sm->samples++;
}

static void
sm_board(struct view *v, int r, struct view_board *out)
{
	*out = ((struct sampled *)v->data)->board[r];
}

static void
sm_cur(struct view *v, int r, struct uop *cur, char *title, size_t size)
{
	struct sampled *sm = v->data;

	*cur = sm->cur[r];
	snprintf(title, size, "%s", sm->title[r]);
}

static int
sm_read(struct view *v, int r, uint64_t off, void *dst, size_t n)
{
	struct sampled *sm = v->data;

	if (off > sm->area_size || n > sm->area_size - off) {
		memset(dst, 0, n);
		return -1;
	}
	memcpy(dst, sm->area[r] + off, n);
	return 0;
}

static uint64_t
sm_area_size(struct view *v)
{
	return ((struct sampled *)v->data)->area_size;
}

static int
sm_win_list(struct view *v, struct seg_window **out, int max)
{
	return seg_win_list(((struct sampled *)v->data)->sg, out, max);
}

static struct seg_window *
sm_win_find(struct view *v, const char *name)
{
	return seg_win_find(((struct sampled *)v->data)->sg, name);
}

static struct seg_window *
sm_win_at(struct view *v, uint64_t off)
{
	return seg_win_at(((struct sampled *)v->data)->sg, off);
}

static uint64_t
sm_win_gen(struct view *v)
{
	return atomic_load(&((struct sampled *)v->data)->sg->h->win_seq);
}

static uint32_t
sm_cur_coll(struct view *v, struct coll_args *out)
{
	(void)v;
	(void)out;
	return 0;
}

static int
sm_ended(struct view *v)
{
	(void)v;
	return 0;
}

static const struct view_ops sampled_ops = {
	.name = "samples",
	.session_name = sm_session,
	.nranks = sm_nranks,
	.sample = sm_sample,
	.board = sm_board,
	.cur = sm_cur,
	.read = sm_read,
	.area_size = sm_area_size,
	.win_list = sm_win_list,
	.win_find = sm_win_find,
	.win_at = sm_win_at,
	.win_gen = sm_win_gen,
	.cur_coll = sm_cur_coll,
	.ended = sm_ended,
};

START_TEST(a_second_view_gives_the_same_words)
{
	struct seg_window *w = sig();
	struct sampled sm = { .sg = &s, .n = 3, .area_size = 64 * 1024 };
	struct view seg, smv = { .ops = &sampled_ops, .data = &sm };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct view_board bb;

	sm.board = calloc(3, sizeof *sm.board);
	sm.cur = calloc(3, sizeof *sm.cur);
	sm.title = calloc(3, sizeof *sm.title);
	sm.area = calloc(3, sizeof *sm.area);
	for (int r = 0; r < 3; r++)
		sm.area[r] = calloc(1, sm.area_size);
	view_seg_init(&seg, &s);
	block_rank1(w);
	view_sample(&smv);
	describe_board(&seg, 1, &a);
	describe_board(&smv, 1, &b);
	ck_assert_str_eq(a.buf, "wait step 2/4: wait sig[2,1] >= 5 (now 3)");
	ck_assert_str_eq(b.buf, a.buf);
	/* a sample is a picture: later writes show at the next sample() */
	*(int32_t *)(seg_area(&s, 1) + w->off + 20) = 4;
	seg_set_state(seg_board(&s, 1), RS_RUNNING);
	view_board(&smv, 1, &bb);
	ck_assert_int_eq(bb.state, RS_BLOCKED);
	ck_assert_int_eq(view_cell(&smv, 1, w->off + 20), 3);
	view_sample(&smv);
	ck_assert_int_eq(view_state(&smv, 1), RS_RUNNING);
	ck_assert_int_eq(view_cell(&smv, 1, w->off + 20), 4);
	ck_assert_int_eq(sm.samples, 2);
	strbuf_reset(&a);
	describe_cell(&smv, w->off + 20, 1, &a);
	ck_assert_str_eq(a.buf, "sig[2,1]");
	strbuf_release(&a);
	strbuf_release(&b);
	for (int r = 0; r < 3; r++)
		free(sm.area[r]);
	free(sm.area);
	free(sm.title);
	free(sm.cur);
	free(sm.board);
}
END_TEST

int
main(void)
{
	Suite *su = suite_create("view");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, segment_view_reads_the_segment);
	tcase_add_test(tc, a_second_view_gives_the_same_words);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
