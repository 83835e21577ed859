/* stats.c - BenchmarkStats from span records: L2/L3 aggregation; see stats.h. */
#include <stdlib.h>
#include <string.h>

#include "../core/xmalloc.h"
#include "stats.h"

static const char name_root[] = "chip.run";
static const char name_device[] = "chip.run.runner_run.device_wall";

static void
stats_reserve(struct stats *st, size_t n)
{
	st->measured =
	    xreallocarray(st->measured, n ? n : 1, sizeof *st->measured);
	st->device_us =
	    xreallocarray(st->device_us, n ? n : 1, sizeof *st->device_us);
	st->host_us = xreallocarray(st->host_us, n ? n : 1, sizeof *st->host_us);
}

/* L3 is assumed when more than one pid emits device_wall (whole log). */
static enum stats_level
stats_detect(const struct span_set *set, const char *device_name)
{
	size_t n, i;
	const struct span *sp = span_set_spans(set, &n);
	uint32_t dev = span_set_lookup(set, device_name, strlen(device_name));
	int64_t pid = 0;
	int seen = 0;

	if (span_set_has_pass_marker(set))
		return STATS_L3;
	if (dev == SPAN_NOSTR)
		return STATS_L2;
	for (i = 0; i < n; i++) {
		if (sp[i].name != dev || (sp[i].flags & SPAN_FOREIGN) ||
		    !(sp[i].flags & SPAN_VIEW_FULL))
			continue;
		if (seen && sp[i].pid != pid)
			return STATS_L3;
		pid = sp[i].pid;
		seen = 1;
	}
	return STATS_L2;
}

static const struct stats *sort_stats;

static int
cmp_inv_by_inv(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct stats_inv *ix = &sort_stats->invs[x];
	const struct stats_inv *iy = &sort_stats->invs[y];

	if (ix->inv != iy->inv)
		return ix->inv < iy->inv ? -1 : 1;
	return x < y ? -1 : x > y; /* stable */
}

static void
stats_l2(struct stats *st, int default_rounds)
{
	uint32_t nstr = span_set_nstr(st->set), *bucket, *count, *busy;
	size_t i, nb = 0, best = 0, nbusy = 0, w;

	bucket = xreallocarray(NULL, nstr ? nstr : 1, sizeof *bucket);
	count = xcalloc(st->ninvs + 1, sizeof *count);
	for (i = 0; i < nstr; i++)
		bucket[i] = UINT32_MAX;
	for (i = 0; i < st->ninvs; i++) {
		uint32_t h = st->invs[i].hid;

		if (bucket[h] == UINT32_MAX)
			bucket[h] = (uint32_t)nb++;
		count[bucket[h]]++;
	}
	for (i = 1; i < nb; i++) {
		if (count[i] > count[best])
			best = i;
	}
	busy = xreallocarray(NULL, st->ninvs ? st->ninvs : 1, sizeof *busy);
	for (i = 0; i < st->ninvs; i++) {
		if (bucket[st->invs[i].hid] == best)
			busy[nbusy++] = (uint32_t)i;
	}
	sort_stats = st;
	qsort(busy, nbusy, sizeof *busy, cmp_inv_by_inv);
	sort_stats = NULL;

	w = (size_t)st->warmup < nbusy ? (size_t)st->warmup : nbusy;
	if (default_rounds)
		st->rounds = (long)(nbusy - w);
	stats_reserve(st, nbusy - w);
	for (i = w; i < nbusy; i++) {
		const struct stats_inv *iv = &st->invs[busy[i]];

		st->measured[st->nmeasured++] = busy[i];
		st->device_us[st->nsamples] = iv->device_early_us;
		st->host_us[st->nsamples++] = iv->host_early_us;
	}
	free(busy);
	free(count);
	free(bucket);
}

struct pidrun {
	int64_t pid;
	size_t start; /* into the dispatch list */
	size_t count;
	int device;
};

