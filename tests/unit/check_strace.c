/*
 * check_strace.c - the [STRACE] parser and span sets (viz/strace.c) and
 * the Chrome JSON reader (viz/chrome-read.c).
 *
 * Each case feeds a small log and asserts the spans, flags and
 * diagnostics that simpler's parse_spans() plus bench.py's text handling
 * produce for it (the expected values were checked against the Python).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strace.h"
#include "strbuf.h"

/* common.h's `unused` macro breaks check.h's __attribute__((unused)) */
#undef unused

#define REC(pid, inv, depth, name, ts, dur, attrs) \
	"[STRACE] v=1 pid=" #pid " tid=" #pid " inv=" #inv " hid=ab " \
	"depth=" #depth " name=" name " ts=" #ts " dur=" #dur attrs

static struct span_set *
parse(const char *text)
{
	struct span_set *set = span_set_new();

	strace_parse_buf(set, text, strlen(text));
	return set;
}

static const struct span *
nth(const struct span_set *set, size_t i)
{
	size_t n;
	const struct span *sp = span_set_spans(set, &n);

	ck_assert_uint_lt(i, n);
	return &sp[i];
}

static size_t
count(const struct span_set *set)
{
	size_t n;

	span_set_spans(set, &n);
	return n;
}

#define NAME(set, sp) span_set_str((set), (sp)->name)
#define ATTRS(set, sp) span_set_str((set), (sp)->attrs)

START_TEST(test_fields)
{
	struct span_set *set =
	    parse("[mono_ns=10030000][T0x7f00][TIMING] "
		  "emit_host_span: [STRACE] v=1 pid=4101 tid=4102 inv=2 "
		  "hid=9F3C2a1b depth=2 name=chip.run.runner_run.device_wall "
		  "ts=0 dur=45382 clk=dev  \n");
	const struct span *sp = nth(set, 0);

	ck_assert_uint_eq(count(set), 1);
	ck_assert_int_eq(sp->pid, 4101);
	ck_assert_int_eq(sp->tid, 4102);
	ck_assert_uint_eq(sp->inv, 2);
	ck_assert_str_eq(span_set_str(set, sp->hid), "9f3c2a1b");
	ck_assert_int_eq(sp->depth, 2);
	ck_assert_str_eq(NAME(set, sp), "chip.run.runner_run.device_wall");
	ck_assert_int_eq(sp->ts, 0);
	ck_assert_int_eq(sp->dur, 45382);
	ck_assert_str_eq(ATTRS(set, sp), "clk=dev");
	ck_assert_uint_eq(sp->line, 1);
	ck_assert(sp->flags & SPAN_DEVICE);
	ck_assert(sp->flags & SPAN_VIEW_FULL);
	ck_assert(!(sp->flags & SPAN_FOREIGN));
	span_set_free(set);
}
END_TEST

START_TEST(test_joined_records)
{
	/* two records on one line, bare and behind a host-log prefix */
	struct span_set *set = parse("x " REC(1, 1, 0, "a", 5, 6, " k=v") REC(2,
	    1, 0, "b", 7, 8, "") "[mono_ns=1][T0x2][TIMING] f: " REC(3, 1, 0,
	    "c", 9, 10, " clk=dev") "\n");

	ck_assert_uint_eq(count(set), 3);
	ck_assert_str_eq(ATTRS(set, nth(set, 0)), "k=v");
	ck_assert_int_eq(nth(set, 1)->pid, 2);
	ck_assert_str_eq(ATTRS(set, nth(set, 1)), "");
	ck_assert_str_eq(ATTRS(set, nth(set, 2)), "clk=dev");
	ck_assert(nth(set, 2)->flags & SPAN_DEVICE);
	ck_assert(!(nth(set, 0)->flags & SPAN_DEVICE));
	span_set_free(set);
}
END_TEST

