/*
 * check_kern.c - the vectorised kernels (core/kern.h) against the scalar
 * reference (dtype.c), bit for bit, at every level the CPU has: random
 * bit patterns (so NaNs with payloads, infinities, subnormals, extreme
 * integers), every rounding boundary of f16 and bf16, every dtype and
 * reduce op, in place and three-operand, odd lengths and tails.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "dtype.h"
#include "kern.h"

#define N 1031 /* not a multiple of any vector width */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Random bits, with special values of the type mixed in. */
static void
fill(enum dtype dt, void *p, size_t n)
{
	static const uint32_t f32s[] = { 0x7f800000, 0xff800000, 0x7fc00000,
		0x7f800001, 0xffc12345, 0x00000001, 0x807fffff, 0x00000000,
		0x80000000, 0x7f7fffff, 0x3f800000, 0x00800000 };
	static const uint16_t h16s[] = { 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe55,
		0x0001, 0x83ff, 0x0000, 0x8000, 0x7bff, 0x3c00, 0x0400 };
	static const uint16_t b16s[] = { 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc5,
		0x0001, 0x807f, 0x0000, 0x8000, 0x7f7f, 0x3f80, 0x0080 };
	size_t esz = dtype_size(dt);

	for (size_t i = 0; i < n; i++) {
		uint64_t r = next();

		memcpy((char *)p + i * esz, &r, esz);
		if (r % 5 != 0)
			continue;
		r >>= 8;
		if (dt == DT_F32)
			memcpy((char *)p + i * esz, &f32s[r % ARRAY_SIZE(f32s)],
			    4);
		else if (dt == DT_F16)
			memcpy((char *)p + i * esz, &h16s[r % ARRAY_SIZE(h16s)],
			    2);
		else if (dt == DT_BF16)
			memcpy((char *)p + i * esz, &b16s[r % ARRAY_SIZE(b16s)],
			    2);
		else if (dt == DT_F64 && r % 3 == 0)
			memcpy((char *)p + i * esz,
			    &(uint64_t){ 0x7ff8000000000001ull }, 8);
	}
}

/* Run fn at every level the CPU has; returns how many ran. */
static int
levels(void (*fn)(enum kern_level))
{
	int ran = 0;

	for (int l = 0; l < KERN__COUNT; l++) {
		if (kern_force((enum kern_level)l) != (enum kern_level)l) {
			fprintf(stderr, "check_kern: level %s not on this CPU\n",
			    kern_level_name((enum kern_level)l));
			continue;
		}
		fn((enum kern_level)l);
		ran++;
	}
	kern_force(KERN__COUNT - 1);
	return ran;
}

static void
diff(const char *what, enum kern_level l, enum dtype dt, const void *got,
    const void *want, size_t n)
{
	size_t esz = dtype_size(dt);

	for (size_t i = 0; i < n; i++) {
		uint64_t g = 0, w = 0;

		memcpy(&g, (const char *)got + i * esz, esz);
		memcpy(&w, (const char *)want + i * esz, esz);
		if (g == w)
			continue; /* (a passing check per element is slow) */
		ck_abort_msg("%s %s level %s element %zu: got %#llx, reference %#llx",
		    what, dtype_name(dt), kern_level_name(l), i,
		    (unsigned long long)g, (unsigned long long)w);
	}
}

