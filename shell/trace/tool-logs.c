/* tool-logs.c - `colldb tree` and `colldb stats` on a log; see tool-logs.h. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"
#include "xmalloc.h"
#include "stats.h"
#include "strace.h"
#include "tree.h"
#include "tool-logs.h"
#include "trace-meta.h"

#define READ_CHUNK (1 << 20)
#define DIAGS_SHOWN 20

enum logs_cmd {
	LOGS_TREE = (1 << 0),
	LOGS_STATS = (1 << 1),
};

enum logs_opt {
	OPT_MEAN,
	OPT_NS,
	OPT_SPREAD,
	OPT_LAUNCH,
	OPT_PID,
	OPT_SLOT,
	OPT_ROUNDS,
	OPT_WARMUP,
	OPT_L2,
	OPT_L3,
	OPT_HELP,
};

struct logs_optdef {
	const char *name;
	const char *value; /* metavar if it takes an argument */
	enum logs_opt id;
	unsigned cmds; /* enum logs_cmd */
	const char *help;
};

static const struct logs_optdef logs_opts[] = {
	{ "mean", NULL, OPT_MEAN, LOGS_TREE,
	    "mean over the measured launches (print_mean_tree)" },
	{ "ns", NULL, OPT_NS, LOGS_TREE, "values in nanoseconds (us=False)" },
	{ "spread", "KIND", OPT_SPREAD, LOGS_TREE,
	    "with --mean: stdev (default), minmax, both or none" },
	{ "launch", "I", OPT_LAUNCH, LOGS_TREE,
	    "only measured launch I (negative counts from the end)" },
	{ "pid", "P", OPT_PID, LOGS_TREE, "with --mean: only this rank (L3)" },
	{ "slot", "S", OPT_SLOT, LOGS_TREE,
	    "with --mean: only this dispatch slot (L3)" },
	{ "rounds", "R", OPT_ROUNDS, LOGS_TREE | LOGS_STATS,
	    "measured launches (default: what the log holds after warmup)" },
	{ "warmup", "W", OPT_WARMUP, LOGS_TREE | LOGS_STATS,
	    "leading launches dropped (default 3)" },
	{ "l2", NULL, OPT_L2, LOGS_TREE | LOGS_STATS, "aggregate as L2" },
	{ "l3", NULL, OPT_L3, LOGS_TREE | LOGS_STATS,
	    "aggregate as L3 (default when >1 pid emits device_wall)" },
	{ "help", NULL, OPT_HELP, LOGS_TREE | LOGS_STATS, "this help" },
};

static const char tree_usage[] =
    "usage: colldb tree [--mean] [--ns] "
    "[--spread stdev|minmax|both|none] [--launch I]\n"
    "                   [--pid P] [--slot S] [--rounds R] [--warmup W] "
    "[--l2|--l3] LOG";
static const char stats_usage[] = "usage: colldb stats [--rounds R] "
				  "[--warmup W] [--l2|--l3] LOG";

struct logs_args {
	enum logs_cmd cmd;
	const char *log;
	int mean;
	int ns;
	int has_spread;
	enum tree_spread spread;
	int has_launch;
	long launch;
	int has_pid;
	long long pid;
	int has_slot;
	long slot;
	long rounds; /* -1: default */
	long warmup;
	int has_warmup;
	enum stats_level level;
	int help;
};

static int logs_usage_error(const struct logs_args *, const char *, ...)
    printflike(2, 3);

static int
logs_usage_error(const struct logs_args *a, const char *fmt, ...)
{
	va_list ap;

	fputs("error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try 'colldb %s --help')\n",
	    a->cmd == LOGS_TREE ? "tree" : "stats");
	return 2;
}

static int
logs_number(const char *s, long long lo, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > LONG_MAX)
		return -1;
	*out = v;
	return 0;
}

static void
logs_help(const struct logs_args *a)
{
	size_t i;

	printf("%s\n\n", a->cmd == LOGS_TREE ? tree_usage : stats_usage);
	printf("%s\n\n",
	    a->cmd == LOGS_TREE ?
		"Print the span tree(s) of a PyPTO/simpler [STRACE] log (or Chrome "
		"trace JSON)\nexactly as BenchmarkStats.print_tree / "
		"print_mean_tree do." :
		"Print str(BenchmarkStats) for a PyPTO/simpler [STRACE] log (or "
		"Chrome trace\nJSON), with PyPTO's L2/L3 aggregation.");
	for (i = 0; i < ARRAY_SIZE(logs_opts); i++) {
		const struct logs_optdef *d = &logs_opts[i];
		char left[32];

		if ((d->cmds & a->cmd) == 0)
			continue;
		snprintf(left, sizeof left, "--%s%s%s", d->name,
		    d->value ? " " : "", d->value ? d->value : "");
		printf("  %-14s %s\n", left, d->help);
	}
	printf("\nLOG '-' reads stdin.  Exit status: 0 ok, 1 nothing to show "
	       "or unreadable input,\n2 bad usage.\n");
}

