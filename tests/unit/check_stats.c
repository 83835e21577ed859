/*
 * check_stats.c - BenchmarkStats aggregation and its exact arithmetic
 * (viz/stats.c).
 *
 * The logs are built here the way the expected strings were produced: the
 * same records were fed to PyPTO's bench._parse_stats_from_strace() and
 * str() of the result is what the assertions compare against.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "strace.h"
#include "strbuf.h"

/* common.h's `unused` macro breaks check.h's __attribute__((unused)) */
#undef unused

static void
rec(struct strbuf *sb, int pid, int inv, const char *hid, int depth,
    const char *name, long long ts, long long dur, const char *attrs)
{
	strbuf_addf(sb,
	    "[STRACE] v=1 pid=%d tid=%d inv=%d hid=%s depth=%d "
	    "name=%s ts=%lld dur=%lld%s%s\n",
	    pid, pid, inv, hid, depth, name, ts, dur, *attrs ? " " : "", attrs);
}

/* One dispatch: a device_wall (dev >= 0) and the chip.run root. */
static void
disp(struct strbuf *sb, int pid, int inv, const char *hid, long long ts,
    long long host, long long dev)
{
	if (dev >= 0)
		rec(sb, pid, inv, hid, 2, "chip.run.runner_run.device_wall", 0,
		    dev, "clk=dev");
	rec(sb, pid, inv, hid, 0, "chip.run", ts, host, "");
}

static struct span_set *
parse_sb(struct strbuf *sb)
{
	struct span_set *set = span_set_new();

	strace_parse_buf(set, sb->buf, sb->len);
	strbuf_release(sb);
	return set;
}

static void
check_str(const struct span_set *set, enum stats_level lv, long rounds,
    long warmup, const char *want)
{
	struct stats_opts o = { .level = lv, .rounds = rounds, .warmup = warmup };
	struct stats *st = stats_new(set, &o);
	struct strbuf sb = STRBUF_INIT;

	stats_format(st, &sb);
	ck_assert_str_eq(sb.buf, want);
	strbuf_release(&sb);
	stats_free(st);
}

/* ---- exact arithmetic ---------------------------------------------------- */

START_TEST(test_fmean_is_fsum)
{
	const double a[] = { 0.1, 0.2, 0.3 };
	const double b[] = { 1e16, 1.0, 1.0 };

	/* a naive sum gives 0.20000000000000004 and 3333333333333333.5 */
	ck_assert(stats_fmean(a, 3) == 0.19999999999999998);
	ck_assert(stats_fmean(b, 3) == 3333333333333334.0);
	ck_assert(stats_fmean(a, 1) == 0.1);
}
END_TEST

START_TEST(test_stdev_exact)
{
	const double a[] = { 1.5, 2.5, 2.5, 2.75, 3.25, 4.75 };
	const double b[] = { 0.3, 0.2, 0.3, 0.30000000000000004 };
	const double c[] = { 7.0, 7.0, 7.0 };
	char buf[32];

	ck_assert(stats_stdev(a, 6) == 1.0810874155219827);
	/* exact variance: just below 0.05, so "%.1f" says 0.0 (a long
	 * double two-pass formula gives 0.05 and prints 0.1) */
	ck_assert(stats_stdev(b, 4) == 0.049999999999999996);
	snprintf(buf, sizeof buf, "%.1f", stats_stdev(b, 4));
	ck_assert_str_eq(buf, "0.0");
	ck_assert(stats_stdev(c, 3) == 0.0);
	ck_assert(stats_stdev(a, 1) == 0.0);
}
END_TEST

START_TEST(test_median)
{
	const double a[] = { 3.0, 1.0, 2.0 };
	const double b[] = { 4.0, 1.0, 3.0, 2.0 };

	ck_assert(stats_median(a, 3) == 2.0);
	ck_assert(stats_median(b, 4) == 2.5);
	ck_assert(stats_median(a, 0) == 0.0);
}
END_TEST

