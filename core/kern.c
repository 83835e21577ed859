/*
 * kern.c - vectorised reductions and conversions; see kern.h.
 *
 * Compiled with -O3 (Makefile): the loops below are written so the
 * compiler vectorises them (restrict operands, one expression per
 * element); each is instantiated twice, for the baseline ISA and with
 * target("avx2,f16c").  f16 has no baseline vector conversion, so the
 * generic level converts it with the scalar reference; at the AVX2 level
 * every half-precision kernel is written with F16C / AVX2 intrinsics.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#define KERN_HAVE_X86 1
#define AVX2 __attribute__((target("avx2,f16c")))
#else
#define KERN_HAVE_X86 0
#endif

#include "kern.h"

typedef void red3_fn(void *restrict, const void *restrict, const void *restrict,
    size_t);
typedef void red2_fn(void *restrict, const void *restrict, size_t);

/* d = a op b and d op= b for one type, one op, one target. */
#define RED_FN(ATTR, NAME, T, EXPR) \
	ATTR static void NAME(void *restrict d_, const void *restrict a_, \
	    const void *restrict b_, size_t n) \
	{ \
		T *d = d_; \
		const T *a = a_, *b = b_; \
		for (size_t i = 0; i < n; i++) { \
			T x = a[i], y = b[i]; \
			d[i] = EXPR; \
		} \
	} \
	ATTR static void NAME##_ip(void *restrict d_, const void *restrict b_, \
	    size_t n) \
	{ \
		T *d = d_; \
		const T *b = b_; \
		for (size_t i = 0; i < n; i++) { \
			T x = d[i], y = b[i]; \
			d[i] = EXPR; \
		} \
	}

