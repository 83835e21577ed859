/*
 * check_tree.c - span trees in PyPTO's print_tree / print_mean_tree
 * layout (viz/tree.c).  Expected strings are what bench.py's
 * format_tree() / format_mean_tree() return for the same spans.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "strace.h"
#include "strbuf.h"
#include "tree.h"

/* common.h's `unused` macro breaks check.h's __attribute__((unused)) */
#undef unused

/* ---- tree_render ------------------------------------------------------------ */

static int
cols_two(void *arg, size_t key, char cols[TREE_MAX_COLS][TREE_COL_MAX])
{
	int *calls = arg;
	size_t i, n = 0;

	(*calls)++;
	snprintf(cols[0], TREE_COL_MAX, "%zu.5us", key);
	n = (size_t)snprintf(cols[1], TREE_COL_MAX, "\xc2\xb1");
	for (i = 0; i < key % 3; i++)
		cols[1][n++] = (char)('0' + key);
	cols[1][n] = '\0';
	return 2;
}

static int
cols_one(void *arg, size_t key, char cols[TREE_MAX_COLS][TREE_COL_MAX])
{
	snprintf(cols[0], TREE_COL_MAX, "%zu.5us", key);
	return 1;
}

START_TEST(test_render)
{
	static const struct {
		const char *name;
		int64_t ts;
		int dev;
	} in[] = {
		{ "r", 0, 0 },
		{ "r.b", 20, 0 },
		{ "r.a", 10, 0 },
		{ "r.a.x.y", 5, 0 },
		{ "r.a", 99, 0 },
		{ "other", -1, 0 },
		{ "r.dev", 20, 1 },
		{ "r.caf\xc3\xa9", 30, 0 },
	};
	struct tree_item items[8];
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int calls = 0;

	for (i = 0; i < 8; i++) {
		items[i].name = in[i].name;
		items[i].len = strlen(in[i].name);
		items[i].ts = in[i].ts;
		items[i].device = in[i].dev;
		items[i].key = i;
	}
	/*
	 * "r.a" twice: the first is the node; "r.a.x.y" hangs under "r.a"
	 * (no "r.a.x"); roots and siblings by ts, ties in input order;
	 * "café" and "±" are one column each, as len() counts them.
	 */
	tree_render(&sb, items, 8, cols_two, &calls);
	ck_assert_str_eq(sb.buf,
	    "other         5.5us  \xc2\xb1"
	    "55\n"
	    "r             0.5us    \xc2\xb1\n"
	    "|- a          2.5us  \xc2\xb1"
	    "22\n"
	    "|  `- x.y     3.5us    \xc2\xb1\n"
	    "|- b          1.5us   \xc2\xb1"
	    "1\n"
	    "|- dev [dev]  6.5us    \xc2\xb1\n"
	    "`- caf\xc3\xa9       7.5us   \xc2\xb1"
	    "7");
	ck_assert_int_eq(calls, 7);
	strbuf_reset(&sb);
	tree_render(&sb, items, 0, cols_one, NULL);
	ck_assert_uint_eq(sb.len, 0);
	tree_render(&sb, items + 3, 1, cols_one, NULL);
	ck_assert_str_eq(sb.buf, "r.a.x.y  3.5us");
	strbuf_release(&sb);
}
END_TEST

START_TEST(test_render_deep)
{
	/* a 2000-level chain must not recurse on the C stack */
	struct strbuf names = STRBUF_INIT, sb = STRBUF_INIT;
	struct tree_item *items = calloc(2000, sizeof *items);
	size_t i, lines = 0;

	for (i = 0; i < 2000; i++)
		strbuf_addstr(&names, i ? ".n" : "n");
	for (i = 0; i < 2000; i++) {
		items[i].name = names.buf;
		items[i].len = 1 + 2 * i;
		items[i].ts = 0;
		items[i].key = i;
	}
	tree_render(&sb, items, 2000, cols_one, NULL);
	for (i = 0; i < sb.len; i++)
		lines += sb.buf[i] == '\n';
	ck_assert_uint_eq(lines, 1999);
	ck_assert_ptr_nonnull(strstr(sb.buf, "   `- n  1999.5us"));
	free(items);
	strbuf_release(&names);
	strbuf_release(&sb);
}
END_TEST