START_TEST(test_attrs_end)
{
	/* attrs stop at a full host-log prefix, not at a partial one */
	struct span_set *set = parse(REC(1, 1, 0, "a", 1, 2,
	    " x=1 [mono_ns=5][T0xa][WARN] f: tail") "\n" REC(1, 2, 0, "a", 1, 2,
	    " x=1 [mono_ns=5][T0xa][WARN] f:tail") "\n" REC(1, 3, 0, "a", 1, 2,
	    " x=1 [mono_ns=5][T0xa][WARN] : t") "\n" REC(1, 4, 0, "a", 1, 2,
	    "7z") "\n"
	    /* the func part of a prefix may run over a later near-prefix */
	    REC(1, 5, 0, "a", 1, 2,
		" x [mono_ns=1][T0x1][A] y [mono_ns=2]"
		"[T0x2][B] f: z") "\n" REC(1, 6, 0, "a", 1, 2,
		" x [mono_ns=1][T0x1][A] y:z [mono_ns=2]"
		"[T0x2][B] f: z") "\n");

	ck_assert_uint_eq(count(set), 6);
	ck_assert_str_eq(ATTRS(set, nth(set, 0)), "x=1");
	ck_assert_str_eq(ATTRS(set, nth(set, 1)),
	    "x=1 [mono_ns=5][T0xa][WARN] f:tail");
	ck_assert_str_eq(ATTRS(set, nth(set, 2)),
	    "x=1 [mono_ns=5][T0xa][WARN] : t");
	/* "dur=27z": digits end the number, the rest is attrs */
	ck_assert_int_eq(nth(set, 3)->dur, 27);
	ck_assert_str_eq(ATTRS(set, nth(set, 3)), "z");
	ck_assert_str_eq(ATTRS(set, nth(set, 4)), "x");
	ck_assert_str_eq(ATTRS(set, nth(set, 5)), "x [mono_ns=1][T0x1][A] y:z");
	span_set_free(set);
}
END_TEST

START_TEST(test_percent_names)
{
	struct span_set *set = parse(REC(1, 1, 0, "chip.run.a%2Eb", 1, 2,
	    "") "\n" REC(1, 1, 1, "x%C3%A9", 1, 2, "") "\n" REC(1, 1, 1,
	    "p%%41%4", 1, 2, "") "\n" REC(1, 1, 1, "args~", 1, 2, "") "\n");

	ck_assert_str_eq(NAME(set, nth(set, 0)), "chip.run.a.b");
	/* chr(0xC3) chr(0xA9): two code points, as Python decodes them */
	ck_assert_str_eq(NAME(set, nth(set, 1)), "x\xc3\x83\xc2\xa9");
	ck_assert_str_eq(NAME(set, nth(set, 2)), "p%A%4");
	ck_assert_str_eq(NAME(set, nth(set, 3)), "args~");
	ck_assert_uint_eq(strace_utf8_len("x\xc3\x83\xc2\xa9", 5), 3);
	span_set_free(set);
}
END_TEST

START_TEST(test_malformed)
{
	struct span_set *set = parse(
	    "hello\n"
	    "[STRACE] v=1 pid=3 tid=3 inv=1 hid=ab depth=0 na\n"
	    "[STRACE] not a record\n"
	    "[STRACE] v=1 pid=3 tid=3 inv=1 hid=xy depth=0 name=a ts=1 dur=2\n"
	    "[STRACE] v=1 pid=99999999999999999999 tid=3 inv=1 hid=ab "
	    "depth=0 name=a ts=1 dur=2\n" REC(4, 1, 0, "ok", 1, 2, "") "\n");
	size_t n, total;
	const struct strace_diag *d = span_set_diags(set, &n, &total);

	ck_assert_uint_eq(count(set), 1);
	ck_assert_str_eq(NAME(set, nth(set, 0)), "ok");
	ck_assert_uint_eq(nth(set, 0)->line, 6);
	ck_assert_uint_eq(total, 3);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(d[0].line, 2);
	ck_assert_ptr_nonnull(strstr(d[0].msg, "\"name=\""));
	ck_assert_uint_eq(d[1].line, 4);
	ck_assert_ptr_nonnull(strstr(d[1].msg, "\"hid=\""));
	ck_assert_uint_eq(d[2].line, 5);
	ck_assert_ptr_nonnull(strstr(d[2].msg, "too large"));
	ck_assert_uint_eq(span_set_lines(set), 6);
	span_set_free(set);
}
END_TEST

