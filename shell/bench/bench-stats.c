/*
 * bench-stats.c - a bench's figures from the root spans of its timed calls
 * (one per rank and call): PyPTO's BenchmarkStats (viz/stats.h, L3) and
 * the summary line's median, the host union, the per-rank samples.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "bench.h"
#include "span.h"
#include "xmalloc.h"

void
bench_result_release(struct bench_result *res, int nranks)
{
	if (res->rank_us != NULL) {
		for (int r = 0; r < nranks; r++)
			free(res->rank_us[r]);
		free(res->rank_us);
	}
	free(res->samples);
	strbuf_release(&res->stats);
	memset(res, 0, sizeof *res);
}

struct roots {
	struct span_set *set;
	uint64_t *count;      /* per rank */
	uint64_t (*range)[2]; /* per round: min start, max end */
	double **rank_us;
	long runs, warmup;
};

static int
root_visit(void *arg, const struct trace_span *sp)
{
	struct roots *rt = arg;
	const struct span_rec *rec = sp->rec;
	long k = (long)rec->iter - rt->warmup;

	char hid[17];

	snprintf(hid, sizeof hid, "%016" PRIx64, sp->hid);
	span_set_add(rt->set, rec->rank, rec->rank, (uint64_t)rec->iter + 1,
	    hid, 0, sp->name, (int64_t)rec->ts, (int64_t)rec->dur, "");
	rt->count[rec->rank]++;
	if (k >= 0 && k < rt->runs - rt->warmup) {
		uint64_t end = rec->ts + rec->dur;
		if (rt->range[k][1] == 0 || rec->ts < rt->range[k][0])
			rt->range[k][0] = rec->ts;
		rt->range[k][1] = MAX(rt->range[k][1], end);
		rt->rank_us[rec->rank][k] = (double)rec->dur / 1000.0;
	}
	return 0;
}

/* The per-round figures from the roots of the timed jobs. */
int
bench_stats(struct session *s, const struct bench_args *ba,
    const uint32_t *tags, size_t ntags, struct bench_result *res)
{
	struct roots rt;
	struct stats_opts so;
	struct stats *st;
	const char *root = coll_kind_name(ba->cc.a.kind);
	double *u;
	int rc = 0;

	memset(&rt, 0, sizeof rt);
	rt.set = span_set_new();
	rt.count = xcalloc((size_t)s->nranks, sizeof *rt.count);
	rt.runs = res->rounds + res->warmup;
	rt.warmup = res->warmup;
	rt.range = xcalloc((size_t)res->rounds, sizeof *rt.range);
	rt.rank_us = xcalloc((size_t)s->nranks, sizeof *rt.rank_us);
	for (int r = 0; r < s->nranks; r++)
		rt.rank_us[r] = xcalloc((size_t)res->rounds, sizeof **rt.rank_us);
	trace_visit(s, tags, ntags, 1, root_visit, &rt);
	for (int r = 0; r < s->nranks; r++) {
		if (tags[r] != 0 && rt.count[r] != (uint64_t)rt.runs) {
			out_error("bench: rank %d recorded %llu of %ld runs (%llu spans lost)",
			    r, (unsigned long long)rt.count[r], rt.runs,
			    (unsigned long long)trace_lost(s, r));
			rc = -1;
			goto out;
		}
	}
	memset(&so, 0, sizeof so);
	so.level = STATS_L3;
	so.rounds = res->rounds;
	so.warmup = res->warmup;
	so.root_name = so.device_name = root;
	st = stats_new(rt.set, &so);
	stats_format(st, &res->stats);
	res->nsamples = st->nsamples;
	res->samples =
	    xreallocarray(NULL, st->nsamples + 1, sizeof *res->samples);
	memcpy(res->samples, st->device_us, st->nsamples * sizeof *res->samples);
	if (st->nsamples > 0) {
		res->min = res->max = res->samples[0];
		for (size_t i = 1; i < st->nsamples; i++) {
			res->min = MIN(res->min, res->samples[i]);
			res->max = MAX(res->max, res->samples[i]);
		}
		res->median = stats_median(res->samples, st->nsamples);
		res->mean = stats_fmean(res->samples, st->nsamples);
		res->stdev = stats_stdev(res->samples, st->nsamples);
	}
	stats_free(st);
	u = xreallocarray(NULL, (size_t)res->rounds, sizeof *u);
	for (long k = 0; k < res->rounds; k++)
		u[k] = (double)(rt.range[k][1] - rt.range[k][0]) / 1000.0;
	res->union_mean = stats_fmean(u, (size_t)res->rounds);
	free(u);
	res->rank_us = rt.rank_us;
	rt.rank_us = NULL;
out:
	if (rt.rank_us != NULL) {
		for (int r = 0; r < s->nranks; r++)
			free(rt.rank_us[r]);
		free(rt.rank_us);
	}
	free(rt.range);
	free(rt.count);
	span_set_free(rt.set);
	return rc;
}

struct pace {
	double *worst; /* per run: the slowest rank's us */
	long runs;
};

static int
pace_visit(void *arg, const struct trace_span *sp)
{
	struct pace *pc = arg;
	const struct span_rec *rec = sp->rec;
	double us = (double)rec->dur / 1000.0;

	if ((long)rec->iter < pc->runs && us > pc->worst[rec->iter])
		pc->worst[rec->iter] = us;
	return 0;
}

double
bench_pace(struct session *s, const uint32_t *tags, size_t ntags, long runs)
{
	struct pace pc = { xcalloc((size_t)runs, sizeof *pc.worst), runs };
	double m;

	trace_visit(s, tags, ntags, 1, pace_visit, &pc);
	m = stats_median(pc.worst, (size_t)runs);
	free(pc.worst);
	return m;
}