START_TEST(test_spread_names)
{
	enum tree_spread s;

	ck_assert_int_eq(tree_parse_spread("both", &s), 0);
	ck_assert_int_eq(s, TREE_SPREAD_BOTH);
	ck_assert_int_eq(tree_parse_spread("none", &s), 0);
	ck_assert_int_eq(s, TREE_SPREAD_NONE);
	ck_assert_int_eq(tree_parse_spread("Stdev", &s), -1);
}
END_TEST

/* ---- over struct stats --------------------------------------------------- */

static void
rec(struct strbuf *sb, int pid, int inv, const char *hid, int depth,
    const char *name, long long ts, long long dur, const char *attrs)
{
	strbuf_addf(sb,
	    "[STRACE] v=1 pid=%d tid=%d inv=%d hid=%s depth=%d "
	    "name=%s ts=%lld dur=%lld%s%s\n",
	    pid, pid, inv, hid, depth, name, ts, dur, *attrs ? " " : "", attrs);
}

static void
disp(struct strbuf *sb, int pid, int inv, const char *hid, long long ts,
    long long host, long long dev)
{
	rec(sb, pid, inv, hid, 2, "chip.run.runner_run.device_wall", 0, dev,
	    "clk=dev");
	rec(sb, pid, inv, hid, 0, "chip.run", ts, host, "");
}

/* as in check_stats.c: host pid 5, ranks 20 and 10, 2 dispatches/launch */
static struct span_set *
l3_log(int unstable)
{
	static const long long durs[2][3][2] = {
		{ { 150, 150 }, { 100, 100 }, { 100, 200 } },
		{ { 1000, 2000 }, { 1100, 2100 }, { 1200, 2200 } },
	};
	static const int pids[2] = { 20, 10 };
	struct strbuf sb = STRBUF_INIT;
	struct span_set *set = span_set_new();
	int inv[3] = { 0, 0, 0 }, k, r, s;

	for (k = 0; k < 3; k++) {
		rec(&sb, 5, ++inv[0], "ee", 0, "chip.run", k * 10000, 9000, "");
		for (r = 0; r < 2; r++) {
			for (s = 0; s < 2; s++) {
				const char *h = s ? "bb" : "aa";

				if (unstable && pids[r] == 10 && k == 2 && s == 0)
					h = "bb";
				disp(&sb, pids[r], ++inv[r + 1], h,
				    k * 10000 + pids[r] * 10 + s * 1000,
				    3000 + pids[r] + s, durs[r][k][s]);
			}
		}
	}
	strace_parse_buf(set, sb.buf, sb.len);
	strbuf_release(&sb);
	return set;
}

static struct span_set *
l2_log(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct span_set *set = span_set_new();

	disp(&sb, 7, 1, "aa", 100, 5000, 3000);
	disp(&sb, 7, 2, "bb", 200, 6000, 3100);
	disp(&sb, 7, 3, "aa", 300, 7000, 3300);
	disp(&sb, 7, 4, "bb", 400, 8000, 3400);
	disp(&sb, 7, 5, "aa", 500, 9000, 3500);
	rec(&sb, 7, 6, "bb", 0, "chip.run", 600, 1000, "");
	rec(&sb, 7, 7, "aa", 2, "chip.run.runner_run.device_wall", 5, 4000,
	    "clk=dev");
	rec(&sb, 7, 7, "aa", 2, "chip.run.runner_run.device_wall", 1, 1000,
	    "clk=dev");
	rec(&sb, 7, 7, "aa", 0, "chip.run", 700, 2000, "");
	strace_parse_buf(set, sb.buf, sb.len);
	strbuf_release(&sb);
	return set;
}

static struct stats *
compute(const struct span_set *set, enum stats_level lv, long rounds, long warmup)
{
	struct stats_opts o = { .level = lv, .rounds = rounds, .warmup = warmup };

	return stats_new(set, &o);
}

