/*
 * cmd-trace.c - `tree` (the span tree of the last bench, as PyPTO's
 * print_tree / print_mean_tree print it) and `trace` (what the session
 * recorded: a summary, `trace save FILE [json|strace]`, `trace clear`).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tree.h"
#include "bench/bench.h"
#include "cmd/cmd.h"
#include "span.h"
#include "xmalloc.h"

/* ---- tree ---------------------------------------------------------------- */

struct add_spans {
	struct span_set *set;
	long done; /* only runs below this (a bench that ended early) */
};

static int
add_span(void *arg, const struct trace_span *sp)
{
	struct add_spans *as = arg;
	struct span_set *set = as->set;
	const struct span_rec *rec = sp->rec;
	char hid[17];

	if (as->done >= 0 && (long)rec->iter >= as->done)
		return 0; /* a run not every rank finished */
	snprintf(hid, sizeof hid, "%016" PRIx64, sp->hid);
	span_set_add(set, rec->rank, rec->rank, (uint64_t)rec->iter + 1, hid,
	    sp->depth, sp->name, (int64_t)rec->ts, (int64_t)rec->dur, "");
	return 0;
}

/* A size as bench takes it: "1M", "64k", "12". */
static void
size_word(uint64_t bytes, struct strbuf *sb)
{
	static const char units[] = "kMG";
	int u = -1;

	while (u < 2 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	strbuf_addf(sb, "%llu", (unsigned long long)bytes);
	if (u >= 0)
		strbuf_addch(sb, units[u]);
}

/*
 * What to do instead: one bench whose spans the trace can hold.  Spans
 * grow with the size (and the rounds), so the size scaled down to fit,
 * to a power of two; or, when no size would do, fewer rounds.
 */
static void
bench_fits(const struct bench_last *b, struct strbuf *sb)
{
	uint64_t spans = b->kept + b->not_kept + b->lost, size = 1;
	double fit = spans > 0 ? (double)trace_keep() / (double)spans / 2 : 0.5;
	long rounds = (long)((double)(b->rounds + b->warmup) * fit) - b->warmup;

	if (b->bytes > 0) {
		while (size * 2 <= (uint64_t)((double)b->bytes * fit))
			size *= 2;
	}
	strbuf_addf(sb, "tree shows one bench of one size; try 'bench %s ",
	    b->root);
	if (b->bytes > 0 && size >= 1024) {
		size_word(size, sb);
		strbuf_addf(sb, "%s rounds=%ld", b->ring ? " mode=ring" : "",
		    b->rounds);
	} else {
		if (b->bytes > 0) {
			size_word(b->bytes, sb);
			strbuf_addstr(sb, b->ring ? " mode=ring " : " ");
		}
		strbuf_addf(sb, "rounds=%ld", rounds > 1 ? rounds : 1);
	}
	if (b->spans != SPAN_DETAIL_ROOTS) /* the same detail, not the default */
		strbuf_addf(sb, " spans=%s", span_detail_name(b->spans));
	strbuf_addstr(sb, "', then 'tree'");
}

/* "the last bench (allreduce 1M" and how it ends: ")" or ", the last
 * size of the sweep)". */
static void
last_what(const struct bench_last *b, struct strbuf *sb)
{
	strbuf_addf(sb, "the last bench (%s", b->root);
	if (b->bytes > 0) {
		strbuf_addch(sb, ' ');
		size_word(b->bytes, sb);
	}
	strbuf_addstr(sb, b->sweep ? ", the last size of the sweep)" : ")");
}

/* The last bench, if its spans are all still in the trace. */
static struct bench_last *
last_bench(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct bench_last *b = s->bench;
	struct trace_counts tc;

	if (b == NULL) {
		cmd_error(ctx,
		    "no bench yet: tree shows the spans of the last bench (see 'help bench')");
		return NULL;
	}
	trace_summary(s, &tc);
	if (tc.gen != b->gen) {
		cmd_error(ctx,
		    "the spans of the last bench were cleared ('trace clear'); bench again");
		return NULL;
	}
	if (b->stopped != NULL && b->rounds == 0) {
		struct strbuf what = STRBUF_INIT;

		last_what(b, &what);
		cmd_error(ctx, "%s %s %s, so it has no tree; bench again",
		    what.buf, b->stopped,
		    b->done == 0 ? "before any run finished on every rank" :
				   "in its warmup (no timed round finished)");
		strbuf_release(&what);
		return NULL;
	}
	if (!b->complete) {
		struct strbuf sb = STRBUF_INIT;
		struct strbuf what = STRBUF_INIT;

		last_what(b, &what);
		bench_fits(b, &sb);
		if (b->lost > 0)
			cmd_error(ctx,
			    "%s lost %llu of its spans (a rank's span ring was full), so its tree would be partial: %s",
			    what.buf, (unsigned long long)b->lost, sb.buf);
		else
			cmd_error(ctx,
			    "%s made %llu spans, more than the %lu the trace keeps, so its tree would be partial: %s",
			    what.buf, (unsigned long long)(b->kept + b->not_kept),
			    trace_keep(), sb.buf);
		strbuf_release(&what);
		strbuf_release(&sb);
		return NULL;
	}
	return b;
}

static enum cmd_retval
cmd_tree_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct bench_last *b;
	struct tree_mean_opts mo;
	struct stats_opts so;
	struct strbuf out = STRBUF_INIT;
	struct span_set *set;
	struct stats *st;
	int mean = 0, ns = 0, has_launch = 0;
	long launch = 0;
	size_t i = 0;
	char *cause = NULL;
	enum cmd_retval rv = CMD_OK;

	memset(&mo, 0, sizeof mo);
	mo.spread = TREE_SPREAD_STDEV;
	if (nargs(ctx) > 0 && strcmp(arg(ctx, 0), "mean") == 0) {
		mean = 1;
		i = 1;
	}
	for (; i < nargs(ctx); i++) {
		const char *a = arg(ctx, i), *v;
		int64_t x;

		if (strcmp(a, "ns") == 0 ? arg_flag_repeated(ctx, 0, i) != 0 :
					   arg_key_repeated(ctx, 0, i) != 0)
			return CMD_ERROR;
		if (strcmp(a, "ns") == 0) {
			ns = 1;
		} else if (!mean && arg_is_kv(a, "launch", &v)) {
			if (parse_int(v, &x, 0, &cause) != 0) {
				free(cause);
				arg_error(ctx, i,
				    "bad launch '%s' (expected an index; -1 is the last)",
				    v);
				return CMD_ERROR;
			}
			has_launch = 1;
			launch = (long)x;
		} else if (mean && arg_is_kv(a, "spread", &v)) {
			if (tree_parse_spread(v, &mo.spread) != 0) {
				arg_error(ctx, i,
				    "unknown spread '%s' (expected stdev, minmax, both or none)",
				    v);
				return CMD_ERROR;
			}
		} else if (mean && arg_is_kv(a, "rank", &v)) {
			if (parse_int(v, &x, 0, &cause) != 0 || x < 0 ||
			    x >= s->nranks) {
				free(cause);
				arg_error(ctx, i,
				    "bad rank '%s' (world has %d ranks)", v,
				    s->nranks);
				return CMD_ERROR;
			}
			mo.has_pid = 1;
			mo.pid = x;
		} else {
			arg_error(ctx, i, "unexpected '%s' (expected %s)", a,
			    mean ? "spread=stdev|minmax|both|none, rank=R or ns" :
				   "mean, launch=I or ns");
			return CMD_ERROR;
		}
	}
	if ((b = last_bench(ctx)) == NULL)
		return CMD_ERROR;
	if (b->stopped != NULL) {
		struct strbuf what = STRBUF_INIT;

		last_what(b, &what);
		out_printf("note: %s %s: the tree of the %ld round%s every rank finished\n",
		    what.buf, b->stopped, b->rounds, b->rounds == 1 ? "" : "s");
		strbuf_release(&what);
	}
	set = span_set_new();
	{
		struct add_spans as = { set, b->stopped != NULL ? b->done : -1 };

		trace_visit(s, b->tags, (size_t)b->ntags, 0, add_span, &as);
	}
	memset(&so, 0, sizeof so);
	so.level = STATS_L3;
	so.rounds = b->rounds;
	so.warmup = b->warmup;
	so.root_name = so.device_name = b->root;
	st = stats_new(set, &so);
	if (!bench_figures(s))
		ns |= TREE_MASKED | (b->rounds_timed ? TREE_MASK_COUNT : 0);
	if (mean) {
		mo.ns = ns;
		tree_format_mean(st, &out, &mo);
	} else if (tree_format_launches(st, &out, has_launch, launch, ns,
		       &cause) != 0) {
		arg_error(ctx, 0, "%s", cause);
		free(cause);
		rv = CMD_ERROR;
	}
	if (rv == CMD_OK) {
		/* a long tree pages at the terminal, as git does */
		strbuf_addch(&out, '\n');
		out_paged(out.buf, s->interactive);
		shell_interrupted = 0; /* Ctrl-C in the pager was the pager's */
	}
	strbuf_release(&out);
	stats_free(st);
	span_set_free(set);
	return rv;
}