#define KEEP(x, r) (r)
#define RED_ARITH(ATTR, SFX, TAG, T, U, FIX) \
	RED_FN(ATTR, red_##TAG##_sum_##SFX, T, FIX(x, (T)((U)x + (U)y))) \
	RED_FN(ATTR, red_##TAG##_prod_##SFX, T, FIX(x, (T)((U)x * (U)y)))
#define RED_MINMAX(ATTR, SFX, TAG, T) \
	RED_FN(ATTR, red_##TAG##_max_##SFX, T, y > x ? y : x) \
	RED_FN(ATTR, red_##TAG##_min_##SFX, T, y < x ? y : x)
#define RED_TYPE(ATTR, SFX, TAG, T, U) \
	RED_ARITH(ATTR, SFX, TAG, T, U, KEEP) \
	RED_MINMAX(ATTR, SFX, TAG, T)

/*
 * Float sums and products need the NaN rule (dtype.h), a select the
 * vectoriser will not make under -ftrapping-math; on x86 they are written
 * with intrinsics instead (below), elsewhere the plain loops do.
 */
#define RED_ALL(ATTR, SFX) \
	RED_TYPE(ATTR, SFX, u8, uint8_t, uint32_t) \
	RED_TYPE(ATTR, SFX, i8, int8_t, uint32_t) \
	RED_TYPE(ATTR, SFX, i16, int16_t, uint32_t) \
	RED_TYPE(ATTR, SFX, i32, int32_t, uint32_t) \
	RED_TYPE(ATTR, SFX, i64, int64_t, uint64_t) \
	RED_MINMAX(ATTR, SFX, f32, float) \
	RED_MINMAX(ATTR, SFX, f64, double)

#if defined(__x86_64__)
/*
 * SIMD d = x op y with the NaN rule: where x is a NaN, x made quiet.
 * Explicit loads and stores need no restrict, so d may be a (in place):
 * the _ip form is the same loop.
 */
#define FOP_FN(ATTR, NAME, T, VT, W, LD, ST, OPV, FIXV, OPS, FIXS) \
	ATTR static void NAME(void *d_, const void *a_, const void *b_, size_t n) \
	{ \
		T *d = d_; \
		const T *a = a_, *b = b_; \
		size_t i = 0; \
		for (; i + W <= n; i += W) { \
			VT x = LD(a + i), y = LD(b + i); \
			ST(d + i, FIXV(x, OPV(x, y))); \
		} \
		for (; i < n; i++) \
			d[i] = FIXS(a[i], a[i] OPS b[i]); \
	} \
	ATTR static void NAME##_ip(void *d, const void *b, size_t n) \
	{ \
		NAME(d, d, b, n); \
	}

static inline __m128
fix_ps(__m128 x, __m128 r)
{
	__m128 m = _mm_cmpunord_ps(x, x);
	__m128 q = _mm_or_ps(x, _mm_castsi128_ps(_mm_set1_epi32(0x400000)));

	return _mm_or_ps(_mm_and_ps(m, q), _mm_andnot_ps(m, r));
}

static inline __m128d
fix_pd(__m128d x, __m128d r)
{
	__m128d m = _mm_cmpunord_pd(x, x);
	__m128d q =
	    _mm_or_pd(x, _mm_castsi128_pd(_mm_set1_epi64x(0x8000000000000ll)));

	return _mm_or_pd(_mm_and_pd(m, q), _mm_andnot_pd(m, r));
}

FOP_FN(, red_f32_sum_gen, float, __m128, 4, _mm_loadu_ps, _mm_storeu_ps,
    _mm_add_ps, fix_ps, +, dtype_nan_first_f32)
FOP_FN(, red_f32_prod_gen, float, __m128, 4, _mm_loadu_ps, _mm_storeu_ps,
    _mm_mul_ps, fix_ps, *, dtype_nan_first_f32)
FOP_FN(, red_f64_sum_gen, double, __m128d, 2, _mm_loadu_pd, _mm_storeu_pd,
    _mm_add_pd, fix_pd, +, dtype_nan_first_f64)
FOP_FN(, red_f64_prod_gen, double, __m128d, 2, _mm_loadu_pd, _mm_storeu_pd,
    _mm_mul_pd, fix_pd, *, dtype_nan_first_f64)
#else
RED_ARITH(, gen, f32, float, float, dtype_nan_first_f32)
RED_ARITH(, gen, f64, double, double, dtype_nan_first_f64)
#endif

#define RED_ROW(TAG, SFX, IP) \
	{ \
		red_##TAG##_sum_##SFX##IP, red_##TAG##_max_##SFX##IP, \
		    red_##TAG##_min_##SFX##IP, red_##TAG##_prod_##SFX##IP \
	}

#define RED_TABLE(SFX, IP) \
	{ \
		[DT_U8] = RED_ROW(u8, SFX, IP), [DT_I8] = RED_ROW(i8, SFX, IP), \
		[DT_I16] = RED_ROW(i16, SFX, IP), \
		[DT_I32] = RED_ROW(i32, SFX, IP), [DT_I64] = RED_ROW(i64, SFX, IP), \
		[DT_F32] = RED_ROW(f32, SFX, IP), [DT_F64] = RED_ROW(f64, SFX, IP) \
	}

RED_ALL(, gen)

static red3_fn *const red3_gen[DT__COUNT][RED__COUNT] = RED_TABLE(gen, );
static red2_fn *const red2_gen[DT__COUNT][RED__COUNT] = RED_TABLE(gen, _ip);

/* bf16 in plain integer arithmetic (vectorises on any target). */
static inline float
bf16_wide(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

static inline uint16_t
bf16_narrow(float f)
{
	uint32_t x;

	memcpy(&x, &f, sizeof x);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u);
	return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

static inline float
op_f32(enum reduce_op op, float x, float y)
{
	switch (op) {
	case RED_SUM:
		return dtype_nan_first_f32(x, x + y);
	case RED_PROD:
		return dtype_nan_first_f32(x, x * y);
	case RED_MAX:
		return y > x ? y : x;
	default:
		return y < x ? y : x;
	}
}

static inline float
wide(enum dtype dt, const void *p, size_t i)
{
	if (dt == DT_F16)
		return f16_to_f32(((const uint16_t *)p)[i]);
	if (dt == DT_BF16)
		return bf16_wide(((const uint16_t *)p)[i]);
	return ((const float *)p)[i];
}

static inline void
narrow(enum dtype dt, void *p, size_t i, float v)
{
	if (dt == DT_F16)
		((uint16_t *)p)[i] = f16_from_f32(v);
	else if (dt == DT_BF16)
		((uint16_t *)p)[i] = bf16_narrow(v);
	else
		((float *)p)[i] = v;
}

/*
 * Generic level, half precision and mixed f32: one element at a time
 * through wide()/narrow(); the bf16 loops vectorise, f16's call the
 * reference conversions.
 */
#define MIX_LOOP(OP) \
	for (size_t i = 0; i < n; i++) \
	narrow(ddt, d, i, op_f32(OP, wide(adt, a, i), wide(bdt, b, i)))

static void
mix_gen(enum reduce_op op, enum dtype ddt, void *d, enum dtype adt,
    const void *a, enum dtype bdt, const void *b, size_t n)
{
	switch (op) {
	case RED_SUM:
		MIX_LOOP(RED_SUM);
		break;
	case RED_PROD:
		MIX_LOOP(RED_PROD);
		break;
	case RED_MAX:
		MIX_LOOP(RED_MAX);
		break;
	default:
		MIX_LOOP(RED_MIN);
	}
}

static void
conv_gen(enum dtype ddt, void *restrict d, enum dtype sdt,
    const void *restrict s, size_t n)
{
	if (ddt == DT_BF16) {
		for (size_t i = 0; i < n; i++)
			((uint16_t *)d)[i] = bf16_narrow(((const float *)s)[i]);
	} else if (sdt == DT_BF16) {
		for (size_t i = 0; i < n; i++)
			((float *)d)[i] = bf16_wide(((const uint16_t *)s)[i]);
	} else {
		dtype_convert_ref(ddt, d, sdt, s, n);
	}
}

#if KERN_HAVE_X86
RED_ALL(AVX2, avx2)

AVX2 static inline __m256
fix_ps8(__m256 x, __m256 r)
{
	__m256 q =
	    _mm256_or_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x400000)));

	return _mm256_blendv_ps(r, q, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

AVX2 static inline __m256d
fix_pd4(__m256d x, __m256d r)
{
	__m256d q = _mm256_or_pd(x,
	    _mm256_castsi256_pd(_mm256_set1_epi64x(0x8000000000000ll)));

	return _mm256_blendv_pd(r, q, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
}

FOP_FN(AVX2, red_f32_sum_avx2, float, __m256, 8, _mm256_loadu_ps,
    _mm256_storeu_ps, _mm256_add_ps, fix_ps8, +, dtype_nan_first_f32)
FOP_FN(AVX2, red_f32_prod_avx2, float, __m256, 8, _mm256_loadu_ps,
    _mm256_storeu_ps, _mm256_mul_ps, fix_ps8, *, dtype_nan_first_f32)
FOP_FN(AVX2, red_f64_sum_avx2, double, __m256d, 4, _mm256_loadu_pd,
    _mm256_storeu_pd, _mm256_add_pd, fix_pd4, +, dtype_nan_first_f64)
FOP_FN(AVX2, red_f64_prod_avx2, double, __m256d, 4, _mm256_loadu_pd,
    _mm256_storeu_pd, _mm256_mul_pd, fix_pd4, *, dtype_nan_first_f64)

static red3_fn *const red3_avx2[DT__COUNT][RED__COUNT] = RED_TABLE(avx2, );
static red2_fn *const red2_avx2[DT__COUNT][RED__COUNT] = RED_TABLE(avx2, _ip);

AVX2 static inline __m256
ld_f32(const void *p, size_t i)
{
	return _mm256_loadu_ps((const float *)p + i);
}

AVX2 static inline __m256
ld_f16(const void *p, size_t i)
{
	return _mm256_cvtph_ps(
	    _mm_loadu_si128((const __m128i *)((const uint16_t *)p + i)));
}

AVX2 static inline __m256
ld_bf16(const void *p, size_t i)
{
	return _mm256_castsi256_ps(
	    _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(
				  (const __m128i *)((const uint16_t *)p + i))),
		16));
}

AVX2 static inline void
st_f32(void *p, size_t i, __m256 v)
{
	_mm256_storeu_ps((float *)p + i, v);
}

AVX2 static inline void
st_f16(void *p, size_t i, __m256 v)
{
	/* imm 0: round to nearest-even, whatever MXCSR says */
	_mm_storeu_si128((__m128i *)((uint16_t *)p + i), _mm256_cvtps_ph(v, 0));
}

AVX2 static inline void
st_bf16(void *p, size_t i, __m256 v)
{
	__m256i x = _mm256_castps_si256(v);
	__m256i mag = _mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff));
	__m256i nan = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7f800000));
	__m256i hi = _mm256_srli_epi32(x, 16);
	__m256i odd = _mm256_and_si256(hi, _mm256_set1_epi32(1));
	__m256i r =
	    _mm256_srli_epi32(_mm256_add_epi32(x,
				  _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
				      odd)),
		16);
	__m256i q = _mm256_or_si256(hi, _mm256_set1_epi32(0x40));

	r = _mm256_blendv_epi8(r, q, nan);
	/* 8 x u32 (each <= 0xffff) -> 8 x u16 */
	r = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
	_mm_storeu_si128((__m128i *)((uint16_t *)p + i),
	    _mm256_castsi256_si128(r));
}

