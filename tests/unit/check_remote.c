/*
 * check_remote.c - the pieces of the mpi transport that need no MPI: the
 * stream framing of proto, the control ops a rank elsewhere applies
 * (core/ctl.h), the segment's sync hooks, a rank's own segment, span
 * records appended to a mirror's ring, the token comparison.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl.h"
#include "proto.h"
#include "seg.h"
#include "session/mpi-int.h"
#include "span.h"

/* ---- proto over a stream ---------------------------------------------------- */

START_TEST(stream_framing)
{
	int sv[2];
	struct msg_hdr h = { .type = MSG_BOARD, .tag = 7 }, got;
	char *big = malloc(PROTO_MAX_MSG);
	void *payload;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	for (size_t i = 0; i < PROTO_MAX_MSG; i++)
		big[i] = (char)(i * 7);
	/* a small one, an empty one, one larger than the socket buffer
	 * (written by a child while the parent reads) */
	if (fork() == 0) {
		h.len = 5;
		proto_send(sv[0], &h, "hello");
		h.len = 0;
		h.tag = 8;
		proto_send(sv[0], &h, NULL);
		h.len = PROTO_MAX_MSG;
		h.tag = 9;
		_exit(proto_send(sv[0], &h, big) == 0 ? 0 : 1);
	}
	close(sv[0]);
	ck_assert_int_eq(proto_recv(sv[1], &got, &payload), 1);
	ck_assert_uint_eq(got.tag, 7);
	ck_assert_uint_eq(got.len, 5);
	ck_assert_str_eq(payload, "hello");
	free(payload);
	ck_assert_int_eq(proto_recv(sv[1], &got, &payload), 1);
	ck_assert_uint_eq(got.tag, 8);
	ck_assert_uint_eq(got.len, 0);
	free(payload);
	ck_assert_int_eq(proto_recv(sv[1], &got, &payload), 1);
	ck_assert_uint_eq(got.len, PROTO_MAX_MSG);
	ck_assert_int_eq(memcmp(payload, big, PROTO_MAX_MSG), 0);
	free(payload);
	/* the writer is gone: the end */
	ck_assert_int_eq(proto_recv(sv[1], &got, &payload), 0);
	ck_assert_ptr_null(payload);
	close(sv[1]);
	free(big);
}
END_TEST