/* getopt_long's table for a's command; long options' values are
 * OPT_BASE + enum logs_opt, so they never meet a short option's. */
#define OPT_BASE 256
static void
logs_longopts(const struct logs_args *a, struct option *lo)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(logs_opts); i++) {
		const struct logs_optdef *d = &logs_opts[i];

		if ((d->cmds & a->cmd) == 0)
			continue;
		lo[n].name = d->name;
		lo[n].has_arg =
		    d->value != NULL ? required_argument : no_argument;
		lo[n].flag = NULL;
		lo[n].val = OPT_BASE + (int)d->id;
		n++;
	}
	memset(&lo[n], 0, sizeof lo[n]);
}

/* What getopt_long refused (opterr is off: the words are ours). */
static int
logs_bad_option(const struct logs_args *a, int c, const char *word)
{
	if (c == ':')
		return logs_usage_error(a, "%.*s needs a value",
		    (int)strcspn(word, "="), word);
	if (optopt >= OPT_BASE) /* a flag given a value */
		return logs_usage_error(a, "%.*s takes no value",
		    (int)strcspn(word, "="), word);
	return logs_usage_error(a, "unknown option '%.*s'",
	    (int)strcspn(word, "="), word);
}

/* One option's value into a; 0, or 2 (said). */
static int
logs_option(struct logs_args *a, enum logs_opt id, const char *val)
{
	long long v;

	switch (id) {
	case OPT_MEAN:
		a->mean = 1;
		break;
	case OPT_NS:
		a->ns = 1;
		break;
	case OPT_SPREAD:
		if (tree_parse_spread(val, &a->spread) != 0)
			return logs_usage_error(a,
			    "--spread must be "
			    "stdev, minmax, both or none, got '%s'",
			    val);
		a->has_spread = 1;
		break;
	case OPT_LAUNCH:
		if (logs_number(val, LONG_MIN, &v) != 0)
			return logs_usage_error(a,
			    "--launch expects "
			    "an integer, got '%s'",
			    val);
		a->has_launch = 1;
		a->launch = (long)v;
		break;
	case OPT_PID:
		if (logs_number(val, LLONG_MIN, &v) != 0)
			return logs_usage_error(a,
			    "--pid expects an "
			    "integer, got '%s'",
			    val);
		a->has_pid = 1;
		a->pid = v;
		break;
	case OPT_SLOT:
		if (logs_number(val, LONG_MIN, &v) != 0)
			return logs_usage_error(a,
			    "--slot expects an "
			    "integer, got '%s'",
			    val);
		a->has_slot = 1;
		a->slot = (long)v;
		break;
	case OPT_ROUNDS:
		if (logs_number(val, LONG_MIN, &v) != 0)
			return logs_usage_error(a,
			    "--rounds expects "
			    "an integer, got '%s'",
			    val);
		if (v <= 0)
			return logs_usage_error(a,
			    "--rounds must be "
			    "positive, got %lld",
			    v);
		a->rounds = (long)v;
		break;
	case OPT_WARMUP:
		if (logs_number(val, LONG_MIN, &v) != 0)
			return logs_usage_error(a,
			    "--warmup expects "
			    "an integer, got '%s'",
			    val);
		if (v < 0)
			return logs_usage_error(a,
			    "--warmup must be "
			    "non-negative, got %lld",
			    v);
		a->warmup = (long)v;
		a->has_warmup = 1;
		break;
	case OPT_L2:
	case OPT_L3:
		if (a->level != STATS_AUTO &&
		    a->level != (id == OPT_L2 ? STATS_L2 : STATS_L3))
			return logs_usage_error(a,
			    "--l2 and --l3 are "
			    "mutually exclusive");
		a->level = id == OPT_L2 ? STATS_L2 : STATS_L3;
		break;
	case OPT_HELP:
		a->help = 1;
		break;
	}
	return 0;
}

/* The options that only make sense together. */
static int
logs_combinations(const struct logs_args *a)
{
	if (a->mean && a->has_launch)
		return logs_usage_error(a, "--launch does not apply to --mean");
	if (!a->mean && (a->has_pid || a->has_slot || a->has_spread))
		return logs_usage_error(a, "--%s needs --mean",
		    a->has_pid	    ? "pid" :
			a->has_slot ? "slot" :
				      "spread");
	return 0;
}

