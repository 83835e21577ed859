/* bench-out.c - what bench prints: lines, JSON, the sweep table; see bench.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* "allreduce ring f32", "broadcast root=1 f32", "allreduce mesh max f32" */
void
bench_what(const struct bench_args *ba, struct strbuf *sb)
{
	const struct coll_args *a = &ba->cc.a;

	strbuf_addstr(sb, coll_kind_name(a->kind));
	if (a->kind == COLL_ALLREDUCE)
		strbuf_addstr(sb, a->mode == MODE_RING ? " ring" : " mesh");
	if (a->impl == IMPL_BUILTIN)
		strbuf_addstr(sb,
		    a->neighbour ? " builtin-neighbour" : " builtin");
	if (a->core_num > 1)
		strbuf_addf(sb, " core_num=%d", a->core_num);
	if ((a->kind == COLL_ALLREDUCE || a->kind == COLL_REDUCE_SCATTER) &&
	    a->op != RED_SUM)
		strbuf_addf(sb, " %s", reduce_op_name(a->op));
	if (a->kind == COLL_BROADCAST)
		strbuf_addf(sb, " root=%d", a->root);
	if (a->kind != COLL_BARRIER)
		strbuf_addf(sb, " %s", dtype_name(ba->dtype));
	if (a->domain != 0 && ba->domain_name[0] != '\0')
		strbuf_addf(sb, " on %s", ba->domain_name);
}

/* Replace every decimal figure after the first "): " with '*'. */
static void
mask_figures(struct strbuf *sb)
{
	char *p = strstr(sb->buf, "): ");
	struct strbuf out = STRBUF_INIT;
	const char *q;

	if (p == NULL)
		return;
	p += 3;
	strbuf_add(&out, sb->buf, (size_t)(p - sb->buf));
	for (q = p; *q != '\0';) {
		const char *e = q;

		while (*e >= '0' && *e <= '9')
			e++;
		if (e > q && *e == '.' && e[1] >= '0' && e[1] <= '9') {
			for (e++; *e >= '0' && *e <= '9'; e++)
				;
			strbuf_addch(&out, '*');
			q = e;
		} else if (e > q) {
			strbuf_add(&out, q, (size_t)(e - q));
			q = e;
		} else {
			strbuf_addch(&out, *q++);
		}
	}
	strbuf_reset(sb);
	strbuf_add(sb, out.buf, out.len);
	strbuf_release(&out);
}

static void
fig(struct strbuf *sb, int show, int prec, double v)
{
	if (show)
		strbuf_addf(sb, "%.*f", prec, v);
	else
		strbuf_addch(sb, '*');
}

/* Rounds that time= picked depend on timing: masked like a figure. */
static int
rounds_shown(struct session *s, const struct bench_args *ba)
{
	return ba->time == 0 || bench_figures(s);
}

/* The BenchmarkStats line as printed: figures (and picked rounds) masked
 * unless shown. */
static void
stats_line(struct session *s, const struct bench_args *ba,
    const struct bench_result *res, struct strbuf *sb)
{
	const char *r;

	strbuf_addstr(sb, res->stats.buf);
	if (!bench_figures(s))
		mask_figures(sb);
	if (!rounds_shown(s, ba) && (r = strstr(sb->buf, "(rounds=")) != NULL) {
		struct strbuf out = STRBUF_INIT;
		const char *e = r + 8;

		while (*e >= '0' && *e <= '9')
			e++;
		strbuf_add(&out, sb->buf, (size_t)(r + 8 - sb->buf));
		strbuf_addf(&out, "*%s", e);
		strbuf_reset(sb);
		strbuf_addstr(sb, out.buf);
		strbuf_release(&out);
	}
}

void
bench_print(struct session *s, const struct bench_args *ba,
    const struct bench_result *res)
{
	struct strbuf sb = STRBUF_INIT;
	int show = bench_figures(s);

	stats_line(s, ba, res, &sb);
	out_printf("%s\n", sb.buf);
	strbuf_reset(&sb);
	bench_what(ba, &sb);
	if (ba->cc.a.kind != COLL_BARRIER)
		strbuf_addf(&sb, " %llu B", (unsigned long long)res->bytes);
	strbuf_addf(&sb, "  %d rank%s  time ", coll_size(&ba->cc.a, s->nranks),
	    coll_size(&ba->cc.a, s->nranks) == 1 ? "" : "s");
	fig(&sb, show, 1, res->median);
	strbuf_addstr(&sb, "us");
	if (ba->cc.a.kind != COLL_BARRIER) {
		strbuf_addstr(&sb, "  algbw ");
		fig(&sb, show, 2, res->algbw);
		strbuf_addstr(&sb, " GB/s  busbw ");
		fig(&sb, show, 2, res->busbw);
		strbuf_addstr(&sb, " GB/s");
	}
	if (res->wrong >= 0)
		strbuf_addf(&sb, "  #wrong %lld", (long long)res->wrong);
	strbuf_addf(&sb, "  spans=%s", span_detail_name(ba->spans));
	out_printf("%s\n", sb.buf);
	strbuf_release(&sb);
}

