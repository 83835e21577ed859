/* check_outbox.c - the outbox ring (core/outbox.h): records in order, a
 * writer that waits for room woken by the reader, once. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "outbox.h"
#include "proto.h"

#define DATA (512u * 1024u) /* the smallest ring (2 messages of the most) */

struct got {
	struct outbox_ring *ring;
	int n;
	int first_tag, last_tag;
	int waiting_after_first; /* ring->waiting when the 2nd record came */
};

static void
take(void *arg, const struct msg_hdr *h, void *payload)
{
	struct got *g = arg;

	if (g->n == 0)
		g->first_tag = (int)h->tag;
	if (g->n == 1)
		g->waiting_after_first = (int)atomic_load(&g->ring->waiting);
	g->last_tag = (int)h->tag;
	if (h->len > 0)
		ck_assert_uint_eq(((unsigned char *)payload)[0], h->tag & 0xff);
	g->n++;
}

static void
put(struct outbox_w *w, uint32_t tag, size_t len)
{
	struct msg_hdr h = { .type = MSG_PROG, .tag = tag, .len = (uint32_t)len };
	unsigned char b[512];

	memset(b, (int)(tag & 0xff), sizeof b);
	ck_assert_int_eq(outbox_put(w, &h, b), 0);
}

/* The reader wakes a writer that sleeps for room once, not at every
 * record it reads until the writer runs again: it clears the flag the
 * writer set (a wake a record was 16 000-37 000 futex calls in the
 * shell for 84 000 calls of bench/user-pp 2000 7). */
START_TEST(one_wake_a_sleep)
{
	void *mem = calloc(1, OUTBOX_HDR + DATA);
	struct outbox_w w;
	struct got g;

	ck_assert_int_eq(outbox_w_init(&w, mem, OUTBOX_HDR + DATA, -1, 1), 0);
	for (uint32_t t = 1; t <= 4; t++)
		put(&w, t, 100);
	/* as a writer that found no room and went to sleep leaves it */
	atomic_store(&w.ring->waiting, 1);
	memset(&g, 0, sizeof g);
	g.ring = w.ring;
	g.waiting_after_first = -1;
	ck_assert_int_eq(outbox_read(w.ring, w.data, DATA, take, &g), 4);
	ck_assert_int_eq(g.first_tag, 1);
	ck_assert_int_eq(g.last_tag, 4);
	ck_assert_int_eq(g.waiting_after_first, 0);
	ck_assert_uint_eq(atomic_load(&w.ring->waiting), 0);
	ck_assert_uint_eq(outbox_pending(w.ring), 0);
	free(mem);
}
END_TEST

struct writer {
	struct outbox_w *w;
	uint32_t n;
};

static void *
write_all(void *arg)
{
	struct writer *wr = arg;

	for (uint32_t t = 1; t <= wr->n; t++)
		put(wr->w, t, 400);
	return NULL;
}

/* A writer far ahead of its reader waits for room and loses nothing. */
START_TEST(full_ring_waits)
{
	void *mem = calloc(1, OUTBOX_HDR + DATA);
	struct writer wr;
	struct outbox_w w;
	struct got g;
	pthread_t th;

	ck_assert_int_eq(outbox_w_init(&w, mem, OUTBOX_HDR + DATA, -1, 1), 0);
	wr.w = &w;
	wr.n = 20000; /* 8.5 MB through a 512 KiB ring */
	ck_assert_int_eq(pthread_create(&th, NULL, write_all, &wr), 0);
	/* the writer fills the ring and sleeps for room */
	for (int i = 0; i < 5000 && !atomic_load(&w.ring->waiting); i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	ck_assert_uint_eq(atomic_load(&w.ring->waiting), 1);
	ck_assert_uint_gt(outbox_pending(w.ring), DATA - 424);
	memset(&g, 0, sizeof g);
	g.ring = w.ring;
	while (g.n < (int)wr.n) {
		int before = g.n;

		ck_assert_int_ge(outbox_read(w.ring, w.data, DATA, take, &g), 0);
		ck_assert(g.n == before || g.first_tag == 1);
		ck_assert(g.n == 0 || g.last_tag == g.n); /* in order */
	}
	pthread_join(th, NULL);
	ck_assert_int_eq(g.last_tag, (int)wr.n);
	free(mem);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("outbox");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, one_wake_a_sleep);
	tcase_add_test(tc, full_ring_waits);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