START_TEST(test_line_breaks_and_spaces)
{
	/* str.splitlines() breaks (\r, \v, U+0085, U+2028) and Unicode
	 * whitespace (U+3000, U+00A0) between fields */
	struct span_set *set = parse(REC(1, 1, 0, "a", 1, 2,
	    " k=1") "\rtail\n" REC(1, 2, 0, "b", 1, 2, " k=2") "\xc2\x85" REC(1,
	    3, 0, "c", 1, 2,
	    "") "\n"
		"[STRACE]\xe3\x80\x80v=1 pid=5 tid=5 inv=1 hid=ab depth=0\xc2\xa0"
		"name=d ts=1 dur=2 k=3\xe2\x80\xa8more\n" REC(1, 4, 0, "e", 1, 2,
		    " a\xc2\xa0"
		    "b\xc2\xa0") "\n");

	ck_assert_uint_eq(count(set), 5);
	ck_assert_str_eq(ATTRS(set, nth(set, 0)), "k=1");
	ck_assert_str_eq(ATTRS(set, nth(set, 1)), "k=2");
	ck_assert_str_eq(NAME(set, nth(set, 2)), "c");
	ck_assert_int_eq(nth(set, 3)->pid, 5);
	ck_assert_str_eq(ATTRS(set, nth(set, 3)), "k=3");
	ck_assert_str_eq(ATTRS(set, nth(set, 4)),
	    "a\xc2\xa0"
	    "b");
	ck_assert_uint_eq(nth(set, 4)->line, 4);
	span_set_free(set);
}
END_TEST

START_TEST(test_invalid_utf8)
{
	struct span_set *set = parse(REC(1, 1, 0,
	    "a\xff"
	    "b\xe2\x80"
	    "c\xed\xa0\x80",
	    1, 2, "") "\n");

	/* one U+FFFD per maximal ill-formed subpart (Python's "replace") */
	ck_assert_str_eq(NAME(set, nth(set, 0)),
	    "a\xef\xbf\xbd"
	    "b\xef\xbf\xbd"
	    "c\xef\xbf\xbd\xef\xbf\xbd"
	    "\xef\xbf\xbd");
	span_set_free(set);
}
END_TEST

START_TEST(test_families)
{
	static const char *const names[] = { "node.submit", "node", "ext",
		"ext.p.s", "l3.x", "network3.y", "nodes.x", "chip.run", "l3x.y" };
	static const int foreign[] = { 1, 1, 1, 1, 1, 1, 0, 0, 0 };
	struct span_set *set = span_set_new();
	size_t i;

	for (i = 0; i < 9; i++)
		span_set_add(set, 1, 1, 1, "AB", 0, names[i], 0, 1, NULL);
	for (i = 0; i < 9; i++)
		ck_assert_int_eq(!!(nth(set, i)->flags & SPAN_FOREIGN),
		    foreign[i]);
	ck_assert_str_eq(span_set_str(set, nth(set, 0)->hid), "ab");
	span_set_free(set);
}
END_TEST

#define BEGIN "[pypto] l3_swimlane_pass=timing event=begin"
#define END "[pypto] l3_swimlane_pass=timing event=end"
#define GRAPH "[pypto] l3_swimlane_pass=graph event=begin"

START_TEST(test_sentinels)
{
	long blocks;
	struct span_set *set = parse(GRAPH "\n" REC(1, 1, 0, "outside", 1, 2,
	    "") "\n" BEGIN "\n" REC(1, 2, 0, "inside", 1, 2, "") "\n" REC(1, 3,
	    0, "cut", 1, 2, " clk=dev") END "x " REC(1, 4, 0, "after", 1, 2,
	    "") "\n"
		"pre " BEGIN REC(1, 5, 0, "mid", 1, 2, "") END "\n");

	ck_assert_int_eq(span_set_timing(set, &blocks), STRACE_TIMING_OK);
	ck_assert_int_eq(blocks, 2);
	ck_assert(span_set_has_pass_marker(set));
	/* full view: every record once */
	ck_assert_uint_eq(count(set), 7);
	ck_assert_str_eq(NAME(set, nth(set, 0)), "outside");
	ck_assert_uint_eq(nth(set, 0)->flags & (SPAN_VIEW_FULL | SPAN_VIEW_TIMING),
	    SPAN_VIEW_FULL);
	ck_assert_uint_eq(nth(set, 1)->flags & (SPAN_VIEW_FULL | SPAN_VIEW_TIMING),
	    SPAN_VIEW_FULL | SPAN_VIEW_TIMING);
	/* a sentinel line is parsed twice: whole, then its region part */
	ck_assert_str_eq(NAME(set, nth(set, 2)), "cut");
	ck_assert_uint_eq(nth(set, 2)->flags & SPAN_VIEW_TIMING, 0);
	ck_assert_str_eq(ATTRS(set, nth(set, 2)), "clk=dev" END "x");
	ck_assert_str_eq(NAME(set, nth(set, 3)), "after");
	ck_assert_uint_eq(nth(set, 3)->flags & SPAN_VIEW_TIMING, 0);
	ck_assert_str_eq(NAME(set, nth(set, 4)), "cut");
	ck_assert_uint_eq(nth(set, 4)->flags & (SPAN_VIEW_FULL | SPAN_VIEW_TIMING),
	    SPAN_VIEW_TIMING);
	ck_assert_str_eq(ATTRS(set, nth(set, 4)), "clk=dev");
	ck_assert_str_eq(NAME(set, nth(set, 5)), "mid");
	ck_assert_uint_eq(nth(set, 5)->flags & SPAN_VIEW_TIMING, 0);
	ck_assert_str_eq(NAME(set, nth(set, 6)), "mid");
	ck_assert_uint_eq(nth(set, 6)->flags & SPAN_VIEW_TIMING,
	    SPAN_VIEW_TIMING);
	span_set_free(set);
}
END_TEST