START_TEST(test_launches)
{
	struct span_set *set = l3_log(0);
	struct stats *st = compute(set, STATS_L3, 2, 1);
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;

	ck_assert_int_eq(tree_format_launches(st, &sb, 1, -1, 0, &cause), 0);
	ck_assert_str_eq(sb.buf,
	    "launch[-1] (pid=20 inv=6 hid=bb round=1 slot=1):\n"
	    "chip.run                         3.0us\n"
	    "`- runner_run.device_wall [dev]  0.2us");
	strbuf_reset(&sb);
	ck_assert_int_eq(tree_format_launches(st, &sb, 1, 0, 1, &cause), 0);
	ck_assert_str_eq(sb.buf,
	    "launch[0] (pid=10 inv=3 hid=aa round=0 slot=0):\n"
	    "chip.run                         3010ns\n"
	    "`- runner_run.device_wall [dev]  1100ns");
	strbuf_reset(&sb);
	ck_assert_int_eq(tree_format_launches(st, &sb, 0, 0, 0, &cause), 0);
	ck_assert_ptr_nonnull(strstr(sb.buf, "\nlaunch[7] (pid=20 inv=6 "));
	strbuf_reset(&sb);
	ck_assert_int_eq(tree_format_launches(st, &sb, 1, 8, 0, &cause), -1);
	ck_assert_str_eq(cause, "launch 8 out of range (8 measured launches)");
	free(cause);
	cause = NULL;
	ck_assert_int_eq(tree_format_launches(st, &sb, 1, -9, 0, &cause), -1);
	free(cause);
	stats_free(st);
	span_set_free(set);

	set = l2_log();
	st = compute(set, STATS_L2, 3, 1);
	strbuf_reset(&sb);
	ck_assert_int_eq(tree_format_launches(st, &sb, 1, 1, 0, NULL), 0);
	ck_assert_str_eq(sb.buf,
	    "launch[1] (pid=7 inv=5 hid=aa):\n"
	    "chip.run                         9.0us\n"
	    "`- runner_run.device_wall [dev]  3.5us");
	stats_free(st);
	span_set_free(set);

	/* nothing measured: PyPTO's message, whatever the launch */
	set = span_set_new();
	st = compute(set, STATS_AUTO, -1, 3);
	strbuf_reset(&sb);
	ck_assert_int_eq(tree_format_launches(st, &sb, 1, 5, 0, NULL), 0);
	ck_assert_str_eq(sb.buf, tree_msg_no_tree);
	stats_free(st);
	span_set_free(set);
	strbuf_release(&sb);
}
END_TEST

static void
check_mean(const struct stats *st, const struct tree_mean_opts *o,
    const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	tree_format_mean(st, &sb, o);
	ck_assert_str_eq(sb.buf, want);
	strbuf_release(&sb);
}

START_TEST(test_mean_l3)
{
	struct span_set *set = l3_log(0);
	struct stats *st = compute(set, STATS_L3, 2, 1);
	struct tree_mean_opts both_pid = { TREE_SPREAD_BOTH, 0, 1, 20, 0, 0 };
	struct tree_mean_opts none_slot = { TREE_SPREAD_NONE, 1, 0, 0, 1, 1 };
	struct tree_mean_opts nomatch = { TREE_SPREAD_STDEV, 0, 1, 99, 1, 0 };

	check_mean(st, &both_pid,
	    "dispatch pid=20 slot=0 task=aa \xe2\x80\x94 mean of 2 launches "
	    "(warmup 1 excluded); each node: mean \xc2\xb1stdev [min..max]:\n"
	    "chip.run                         3.0us  \xc2\xb1"
	    "0.0  [3.0..3.0]\n"
	    "`- runner_run.device_wall [dev]  0.1us  \xc2\xb1"
	    "0.0  [0.1..0.1]\n"
	    "\n"
	    "dispatch pid=20 slot=1 task=bb \xe2\x80\x94 mean of 2 launches "
	    "(warmup 1 excluded); each node: mean \xc2\xb1stdev [min..max]:\n"
	    "chip.run                         3.0us  \xc2\xb1"
	    "0.0  [3.0..3.0]\n"
	    "`- runner_run.device_wall [dev]  0.1us  \xc2\xb1"
	    "0.1  [0.1..0.2]");
	check_mean(st, &none_slot,
	    "dispatch pid=10 slot=1 task=bb \xe2\x80\x94 mean of 2 launches "
	    "(warmup 1 excluded); each node: mean:\n"
	    "chip.run                         3011.0ns\n"
	    "`- runner_run.device_wall [dev]  2150.0ns\n"
	    "\n"
	    "dispatch pid=20 slot=1 task=bb \xe2\x80\x94 mean of 2 launches "
	    "(warmup 1 excluded); each node: mean:\n"
	    "chip.run                         3021.0ns\n"
	    "`- runner_run.device_wall [dev]   150.0ns");
	check_mean(st, &nomatch,
	    "BenchmarkStats: no dispatch matches pid=99 slot=0");
	stats_free(st);
	span_set_free(set);

	set = l3_log(1);
	st = compute(set, STATS_L3, 2, 1);
	check_mean(st, &both_pid, tree_msg_unstable);
	stats_free(st);
	span_set_free(set);
}
END_TEST