/*
 * One function per (destination, sources) the data path meets, each with
 * its loads and store fixed: d = a op b, 8 elements at a time; returns how
 * many it did (the caller finishes the tail).  The operand order is
 * op_f32's: max = y > x ? y : x is MAXPS(y, x).
 */
AVX2 static inline __m256
add8(__m256 x, __m256 y)
{
	return fix_ps8(x, _mm256_add_ps(x, y));
}

AVX2 static inline __m256
mul8(__m256 x, __m256 y)
{
	return fix_ps8(x, _mm256_mul_ps(x, y));
}

#define MIX8(NAME, ST, LA, LB) \
	AVX2 static size_t NAME(enum reduce_op op, void *d, const void *a, \
	    const void *b, size_t n) \
	{ \
		size_t i = 0; \
		switch (op) { \
		case RED_SUM: \
			for (; i + 8 <= n; i += 8) \
				ST(d, i, add8(LA(a, i), LB(b, i))); \
			break; \
		case RED_PROD: \
			for (; i + 8 <= n; i += 8) \
				ST(d, i, mul8(LA(a, i), LB(b, i))); \
			break; \
		case RED_MAX: \
			for (; i + 8 <= n; i += 8) \
				ST(d, i, _mm256_max_ps(LB(b, i), LA(a, i))); \
			break; \
		default: \
			for (; i + 8 <= n; i += 8) \
				ST(d, i, _mm256_min_ps(LB(b, i), LA(a, i))); \
		} \
		return i; \
	}