static int
logs_parse(struct logs_args *a, int argc, char **argv)
{
	struct option lo[ARRAY_SIZE(logs_opts) + 1];
	int c, rc;

	logs_longopts(a, lo);
	opterr = 0;
	optind = 0; /* a fresh scan (glibc) */
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		if (c == 'h')
			c = OPT_BASE + OPT_HELP;
		if (c == '?' || c == ':')
			return logs_bad_option(a, c, argv[optind - 1]);
		if ((rc = logs_option(a, (enum logs_opt)(c - OPT_BASE), optarg)) !=
		    0)
			return rc;
		if (a->help)
			return 0;
	}
	if (optind + 1 < argc)
		return logs_usage_error(a, "more than one LOG ('%s' and '%s')",
		    argv[optind], argv[optind + 1]);
	if (optind == argc)
		return logs_usage_error(a,
		    "missing LOG: a [STRACE] log, a "
		    "Chrome trace JSON file, or - for stdin");
	a->log = argv[optind];
	return logs_combinations(a);
}

static int
has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

static ssize_t
read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = read(fd, buf + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* Read PATH ('-' = stdin, NAME in messages) into SET: a [STRACE] log,
 * streamed, or JSON; *meta gets the header of a trace colldb saved, if it
 * has one.  -1 with *cause the whole message ("cannot read 'x.log': ..."). */
static int
logs_load(struct span_set *set, const char *path, const char *name,
    struct trace_meta *meta, char **cause)
{
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY);
	char *buf = NULL, *why = NULL;
	struct strbuf all = STRBUF_INIT;
	struct strace_parser *p = NULL;
	ssize_t n;
	int rc = -1;

	if (fd < 0) {
		cause_set(cause, "cannot read '%s': %s", name, strerror(errno));
		goto out;
	}
	buf = xmalloc(READ_CHUNK);
	if ((n = read_full(fd, buf, READ_CHUNK)) < 0) {
		cause_set(cause, "cannot read '%s': %s", name, strerror(errno));
		goto out;
	}
	trace_meta_read(buf, (size_t)n, meta);
	if (has_suffix(path, ".json") || chrome_sniff(buf, (size_t)n)) {
		strbuf_add(&all, buf, (size_t)n);
		while (n == READ_CHUNK) {
			if ((n = read_full(fd, buf, READ_CHUNK)) < 0) {
				cause_set(cause, "cannot read '%s': %s", name,
				    strerror(errno));
				goto out;
			}
			strbuf_add(&all, buf, (size_t)n);
		}
		if ((rc = chrome_read(set, all.buf, all.len, &why)) != 0)
			cause_set(cause, "%s: %s", name, why);
		goto out;
	}
	p = strace_parser_new(set);
	strace_parser_feed(p, buf, (size_t)n);
	while (n == READ_CHUNK) {
		if ((n = read_full(fd, buf, READ_CHUNK)) < 0) {
			cause_set(cause, "cannot read '%s': %s", name,
			    strerror(errno));
			goto out;
		}
		strace_parser_feed(p, buf, (size_t)n);
	}
	strace_parser_finish(p);
	rc = 0;
out:
	free(why);
	strace_parser_free(p);
	strbuf_release(&all);
	free(buf);
	if (fd > 0)
		close(fd);
	return rc;
}

static void
logs_report_diags(const struct span_set *set, const char *name)
{
	size_t n, total, i;
	const struct strace_diag *d = span_set_diags(set, &n, &total);

	for (i = 0; i < n && i < DIAGS_SHOWN; i++) {
		if (d[i].line != 0)
			fprintf(stderr, "warning: %s:%u: %s\n", name, d[i].line,
			    d[i].msg);
		else
			fprintf(stderr, "warning: %s: %s\n", name, d[i].msg);
	}
	if (total > i)
		fprintf(stderr,
		    "warning: %s: %zu more malformed record%s not "
		    "shown\n",
		    name, total - i, total - i == 1 ? "" : "s");
}

static int
logs_any_device(const struct stats *st)
{
	size_t i;

	for (i = 0; i < st->ninvs; i++) {
		if (st->invs[i].flags & STATS_INV_DEVICE)
			return 1;
	}
	return 0;
}