START_TEST(test_mean_l2)
{
	struct span_set *set = l2_log();
	struct stats *st = compute(set, STATS_L2, 3, 1);
	struct tree_mean_opts minmax = { TREE_SPREAD_MINMAX, 0, 0, 0, 0, 0 };
	struct tree_mean_opts slot = { TREE_SPREAD_STDEV, 0, 0, 0, 1, 0 };

	/* both device_walls of launch inv=7 count in the mean (1.0, 4.0) */
	check_mean(st, &minmax,
	    "mean of 3 launches (warmup 1 excluded); each node: mean "
	    "[min..max]:\n"
	    "chip.run                         6.0us  [2.0..9.0]\n"
	    "`- runner_run.device_wall [dev]  3.0us  [1.0..4.0]");
	check_mean(st, &slot,
	    "BenchmarkStats: no dispatch matches pid=None slot=0");
	stats_free(st);
	span_set_free(set);

	set = span_set_new();
	st = compute(set, STATS_L2, -1, 3);
	check_mean(st, &slot, tree_msg_no_tree);
	stats_free(st);
	span_set_free(set);
}
END_TEST

/*
 * Spans made in memory, the way the shell's bench records a collective:
 * rank index as pid, one inv per launch, the collective's root span as both
 * run root and device wall.  Stats and trees work on them unchanged.
 */
START_TEST(test_in_memory)
{
	static const long long total[2][3] = { { 9000, 10000, 12000 },
		{ 9500, 11000, 11500 } };
	struct span_set *set = span_set_new();
	struct stats_opts o = { .level = STATS_AUTO,
		.rounds = -1,
		.warmup = 1,
		.root_name = "allreduce",
		.device_name = "allreduce" };
	struct stats *st;
	struct strbuf sb = STRBUF_INIT;
	int r, k;

	for (k = 0; k < 3; k++) {
		for (r = 0; r < 2; r++) {
			int64_t t = k * 100000 + r * 500;

			span_set_add(set, r, r, (uint64_t)k + 1, "c0", 1,
			    "allreduce.barrier", t, 1000, NULL);
			span_set_add(set, r, r, (uint64_t)k + 1, "c0", 2,
			    "allreduce.step0.put", t + 1000, 3000, NULL);
			span_set_add(set, r, r, (uint64_t)k + 1, "c0", 2,
			    "allreduce.step0.notify", t + 4000, 100, NULL);
			span_set_add(set, r, r, (uint64_t)k + 1, "c0", 1,
			    "allreduce.step0", t + 1000, 4000, NULL);
			span_set_add(set, r, r, (uint64_t)k + 1, "c0", 0,
			    "allreduce", t, total[r][k], NULL);
		}
	}
	st = stats_new(set, &o);
	ck_assert_int_eq(st->level, STATS_L3);
	ck_assert_int_eq(st->rounds, 2);
	stats_format(st, &sb);
	ck_assert_str_eq(sb.buf,
	    "BenchmarkStats(rounds=2, warmup=1): "
	    "device_wall_us min=11.0 median=11.5 mean=11.5 max=12.0 stdev=0.7 "
	    "[L3: 2 ranks, per-round max across ranks; host-union mean=11.8us]");
	strbuf_reset(&sb);
	ck_assert_int_eq(tree_format_launches(st, &sb, 1, 0, 0, NULL), 0);
	ck_assert_str_eq(sb.buf,
	    "launch[0] (pid=0 inv=2 hid=c0 round=0 slot=0):\n"
	    "allreduce     10.0us\n"
	    "|- barrier     1.0us\n"
	    "`- step0       4.0us\n"
	    "   |- put      3.0us\n"
	    "   `- notify   0.1us");
	strbuf_release(&sb);
	stats_free(st);
	span_set_free(set);
}
END_TEST

static Suite *
tree_suite(void)
{
	Suite *s = suite_create("tree");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_render);
	tcase_add_test(tc, test_render_deep);
	tcase_add_test(tc, test_spread_names);
	tcase_add_test(tc, test_launches);
	tcase_add_test(tc, test_mean_l3);
	tcase_add_test(tc, test_mean_l2);
	tcase_add_test(tc, test_in_memory);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(tree_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