MIX8(mix_f32_f16_f16, st_f32, ld_f16, ld_f16)
MIX8(mix_f32_f32_f16, st_f32, ld_f32, ld_f16)
MIX8(mix_f32_bf16_bf16, st_f32, ld_bf16, ld_bf16)
MIX8(mix_f32_f32_bf16, st_f32, ld_f32, ld_bf16)
MIX8(mix_f16_f16_f16, st_f16, ld_f16, ld_f16)
MIX8(mix_bf16_bf16_bf16, st_bf16, ld_bf16, ld_bf16)

typedef size_t mix8_fn(enum reduce_op, void *, const void *, const void *,
    size_t);

static const struct {
	enum dtype d, a, b;
	mix8_fn *fn;
} mix8_table[] = {
	{ DT_F32, DT_F16, DT_F16, mix_f32_f16_f16 },
	{ DT_F32, DT_F32, DT_F16, mix_f32_f32_f16 },
	{ DT_F32, DT_BF16, DT_BF16, mix_f32_bf16_bf16 },
	{ DT_F32, DT_F32, DT_BF16, mix_f32_f32_bf16 },
	{ DT_F16, DT_F16, DT_F16, mix_f16_f16_f16 },
	{ DT_BF16, DT_BF16, DT_BF16, mix_bf16_bf16_bf16 },
};

static void
mix_avx2(enum reduce_op op, enum dtype ddt, void *d, enum dtype adt,
    const void *a, enum dtype bdt, const void *b, size_t n)
{
	size_t i = 0;

	for (size_t k = 0; k < ARRAY_SIZE(mix8_table); k++) {
		if (mix8_table[k].d == ddt && mix8_table[k].a == adt &&
		    mix8_table[k].b == bdt) {
			i = mix8_table[k].fn(op, d, a, b, n);
			break;
		}
	}
	for (; i < n; i++) /* the tail (or a pair without a kernel) */
		narrow(ddt, d, i, op_f32(op, wide(adt, a, i), wide(bdt, b, i)));
}