/* Why there is nothing to show, on stderr. */
static void
logs_explain_empty(const struct stats *st, const struct span_set *set,
    const char *name)
{
	size_t nspans;
	long blocks;
	enum strace_timing timing = span_set_timing(set, &blocks);

	span_set_spans(set, &nspans);
	if (nspans == 0)
		fprintf(stderr,
		    "error: %s: no [STRACE] spans found (%u "
		    "line%s read)\n",
		    name, span_set_lines(set),
		    span_set_lines(set) == 1 ? "" : "s");
	else if (st->level == STATS_L3 && timing == STRACE_TIMING_BAD)
		fprintf(stderr,
		    "error: %s: incomplete or malformed "
		    "l3_swimlane_pass sentinels; PyPTO discards the capture\n",
		    name);
	else if (st->level == STATS_L3 && timing == STRACE_TIMING_OK &&
	    blocks != st->warmup + st->rounds)
		fprintf(stderr,
		    "error: %s: %ld timing region%s, but warmup "
		    "%ld + rounds %ld = %ld launches\n",
		    name, blocks, blocks == 1 ? "" : "s", st->warmup,
		    st->rounds, st->warmup + st->rounds);
	else if (st->ninvs == 0)
		fprintf(stderr,
		    "error: %s: none of its %zu [STRACE] spans "
		    "belongs to an invocation\n",
		    name, nspans);
	else if (st->level == STATS_L3 && !logs_any_device(st))
		fprintf(stderr,
		    "error: %s: no pid emits "
		    "chip.run.runner_run.device_wall, and L3 counts only the "
		    "pids that do (try --l2)\n",
		    name);
	else
		fprintf(stderr,
		    "error: %s: no measured launch (%s, warmup "
		    "%ld, rounds %ld)\n",
		    name, st->level == STATS_L3 ? "L3" : "L2", st->warmup,
		    st->rounds);
}

static int
logs_main(enum logs_cmd cmd, int argc, char **argv)
{
	struct logs_args a;
	struct span_set *set = NULL;
	struct stats *st = NULL;
	struct stats_opts so;
	struct trace_meta meta = { 0, NULL, -1, -1 };
	struct strbuf out = STRBUF_INIT;
	const char *name;
	char *cause = NULL;
	int rc;

	memset(&a, 0, sizeof a);
	a.cmd = cmd;
	a.rounds = -1;
	a.warmup = 3;
	a.spread = TREE_SPREAD_STDEV;
	if ((rc = logs_parse(&a, argc, argv)) != 0)
		goto out;
	if (a.help) {
		logs_help(&a);
		goto out;
	}
	name = strcmp(a.log, "-") == 0 ? "<stdin>" : a.log;
	set = span_set_new();
	if (logs_load(set, a.log, name, &meta, &cause) != 0) {
		fprintf(stderr, "error: %s\n", cause);
		rc = 1;
		goto out;
	}
	logs_report_diags(set, name);

	memset(&so, 0, sizeof so);
	so.level = a.level;
	so.rounds = a.rounds;
	so.warmup = a.warmup;
	if (meta.root != NULL) {
		/* colldb's own trace: the collective is the run root and the
		 * device wall, the bench's rounds and warmup the defaults,
		 * and a bench is L3, as in the shell (docs/benchmarking.md) */
		so.root_name = so.device_name = meta.root;
		if (so.level == STATS_AUTO)
			so.level = STATS_L3;
		if (a.rounds < 0 && meta.rounds >= 0)
			so.rounds = meta.rounds;
		if (!a.has_warmup && meta.warmup >= 0)
			so.warmup = meta.warmup;
	}
	st = stats_new(set, &so);
	if (cmd == LOGS_STATS)
		stats_format(st, &out);
	else if (a.mean) {
		struct tree_mean_opts mo = { a.spread, a.ns, a.has_pid,
			(int64_t)a.pid, a.has_slot, a.slot };

		tree_format_mean(st, &out, &mo);
	} else if (tree_format_launches(st, &out, a.has_launch, a.launch, a.ns,
		       &cause) != 0) {
		fprintf(stderr, "error: %s: %s\n", name, cause);
		rc = 1;
		goto out;
	}
	strbuf_addch(&out, '\n');
	if (fwrite(out.buf, 1, out.len, stdout) != out.len ||
	    fflush(stdout) != 0) {
		fprintf(stderr, "error: cannot write the output: %s\n",
		    strerror(errno));
		rc = 1;
		goto out;
	}
	if ((cmd == LOGS_STATS ? st->nsamples : st->nmeasured) == 0) {
		logs_explain_empty(st, set, name);
		rc = 1;
	}
out:
	free(cause);
	strbuf_release(&out);
	stats_free(st);
	span_set_free(set);
	trace_meta_release(&meta);
	return rc;
}

int
tool_tree_main(int argc, char **argv)
{
	return logs_main(LOGS_TREE, argc, argv);
}

int
tool_stats_main(int argc, char **argv)
{
	return logs_main(LOGS_STATS, argc, argv);
}