static const char *const tree_keywords[] = { "mean", "launch=", "spread=stdev",
	"spread=minmax", "spread=both", "spread=none", "rank=", "ns", NULL };

const struct cmd_entry cmd_tree_entry = {
	.name = "tree",
	.usage =
	    "[launch=I] [ns] | mean [spread=stdev|minmax|both|none] [rank=R] [ns]",
	.summary = "span tree of the last bench, as PyPTO prints it",
	.example = "tree mean spread=both",
	.group = GRP_BENCH,
	.min_args = 0,
	.max_args = 4,
	.flags = CMD_NO_SETTLE | CMD_AGENTS_ONLY,
	.keywords = tree_keywords,
	.agents_why = "tree shows the spans of colldb's own bench; 'trace save' "
		      "exports these ranks' spans",
	.exec = cmd_tree_exec,
};

/* ---- trace ----------------------------------------------------------------- */

struct meta_scan {
	const char *root; /* first root name seen (borrowed copy below) */
	char name[64];
	int mixed;   /* roots of different names */
	int foreign; /* records outside the last bench */
	const uint32_t *tags;
	size_t ntags;
};

static int
scan_roots(void *arg, const struct trace_span *sp)
{
	struct meta_scan *m = arg;

	if (m->root == NULL) {
		snprintf(m->name, sizeof m->name, "%s", sp->name);
		m->root = m->name;
	} else if (strcmp(m->name, sp->name) != 0) {
		m->mixed = 1;
	}
	return 0;
}

