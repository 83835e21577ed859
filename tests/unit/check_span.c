/*
 * check_span.c - span rings: the writer's phases, the reader, overflow and
 * the root reserve, names; and rank_run recording a real program.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"
#include "seg.h"
#include "span.h"

#define RING_BYTES (64 * 1024)

static struct span_ring *ring;

static void
setup(void)
{
	ring = aligned_alloc(64, RING_BYTES);
	memset(ring, 0, RING_BYTES);
}

static void
teardown(void)
{
	free(ring);
}

/* A program whose ops are named names[i] (notify to self, add 1). */
static struct prog *
named_prog(const char *const *names, size_t n)
{
	struct prog *p = prog_new("t");

	for (size_t i = 0; i < n; i++) {
		struct uop u;

		memset(&u, 0, sizeof u);
		u.kind = UOP_NOTIFY;
		u.dtype = DT_I32;
		u.value = 1;
		u.name = prog_str(p, names[i]);
		prog_add(p, &u);
	}
	return p;
}

/* Run every op of p through the writer: op i takes 10 ns from t=100+10i. */
static void
fake_run(struct span_writer *w, const struct prog *p)
{
	for (uint32_t pc = 0; pc < p->nmops; pc++) {
		uint64_t t0 = 100 + 10 * pc;

		span_op_start(w, pc, t0);
		span_op_end(w, pc, t0, t0 + 10, (int32_t)pc, SPAN_R_VALUE);
	}
	span_writer_end(w, 100 + 10 * p->nmops);
}

static size_t
drain(struct span_rec *out, size_t max)
{
	return span_ring_read(ring, RING_BYTES, out, max);
}

static void
name_of(const struct prog *p, const struct span_rec *r, char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	ck_assert_int_eq(span_name(p, r->pc, r->level, &sb), 0);
	snprintf(buf, len, "%s", sb.buf);
	strbuf_release(&sb);
}

START_TEST(cap_and_defaults)
{
	ck_assert_uint_eq(span_ring_cap(4096), 0); /* too small: off */
	ck_assert_uint_eq(span_ring_cap(RING_BYTES),
	    (RING_BYTES - offsetof(struct span_ring, recs)) / 40);
	ck_assert_uint_eq(sizeof(struct span_rec), 40);
	ck_assert_uint_eq(span_ring_default_bytes(4), 16u << 20);
	ck_assert_uint_eq(span_ring_default_bytes(64), 2u << 20);
	ck_assert_uint_eq(span_ring_default_bytes(256), 512u << 10);
}
END_TEST

START_TEST(phases_open_and_close_innermost_first)
{
	static const char *const names[] = { "c.a.x.notify", "c.a.x.notify",
		"c.a.x.wait", "c.a.y", "c.b", "c.epilogue" };
	struct prog *p = named_prog(names, 6);
	struct span_writer w;
	struct span_rec r[64];
	char nm[64];
	size_t n;
	/* expected: records in emission order, (name, ts, dur) */
	static const struct {
		const char *name;
		uint64_t ts, dur;
	} want[] = {
		{ "c.a.x.notify", 100, 10 },
		{ "c.a.x.notify", 110, 10 },
		{ "c.a.x.wait", 120, 10 },
		{ "c.a.x", 100, 30 },
		{ "c.a.y", 130, 10 },
		{ "c.a", 100, 40 },
		{ "c.b", 140, 10 },
		{ "c.epilogue", 150, 10 },
		{ "c", 100, 60 },
	};

	span_writer_begin(&w, ring, RING_BYTES, p, 3, 77, 5, SPAN_DETAIL_OPS);
	fake_run(&w, p);
	n = drain(r, 64);
	ck_assert_uint_eq(n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < n; i++) {
		name_of(p, &r[i], nm, sizeof nm);
		ck_assert_str_eq(nm, want[i].name);
		ck_assert_uint_eq(r[i].ts, want[i].ts);
		ck_assert_uint_eq(r[i].dur, want[i].dur);
		ck_assert_uint_eq(r[i].tag, 77);
		ck_assert_uint_eq(r[i].iter, 5);
		ck_assert_uint_eq(r[i].rank, 3);
	}
	ck_assert_uint_eq(r[8].level, 1); /* the root */
	ck_assert_uint_eq(r[0].level, SPAN_LEVEL_OP);
	ck_assert_int_eq(r[2].value, 2);
	ck_assert_uint_eq(span_ring_pending(ring), 0);
	prog_free(p);
}
END_TEST