#define CONV8(NAME, ST, LD) \
	AVX2 static size_t NAME(void *d, const void *s, size_t n) \
	{ \
		size_t i = 0; \
		for (; i + 8 <= n; i += 8) \
			ST(d, i, LD(s, i)); \
		return i; \
	}

CONV8(conv_f32_f16, st_f32, ld_f16)
CONV8(conv_f32_bf16, st_f32, ld_bf16)
CONV8(conv_f16_f32, st_f16, ld_f32)
CONV8(conv_bf16_f32, st_bf16, ld_f32)

static void
conv_avx2(enum dtype ddt, void *restrict d, enum dtype sdt,
    const void *restrict s, size_t n)
{
	size_t i = ddt == DT_F32 ?
	    (sdt == DT_F16 ? conv_f32_f16(d, s, n) : conv_f32_bf16(d, s, n)) :
	    ddt == DT_F16 ? conv_f16_f32(d, s, n) :
			    conv_bf16_f32(d, s, n);

	for (; i < n; i++)
		narrow(ddt, d, i, wide(sdt, s, i));
}

/* The body of kern_copy_stream: d is 32-byte aligned, n a multiple of 32. */
AVX2 static void
stream_avx2(void *restrict d_, const void *restrict s_, size_t n)
{
	__m256i *d = d_;
	const char *s = s_;

	for (size_t i = 0; i < n / 32; i++)
		_mm256_stream_si256(d + i,
		    _mm256_loadu_si256(
			(const __m256i *)(const void *)(s + 32 * i)));
}

/* The same with SSE2 (every x86-64): two 16-byte streaming stores. */
static void
stream_sse2(void *restrict d_, const void *restrict s_, size_t n)
{
	__m128i *d = d_;
	const char *s = s_;

	for (size_t i = 0; i < n / 16; i++)
		_mm_stream_si128(d + i,
		    _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * i)));
}

static int
cpu_has_avx2(void)
{
	unsigned a, b, c, d;

	/* f16c by cpuid: clang 14's __builtin_cpu_supports() has no "f16c" */
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") &&
	    __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}
#else
static int
cpu_has_avx2(void)
{
	return 0;
}
#endif

static _Atomic int level_now = -1;
static const char *const level_names[KERN__COUNT] = { "scalar", "generic",
	"avx2" };

const char *
kern_level_name(enum kern_level l)
{
	return l < KERN__COUNT ? level_names[l] : "?";
}

enum kern_level
kern_force(enum kern_level l)
{
	if (l >= KERN_AVX2 && !cpu_has_avx2())
		l = KERN_GENERIC;
	atomic_store_explicit(&level_now, (int)l, memory_order_relaxed);
	return l;
}

/* COLLDB_KERN=scalar|generic|avx2 picks a level (docs/colldb.1). */
enum kern_level
kern_level(void)
{
	int l = atomic_load_explicit(&level_now, memory_order_relaxed);
	const char *env;

	if (l >= 0)
		return (enum kern_level)l;
	l = KERN__COUNT - 1;
	if ((env = getenv("COLLDB_KERN")) != NULL) {
		for (int i = 0; i < KERN__COUNT; i++)
			if (strcmp(env, level_names[i]) == 0)
				l = i;
	}
	return kern_force((enum kern_level)l);
}

static int
is_half(enum dtype dt)
{
	return dt == DT_F16 || dt == DT_BF16;
}

/* [p, p+pn) and [q, q+qn) share a byte. */
static int
overlap(const void *p, size_t pn, const void *q, size_t qn)
{
	const char *a = p, *b = q;

	return a < b + qn && b < a + pn;
}

/* d = a op b in f32 with widened/narrowed halves, at level l. */
static void
mix(enum kern_level l, enum reduce_op op, enum dtype ddt, void *d,
    enum dtype adt, const void *a, enum dtype bdt, const void *b, size_t n)
{
#if KERN_HAVE_X86
	if (l == KERN_AVX2) {
		mix_avx2(op, ddt, d, adt, a, bdt, b, n);
		return;
	}
#endif
	mix_gen(op, ddt, d, adt, a, bdt, b, n);
}