static void
reductions(enum kern_level l)
{
	static const size_t lens[] = { 0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 64, N };

	for (int dt = 0; dt < DT__COUNT; dt++) {
		size_t esz = dtype_size((enum dtype)dt);
		char *a = malloc(N * esz), *b = malloc(N * esz);
		char *want = malloc(N * esz), *got = malloc(N * esz);

		for (int op = 0; op < RED__COUNT; op++) {
			for (size_t k = 0; k < ARRAY_SIZE(lens); k++) {
				size_t n = lens[k];

				fill((enum dtype)dt, a, N);
				fill((enum dtype)dt, b, N);
				memcpy(want, a, N * esz);
				reduce_apply_ref((enum dtype)dt,
				    (enum reduce_op)op, want, b, n);
				/* three operands */
				memset(got, 0xa5, N * esz);
				kern_reduce((enum dtype)dt, (enum reduce_op)op,
				    got, a, b, n);
				diff("reduce", l, (enum dtype)dt, got, want, n);
				/* in place */
				memcpy(got, a, N * esz);
				kern_reduce((enum dtype)dt, (enum reduce_op)op,
				    got, got, b, n);
				diff("reduce in place", l, (enum dtype)dt, got,
				    want, n);
				/* unaligned start */
				if (n > 1) {
					memcpy(got, a, N * esz);
					kern_reduce((enum dtype)dt,
					    (enum reduce_op)op, got + esz,
					    got + esz, b + esz, n - 1);
					diff("reduce unaligned", l,
					    (enum dtype)dt, got + esz,
					    want + esz, n - 1);
				}
			}
		}
		free(a);
		free(b);
		free(want);
		free(got);
	}
}

START_TEST(reduce_matches_reference)
{
	ck_assert_int_ge(levels(reductions), 2);
}
END_TEST

/* Element i as f32: f16/bf16 through the reference conversions, f32 as
 * stored (not through a double, which would quieten a NaN). */
static float
widen(enum dtype dt, const void *p, size_t i)
{
	float f;

	if (dt == DT_F16)
		return f16_to_f32(((const uint16_t *)p)[i]);
	if (dt == DT_BF16)
		return bf16_to_f32(((const uint16_t *)p)[i]);
	memcpy(&f, (const float *)p + i, sizeof f);
	return f;
}

/* The f32 accumulator against widened f16/bf16 (and f32) sources. */
static void
mixed(enum kern_level l)
{
	static const enum dtype pairs[][2] = { { DT_F16, DT_F16 },
		{ DT_F32, DT_F16 }, { DT_BF16, DT_BF16 }, { DT_F32, DT_BF16 },
		{ DT_F16, DT_F32 }, { DT_F32, DT_F32 } };
	uint32_t a[N], b[N], want[N], got[N];

	for (size_t k = 0; k < ARRAY_SIZE(pairs); k++) {
		enum dtype adt = pairs[k][0], bdt = pairs[k][1];

		for (int op = 0; op < RED__COUNT; op++) {
			fill(adt, a, N);
			fill(bdt, b, N);
			for (size_t i = 0; i < N; i++) {
				float x = widen(adt, a, i), y = widen(bdt, b, i);

				reduce_apply_ref(DT_F32, (enum reduce_op)op, &x,
				    &y, 1);
				memcpy(&want[i], &x, 4);
			}
			kern_reduce_f32((enum reduce_op)op, (float *)got, adt,
			    a, bdt, b, N);
			diff("reduce_f32", l, DT_F32, got, want, N);
			if (adt == DT_F32) { /* acc op= widened source, in place */
				memcpy(got, a, sizeof got);
				kern_reduce_f32((enum reduce_op)op,
				    (float *)got, DT_F32, got, bdt, b, N);
				diff("reduce_f32 in place", l, DT_F32, got,
				    want, N);
			}
		}
	}
}

START_TEST(reduce_f32_matches_reference)
{
	ck_assert_int_ge(levels(mixed), 2);
}
END_TEST

/*
 * Narrowing: every sign, exponent and leading mantissa bits of f32, with
 * the dropped bits at each rounding boundary (zero, one, below half,
 * half, above half, all ones); widening: every f16 and bf16.
 */