START_TEST(retry_does_not_split_phases)
{
	static const char *const names[] = { "c.x.wait", "c.x.wait" };
	struct prog *p = named_prog(names, 2);
	struct span_writer w;
	struct span_rec r[16];

	span_writer_begin(&w, ring, RING_BYTES, p, 0, 1, 0, SPAN_DETAIL_OPS);
	span_op_start(&w, 0, 100); /* interrupted: no span */
	span_op_start(&w, 0, 150); /* retried */
	span_op_end(&w, 0, 150, 160, 0, 0);
	span_op_start(&w, 1, 160);
	span_op_end(&w, 1, 160, 170, 0, 0);
	span_writer_end(&w, 170);
	ck_assert_uint_eq(drain(r, 16), 4);
	ck_assert_uint_eq(r[2].level, 2); /* c.x from the first start */
	ck_assert_uint_eq(r[2].ts, 100);
	ck_assert_uint_eq(r[2].dur, 70);
	ck_assert_uint_eq(r[3].level, 1);
	prog_free(p);
}
END_TEST

START_TEST(empty_names_are_the_kind)
{
	static const char *const names[] = { "" };
	struct prog *p = named_prog(names, 1);
	struct span_writer w;
	struct span_rec r[4];
	char nm[32];

	span_writer_begin(&w, ring, RING_BYTES, p, 0, 1, 0, SPAN_DETAIL_OPS);
	fake_run(&w, p);
	ck_assert_uint_eq(drain(r, 4), 1); /* no phase */
	name_of(p, &r[0], nm, sizeof nm);
	ck_assert_str_eq(nm, "notify");
	ck_assert_uint_eq(span_name_levels("a.b.c"), 3);
	ck_assert_uint_eq(span_name_levels("a"), 1);
	prog_free(p);
}
END_TEST

START_TEST(full_ring_counts_lost_and_keeps_roots)
{
	uint64_t cap = span_ring_cap(RING_BYTES);
	const char **names = calloc(cap, sizeof *names);
	struct prog *p;
	struct span_writer w;
	struct span_rec *r = calloc(cap + 8, sizeof *r);
	size_t n;

	for (uint64_t i = 0; i < cap; i++)
		names[i] = "root.op";
	p = named_prog(names, cap);
	span_writer_begin(&w, ring, RING_BYTES, p, 0, 1, 0, SPAN_DETAIL_OPS);
	fake_run(&w, p);
	/* cap ops + 1 root offered; ops stop at cap - reserve */
	ck_assert_uint_eq(span_ring_lost(ring), SPAN_ROOT_RESERVE);
	n = drain(r, cap + 8);
	ck_assert_uint_eq(n, cap - SPAN_ROOT_RESERVE + 1);
	ck_assert_uint_eq(r[n - 1].level, 1);
	ck_assert_uint_eq(r[n - 1].dur, 10 * cap);
	free(r);
	free(names);
	prog_free(p);
}
END_TEST

START_TEST(reader_wraps_in_order)
{
	static const char *const names[] = { "a", "b", "c", "d", "e" };
	struct prog *p = named_prog(names, 5);
	uint64_t cap = span_ring_cap(RING_BYTES), total = 0;
	struct span_rec r[8];
	struct span_writer w;

	/* 5 records per run; run until the slots wrapped twice */
	for (uint32_t run = 0; total < 2 * cap; run++) {
		size_t n;

		span_writer_begin(&w, ring, RING_BYTES, p, 0, 9, run,
		    SPAN_DETAIL_OPS);
		fake_run(&w, p);
		n = drain(r, 8);
		ck_assert_uint_eq(n, 5);
		for (size_t i = 0; i < n; i++) {
			ck_assert_uint_eq(r[i].pc, i);
			ck_assert_uint_eq(r[i].iter, run);
		}
		total += n;
	}
	ck_assert_uint_eq(span_ring_lost(ring), 0);
	prog_free(p);
}
END_TEST

START_TEST(repeats_reuse_the_phase_table)
{
	static const char *const a[] = { "c.x.n", "c.x.w", "c.y" };
	static const char *const b[] = { "d", "d.e.f" };
	struct prog *p = named_prog(a, 3), *q = named_prog(b, 2);
	struct span_writer w;
	struct span_rec r[16];
	uint8_t *first;

	span_writer_begin(&w, ring, RING_BYTES, p, 0, 5, 0, SPAN_DETAIL_OPS);
	first = w.depth;
	fake_run(&w, p);
	span_writer_begin(&w, ring, RING_BYTES, p, 0, 5, 1, SPAN_DETAIL_OPS);
	ck_assert_ptr_eq(w.depth, first); /* iteration 1: reused */
	fake_run(&w, p);
	ck_assert_uint_eq(drain(r, 16), 10);
	/* another program, even at iteration > 0, gets its own table */
	span_writer_begin(&w, ring, RING_BYTES, q, 0, 5, 1, SPAN_DETAIL_OPS);
	ck_assert_uint_eq(w.depth[1], 3);
	ck_assert_uint_eq(w.keep[1], 0);
	fake_run(&w, q);
	ck_assert_uint_eq(drain(r, 16), 4); /* d, d.e.f, d.e, d */
	prog_free(p);
	prog_free(q);
}
END_TEST