static int
scan_foreign(void *arg, const struct trace_span *sp)
{
	struct meta_scan *m = arg;

	for (size_t i = 0; i < m->ntags; i++) {
		if (m->tags[i] == sp->rec->tag)
			return 0;
	}
	m->foreign = 1;
	return 1;
}

/* What the file says about itself: see trace-meta.h. */
static void
save_meta(struct session *s, struct trace_meta *meta, char *root, size_t rootlen)
{
	struct meta_scan m;
	struct trace_counts tc;

	memset(&m, 0, sizeof m);
	memset(meta, 0, sizeof *meta);
	meta->ranks = s->nranks;
	meta->rounds = meta->warmup = -1;
	trace_visit(s, NULL, 0, 1, scan_roots, &m);
	/* a name the header can carry as is (trace-meta.h) */
	if (m.root == NULL || m.mixed || m.name[0] == '\0' ||
	    m.name[strspn(m.name,
		"abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")] != '\0')
		return;
	snprintf(root, rootlen, "%s", m.name);
	meta->root = root;
	meta->warmup = 0;
	trace_summary(s, &tc);
	if (s->bench != NULL && tc.gen == s->bench->gen) {
		m.tags = s->bench->tags;
		m.ntags = (size_t)s->bench->ntags;
		trace_visit(s, NULL, 0, 0, scan_foreign, &m);
		if (!m.foreign) {
			meta->rounds = s->bench->rounds;
			meta->warmup = s->bench->warmup;
		}
	}
}