static void
conversions(enum kern_level l)
{
	static const uint32_t low13[] = { 0, 1, 0xfff, 0x1000, 0x1001, 0x1fff };
	static const uint32_t low16[] = { 0, 1, 0x7fff, 0x8000, 0x8001, 0xffff };
	size_t n = 1u << 19;
	uint32_t *f = malloc(n * sizeof *f), *fw = malloc(n * sizeof *fw);
	uint16_t *h = malloc(n * sizeof *h), *hw = malloc(n * sizeof *hw);

	for (size_t k = 0; k < ARRAY_SIZE(low13); k++) {
		for (uint32_t top = 0; top < (1u << 19); top++)
			f[top] = top << 13 | low13[k];
		kern_convert(DT_F16, h, DT_F32, f, n);
		dtype_convert_ref(DT_F16, hw, DT_F32, f, n);
		diff("f32->f16", l, DT_F16, h, hw, n);
	}
	for (size_t k = 0; k < ARRAY_SIZE(low16); k++) {
		for (uint32_t top = 0; top < (1u << 16); top++)
			f[top] = top << 16 | low16[k];
		kern_convert(DT_BF16, h, DT_F32, f, 1u << 16);
		dtype_convert_ref(DT_BF16, hw, DT_F32, f, 1u << 16);
		diff("f32->bf16", l, DT_BF16, h, hw, 1u << 16);
	}
	for (uint32_t i = 0; i < (1u << 16); i++)
		h[i] = (uint16_t)i;
	kern_convert(DT_F32, f, DT_F16, h, 1u << 16);
	dtype_convert_ref(DT_F32, fw, DT_F16, h, 1u << 16);
	diff("f16->f32", l, DT_F32, f, fw, 1u << 16);
	kern_convert(DT_F32, f, DT_BF16, h, 1u << 16);
	dtype_convert_ref(DT_F32, fw, DT_BF16, h, 1u << 16);
	diff("bf16->f32", l, DT_F32, f, fw, 1u << 16);
	/* odd lengths and offsets: the tails */
	fill(DT_F32, f, 100);
	for (size_t len = 0; len < 40; len++) {
		kern_convert(DT_F16, h + 1, DT_F32, f + 3, len);
		dtype_convert_ref(DT_F16, hw + 1, DT_F32, f + 3, len);
		diff("f32->f16 tail", l, DT_F16, h + 1, hw + 1, len);
	}
	free(f);
	free(fw);
	free(h);
	free(hw);
}

START_TEST(conversions_match_reference)
{
	ck_assert_int_ge(levels(conversions), 2);
}
END_TEST

/* The NaN rule of sums and products (dtype.h), at every level: the
 * accumulated NaN wins, made quiet; a NaN only in x comes out quiet. */
static void
nan_rule(enum kern_level l)
{
	uint32_t a[9], b[9], d[9];

	for (int op = 0; op < RED__COUNT; op += RED__COUNT - 1) { /* sum, prod */
		for (int i = 0; i < 9; i++) {
			a[i] = i % 3 == 2 ? 0x3f800000u :
					    0x7f800001u + (uint32_t)i;
			b[i] = i % 3 == 0 ? 0x3f800000u :
					    0xffc00000u + (uint32_t)i;
		}
		kern_reduce(DT_F32, (enum reduce_op)op, d, a, b, 9);
		for (int i = 0; i < 9; i++) {
			uint32_t want = i % 3 == 2 ? b[i] : (a[i] | 0x400000u);
			ck_assert_msg(d[i] == want,
			    "level %s op %s lane %d: %#x, expected %#x",
			    kern_level_name(l),
			    reduce_op_name((enum reduce_op)op), i, d[i], want);
		}
	}
}

START_TEST(nan_rule_every_level)
{
	ck_assert_int_ge(levels(nan_rule), 2);
}
END_TEST

START_TEST(nan_widening_is_quiet)
{
	float f = f16_to_f32(0x7c01); /* a signalling f16 NaN */
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	ck_assert_uint_eq(u, 0x7fc02000);
	ck_assert_uint_eq(f16_from_f32(f), 0x7e01);
	ck_assert_uint_eq(f16_to_f32(0x7c00) > 0, 1); /* inf stays inf */
}
END_TEST