START_TEST(off_when_no_ring)
{
	static const char *const names[] = { "a.b" };
	struct prog *p = named_prog(names, 1);
	struct span_writer w;

	span_writer_begin(&w, NULL, 0, p, 0, 1, 0, SPAN_DETAIL_OPS);
	fake_run(&w, p);
	span_writer_begin(&w, ring, 4096, p, 0, 1, 0,
	    SPAN_DETAIL_OPS); /* too small */
	fake_run(&w, p);
	ck_assert_uint_eq(span_ring_pending(ring), 0);
	prog_free(p);
}
END_TEST

/* rank_run on a real segment (one rank, this process). */
START_TEST(rank_run_records_tiled_spans)
{
	static const char *const names[] = { "coll.ready.notify",
		"coll.ready.wait", "coll.chunk0.copy", "coll.epilogue" };
	struct seg s;
	struct rank_ctx rc;
	struct done_info di;
	struct prog *p = prog_new("coll");
	struct span_rec r[64];
	char *cause = NULL;
	uint64_t sum = 0;
	size_t n;
	uint64_t shape[1] = { 4 };
	struct seg_window *sig;

	ck_assert_msg(seg_create(&s, "unit", 1, 1 << 20, 1 << 20, &cause) == 0,
	    "%s", cause);
	seg_unlink(&s);
	sig = seg_win_alloc(&s, "sig", shape, 1, DT_I32, 0, NULL);
	for (int i = 0; i < 4; i++) {
		struct uop u;

		memset(&u, 0, sizeof u);
		u.dtype = DT_I32;
		u.dst = sig->off + (i == 2 ? 8 : 0);
		u.count = 1;
		u.name = prog_str(p, names[i]);
		u.kind = i == 1 ? UOP_WAIT : i == 2 ? UOP_COPY : UOP_NOTIFY;
		u.value = i == 3 ? -1 : 1;
		u.op = i == 1 ? CMP_GE : NOTIFY_ADD;
		if (i == 2)
			u.src = sig->off + 12;
		prog_add(p, &u);
	}
	ck_assert_int_eq(rank_attach(&rc, s.fd, -1, 0, &cause), 0);
	for (rc.iter = 0; rc.iter < 2; rc.iter++)
		ck_assert_int_eq(rank_run(&rc, p, 42, 0, &di, &cause), DONE_OK);
	n = span_ring_read(seg_spans(&s, 0), s.h->span_bytes, r, 64);
	/* per run: 4 ops, ready, chunk0, root */
	ck_assert_uint_eq(n, 14);
	for (size_t i = 0; i < 7; i++) {
		ck_assert_uint_eq(r[i].iter, 0);
		ck_assert_uint_eq(r[i + 7].iter, 1);
		ck_assert_uint_eq(r[i].tag, 42);
	}
	/* ops tile the root: each starts where the previous ended */
	ck_assert_uint_eq(r[0].level, SPAN_LEVEL_OP);
	ck_assert_uint_eq(r[1].ts, r[0].ts + r[0].dur);
	ck_assert_uint_eq(r[2].level, 2);		/* coll.ready */
	ck_assert_uint_eq(r[3].ts, r[1].ts + r[1].dur); /* the copy */
	ck_assert_uint_eq(r[6].level, 1);
	for (size_t i = 0; i < 7; i++) {
		if (r[i].level == SPAN_LEVEL_OP)
			sum += r[i].dur;
	}
	ck_assert_uint_eq(sum, r[6].dur);
	/* values: the notify saw its cell become 1, the wait saw 1 */
	ck_assert_int_eq(r[0].value, 1);
	ck_assert(r[0].flags & SPAN_R_VALUE);
	ck_assert_int_eq(r[1].value, 1);
	ck_assert(!(r[3].flags & SPAN_R_VALUE));
	ck_assert_uint_eq(span_ring_lost(seg_spans(&s, 0)), 0);
	rank_detach(&rc);
	seg_close(&s);
	prog_free(p);
	free(cause);
}
END_TEST

int
main(void)
{
	Suite *su = suite_create("span");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cap_and_defaults);
	tcase_add_test(tc, phases_open_and_close_innermost_first);
	tcase_add_test(tc, retry_does_not_split_phases);
	tcase_add_test(tc, empty_names_are_the_kind);
	tcase_add_test(tc, full_ring_counts_lost_and_keeps_roots);
	tcase_add_test(tc, reader_wraps_in_order);
	tcase_add_test(tc, repeats_reuse_the_phase_table);
	tcase_add_test(tc, off_when_no_ring);
	tcase_add_test(tc, rank_run_records_tiled_spans);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