/* A figure: a JSON number, or null when there is none (not finite). */
static void
json_num(struct strbuf *sb, double v)
{
	if (isfinite(v))
		strbuf_addf(sb, "%.9g", v);
	else
		strbuf_addstr(sb, "null");
}

/*
 * JSON is machine output: every key is always there, null where it does
 * not apply, and the figures are numbers whatever `set times` says (the
 * text lines mask them in batch; a JSON consumer asked for them).
 */
void
bench_json(struct session *s, const struct bench_args *ba,
    const struct bench_result *res, struct strbuf *sb)
{
	const struct coll_args *a = &ba->cc.a;

	strbuf_addf(sb, "{\"collective\": \"%s\"", coll_kind_name(a->kind));
	if (a->kind == COLL_ALLREDUCE)
		strbuf_addf(sb, ", \"mode\": \"%s\"",
		    a->mode == MODE_RING ? "ring" : "mesh");
	else
		strbuf_addstr(sb, ", \"mode\": null");
	strbuf_addf(sb, ", \"impl\": \"%s\"",
	    a->impl == IMPL_BUILTIN ? "builtin" : "composite");
	if (a->kind == COLL_ALLREDUCE || a->kind == COLL_REDUCE_SCATTER)
		strbuf_addf(sb, ", \"op\": \"%s\"", reduce_op_name(a->op));
	else
		strbuf_addstr(sb, ", \"op\": null");
	if (a->kind == COLL_BROADCAST)
		strbuf_addf(sb, ", \"root\": %d", a->root);
	else
		strbuf_addstr(sb, ", \"root\": null");
	if (a->kind != COLL_BARRIER)
		strbuf_addf(sb,
		    ", \"dtype\": \"%s\", \"bytes\": %llu, \"count\": %llu",
		    dtype_name(ba->dtype), (unsigned long long)res->bytes,
		    (unsigned long long)res->count);
	else
		strbuf_addstr(sb,
		    ", \"dtype\": null, \"bytes\": null, \"count\": null");
	strbuf_addf(sb, ", \"ranks\": %d, \"rounds\": %ld, \"warmup\": %ld",
	    coll_size(a, s->nranks), res->rounds, res->warmup);
	strbuf_addstr(sb, ", \"time_s\": ");
	json_num(sb, ba->time > 0 ? ba->time : NAN);
	strbuf_addf(sb, ", \"busbw_factor\": %.6f",
	    coll_busbw_factor(a->kind, coll_size(a, s->nranks)));
	strbuf_addstr(sb, ", \"time_us\": {\"min\": ");
	json_num(sb, res->min);
	strbuf_addstr(sb, ", \"median\": ");
	json_num(sb, res->median);
	strbuf_addstr(sb, ", \"mean\": ");
	json_num(sb, res->mean);
	strbuf_addstr(sb, ", \"max\": ");
	json_num(sb, res->max);
	strbuf_addstr(sb, ", \"stdev\": ");
	json_num(sb, res->stdev);
	strbuf_addstr(sb, "}, \"host_union_mean_us\": ");
	json_num(sb, res->union_mean);
	strbuf_addstr(sb, ", \"algbw_GBps\": ");
	json_num(sb, a->kind != COLL_BARRIER ? res->algbw : NAN);
	strbuf_addstr(sb, ", \"busbw_GBps\": ");
	json_num(sb, a->kind != COLL_BARRIER ? res->busbw : NAN);
	if (res->wrong >= 0)
		strbuf_addf(sb, ", \"wrong\": %lld", (long long)res->wrong);
	else
		strbuf_addstr(sb, ", \"wrong\": null");
	strbuf_addf(sb,
	    ", \"spans\": \"%s\", \"spans_lost\": %llu, \"spans_not_kept\": %llu",
	    span_detail_name(ba->spans), (unsigned long long)res->lost,
	    (unsigned long long)res->not_kept);
	strbuf_addf(sb,
	    ", \"waits\": {\"yields\": %llu, \"sleeps\": %llu, \"wakes\": %llu}",
	    (unsigned long long)res->yields, (unsigned long long)res->sleeps,
	    (unsigned long long)res->wakes);
	strbuf_addstr(sb, ", \"stats\": ");
	strbuf_add_json(sb, res->stats.buf);
	strbuf_addstr(sb, ", \"samples_us\": [");
	for (size_t i = 0; i < res->nsamples; i++) {
		strbuf_addstr(sb, i ? ", " : "");
		json_num(sb, res->samples[i]);
	}
	strbuf_addstr(sb, "], \"per_rank_us\": [");
	for (int r = 0, k0 = 0; r < s->nranks; r++) {
		if (coll_dense(a, r) < 0)
			continue; /* outside the bench's domain */
		strbuf_addstr(sb, k0++ ? ", [" : "[");
		for (long k = 0; k < res->rounds; k++) {
			strbuf_addstr(sb, k ? ", " : "");
			json_num(sb, res->rank_us[r][k]);
		}
		strbuf_addch(sb, ']');
	}
	strbuf_addstr(sb, "]}");
}