START_TEST(test_iacc)
{
	struct stats_iacc a, b, c;
	int64_t big = ((int64_t)1 << 53) + 1;
	int i;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	memset(&c, 0, sizeof c);
	for (i = 1; i <= 4; i++)
		stats_iacc_add(&a, i);
	ck_assert(stats_iacc_fmean(&a) == 2.5);
	ck_assert(stats_iacc_stdev(&a) == 1.2909944487358056);
	ck_assert_int_eq(a.min, 1);
	ck_assert_int_eq(a.max, 4);
	/* fsum converts each int to float first: 2^53 + 1 -> 2^53 */
	stats_iacc_add(&b, big);
	stats_iacc_add(&b, big);
	ck_assert(stats_iacc_fmean(&b) == 9007199254740992.0);
	ck_assert(stats_iacc_stdev(&b) == 0.0);
	/* stdev uses the exact ints: sqrt(1/2) */
	stats_iacc_add(&c, 1000000000000LL);
	stats_iacc_add(&c, 1000000000001LL);
	ck_assert(stats_iacc_stdev(&c) == 0.7071067811865476);
	ck_assert(stats_iacc_stdev(&a) > 0 && b.n == 2);
}
END_TEST

/* ---- L2 -------------------------------------------------------------------- */

static struct span_set *
l2_log(void)
{
	struct strbuf sb = STRBUF_INIT;

	disp(&sb, 7, 1, "aa", 100, 5000, 3000);
	disp(&sb, 7, 2, "bb", 200, 6000, 3100);
	disp(&sb, 7, 3, "aa", 300, 7000, 3300);
	disp(&sb, 7, 4, "bb", 400, 8000, 3400);
	disp(&sb, 7, 5, "aa", 500, 9000, 3500);
	rec(&sb, 7, 6, "bb", 0, "chip.run", 600, 1000, "");
	/* two device_walls: the earlier ts counts (simpler's by_name) */
	rec(&sb, 7, 7, "aa", 2, "chip.run.runner_run.device_wall", 5, 4000,
	    "clk=dev");
	rec(&sb, 7, 7, "aa", 2, "chip.run.runner_run.device_wall", 1, 1000,
	    "clk=dev");
	rec(&sb, 7, 7, "aa", 0, "chip.run", 700, 2000, "");
	return parse_sb(&sb);
}

START_TEST(test_l2)
{
	struct span_set *set = l2_log();
	struct stats_opts o = { .level = STATS_AUTO, .rounds = -1, .warmup = 1 };
	struct stats *st = stats_new(set, &o);

	ck_assert_int_eq(st->level, STATS_L2);
	ck_assert_uint_eq(st->ninvs, 7);
	/* busiest hid "aa" (4 launches) minus 1 warmup */
	ck_assert_int_eq(st->rounds, 3);
	ck_assert_uint_eq(st->nsamples, 3);
	ck_assert(st->device_us[0] == 3.3);
	ck_assert(st->device_us[2] == 1.0);
	ck_assert(st->host_us[2] == 2.0);
	ck_assert(!st->grid && !st->flattened);
	stats_free(st);

	check_str(set, STATS_AUTO, 3, 1,
	    "BenchmarkStats(rounds=3, warmup=1): "
	    "device_wall_us min=1.0 median=3.3 mean=2.6 max=3.5 stdev=1.4");
	check_str(set, STATS_L2, 4, 0,
	    "BenchmarkStats(rounds=4, warmup=0): "
	    "device_wall_us min=1.0 median=3.1 mean=2.7 max=3.5 stdev=1.2");
	/* --rounds is only displayed for L2: every post-warmup launch counts */
	check_str(set, STATS_L2, 1, 3,
	    "BenchmarkStats(rounds=1, warmup=3): "
	    "device_wall_us min=1.0 median=1.0 mean=1.0 max=1.0 stdev=0.0");
	check_str(set, STATS_L2, 2, 9, "BenchmarkStats(rounds=2: no samples)");
	span_set_free(set);
}
END_TEST

START_TEST(test_all_zero_and_empty)
{
	struct strbuf sb = STRBUF_INIT;
	struct span_set *set;

	disp(&sb, 3, 1, "aa", 0, 100, -1);
	disp(&sb, 3, 2, "aa", 0, 100, -1);
	rec(&sb, 3, 0, "aa", 0, "node.submit", 0, 5, "");
	set = parse_sb(&sb);
	check_str(set, STATS_AUTO, -1, 0,
	    "BenchmarkStats(rounds=2): "
	    "device_wall_us all 0 \xe2\x80\x94 runtime built without "
	    "SIMPLER_HOST_STRACE or sim platform (use host_wall_us)");
	span_set_free(set);

	set = span_set_new();
	check_str(set, STATS_AUTO, -1, 3, "BenchmarkStats(rounds=0: no samples)");
	check_str(set, STATS_L3, 5, 3, "BenchmarkStats(rounds=5: no samples)");
	span_set_free(set);
}
END_TEST