START_TEST(test_sentinels_bad)
{
	static const char *const bad[] = {
		END "\n" BEGIN "\n" END "\n", /* end before begin */
		BEGIN "\n" REC(1, 1, 0, "a", 1, 2, "") "\n", /* no end */
		GRAPH "\n" REC(1, 1, 0, "a", 1, 2, "") "\n", /* no timing */
		BEGIN END END "\n",			     /* two ends */
		BEGIN BEGIN END "\n",			     /* nested begin */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct span_set *set = parse(bad[i]);

		ck_assert_msg(span_set_timing(set, NULL) == STRACE_TIMING_BAD,
		    "case %zu", i);
		span_set_free(set);
	}
	{
		struct span_set *set = parse(REC(1, 1, 0, "a", 1, 2, "") "\n");

		ck_assert_int_eq(span_set_timing(set, NULL), STRACE_TIMING_NONE);
		ck_assert(!span_set_has_pass_marker(set));
		span_set_free(set);
	}
}
END_TEST

START_TEST(test_chunked_feed)
{
	const char *text = "junk\n" REC(1, 1, 0, "a\xc3\xa9", 1, 2, " k=v")
	    REC(2, 1, 1, "b", 3, 4, "") "\r\n" BEGIN REC(3, 1, 0, "c", 5, 6,
		"") "\n" END "\n" REC(4, 1, 0, "d", 7, 8, "");
	struct span_set *whole = parse(text), *bytes = span_set_new();
	struct strace_parser *p = strace_parser_new(bytes);
	size_t i, n1, n2;
	const struct span *a, *b;

	for (i = 0; text[i] != '\0'; i++)
		strace_parser_feed(p, text + i, 1);
	strace_parser_finish(p);
	strace_parser_free(p);
	a = span_set_spans(whole, &n1);
	b = span_set_spans(bytes, &n2);
	ck_assert_uint_eq(n1, 5);
	ck_assert_uint_eq(n1, n2);
	for (i = 0; i < n1; i++) {
		ck_assert_int_eq(a[i].pid, b[i].pid);
		ck_assert_int_eq(a[i].ts, b[i].ts);
		ck_assert_uint_eq(a[i].flags, b[i].flags);
		ck_assert_uint_eq(a[i].line, b[i].line);
		ck_assert_str_eq(span_set_str(whole, a[i].name),
		    span_set_str(bytes, b[i].name));
		ck_assert_str_eq(span_set_str(whole, a[i].attrs),
		    span_set_str(bytes, b[i].attrs));
	}
	ck_assert_uint_eq(a[4].line, 5); /* no final newline */
	ck_assert_int_eq(span_set_timing(bytes, NULL), STRACE_TIMING_OK);
	span_set_free(whole);
	span_set_free(bytes);
}
END_TEST