static void
sweep_cell(struct strbuf *sb, int show, int width, double v)
{
	char buf[64];

	if (show)
		snprintf(buf, sizeof buf, "%.2f", v);
	else
		snprintf(buf, sizeof buf, "*");
	strbuf_addf(sb, " %*s", width, buf);
}

void
bench_spans_warning(const struct bench_result *res)
{
	if (res->lost > 0)
		out_warning("%llu spans lost (a rank's span ring was full); tree and trace save are incomplete",
		    (unsigned long long)res->lost);
	if (res->not_kept > 0)
		out_warning("the trace keeps %lu spans; %llu more were not kept, so tree and trace save cover only part of this bench",
		    trace_keep(), (unsigned long long)res->not_kept);
}

/* nccl-tests' columns: in place (the result overwrites the input) or
 * not; colldb's collectives are one or the other, never both. */
static int
bench_in_place(enum coll_kind k)
{
	return k != COLL_ALLGATHER && k != COLL_ALL_TO_ALL &&
	    k != COLL_ALL_TO_ALL_V;
}

void
bench_sweep_header(struct session *s, const struct bench_args *ba)
{
	struct strbuf sb = STRBUF_INIT, how = STRBUF_INIT;

	bench_what(ba, &sb);
	if (ba->time > 0)
		strbuf_addf(&how, "time=%gs per size", ba->time);
	else
		strbuf_addf(&how, "rounds=%ld", ba->rounds);
	out_printf("# bench sweep %s, %d rank%s, %s warmup=%ld spans=%s; time = median round\n",
	    sb.buf, coll_size(&ba->cc.a, s->nranks),
	    coll_size(&ba->cc.a, s->nranks) == 1 ? "" : "s", how.buf,
	    ba->warmup, span_detail_name(ba->spans));
	{
		/* the group label centred over its four columns, as
		 * nccl-tests prints it */
		const char *grp =
		    bench_in_place(ba->cc.a.kind) ? "in-place" : "out-of-place";
		int w = 37, l = (int)strlen(grp), pad = (w - l) / 2;

		out_printf("# %10s %12s %5s %6s %5s %*s%s\n", "", "", "", "",
		    "", pad, "", grp);
	}
	out_printf("# %10s %12s %5s %6s %5s %10s %8s %8s %7s\n", "size", "count",
	    "type", "redop", "root", "time", "algbw", "busbw", "#wrong");
	out_printf("# %10s %12s %5s %6s %5s %10s %8s %8s\n", "(B)",
	    "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)");
	strbuf_release(&sb);
	strbuf_release(&how);
}

void
bench_sweep_row(struct session *s, const struct bench_args *ba,
    const struct bench_result *res)
{
	struct strbuf sb = STRBUF_INIT;
	const struct coll_args *a = &ba->cc.a;
	int show = bench_figures(s);

	strbuf_addf(&sb, "  %10llu %12llu %5s %6s %5d",
	    (unsigned long long)res->bytes, (unsigned long long)res->count,
	    dtype_name(ba->dtype),
	    a->kind == COLL_ALLREDUCE || a->kind == COLL_REDUCE_SCATTER ?
		reduce_op_name(a->op) :
		"none",
	    a->kind == COLL_BROADCAST ? a->root : -1);
	sweep_cell(&sb, show, 10, res->median);
	sweep_cell(&sb, show, 8, res->algbw);
	sweep_cell(&sb, show, 8, res->busbw);
	if (res->wrong >= 0)
		strbuf_addf(&sb, " %7lld", (long long)res->wrong);
	else
		strbuf_addf(&sb, " %7s", "n/a");
	out_printf("%s\n", sb.buf);
	fflush(stdout);
	strbuf_release(&sb);
}

void
bench_sweep_footer(struct session *s, double busbw_mean)
{
	struct strbuf sb = STRBUF_INIT;

	fig(&sb, bench_figures(s), 2, busbw_mean);
	out_printf("# Avg bus bandwidth    : %s GB/s\n", sb.buf);
	strbuf_release(&sb);
}

int
bench_figures(struct session *s)
{
	return s->interactive || s->set.times;
}
