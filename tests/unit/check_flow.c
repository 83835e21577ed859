/*
 * check_flow.c - the notify->wait arrows of a saved Chrome trace
 * (shell/trace/trace-flow.c): one per released wait, inside both spans,
 * never backwards, whatever order the two ranks read their clocks in.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "span.h"
#include "trace/trace.h"

/* A notify from rank `from` to `to` (add value, or set), or a wait of
 * rank `to` for >= value, on cell 0, over [ts, end] ns. */
struct ev {
	struct uop u;
	struct span_rec rec;
	struct trace_span sp;
};

static void
ev_make(struct ev *e, int kind, int from, int to, int value, uint64_t ts,
    uint64_t end)
{
	memset(e, 0, sizeof *e);
	e->u.kind = (uint8_t)kind;
	e->u.dtype = DT_I32;
	e->u.value = value;
	e->u.op = kind == UOP_NOTIFY ? NOTIFY_ADD : CMP_GE;
	e->u.peer = kind == UOP_NOTIFY ? to : from;
	e->rec.rank = (uint16_t)(kind == UOP_NOTIFY ? from : to);
	e->rec.ts = ts;
	e->rec.dur = end - ts;
	e->sp.rec = &e->rec;
	e->sp.op = &e->u;
	e->sp.name = kind == UOP_NOTIFY ? "notify" : "wait";
}

static size_t
count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

/* The arrows for evs: "s" and "f" events in sb. */
static void
flows(struct ev *evs, size_t n, struct strbuf *sb)
{
	struct trace_flows *f = trace_flows_new();

	for (size_t i = 0; i < n; i++)
		trace_flows_note(f, &evs[i].sp);
	trace_flows_json(f, sb, stdout);
	trace_flows_free(f);
}

START_TEST(notify_done_before_the_wait_ends)
{
	struct ev e[2];
	struct strbuf sb = STRBUF_INIT;

	ev_make(&e[0], UOP_WAIT, 0, 1, 1, 1000, 5000);
	ev_make(&e[1], UOP_NOTIFY, 0, 1, 1, 2000, 3000);
	flows(e, 2, &sb);
	ck_assert_uint_eq(count(sb.buf, "\"ph\": \"s\""), 1);
	ck_assert_uint_eq(count(sb.buf, "\"ph\": \"f\""), 1);
	ck_assert_ptr_nonnull(strstr(sb.buf, "\"ts\": 3.000}"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "\"ts\": 5.000}"));
	strbuf_release(&sb);
}
END_TEST

/* The waiter, woken by the notify's write, ends its span before the
 * notifier reads its clock (under load): that notify released it all
 * the same, and the arrow starts at the wait's end. */
START_TEST(waiter_ends_before_the_notifier)
{
	struct ev e[2];
	struct strbuf sb = STRBUF_INIT;

	ev_make(&e[0], UOP_WAIT, 0, 1, 1, 1000, 3000);
	ev_make(&e[1], UOP_NOTIFY, 0, 1, 1, 2000, 9000);
	flows(e, 2, &sb);
	ck_assert_uint_eq(count(sb.buf, "\"ph\": \"s\""), 1);
	ck_assert_uint_eq(count(sb.buf, "\"ph\": \"f\""), 1);
	ck_assert_uint_eq(count(sb.buf, "\"ts\": 3.000}"), 2);
	strbuf_release(&sb);
}
END_TEST

/* Of two notifies, the one that began before the wait ended released
 * it, not one that began later; a wait nothing could have released has
 * no arrow. */
START_TEST(only_a_notify_begun_before_the_end)
{
	struct ev e[3];
	struct strbuf sb = STRBUF_INIT;

	ev_make(&e[0], UOP_WAIT, 0, 1, 1, 1000, 3000);
	ev_make(&e[1], UOP_NOTIFY, 0, 1, 1, 2000, 2500);
	ev_make(&e[2], UOP_NOTIFY, 0, 1, 1, 4000, 4500);
	flows(e, 3, &sb);
	ck_assert_uint_eq(count(sb.buf, "\"ph\": \"f\""), 1);
	ck_assert_ptr_nonnull(strstr(sb.buf, "\"ts\": 2.500}"));
	ck_assert_ptr_null(strstr(sb.buf, "\"ts\": 4.500}"));
	strbuf_reset(&sb);
	flows(e + 2, 1, &sb); /* a notify alone: no wait, no arrow */
	ck_assert_uint_eq(sb.len, 0);
	ev_make(&e[1], UOP_NOTIFY, 0, 1, 1, 3500, 3600);
	flows(e, 2, &sb); /* begun after the wait ended */
	ck_assert_uint_eq(sb.len, 0);
	strbuf_release(&sb);
}
END_TEST

int
main(void)
{
	Suite *su = suite_create("flow");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, notify_done_before_the_wait_ends);
	tcase_add_test(tc, waiter_ends_before_the_notifier);
	tcase_add_test(tc, only_a_notify_begun_before_the_end);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
