/* stats.c - BenchmarkStats from span records; see stats.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"
#include "../core/xmalloc.h"
#include "stats.h"

typedef unsigned __int128 u128;

/* ---- exact arithmetic ------------------------------------------------------
 * A small unsigned big integer, enough for sums of squares of doubles
 * scaled to a common exponent.  `ovf` is sticky: a result that does not fit
 * sets it, and callers fall back to long double (never in practice: the
 * values here are durations).
 */
#define BIG_LIMBS 48

struct big {
	int n;			/* limbs in use, no leading zero limbs */
	int ovf;
	uint32_t d[BIG_LIMBS];
};

static void
big_set(struct big *b, u128 v)
{
	b->n = 0;
	b->ovf = 0;
	while (v != 0) {
		b->d[b->n++] = (uint32_t)v;
		v >>= 32;
	}
}

static int
big_bitlen(const struct big *b)
{
	if (b->n == 0)
		return 0;
	return (b->n - 1) * 32 + (32 - __builtin_clz(b->d[b->n - 1]));
}

static void
big_trim(struct big *b)
{
	while (b->n > 0 && b->d[b->n - 1] == 0)
		b->n--;
}

static void
big_add(struct big *r, const struct big *a)
{
	uint64_t c = 0;
	int i, n = MAX(r->n, a->n);

	r->ovf |= a->ovf;
	for (i = 0; i < n; i++) {
		c += (uint64_t)(i < r->n ? r->d[i] : 0) +
		    (i < a->n ? a->d[i] : 0);
		r->d[i] = (uint32_t)c;
		c >>= 32;
	}
	r->n = n;
	if (c != 0) {
		if (n == BIG_LIMBS)
			r->ovf = 1;
		else
			r->d[r->n++] = (uint32_t)c;
	}
}

/* r -= a, requires r >= a */
static void
big_sub(struct big *r, const struct big *a)
{
	int64_t c = 0;
	int i;

	r->ovf |= a->ovf;
	for (i = 0; i < r->n; i++) {
		c += (int64_t)r->d[i] - (i < a->n ? a->d[i] : 0);
		r->d[i] = (uint32_t)c;
		c = c < 0 ? -1 : 0;
	}
	big_trim(r);
}

static void
big_mul(struct big *r, const struct big *a, const struct big *b)
{
	struct big t;
	int i, j;

	memset(&t, 0, sizeof t);
	t.ovf = a->ovf | b->ovf;
	if (a->n + b->n > BIG_LIMBS) {
		t.ovf = 1;
		*r = t;
		return;
	}
	for (i = 0; i < a->n; i++) {
		uint64_t c = 0;

		for (j = 0; j < b->n; j++) {
			c += (uint64_t)a->d[i] * b->d[j] + t.d[i + j];
			t.d[i + j] = (uint32_t)c;
			c >>= 32;
		}
		t.d[i + b->n] = (uint32_t)c;
	}
	t.n = a->n + b->n;
	big_trim(&t);
	*r = t;
}

static void
big_shl(struct big *b, int bits)
{
	int limbs = bits / 32, sh = bits % 32, i;

	if (b->n == 0 || bits == 0)
		return;
	if (b->n + limbs + 1 > BIG_LIMBS) {
		b->ovf = 1;
		return;
	}
	b->d[b->n + limbs] = 0;
	for (i = b->n - 1; i >= 0; i--) {
		uint64_t v = (uint64_t)b->d[i] << sh;

		b->d[i + limbs + 1] |= (uint32_t)(v >> 32);
		b->d[i + limbs] = (uint32_t)v;
	}
	for (i = 0; i < limbs; i++)
		b->d[i] = 0;
	b->n += limbs + 1;
	big_trim(b);
}

static int
big_cmp(const struct big *a, const struct big *b)
{
	int i;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = a->n - 1; i >= 0; i--) {
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	}
	return 0;
}

/* Top bits of B as a round-to-odd integer below 2^63, and the shift used. */
static uint64_t
big_top_rto(const struct big *b, int *shift)
{
	int bl = big_bitlen(b), sh = bl > 62 ? bl - 62 : 0, i;
	uint64_t v = 0, sticky = 0;

	for (i = 0; i < bl - sh; i++) {
		int bit = sh + i;

		if (b->d[bit / 32] >> (bit % 32) & 1)
			v |= (uint64_t)1 << i;
	}
	for (i = 0; i < sh && !sticky; i++) {
		if (b->d[i / 32] >> (i % 32) & 1)
			sticky = 1;
	}
	*shift = sh;
	return v | sticky;
}