/* A partial overlap is computed element by element, in index order. */
START_TEST(overlap_falls_back)
{
	int32_t v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	kern_reduce(DT_I32, RED_SUM, v + 1, v, v + 2, 4);
	/* v[1] = v[0]+v[2] = 4, v[2] = v[1]+v[3] = 8, v[3] = 8+5, v[4] = 13+6 */
	ck_assert_int_eq(v[1], 4);
	ck_assert_int_eq(v[2], 8);
	ck_assert_int_eq(v[3], 13);
	ck_assert_int_eq(v[4], 19);
}
END_TEST

/*
 * kern_copy_stream against memcpy, byte for byte, at every level: sizes
 * around the 32-byte body and the 64-byte cut-over, destination and
 * source misaligned independently, the guard bytes either side left
 * alone; an overlap is memmove.
 */
START_TEST(copy_stream_matches_memcpy)
{
	static const size_t sizes[] = { 0, 1, 31, 32, 33, 63, 64, 65, 95, 127,
		128, 129, 1000, 4097, 16384 + 7, 65536 + 31 };
	enum { GUARD = 64, MAXN = 65536 + 31 + 2 * 64 };
	uint8_t *src = malloc(MAXN + 64), *got = malloc(MAXN + 64),
		*want = malloc(MAXN + 64);
	int checked = 0;

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(got);
	ck_assert_ptr_nonnull(want);
	for (int lv = 0; lv < KERN__COUNT; lv++) {
		if (kern_force((enum kern_level)lv) != (enum kern_level)lv)
			continue;
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			size_t n = sizes[k];

			for (size_t da = 0; da < 33; da += 3) {
				for (size_t sa = 0; sa < 33; sa += 5) {
					for (size_t i = 0; i < MAXN + 64; i++) {
						src[i] = (uint8_t)next();
						got[i] = want[i] =
						    (uint8_t)~src[i];
					}
					memcpy(want + GUARD + da, src + sa, n);
					kern_copy_stream(got + GUARD + da,
					    src + sa, n);
					if (memcmp(got, want, MAXN + 64) != 0)
						ck_abort_msg("level %s, %zu bytes, "
							     "dst+%zu src+%zu: "
							     "differs from memcpy",
						    kern_level_name(
							(enum kern_level)lv),
						    n, da, sa);
					checked++;
				}
			}
		}
	}
	ck_assert_int_gt(checked, 0);
	/* overlapping: memmove's result, forwards and backwards */
	for (size_t i = 0; i < 512; i++)
		src[i] = want[i] = (uint8_t)i;
	memmove(want + 17, want, 300);
	kern_copy_stream(src + 17, src, 300);
	ck_assert_mem_eq(src, want, 512);
	memmove(want, want + 45, 400);
	kern_copy_stream(src, src + 45, 400);
	ck_assert_mem_eq(src, want, 512);
	kern_force(KERN__COUNT - 1);
	free(src);
	free(got);
	free(want);
}
END_TEST

START_TEST(level_names)
{
	ck_assert_str_eq(kern_level_name(KERN_SCALAR), "scalar");
	ck_assert_str_eq(kern_level_name(KERN_AVX2), "avx2");
	ck_assert_int_eq(kern_force(KERN_GENERIC), KERN_GENERIC);
	ck_assert_int_eq(kern_level(), KERN_GENERIC);
	kern_force(KERN__COUNT - 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("kern");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, reduce_matches_reference);
	tcase_add_test(tc, reduce_f32_matches_reference);
	tcase_add_test(tc, conversions_match_reference);
	tcase_add_test(tc, nan_rule_every_level);
	tcase_add_test(tc, nan_widening_is_quiet);
	tcase_add_test(tc, overlap_falls_back);
	tcase_add_test(tc, copy_stream_matches_memcpy);
	tcase_add_test(tc, level_names);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
