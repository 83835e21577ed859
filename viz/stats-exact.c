/*
 * stats-exact.c - Python's statistics, bit for bit: fsum-based means, the
 * correctly rounded stdev of the exact variance, medians; see stats.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xmalloc.h"
#include "stats.h"

typedef unsigned __int128 u128;

/*
 * A small unsigned big integer, enough for sums of squares of doubles
 * scaled to a common exponent.  `ovf` is sticky: a result that does not fit
 * sets it, and callers fall back to long double (never in practice: the
 * values here are durations).
 */
#define BIG_LIMBS 48

struct big {
	int n; /* limbs in use, no leading zero limbs */
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
		q |= 1; /* round to odd: q has >= 55 bits */
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

/* The smallest binary exponent among the nonzero values: the unit every
 * value is an exact integer multiple of. */
static int
min_exponent(const double *v, size_t n)
{
	int emin = 0, e, first = 1;

	for (size_t i = 0; i < n; i++) {
		if (split_double(v[i], &e) != 0 && (first || e < emin)) {
			emin = e;
			first = 0;
		}
	}
	return emin;
}

double
stats_fmean(const double *v, size_t n)
{
	struct big sum, x;
	int emin, e;
	size_t i;
	long double acc = 0;

	if (n == 0)
		BUG("fmean of nothing");
	if (!values_ok(v, n))
		goto fallback;
	emin = min_exponent(v, n);
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
	int emin, e;
	size_t i;
	long double mean = 0, ss = 0;

	if (n < 2)
		return 0.0;
	if (!values_ok(v, n))
		goto fallback;
	emin = min_exponent(v, n);
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