/* ---- L3 -------------------------------------------------------------------- */

/* host pid 5, ranks 20 and 10, 3 launches, 2 dispatches (aa, bb) each */
static struct span_set *
l3_log(int unstable)
{
	static const long long durs[2][3][2] = {
		{ { 150, 150 }, { 100, 100 }, { 100, 200 } },	    /* 20 */
		{ { 1000, 2000 }, { 1100, 2100 }, { 1200, 2200 } }, /* 10 */
	};
	static const int pids[2] = { 20, 10 };
	struct strbuf sb = STRBUF_INIT;
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
	return parse_sb(&sb);
}

START_TEST(test_l3_grid)
{
	struct span_set *set = l3_log(0);
	struct stats_opts o = { .level = STATS_AUTO, .rounds = -1, .warmup = 1 };
	struct stats *st = stats_new(set, &o);
	const struct stats_inv *iv;

	ck_assert_int_eq(st->level, STATS_L3);
	/* host pid 5 has one root per launch: 3 launches - 1 warmup */
	ck_assert_int_eq(st->rounds, 2);
	ck_assert(st->grid && !st->flattened && !st->unstable);
	ck_assert_uint_eq(st->nranks, 2);
	ck_assert_int_eq(st->ranks[0].pid, 10); /* ascending pid */
	ck_assert_uint_eq(st->ranks[0].per_round, 2);
	ck_assert_uint_eq(st->nmeasured, 8);
	iv = stats_grid_at(st, 1, 1, 1);
	ck_assert_int_eq(iv->pid, 20);
	ck_assert_int_eq(iv->round, 1);
	ck_assert_int_eq(iv->slot, 1);
	ck_assert(iv->device_us == 0.2);
	/* per round: max over ranks of the summed dispatches */
	ck_assert(st->device_us[0] == 3.2);
	ck_assert(st->device_us[1] == 3.4000000000000004);
	ck_assert(st->host_us[0] == 6.041);
	stats_free(st);

	check_str(set, STATS_L3, 2, 1,
	    "BenchmarkStats(rounds=2, warmup=1): "
	    "device_wall_us min=3.2 median=3.3 mean=3.3 max=3.4 stdev=0.1 "
	    "[L3: 2 ranks, per-round max across ranks; host-union mean=4.1us]\n"
	    "  per-dispatch device mean us: (pid=10,slot=0,task=aa)=1.1  "
	    "(pid=10,slot=1,task=bb)=2.2  (pid=20,slot=0,task=aa)=0.1  "
	    "(pid=20,slot=1,task=bb)=0.2");
	check_str(set, STATS_AUTO, 3, 0,
	    "BenchmarkStats(rounds=3, warmup=0): "
	    "device_wall_us min=3.0 median=3.2 mean=3.2 max=3.4 stdev=0.2 "
	    "[L3: 2 ranks, per-round max across ranks; host-union mean=4.1us]\n"
	    "  per-dispatch device mean us: (pid=10,slot=0,task=aa)=1.1  "
	    "(pid=10,slot=1,task=bb)=2.1  (pid=20,slot=0,task=aa)=0.1  "
	    "(pid=20,slot=1,task=bb)=0.1");
	/* 6 dispatches per rank do not split into 4 launches */
	check_str(set, STATS_L3, 4, 0,
	    "BenchmarkStats(rounds=4, warmup=0): "
	    "device_wall_us min=0.1 median=0.6 mean=0.9 max=2.2 stdev=0.9 "
	    "[L3: flattened per-dispatch pool \xe2\x80\x94 non-deterministic "
	    "dispatch shape]");
	span_set_free(set);
}
END_TEST

START_TEST(test_l3_unstable)
{
	struct span_set *set = l3_log(1);
	struct stats_opts o = { .level = STATS_L3, .rounds = 2, .warmup = 1 };
	struct stats *st = stats_new(set, &o);

	ck_assert(st->grid && st->unstable);
	stats_free(st);
	/* same sums, no per-dispatch line */
	check_str(set, STATS_L3, 2, 1,
	    "BenchmarkStats(rounds=2, warmup=1): "
	    "device_wall_us min=3.2 median=3.3 mean=3.3 max=3.4 stdev=0.1 "
	    "[L3: 2 ranks, per-round max across ranks; host-union mean=4.1us]");
	span_set_free(set);
}
END_TEST