static enum cmd_retval
trace_save_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	enum trace_format fmt = TRACE_JSON;
	struct trace_meta meta;
	struct trace_counts tc;
	uint64_t n = 0;
	char *cause = NULL, root[64];

	if (nargs(ctx) < 2) {
		cmd_usage_error(ctx, "'trace save' needs a FILE");
		return CMD_ERROR;
	}
	if (nargs(ctx) > 3) {
		arg_error(ctx, 3,
		    "unexpected '%s' (usage: trace save FILE [json|strace])",
		    arg(ctx, 3));
		return CMD_ERROR;
	}
	if (nargs(ctx) == 3) {
		if (strcmp(arg(ctx, 2), "strace") == 0)
			fmt = TRACE_STRACE;
		else if (strcmp(arg(ctx, 2), "json") != 0) {
			arg_error(ctx, 2,
			    "unknown format '%s' (expected json or strace)",
			    arg(ctx, 2));
			return CMD_ERROR;
		}
	}
	save_meta(s, &meta, root, sizeof root);
	if (trace_save(s, arg(ctx, 1), fmt, &meta, &n, &cause) != 0) {
		arg_error(ctx, 1, "%s", cause);
		free(cause);
		return CMD_ERROR;
	}
	trace_summary(s, &tc);
	out_printf("trace: %llu spans saved to %s (%s)\n",
	    (unsigned long long)n, arg(ctx, 1),
	    fmt == TRACE_JSON ?
		"Chrome trace-event JSON: open it in https://ui.perfetto.dev" :
		"[STRACE] lines: colldb tree / colldb stats read it");
	if (tc.lost > 0 || tc.not_kept > 0)
		out_warning("the trace is incomplete: %llu spans lost (span ring full), %llu not kept (over %lu)",
		    (unsigned long long)tc.lost,
		    (unsigned long long)tc.not_kept, trace_keep());
	if (tc.dropped > 0)
		out_printf("note: %llu spans of older commands were dropped (the trace keeps the last %d commands' and the last bench's)\n",
		    (unsigned long long)tc.dropped, TRACE_PROGS_MAX * 3 / 4);
	return CMD_OK;
}

static int
count_span(void *arg, const struct trace_span *sp)
{
	uint64_t *per_rank = arg;

	per_rank[sp->rec->rank]++;
	return 0;
}

static enum cmd_retval
cmd_trace_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct trace_counts tc;
	const char *sub = nargs(ctx) > 0 ? arg(ctx, 0) : NULL;

	if (sub != NULL && strcmp(sub, "save") == 0)
		return trace_save_exec(ctx);
	if (sub != NULL && strcmp(sub, "clear") == 0) {
		if (nargs(ctx) > 1) {
			arg_error(ctx, 1,
			    "unexpected '%s' (usage: trace clear)", arg(ctx, 1));
			return CMD_ERROR;
		}
		trace_clear(s);
		return CMD_OK;
	}
	if (sub != NULL) {
		arg_error(ctx, 0,
		    "unknown trace command '%s' (expected save or clear)", sub);
		return CMD_ERROR;
	}
	{
		uint64_t *per_rank = xcalloc((size_t)s->nranks, sizeof *per_rank);

		trace_summary(s, &tc);
		trace_visit(s, NULL, 0, 0, count_span, per_rank);
		out_printf("trace: %llu spans", (unsigned long long)tc.kept);
		for (int r = 0; r < s->nranks; r++)
			out_printf("%s%d: %llu", r ? ", " : " (rank ", r,
			    (unsigned long long)per_rank[r]);
		out_printf(")\n");
		out_printf("lost %llu (span ring full), not kept %llu (over %lu)\n",
		    (unsigned long long)tc.lost,
		    (unsigned long long)tc.not_kept, trace_keep());
		if (tc.dropped > 0)
			out_printf("dropped %llu (of the commands before the last %d)\n",
			    (unsigned long long)tc.dropped,
			    TRACE_PROGS_MAX * 3 / 4);
		free(per_rank);
	}
	return CMD_OK;
}

static const char *const trace_keywords[] = { "save", "clear", "json", "strace",
	NULL };

const struct cmd_entry cmd_trace_entry = {
	.name = "trace",
	.usage = "[save FILE [json|strace] | clear]",
	.summary = "save the spans as Perfetto JSON or [STRACE] lines",
	.example = "trace save ring.json",
	.group = GRP_BENCH,
	.min_args = 0,
	.max_args = -1,
	.flags = CMD_NO_SETTLE,
	.keywords = trace_keywords,
	.exec = cmd_trace_exec,
};