/* One element at a time in index order: the definition the others match. */
static void
reduce_scalar(enum dtype dt, enum reduce_op op, void *dst, const void *a,
    const void *b, size_t n)
{
	size_t esz = dtype_size(dt);
	uint64_t x, y;

	for (size_t i = 0; i < n; i++) {
		memcpy(&x, (const char *)a + i * esz, esz);
		memcpy(&y, (const char *)b + i * esz, esz);
		reduce_apply_ref(dt, op, &x, &y, 1);
		memcpy((char *)dst + i * esz, &x, esz);
	}
}

void
kern_reduce(enum dtype dt, enum reduce_op op, void *dst, const void *a,
    const void *b, size_t n)
{
	enum kern_level l = kern_level();
	size_t bytes = n * dtype_size(dt);

	if (n == 0)
		return;
	if ((dst != a && overlap(dst, bytes, a, bytes)) ||
	    overlap(dst, bytes, b, bytes)) {
		reduce_scalar(dt, op, dst, a, b, n); /* element by element */
		return;
	}
	if (l == KERN_SCALAR) {
		if (dst != a)
			memcpy(dst, a, bytes);
		reduce_apply_ref(dt, op, dst, b, n);
		return;
	}
	if (is_half(dt)) {
		mix(l, op, dt, dst, dt, a, dt, b, n);
		return;
	}
#if KERN_HAVE_X86
	if (l == KERN_AVX2) {
		if (dst == a)
			red2_avx2[dt][op](dst, b, n);
		else
			red3_avx2[dt][op](dst, a, b, n);
		return;
	}
#endif
	if (dst == a)
		red2_gen[dt][op](dst, b, n);
	else
		red3_gen[dt][op](dst, a, b, n);
}

void
kern_reduce_f32(enum reduce_op op, float *dst, enum dtype adt, const void *a,
    enum dtype bdt, const void *b, size_t n)
{
	enum kern_level l = kern_level();
	size_t bytes = n * sizeof(float);

	if (n == 0)
		return;
	if (adt == DT_F32 && bdt == DT_F32) {
		kern_reduce(DT_F32, op, dst, a, b, n);
		return;
	}
	if (l == KERN_SCALAR ||
	    ((const void *)dst != a &&
		overlap(dst, bytes, a, n * dtype_size(adt))) ||
	    overlap(dst, bytes, b, n * dtype_size(bdt))) {
		for (size_t i = 0; i < n; i++) {
			float x = wide(adt, a, i), y = wide(bdt, b, i);

			reduce_apply_ref(DT_F32, op, &x, &y, 1);
			dst[i] = x;
		}
		return;
	}
	mix(l, op, DT_F32, dst, adt, a, bdt, b, n);
}

void
kern_convert(enum dtype ddt, void *dst, enum dtype sdt, const void *src, size_t n)
{
	enum kern_level l = kern_level();

	if (ddt == sdt) {
		memmove(dst, src, n * dtype_size(ddt));
		return;
	}
	if (l == KERN_SCALAR ||
	    overlap(dst, n * dtype_size(ddt), src, n * dtype_size(sdt)) ||
	    !((ddt == DT_F32 && is_half(sdt)) || (sdt == DT_F32 && is_half(ddt)))) {
		dtype_convert_ref(ddt, dst, sdt, src, n);
		return;
	}
#if KERN_HAVE_X86
	if (l == KERN_AVX2) {
		conv_avx2(ddt, dst, sdt, src, n);
		return;
	}
#endif
	conv_gen(ddt, dst, sdt, src, n);
}

void
kern_copy_stream(void *dst, const void *src, size_t n)
{
	enum kern_level l = kern_level();
	char *d = dst;
	const char *s = src;
	size_t head, body;

	if (overlap(dst, n, src, n)) {
		memmove(dst, src, n);
		return;
	}
	if (l == KERN_SCALAR || !KERN_HAVE_X86 || n < 64) {
		memcpy(dst, src, n);
		return;
	}
#if KERN_HAVE_X86
	head = (32 - ((uintptr_t)d & 31)) & 31;
	body = (n - head) & ~(size_t)31;
	memcpy(d, s, head);
	if (l == KERN_AVX2)
		stream_avx2(d + head, s + head, body);
	else
		stream_sse2(d + head, s + head, body);
	memcpy(d + head + body, s + head + body, n - head - body);
	/* streaming stores are weakly ordered: without the fence a later
	 * release store (the notify) could become visible before them */
	_mm_sfence();
#else
	(void)head;
	(void)body;
#endif
}