/* B * 2^e correctly rounded to double. */
static double
big_to_double(const struct big *b, int e)
{
	int sh;
	uint64_t v = big_top_rto(b, &sh);

	/* 62 significant bits with a sticky lsb: one rounding, to nearest */
	return ldexp((double)(int64_t)v, e + sh);
}

/* sqrt(N / D) * 2^e, correctly rounded (statistics._float_sqrt_of_frac). */
static double
big_sqrt_frac(const struct big *N, const struct big *D, int e)
{
	struct big L = *N, R = *D, t2, sq;
	int k, bit;
	uint64_t q = 0;

	if (N->n == 0)
		return 0.0;
	/* scale so that L/R lies in (2^109, 2^113): q has 55..57 bits */
	k = 112 - (big_bitlen(N) - big_bitlen(D));
	k = k >= 0 ? k / 2 : -((-k + 1) / 2);
	if (k >= 0)
		big_shl(&L, 2 * k);
	else
		big_shl(&R, -2 * k);
	for (bit = 58; bit >= 0; bit--) {
		uint64_t t = q | (uint64_t)1 << bit;

		big_set(&t2, (u128)t * t);
		big_mul(&sq, &t2, &R);
		if (big_cmp(&sq, &L) <= 0)
			q = t;
	}
	big_set(&t2, (u128)q * q);
	big_mul(&sq, &t2, &R);
	if (big_cmp(&sq, &L) != 0)
		q |= 1;		/* round to odd: q has >= 55 bits */
	return ldexp((double)(int64_t)q, e - k);
}

/* Split finite x >= 0 into m * 2^e with integer m < 2^53. */
static uint64_t
split_double(double x, int *e)
{
	int ex;
	double f = frexp(x, &ex);

	if (x == 0.0) {
		*e = 0;
		return 0;
	}
	*e = ex - 53;
	return (uint64_t)ldexp(f, 53);
}

static int
values_ok(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]) || v[i] < 0)
			return 0;
	}
	return 1;
}