START_TEST(stream_truncated_or_oversized)
{
	int sv[2];
	struct msg_hdr h = { .type = MSG_OUT, .len = 100 }, got;
	void *payload;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* a header promising 100 bytes, then 10 and the end */
	ck_assert_int_eq(write(sv[0], &h, sizeof h), (ssize_t)sizeof h);
	ck_assert_int_eq(write(sv[0], "0123456789", 10), 10);
	close(sv[0]);
	ck_assert_int_eq(proto_recv(sv[1], &got, &payload), -1);
	ck_assert_ptr_null(payload);
	close(sv[1]);
	/* a length beyond the limit is refused before anything is read */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	h.len = PROTO_MAX_MSG + 1;
	ck_assert_int_eq(write(sv[0], &h, sizeof h), (ssize_t)sizeof h);
	ck_assert_int_eq(proto_recv(sv[1], &got, &payload), -1);
	ck_assert_int_eq(errno, EPROTO);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* ---- control ops --------------------------------------------------------------- */

static struct ctl_op ops[64];
static int nops, nwins, nzero;
static uint64_t zero_off, zero_len;

static void
cap_ctl(void *arg, const struct ctl_op *op)
{
	(void)arg;
	ck_assert_int_lt(nops, 64);
	ops[nops++] = *op;
}

static void
cap_wins(void *arg)
{
	(void)arg;
	nwins++;
}

static void
cap_zero(void *arg, int r, uint64_t off, uint64_t len)
{
	(void)arg;
	ck_assert_int_eq(r, -1);
	nzero++;
	zero_off = off;
	zero_len = len;
}

static const struct seg_sync capture = { cap_ctl, cap_wins, cap_zero };

static void
board_eq(struct seg *a, struct seg *b, int r)
{
	struct seg_rank *x = seg_board(a, r), *y = seg_board(b, r);

	ck_assert_uint_eq(atomic_load(&x->ctl), atomic_load(&y->ctl));
	ck_assert_uint_eq(atomic_load(&x->mode), atomic_load(&y->mode));
	ck_assert_uint_eq(atomic_load(&x->credits), atomic_load(&y->credits));
	ck_assert_uint_eq(atomic_load(&x->interrupt), atomic_load(&y->interrupt));
	ck_assert_uint_eq(atomic_load(&x->abort), atomic_load(&y->abort));
	ck_assert_uint_eq(atomic_load(&x->skip_pc), atomic_load(&y->skip_pc));
}

START_TEST(ops_replayed_elsewhere)
{
	struct seg a, b;
	struct seg_break nb;
	char *cause = NULL;

	ck_assert_int_eq(seg_create(&a, "shell", 3, 1 << 16, 4096, &cause), 0);
	ck_assert_int_eq(seg_create(&b, "rank", 3, 1 << 16, 4096, &cause), 0);
	seg_unlink(&a);
	seg_unlink(&b);
	a.sync = &capture;
	nops = 0;
	atomic_store(&seg_board(&a, 1)->pc, 4);
	atomic_store(&seg_board(&b, 1)->pc, 4);
	ctl_interrupt(&a, 1);
	ctl_release(&a, 1, 1, 3);
	ctl_kick(&a, 1);
	ctl_step_mode(&a, 2);
	ctl_cancel(&a, 0);
	ctl_cancel_clear(&a, 0);
	memset(&nb, 0, sizeof nb);
	nb.id = 5;
	nb.kinds = 1u << UOP_WAIT;
	nb.ranks[0] = 2;
	ctl_break_set(&a, &a.h->breaks[3], &nb);
	ctl_breaks_changed(&a);
	ctl_set_wait_giveup(&a, 17);
	ctl_set_gate(&a, 1); /* raised by the interrupt: no change, not sent */
	ctl_set_gate(&a, 0);
	for (int i = 0; i < nops; i++)
		ctl_apply(&b, &ops[i]);
	for (int r = 0; r < 3; r++)
		board_eq(&a, &b, r);
	ck_assert_uint_eq(atomic_load(&seg_board(&b, 1)->skip_pc), 5);
	ck_assert_uint_eq(atomic_load(&seg_board(&b, 1)->credits), 3);
	ck_assert_uint_eq(b.h->breaks[3].id, 5);
	ck_assert_uint_eq(b.h->breaks[3].ranks[0], 2);
	ck_assert_uint_eq(atomic_load(&b.h->wait_giveup), 17);
	ck_assert_uint_eq(atomic_load(&b.h->break_seq),
	    atomic_load(&a.h->break_seq));
	ck_assert_uint_eq(atomic_load(&b.h->gate_active), 0);
	/* ten ops: the interrupt raised the gate on both sides by itself,
	 * so only lowering it was sent */
	ck_assert_int_eq(nops, 10);
	/* a malformed op changes nothing */
	ops[0].kind = CTL__COUNT;
	ctl_apply(&b, &ops[0]);
	ops[0].kind = CTL_KICK;
	ops[0].rank = 9;
	ctl_apply(&b, &ops[0]);
	for (int r = 0; r < 3; r++)
		board_eq(&a, &b, r);
	seg_close(&a);
	seg_close(&b);
}
END_TEST

START_TEST(adopt_takes_the_ranks_side)
{
	struct seg a;
	struct seg_rank theirs;
	char *cause = NULL;

	ck_assert_int_eq(seg_create(&a, "shell", 2, 1 << 16, 4096, &cause), 0);
	seg_unlink(&a);
	ctl_interrupt(&a, 1);
	memset(&theirs, 0, sizeof theirs);
	atomic_store(&theirs.mode, RUN_FREE);
	atomic_store(&theirs.ctl, 99); /* the shell counts its own kicks */
	ctl_adopt(&a, 1, &theirs);
	ck_assert_uint_eq(atomic_load(&seg_board(&a, 1)->interrupt), 0);
	ck_assert_uint_eq(atomic_load(&seg_board(&a, 1)->ctl), 1);
	seg_close(&a);
}
END_TEST

START_TEST(sync_hooks_of_the_window_table)
{
	struct seg a;
	struct seg_window *w;
	uint64_t shape[1] = { 100 };
	char *cause = NULL;

	ck_assert_int_eq(seg_create(&a, "shell", 2, 1 << 16, 4096, &cause), 0);
	seg_unlink(&a);
	a.sync = &capture;
	nwins = nzero = 0;
	w = seg_win_alloc(&a, "w", shape, 1, DT_I32, 0, &cause);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(nwins, 1);
	ck_assert_int_eq(nzero, 0); /* new windows are zero already */
	seg_win_zero(&a, w, -1);
	ck_assert_int_eq(nzero, 1);
	ck_assert_uint_eq(zero_len, 416); /* 400 bytes, padded to 32 */
	seg_win_free(&a, w);
	ck_assert_int_eq(nzero, 2);
	ck_assert_int_eq(nwins, 2);
	seg_close(&a);
}
END_TEST

/* ---- a rank's own segment --------------------------------------------------------- */

START_TEST(local_segment)
{
	struct seg l;
	uint8_t *area = calloc(1, 1 << 16);
	uint64_t shape[1] = { 8 };
	struct seg_window *w;
	char *cause = NULL;

	ck_assert_int_ne(seg_create_local(&l, "x", 4, 1 << 16, 4096, 4, area,
			     &cause),
	    0);
	free(cause);
	cause = NULL;
	ck_assert_int_eq(seg_create_local(&l, "x", 4, 1 << 16, 4096, 2, area,
			     &cause),
	    0);
	ck_assert_ptr_eq(seg_area(&l, 2), area);
	ck_assert_ptr_null(seg_area(&l, 1));
	ck_assert_ptr_null(seg_cell(&l, 3, 0));
	ck_assert_int_eq(seg_cell_get(&l, 1, 0), 0);
	ck_assert_ptr_eq(seg_cell(&l, 2, 8), (void *)(area + 8));
	/* the boards of all four, no areas in the mapping */
	ck_assert_uint_lt(l.size, 4 * (1 << 16));
	w = seg_win_alloc(&l, "w", shape, 1, DT_I32, 0, &cause);
	ck_assert_ptr_nonnull(w);
	memset(area, 0x5a, 64);
	seg_win_zero(&l, w, -1); /* only its own area, by memset */
	for (int i = 0; i < 32; i++)
		ck_assert_uint_eq(area[i], 0);
	ck_assert_uint_eq(area[40], 0x5a);
	seg_set_state(seg_board(&l, 2), RS_IDLE);
	seg_close(&l);
	free(area);
}
END_TEST

/* ---- span records into a mirror's ring ---------------------------------------------- */

START_TEST(ring_append)
{
	uint64_t bytes = 4096 * 8, cap = span_ring_cap(bytes);
	struct span_ring *r = calloc(1, bytes);
	struct span_rec *in = calloc(cap + 10, sizeof *in), out[4];

	ck_assert_uint_gt(cap, SPAN_ROOT_RESERVE);
	for (uint64_t i = 0; i < cap + 10; i++) {
		in[i].ts = 1000 + i;
		in[i].level = i < 4 ? SPAN_LEVEL_OP : 1;
	}
	span_ring_append(r, bytes, in, 4, -500, 3);
	ck_assert_uint_eq(span_ring_pending(r), 4);
	ck_assert_uint_eq(span_ring_lost(r), 3);
	ck_assert_uint_eq(span_ring_read(r, bytes, out, 4), 4);
	ck_assert_uint_eq(out[0].ts, 500);
	ck_assert_uint_eq(out[3].ts, 503);
	/* op records stop short of the roots' reserve, roots fill the rest */
	for (uint64_t i = 0; i < cap + 10; i++)
		in[i].level = SPAN_LEVEL_OP;
	span_ring_append(r, bytes, in, (size_t)cap, 0, 0);
	ck_assert_uint_eq(span_ring_pending(r), cap - SPAN_ROOT_RESERVE);
	for (uint64_t i = 0; i < cap + 10; i++)
		in[i].level = 1;
	span_ring_append(r, bytes, in, SPAN_ROOT_RESERVE + 5, 0, 0);
	ck_assert_uint_eq(span_ring_pending(r), cap);
	ck_assert_uint_eq(span_ring_lost(r), 3 + SPAN_ROOT_RESERVE + 5);
	free(in);
	free(r);
}
END_TEST

/* ---- the token --------------------------------------------------------------------- */

START_TEST(token_compare)
{
	const char *t = "0123456789abcdef0123456789abcdef";

	ck_assert(mpi_token_eq(t, "0123456789abcdef0123456789abcdef"));
	ck_assert(!mpi_token_eq(t, "0123456789abcdef0123456789abcdee"));
	ck_assert(!mpi_token_eq(t, "f123456789abcdef0123456789abcdef"));
}
END_TEST

static Suite *
remote_suite(void)
{
	Suite *s = suite_create("remote");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, stream_framing);
	tcase_add_test(tc, stream_truncated_or_oversized);
	tcase_add_test(tc, ops_replayed_elsewhere);
	tcase_add_test(tc, adopt_takes_the_ranks_side);
	tcase_add_test(tc, sync_hooks_of_the_window_table);
	tcase_add_test(tc, local_segment);
	tcase_add_test(tc, ring_append);
	tcase_add_test(tc, token_compare);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(remote_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