START_TEST(test_intern)
{
	struct span_set *set = span_set_new();
	uint32_t a = span_set_intern(set, "a\0b", 3);
	uint32_t b = span_set_intern(set, "a", 1);
	char big[100];
	uint32_t ids[5000];
	size_t i;

	ck_assert_uint_ne(a, b);
	ck_assert_uint_eq(span_set_intern(set, "a\0b", 3), a);
	ck_assert_uint_eq(span_set_strlen(set, a), 3);
	ck_assert_uint_eq(span_set_lookup(set, "zz", 2), SPAN_NOSTR);
	/* many strings: rehashing keeps ids and pointers stable */
	for (i = 0; i < 5000; i++) {
		snprintf(big, sizeof big, "name.%zu", i);
		ids[i] = span_set_intern(set, big, strlen(big));
	}
	for (i = 0; i < 5000; i++) {
		snprintf(big, sizeof big, "name.%zu", i);
		ck_assert_uint_eq(span_set_lookup(set, big, strlen(big)), ids[i]);
		ck_assert_str_eq(span_set_str(set, ids[i]), big);
	}
	ck_assert_uint_eq(span_set_nstr(set), 5002);
	span_set_free(set);
}
END_TEST

START_TEST(test_chrome_read)
{
	const char *json =
	    "{\"traceEvents\": ["
	    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0,"
	    " \"args\": {\"name\": \"decode inv=7 (pid=4101)\"}},"
	    "{\"name\": \"chip.run\", \"ph\": \"X\", \"ts\": 80000.5, "
	    "\"dur\": 97.126, \"pid\": 1, \"tid\": 0, \"args\": {\"inv\": 7, "
	    "\"hid\": \"9f3c\", \"depth\": 0, \"attrs\": \"\"}},"
	    "{\"name\": \"chip.run.x\\u00c3\", \"ph\": \"X\", \"ts\": 0.0, "
	    "\"dur\": 45.382, \"pid\": 2, \"tid\": 1, \"args\": {\"inv\": 3, "
	    "\"hid\": \"AB\", \"depth\": 1, \"attrs\": \"clk=dev\"}},"
	    "{\"name\": \"no.args\", \"ph\": \"X\", \"ts\": 1, \"dur\": 1, "
	    "\"pid\": 1, \"tid\": 0}"
	    "], \"displayTimeUnit\": \"ms\"}";
	struct span_set *set = span_set_new();
	char *cause = NULL;
	size_t n, total;

	ck_assert(chrome_sniff(json, strlen(json)));
	ck_assert(chrome_sniff(" [ {", 4));
	ck_assert(!chrome_sniff("[STRACE] v=1", 12));
	ck_assert(!chrome_sniff("[mono_ns=1]", 11));
	ck_assert_int_eq(chrome_read(set, json, strlen(json), &cause), 0);
	ck_assert_uint_eq(count(set), 2);
	ck_assert_int_eq(nth(set, 0)->pid, 4101);
	ck_assert_uint_eq(nth(set, 0)->inv, 7);
	ck_assert_int_eq(nth(set, 0)->ts, 80000500);
	ck_assert_int_eq(nth(set, 0)->dur, 97126);
	ck_assert_int_eq(nth(set, 1)->pid, 2); /* no lane name: lane id */
	ck_assert_int_eq(nth(set, 1)->dur, 45382);
	ck_assert_str_eq(span_set_str(set, nth(set, 1)->hid), "ab");
	ck_assert_str_eq(NAME(set, nth(set, 1)), "chip.run.x\xc3\x83");
	ck_assert(nth(set, 1)->flags & SPAN_DEVICE);
	span_set_diags(set, &n, &total);
	ck_assert_uint_eq(total, 1);
	ck_assert_int_eq(chrome_read(set, "{\"a\": [1,", 9, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "invalid JSON"));
	free(cause);
	cause = NULL;
	ck_assert_int_eq(chrome_read(set, "{\"a\": 1}", 8, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "traceEvents"));
	free(cause);
	span_set_free(set);
}
END_TEST

static Suite *
strace_suite(void)
{
	Suite *s = suite_create("strace");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_joined_records);
	tcase_add_test(tc, test_attrs_end);
	tcase_add_test(tc, test_percent_names);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_line_breaks_and_spaces);
	tcase_add_test(tc, test_invalid_utf8);
	tcase_add_test(tc, test_families);
	tcase_add_test(tc, test_sentinels);
	tcase_add_test(tc, test_sentinels_bad);
	tcase_add_test(tc, test_chunked_feed);
	tcase_add_test(tc, test_intern);
	tcase_add_test(tc, test_chrome_read);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(strace_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