START_TEST(test_l3_exact_stdev)
{
	/* rank 1 sums 0.15+0.15, 0.1+0.1, 0.15+0.15, 0.1+0.2 */
	static const long long v[4][2] = { { 150, 150 }, { 100, 100 },
		{ 150, 150 }, { 100, 200 } };
	struct strbuf sb = STRBUF_INIT;
	struct span_set *set;
	int k;

	for (k = 0; k < 4; k++) {
		disp(&sb, 1, 2 * k + 1, "aa", k * 100, 500, v[k][0]);
		disp(&sb, 1, 2 * k + 2, "bb", k * 100 + 50, 500, v[k][1]);
		disp(&sb, 2, k + 1, "aa", k * 100, 400, 10);
	}
	set = parse_sb(&sb);
	check_str(set, STATS_AUTO, 4, 0,
	    "BenchmarkStats(rounds=4, warmup=0): "
	    "device_wall_us min=0.2 median=0.3 mean=0.3 max=0.3 stdev=0.0 "
	    "[L3: 2 ranks, per-round max across ranks; host-union mean=0.6us]\n"
	    "  per-dispatch device mean us: (pid=1,slot=0,task=aa)=0.1  "
	    "(pid=1,slot=1,task=bb)=0.1  (pid=2,slot=0,task=aa)=0.0");
	span_set_free(set);
}
END_TEST

START_TEST(test_l3_sentinels)
{
	struct strbuf sb = STRBUF_INIT;
	struct span_set *set;
	struct stats *st;
	struct stats_opts o = { .level = STATS_AUTO, .rounds = -1, .warmup = 0 };
	int k;

	for (k = 0; k < 2; k++) {
		/* graph pass (dropped), then the timing pass */
		strbuf_addstr(&sb,
		    "[pypto] l3_swimlane_pass=graph event=begin\n");
		disp(&sb, 1, 10 + k, "aa", 0, 900, 900);
		strbuf_addstr(&sb, "[pypto] l3_swimlane_pass=graph event=end\n");
		strbuf_addstr(&sb,
		    "[pypto] l3_swimlane_pass=timing event=begin\n");
		disp(&sb, 1, 20 + k, "aa", 0, 100, 50 + k);
		strbuf_addstr(&sb, "[pypto] l3_swimlane_pass=timing event=end\n");
	}
	set = parse_sb(&sb);
	st = stats_new(set, &o);
	ck_assert_int_eq(st->level, STATS_L3); /* sentinel => L3 */
	ck_assert_int_eq(st->rounds, 2);
	ck_assert_uint_eq(st->ninvs, 2); /* only timing regions */
	stats_free(st);
	check_str(set, STATS_AUTO, -1, 0,
	    "BenchmarkStats(rounds=2, warmup=0): "
	    "device_wall_us min=0.1 median=0.1 mean=0.1 max=0.1 stdev=0.0 "
	    "[L3: 1 ranks, per-round max across ranks; host-union mean=0.1us]");
	/* region count must equal warmup + rounds */
	check_str(set, STATS_AUTO, 3, 0, "BenchmarkStats(rounds=3: no samples)");
	/* L2 ignores the sentinels: both passes count */
	check_str(set, STATS_L2, 4, 0,
	    "BenchmarkStats(rounds=4, warmup=0): "
	    "device_wall_us min=0.1 median=0.5 mean=0.5 max=0.9 stdev=0.5");
	span_set_free(set);
}
END_TEST

static Suite *
stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fmean_is_fsum);
	tcase_add_test(tc, test_stdev_exact);
	tcase_add_test(tc, test_median);
	tcase_add_test(tc, test_iacc);
	tcase_add_test(tc, test_l2);
	tcase_add_test(tc, test_all_zero_and_empty);
	tcase_add_test(tc, test_l3_grid);
	tcase_add_test(tc, test_l3_unstable);
	tcase_add_test(tc, test_l3_exact_stdev);
	tcase_add_test(tc, test_l3_sentinels);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