static size_t
gcd_size(size_t a, size_t b)
{
	while (b != 0) {
		size_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Every rank's hid sequence repeats with one launch = count/L dispatches. */
static int
l3_periodic(const struct stats *st, const uint32_t *disp,
    const struct pidrun *runs, size_t nruns, size_t L)
{
	size_t i, j;

	for (i = 0; i < nruns; i++) {
		size_t d = runs[i].count / L;
		const uint32_t *x = disp + runs[i].start;

		if (!runs[i].device)
			continue;
		for (j = d; j < runs[i].count; j++) {
			if (st->invs[x[j]].hid != st->invs[x[j - d]].hid)
				return 0;
		}
	}
	return 1;
}

/*
 * Launches in the log when the caller gave no --rounds (colldb's policy):
 * the host orchestrator emits one chip.run root per launch, so its count
 * is the answer.  Without one: the largest L >= 2 dividing every rank's
 * dispatch count such that each rank repeats the same callables launch
 * after launch, else the gcd of the counts.
 */
static size_t
l3_default_launches(const struct stats *st, const uint32_t *disp,
    const struct pidrun *runs, size_t nruns)
{
	size_t i, g = 0, host = 0, m;
	int have_host = 0;

	for (i = 0; i < nruns; i++) {
		if (runs[i].device)
			g = gcd_size(g, runs[i].count);
		else if (!have_host) {
			host = runs[i].count;
			have_host = 1;
		}
	}
	if (g == 0)
		return 0; /* no rank: nothing to measure */
	if (have_host)
		return host;
	for (m = 1; m <= g / 2; m++) {
		if (g % m == 0 && l3_periodic(st, disp, runs, nruns, g / m))
			return g / m;
	}
	return g;
}

/* The dispatches in log order (disp) and the runs of one pid in it. */
static size_t
l3_runs(const struct stats *st, uint32_t *disp, struct pidrun *runs, size_t *ndisp)
{
	size_t nruns = 0;

	*ndisp = 0;
	for (size_t i = 0; i < st->ninvs; i++) {
		const struct stats_inv *iv = &st->invs[i];

		if (!(iv->flags & STATS_INV_DISPATCH))
			continue;
		if (nruns == 0 || runs[nruns - 1].pid != iv->pid) {
			runs[nruns].pid = iv->pid;
			runs[nruns].start = *ndisp;
			runs[nruns].count = 0;
			runs[nruns++].device = 0;
		}
		runs[nruns - 1].count++;
		if (iv->flags & STATS_INV_DEVICE)
			runs[nruns - 1].device = 1;
		disp[(*ndisp)++] = (uint32_t)i;
	}
	return nruns;
}

/* Not segmentable into warmup + rounds launches: every dispatch after
 * each rank's warmup is one sample. */
static void
l3_flatten(struct stats *st, const uint32_t *disp, const struct pidrun *runs,
    size_t nruns)
{
	st->flattened = 1;
	for (size_t i = 0; i < nruns; i++) {
		size_t w = MIN((size_t)st->warmup, runs[i].count);

		if (!runs[i].device)
			continue;
		for (size_t j = w; j < runs[i].count; j++) {
			uint32_t x = disp[runs[i].start + j];

			st->measured[st->nmeasured++] = x;
			st->device_us[st->nsamples] = st->invs[x].device_early_us;
			st->host_us[st->nsamples++] = st->invs[x].host_early_us;
		}
	}
}

/* The grid: rank x round x slot, each rank's runs cut into launches. */
static void
l3_grid(struct stats *st, const uint32_t *disp, const struct pidrun *runs,
    size_t nruns, size_t nranks, size_t launches)
{
	st->ranks = xcalloc(nranks, sizeof *st->ranks);
	for (size_t i = 0; i < nruns; i++) {
		struct stats_rank *r;
		size_t d = runs[i].count / launches;

		if (!runs[i].device)
			continue;
		r = &st->ranks[st->nranks++];
		r->pid = runs[i].pid;
		r->per_round = d;
		r->base = st->nmeasured;
		for (size_t k = 0; k < (size_t)st->rounds; k++) {
			for (size_t s = 0; s < d; s++) {
				uint32_t x = disp[runs[i].start +
				    ((size_t)st->warmup + k) * d + s];

				st->invs[x].round = (int32_t)k;
				st->invs[x].slot = (int32_t)s;
				st->measured[st->nmeasured++] = x;
			}
		}
	}
	st->grid = st->rounds > 0;

	/* a slot must carry one hid across the rounds */
	for (size_t i = 0; i < st->nranks && st->grid; i++) {
		for (size_t s = 0; s < st->ranks[i].per_round; s++) {
			uint32_t h = stats_grid_at(st, i, 0, s)->hid;

			for (size_t k = 1; k < (size_t)st->rounds; k++) {
				if (stats_grid_at(st, i, k, s)->hid != h)
					st->unstable = 1;
			}
		}
	}
}

/* Per round: each rank's dispatches summed, max over ranks. */
static void
l3_round_samples(struct stats *st)
{
	for (size_t k = 0; k < (size_t)st->rounds && st->grid; k++) {
		double dmax = 0, hmax = 0;

		for (size_t i = 0; i < st->nranks; i++) {
			double dsum = 0, hsum = 0;

			for (size_t s = 0; s < st->ranks[i].per_round; s++) {
				dsum += stats_grid_at(st, i, k, s)->device_us;
				hsum += stats_grid_at(st, i, k, s)->host_us;
			}
			if (i == 0 || dsum > dmax)
				dmax = dsum;
			if (i == 0 || hsum > hmax)
				hmax = hsum;
		}
		st->device_us[st->nsamples] = dmax;
		st->host_us[st->nsamples++] = hmax;
	}
}

static void
stats_l3(struct stats *st, int default_rounds)
{
	uint32_t *disp;
	struct pidrun *runs;
	size_t ndisp, nruns, nranks = 0, launches, total = 0;
	int segmentable;

	disp = xreallocarray(NULL, st->ninvs ? st->ninvs : 1, sizeof *disp);
	runs = xreallocarray(NULL, st->ninvs ? st->ninvs : 1, sizeof *runs);
	nruns = l3_runs(st, disp, runs, &ndisp);
	if (default_rounds) {
		launches = l3_default_launches(st, disp, runs, nruns);
		st->rounds = launches > (size_t)st->warmup ?
		    (long)(launches - (size_t)st->warmup) :
		    0;
	}
	for (size_t i = 0; i < nruns; i++)
		nranks += runs[i].device != 0;
	if (nranks == 0)
		goto out;
	launches = (size_t)st->warmup + (size_t)st->rounds;
	segmentable = launches > 0;
	for (size_t i = 0; i < nruns; i++) {
		if (!runs[i].device)
			continue;
		total += runs[i].count;
		if (launches == 0 || runs[i].count % launches != 0)
			segmentable = 0;
	}
	stats_reserve(st, total);
	if (!segmentable) {
		l3_flatten(st, disp, runs, nruns);
		goto out;
	}
	l3_grid(st, disp, runs, nruns, nranks, launches);
	l3_round_samples(st);
out:
	free(runs);
	free(disp);
}

const struct stats_inv *
stats_grid_at(const struct stats *st, size_t rank, size_t round, size_t slot)
{
	const struct stats_rank *r = &st->ranks[rank];

	return &st->invs[st->measured[r->base + round * r->per_round + slot]];
}

struct stats *
stats_new(const struct span_set *set, const struct stats_opts *opts)
{
	struct stats *st = xcalloc(1, sizeof *st);
	enum strace_timing timing;
	long blocks;
	int default_rounds = opts->rounds < 0;

	st->set = set;
	st->root_name = opts->root_name != NULL ? opts->root_name : name_root;
	st->device_name =
	    opts->device_name != NULL ? opts->device_name : name_device;
	st->warmup = opts->warmup < 0 ? 0 : opts->warmup;
	st->rounds = default_rounds ? 0 : opts->rounds;
	st->level = opts->level != STATS_AUTO ?
	    opts->level :
	    stats_detect(set, st->device_name);
	timing = span_set_timing(set, &blocks);
	if (st->level == STATS_L3 && timing != STRACE_TIMING_NONE) {
		stats_index(st, SPAN_VIEW_TIMING);
		if (default_rounds && timing == STRACE_TIMING_OK)
			st->rounds =
			    blocks > st->warmup ? blocks - st->warmup : 0;
		if (timing == STRACE_TIMING_BAD ||
		    blocks != st->warmup + st->rounds) {
			st->flattened = 1;
			return st;
		}
		default_rounds = 0;
	} else
		stats_index(st, SPAN_VIEW_FULL);
	if (st->ninvs == 0)
		return st;
	if (st->level == STATS_L3)
		stats_l3(st, default_rounds);
	else
		stats_l2(st, default_rounds);
	return st;
}

void
stats_free(struct stats *st)
{
	if (st == NULL)
		return;
	free(st->invs);
	free(st->order);
	free(st->measured);
	free(st->device_us);
	free(st->host_us);
	free(st->ranks);
	free(st);
}