double
stats_fmean(const double *v, size_t n)
{
	struct big sum, x;
	int emin = 0, e, first = 1;
	size_t i;
	long double acc = 0;

	if (n == 0)
		BUG("fmean of nothing");
	if (!values_ok(v, n))
		goto fallback;
	for (i = 0; i < n; i++) {
		if (split_double(v[i], &e) != 0 && (first || e < emin)) {
			emin = e;
			first = 0;
		}
	}
	big_set(&sum, 0);
	for (i = 0; i < n; i++) {
		uint64_t m = split_double(v[i], &e);

		if (m == 0)
			continue;
		big_set(&x, m);
		big_shl(&x, e - emin);
		big_add(&sum, &x);
	}
	if (sum.ovf)
		goto fallback;
	return big_to_double(&sum, emin) / (double)n;
fallback:
	for (i = 0; i < n; i++)
		acc += v[i];
	return (double)acc / (double)n;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
stats_median(const double *v, size_t n)
{
	double *s, r;

	if (n == 0)
		return 0.0;
	s = xreallocarray(NULL, n, sizeof *s);
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	r = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return r;
}

double
stats_stdev(const double *v, size_t n)
{
	struct big sx, sxx, x, t, N, D;
	int emin = 0, e, first = 1;
	size_t i;
	long double mean = 0, ss = 0;

	if (n < 2)
		return 0.0;
	if (!values_ok(v, n))
		goto fallback;
	for (i = 0; i < n; i++) {
		if (split_double(v[i], &e) != 0 && (first || e < emin)) {
			emin = e;
			first = 0;
		}
	}
	big_set(&sx, 0);
	big_set(&sxx, 0);
	for (i = 0; i < n; i++) {
		uint64_t m = split_double(v[i], &e);

		if (m == 0)
			continue;
		big_set(&x, m);
		big_shl(&x, e - emin);
		big_add(&sx, &x);
		big_mul(&t, &x, &x);
		big_add(&sxx, &t);
	}
	/* var = (n*Sxx - Sx^2) / (n(n-1)), in units of 2^(2 emin) */
	big_set(&t, n);
	big_mul(&N, &t, &sxx);
	big_mul(&t, &sx, &sx);
	big_sub(&N, &t);
	big_set(&D, (u128)n * (n - 1));
	if (N.ovf || D.ovf)
		goto fallback;
	return big_sqrt_frac(&N, &D, emin);
fallback:
	for (i = 0; i < n; i++)
		mean += v[i];
	mean /= n;
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return (double)sqrtl(ss / (n - 1));
}

void
stats_iacc_add(struct stats_iacc *a, int64_t x)
{
	u128 sq = (u128)(uint64_t)x * (uint64_t)x;

	if (a->n == 0 || x < a->min)
		a->min = x;
	if (a->n == 0 || x > a->max)
		a->max = x;
	a->n++;
	a->sum += (uint64_t)x;
	/* fsum() converts each int to float first */
	a->fsum += (u128)(uint64_t)(double)x;
	a->sq_lo += sq;
	if (a->sq_lo < sq)
		a->sq_hi++;
}

double
stats_iacc_fmean(const struct stats_iacc *a)
{
	struct big s;

	if (a->n == 0)
		BUG("fmean of nothing");
	big_set(&s, a->fsum);
	return big_to_double(&s, 0) / (double)a->n;
}

double
stats_iacc_stdev(const struct stats_iacc *a)
{
	struct big sxx, hi, t, N, D, sx;

	if (a->n < 2)
		return 0.0;
	big_set(&sxx, a->sq_lo);
	big_set(&hi, a->sq_hi);
	big_shl(&hi, 128);
	big_add(&sxx, &hi);
	big_set(&t, a->n);
	big_mul(&N, &t, &sxx);
	big_set(&sx, a->sum);
	big_mul(&t, &sx, &sx);
	big_sub(&N, &t);
	big_set(&D, (u128)a->n * (a->n - 1));
	return big_sqrt_frac(&N, &D, 0);
}

/* ---- grouping spans into invocations ------------------------------------- */

static const char name_root[] = "chip.run";
static const char name_device[] = "chip.run.runner_run.device_wall";

static uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

struct groups {
	int64_t *pid;
	uint64_t *inv;
	uint32_t *count;
	uint32_t *first_span;
	size_t n;
	size_t cap;
	uint32_t *slots;	/* group + 1 */
	size_t nslots;
};

static size_t
groups_find(struct groups *g, const struct span *sp, size_t idx)
{
	uint64_t h = mix64((uint64_t)sp->pid * 0x9e3779b97f4a7c15ULL ^
	    sp->inv);
	size_t mask, j, k;
	uint32_t id;

	if ((g->n + 1) * 2 > g->nslots) {
		size_t ns = g->nslots ? g->nslots * 2 : 1024;
		uint32_t *slots = xcalloc(ns, sizeof *slots);

		for (k = 0; k < g->n; k++) {
			uint64_t hk = mix64((uint64_t)g->pid[k] *
			    0x9e3779b97f4a7c15ULL ^ g->inv[k]);

			for (j = hk & (ns - 1); slots[j] != 0;
			    j = (j + 1) & (ns - 1))
				;
			slots[j] = (uint32_t)k + 1;
		}
		free(g->slots);
		g->slots = slots;
		g->nslots = ns;
	}
	mask = g->nslots - 1;
	for (j = h & mask; (id = g->slots[j]) != 0; j = (j + 1) & mask) {
		if (g->pid[id - 1] == sp->pid && g->inv[id - 1] == sp->inv)
			return id - 1;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->pid = xreallocarray(g->pid, g->cap, sizeof *g->pid);
		g->inv = xreallocarray(g->inv, g->cap, sizeof *g->inv);
		g->count = xreallocarray(g->count, g->cap, sizeof *g->count);
		g->first_span = xreallocarray(g->first_span, g->cap,
		    sizeof *g->first_span);
	}
	g->pid[g->n] = sp->pid;
	g->inv[g->n] = sp->inv;
	g->count[g->n] = 0;
	g->first_span[g->n] = (uint32_t)idx;
	g->slots[j] = (uint32_t)g->n + 1;
	return g->n++;
}

static const struct groups *sort_groups;

static int
cmp_group(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct groups *g = sort_groups;

	if (g->pid[x] != g->pid[y])
		return g->pid[x] < g->pid[y] ? -1 : 1;
	if (g->inv[x] != g->inv[y])
		return g->inv[x] < g->inv[y] ? -1 : 1;
	return 0;
}

/* Group the spans of VIEW into st->invs / st->order (group_invocations). */
static void
stats_index(struct stats *st, uint32_t view)
{
	const struct span_set *set = st->set;
	size_t n, i, k;
	const struct span *sp = span_set_spans(set, &n);
	uint32_t root = span_set_lookup(set, st->root_name,
	    strlen(st->root_name));
	uint32_t dev = span_set_lookup(set, st->device_name,
	    strlen(st->device_name));
	struct groups g;
	uint32_t *gid, *start, *pos, *perm;

	if (n >= UINT32_MAX)
		BUG("too many spans");
	memset(&g, 0, sizeof g);
	gid = xreallocarray(NULL, n ? n : 1, sizeof *gid);
	for (i = 0; i < n; i++) {
		if ((sp[i].flags & view) == 0 ||
		    (sp[i].flags & SPAN_FOREIGN) != 0) {
			gid[i] = UINT32_MAX;
			continue;
		}
		gid[i] = (uint32_t)groups_find(&g, &sp[i], i);
		g.count[gid[i]]++;
	}
	start = xreallocarray(NULL, g.n + 1, sizeof *start);
	pos = xreallocarray(NULL, g.n + 1, sizeof *pos);
	for (k = 0, i = 0; k < g.n; k++) {
		start[k] = pos[k] = (uint32_t)i;
		i += g.count[k];
	}
	st->order = xreallocarray(NULL, i ? i : 1, sizeof *st->order);
	for (i = 0; i < n; i++) {
		if (gid[i] != UINT32_MAX)
			st->order[pos[gid[i]]++] = (uint32_t)i;
	}

	perm = xreallocarray(NULL, g.n ? g.n : 1, sizeof *perm);
	for (k = 0; k < g.n; k++)
		perm[k] = (uint32_t)k;
	sort_groups = &g;
	qsort(perm, g.n, sizeof *perm, cmp_group);
	sort_groups = NULL;

	st->ninvs = g.n;
	st->invs = xcalloc(g.n ? g.n : 1, sizeof *st->invs);
	for (k = 0; k < g.n; k++) {
		struct stats_inv *iv = &st->invs[k];
		uint32_t gk = perm[k], j;
		int64_t dev_ts = 0, host_ts = 0;
		int have_dev = 0, have_host = 0;

		iv->pid = g.pid[gk];
		iv->inv = g.inv[gk];
		iv->hid = sp[g.first_span[gk]].hid;
		iv->first = start[gk];
		iv->nspans = g.count[gk];
		iv->round = iv->slot = -1;
		for (j = 0; j < iv->nspans; j++) {
			const struct span *s = &sp[st->order[iv->first + j]];

			if (s->name == root && root != SPAN_NOSTR) {
				if (s->depth == 0)
					iv->flags |= STATS_INV_DISPATCH;
				if (!have_host) {
					iv->flags |= STATS_INV_HOST;
					iv->host_us = s->dur / 1000.0;
					iv->host_ts = s->ts;
					iv->host_dur = s->dur;
				}
				/* simpler's by_name(): earliest ts wins */
				if (!have_host || s->ts < host_ts) {
					host_ts = s->ts;
					iv->host_early_us = s->dur / 1000.0;
				}
				have_host = 1;
			}
			if (s->name == dev && dev != SPAN_NOSTR) {
				if (!have_dev)
					iv->device_us = s->dur / 1000.0;
				if (!have_dev || s->ts < dev_ts) {
					dev_ts = s->ts;
					iv->device_early_us = s->dur / 1000.0;
				}
				iv->flags |= STATS_INV_DEVICE;
				have_dev = 1;
			}
		}
	}
	free(perm);
	free(start);
	free(pos);
	free(gid);
	free(g.pid);
	free(g.inv);
	free(g.count);
	free(g.first_span);
	free(g.slots);
}

/* ---- aggregation ----------------------------------------------------------- */

static void
stats_reserve(struct stats *st, size_t n)
{
	st->measured = xreallocarray(st->measured, n ? n : 1,
	    sizeof *st->measured);
	st->device_us = xreallocarray(st->device_us, n ? n : 1,
	    sizeof *st->device_us);
	st->host_us = xreallocarray(st->host_us, n ? n : 1,
	    sizeof *st->host_us);
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
	return x < y ? -1 : x > y;	/* stable */
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
	size_t start;		/* into the dispatch list */
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
		return 0;	/* no rank: nothing to measure */
	if (have_host)
		return host;
	for (m = 1; m <= g / 2; m++) {
		if (g % m == 0 && l3_periodic(st, disp, runs, nruns, g / m))
			return g / m;
	}
	return g;
}

static void
stats_l3(struct stats *st, int default_rounds)
{
	uint32_t *disp;
	struct pidrun *runs;
	size_t ndisp = 0, nruns = 0, nranks = 0, i, j, k, s, launches, total;
	int segmentable;

	disp = xreallocarray(NULL, st->ninvs ? st->ninvs : 1, sizeof *disp);
	runs = xreallocarray(NULL, st->ninvs ? st->ninvs : 1, sizeof *runs);
	for (i = 0; i < st->ninvs; i++) {
		const struct stats_inv *iv = &st->invs[i];

		if (!(iv->flags & STATS_INV_DISPATCH))
			continue;
		if (nruns == 0 || runs[nruns - 1].pid != iv->pid) {
			runs[nruns].pid = iv->pid;
			runs[nruns].start = ndisp;
			runs[nruns].count = 0;
			runs[nruns++].device = 0;
		}
		runs[nruns - 1].count++;
		if (iv->flags & STATS_INV_DEVICE)
			runs[nruns - 1].device = 1;
		disp[ndisp++] = (uint32_t)i;
	}
	if (default_rounds) {
		launches = l3_default_launches(st, disp, runs, nruns);
		st->rounds = launches > (size_t)st->warmup ?
		    (long)(launches - (size_t)st->warmup) : 0;
	}
	for (i = 0; i < nruns; i++)
		nranks += runs[i].device != 0;
	if (nranks == 0)
		goto out;

	launches = (size_t)st->warmup + (size_t)st->rounds;
	segmentable = launches > 0;
	total = 0;
	for (i = 0; i < nruns; i++) {
		if (!runs[i].device)
			continue;
		total += runs[i].count;
		if (launches == 0 || runs[i].count % launches != 0)
			segmentable = 0;
	}
	stats_reserve(st, total);

	if (!segmentable) {
		st->flattened = 1;
		for (i = 0; i < nruns; i++) {
			size_t w = MIN((size_t)st->warmup, runs[i].count);

			if (!runs[i].device)
				continue;
			for (j = w; j < runs[i].count; j++) {
				uint32_t x = disp[runs[i].start + j];

				st->measured[st->nmeasured++] = x;
				st->device_us[st->nsamples] =
				    st->invs[x].device_early_us;
				st->host_us[st->nsamples++] =
				    st->invs[x].host_early_us;
			}
		}
		goto out;
	}

	st->ranks = xcalloc(nranks, sizeof *st->ranks);
	for (i = 0; i < nruns; i++) {
		struct stats_rank *r;
		size_t d = runs[i].count / launches;

		if (!runs[i].device)
			continue;
		r = &st->ranks[st->nranks++];
		r->pid = runs[i].pid;
		r->per_round = d;
		r->base = st->nmeasured;
		for (k = 0; k < (size_t)st->rounds; k++) {
			for (s = 0; s < d; s++) {
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
	for (i = 0; i < st->nranks && st->grid; i++) {
		for (s = 0; s < st->ranks[i].per_round; s++) {
			uint32_t h = stats_grid_at(st, i, 0, s)->hid;

			for (k = 1; k < (size_t)st->rounds; k++) {
				if (stats_grid_at(st, i, k, s)->hid != h)
					st->unstable = 1;
			}
		}
	}

	/* per round: each rank's dispatches summed, max over ranks */
	for (k = 0; k < (size_t)st->rounds && st->grid; k++) {
		double dmax = 0, hmax = 0;

		for (i = 0; i < st->nranks; i++) {
			double dsum = 0, hsum = 0;

			for (s = 0; s < st->ranks[i].per_round; s++) {
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
	st->device_name = opts->device_name != NULL ? opts->device_name :
	    name_device;
	st->warmup = opts->warmup < 0 ? 0 : opts->warmup;
	st->rounds = default_rounds ? 0 : opts->rounds;
	st->level = opts->level != STATS_AUTO ? opts->level :
	    stats_detect(set, st->device_name);
	timing = span_set_timing(set, &blocks);
	if (st->level == STATS_L3 && timing != STRACE_TIMING_NONE) {
		stats_index(st, SPAN_VIEW_TIMING);
		if (default_rounds && timing == STRACE_TIMING_OK)
			st->rounds = blocks > st->warmup ?
			    blocks - st->warmup : 0;
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

/* ---- str(BenchmarkStats) --------------------------------------------------- */

#define STR_MAX_DISPATCHES 8

static void
stats_union_suffix(const struct stats *st, struct strbuf *out)
{
	double *u = xreallocarray(NULL, (size_t)st->rounds, sizeof *u);
	size_t k, i, s;

	for (k = 0; k < (size_t)st->rounds; k++) {
		int64_t lo = 0;
		__int128 hi = 0;
		int any = 0;

		for (i = 0; i < st->nranks; i++) {
			for (s = 0; s < st->ranks[i].per_round; s++) {
				const struct stats_inv *iv =
				    stats_grid_at(st, i, k, s);
				__int128 end = (__int128)iv->host_ts +
				    iv->host_dur;

				if (!(iv->flags & STATS_INV_HOST))
					continue;
				if (!any || iv->host_ts < lo)
					lo = iv->host_ts;
				if (!any || end > hi)
					hi = end;
				any = 1;
			}
		}
		u[k] = any ? (double)(hi - lo) / 1000.0 : 0.0;
	}
	strbuf_addf(out, "; host-union mean=%.1fus",
	    stats_fmean(u, (size_t)st->rounds));
	free(u);
}

static void
stats_dispatch_line(const struct stats *st, struct strbuf *out)
{
	size_t i, s, k, ndisp = 0, shown = 0;
	double *v;

	if (!st->grid || st->unstable)
		return;
	for (i = 0; i < st->nranks; i++)
		ndisp += st->ranks[i].per_round;
	if (ndisp <= st->nranks)
		return;		/* one dispatch per rank: nothing fused */
	v = xreallocarray(NULL, (size_t)st->rounds, sizeof *v);
	strbuf_addstr(out, "\n  per-dispatch device mean us: ");
	for (i = 0; i < st->nranks && shown < STR_MAX_DISPATCHES; i++) {
		for (s = 0; s < st->ranks[i].per_round &&
		    shown < STR_MAX_DISPATCHES; s++) {
			const struct stats_inv *iv = stats_grid_at(st, i, 0, s);

			for (k = 0; k < (size_t)st->rounds; k++)
				v[k] = stats_grid_at(st, i, k, s)->device_us;
			strbuf_addf(out, "%s(pid=%lld,slot=%zu,task=%s)=%.1f",
			    shown ? "  " : "", (long long)st->ranks[i].pid, s,
			    span_set_str(st->set, iv->hid),
			    stats_fmean(v, (size_t)st->rounds));
			shown++;
		}
	}
	if (ndisp > shown)
		strbuf_addf(out, "  ... +%zu more", ndisp - shown);
	free(v);
}

void
stats_format(const struct stats *st, struct strbuf *out)
{
	const double *d = st->device_us;
	size_t n = st->nsamples, i;
	double lo, hi;
	int nonzero = 0;

	if (n == 0) {
		strbuf_addf(out, "BenchmarkStats(rounds=%ld: no samples)",
		    st->rounds);
		return;
	}
	for (i = 0; i < n; i++)
		nonzero |= d[i] != 0.0;
	if (!nonzero) {
		strbuf_addf(out, "BenchmarkStats(rounds=%ld): device_wall_us "
		    "all 0 \xe2\x80\x94 runtime built without "
		    "SIMPLER_HOST_STRACE or sim platform (use host_wall_us)",
		    st->rounds);
		return;
	}
	lo = hi = d[0];
	for (i = 1; i < n; i++) {
		lo = d[i] < lo ? d[i] : lo;
		hi = d[i] > hi ? d[i] : hi;
	}
	strbuf_addf(out, "BenchmarkStats(rounds=%ld, warmup=%ld): "
	    "device_wall_us min=%.1f median=%.1f mean=%.1f max=%.1f "
	    "stdev=%.1f", st->rounds, st->warmup, lo, stats_median(d, n),
	    stats_fmean(d, n), hi, stats_stdev(d, n));
	if (st->grid) {
		strbuf_addf(out, " [L3: %zu ranks, per-round max across ranks",
		    st->nranks);
		stats_union_suffix(st, out);
		strbuf_addch(out, ']');
	} else if (st->flattened)
		strbuf_addstr(out, " [L3: flattened per-dispatch pool "
		    "\xe2\x80\x94 non-deterministic dispatch shape]");
	stats_dispatch_line(st, out);
}
