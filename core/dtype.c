/* dtype.c - element types, f16/bf16 conversion, reduction kernels. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "dtype.h"
#include "kern.h"

static const struct {
	const char *name;
	size_t size;
} dtypes[DT__COUNT] = {
	[DT_U8] = { "u8", 1 },
	[DT_I8] = { "i8", 1 },
	[DT_I16] = { "i16", 2 },
	[DT_I32] = { "i32", 4 },
	[DT_I64] = { "i64", 8 },
	[DT_F16] = { "f16", 2 },
	[DT_BF16] = { "bf16", 2 },
	[DT_F32] = { "f32", 4 },
	[DT_F64] = { "f64", 8 },
};

static const char *const reduce_names[RED__COUNT] = { "sum", "max", "min",
	"prod" };

size_t
dtype_size(enum dtype dt)
{
	return dtypes[dt].size;
}

const char *
dtype_name(enum dtype dt)
{
	return (unsigned)dt < DT__COUNT ? dtypes[dt].name : "?";
}

int
dtype_from_name(const char *name, enum dtype *out)
{
	for (int i = 0; i < DT__COUNT; i++) {
		if (strcmp(dtypes[i].name, name) == 0) {
			*out = (enum dtype)i;
			return 0;
		}
	}
	return -1;
}

int
dtype_is_float(enum dtype dt)
{
	return dt == DT_F16 || dt == DT_BF16 || dt == DT_F32 || dt == DT_F64;
}

enum dtype
dtype_acc(enum dtype dt)
{
	return dt == DT_F16 || dt == DT_BF16 ? DT_F32 : dt;
}

const char *
reduce_op_name(enum reduce_op op)
{
	return (unsigned)op < RED__COUNT ? reduce_names[op] : "?";
}

int
reduce_op_from_name(const char *name, enum reduce_op *out)
{
	for (int i = 0; i < RED__COUNT; i++) {
		if (strcmp(reduce_names[i], name) == 0) {
			*out = (enum reduce_op)i;
			return 0;
		}
	}
	return -1;
}

static uint32_t
f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	return u;
}

static float
bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

uint16_t
f16_from_f32(float f)
{
	uint32_t x = f32_bits(f);
	uint32_t sign = (x >> 16) & 0x8000u;
	uint32_t exp = (x >> 23) & 0xffu;
	uint32_t man = x & 0x7fffffu;
	int e;

	if (exp == 0xff) /* inf or nan (keep nan quiet and non-zero) */
		return (uint16_t)(sign | 0x7c00u |
		    (man ? 0x200u | (man >> 13) : 0));
	e = (int)exp - 127 + 15;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (e <= 0) {
		/* subnormal half, or zero */
		if (e < -10)
			return (uint16_t)sign;
		man |= 0x800000u;
		uint32_t shift = (uint32_t)(14 - e);
		uint32_t half = man >> shift;
		uint32_t rem = man & ((1u << shift) - 1);
		uint32_t mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (half & 1)))
			half++;
		return (uint16_t)(sign | half);
	}
	uint32_t h = ((uint32_t)e << 10) | (man >> 13);
	uint32_t rem = man & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		h++; /* may carry into the exponent: that is correct rounding */
	return (uint16_t)(sign | h);
}

float
f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu;
	uint32_t man = h & 0x3ffu;

	if (exp == 0) {
		if (man == 0)
			return bits_f32(sign);
		/* subnormal: value = man * 2^-24 */
		float v = (float)man * 0x1p-24f;
		return sign ? -v : v;
	}
	if (exp == 31) /* inf; a nan is made quiet, as VCVTPH2PS does */
		return bits_f32(
		    sign | 0x7f800000u | (man ? 0x400000u : 0) | (man << 13));
	return bits_f32(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

uint16_t
bf16_from_f32(float f)
{
	uint32_t x = f32_bits(f);

	if ((x & 0x7fffffffu) > 0x7f800000u) /* nan: keep it a nan */
		return (uint16_t)((x >> 16) | 0x40u);
	x += 0x7fffu + ((x >> 16) & 1u);
	return (uint16_t)(x >> 16);
}

float
bf16_to_f32(uint16_t h)
{
	return bits_f32((uint32_t)h << 16);
}

double
dtype_get(enum dtype dt, const void *base, size_t i)
{
	switch (dt) {
	case DT_U8:
		return ((const uint8_t *)base)[i];
	case DT_I8:
		return ((const int8_t *)base)[i];
	case DT_I16:
		return ((const int16_t *)base)[i];
	case DT_I32:
		return ((const int32_t *)base)[i];
	case DT_I64:
		return (double)((const int64_t *)base)[i];
	case DT_F16:
		return f16_to_f32(((const uint16_t *)base)[i]);
	case DT_BF16:
		return bf16_to_f32(((const uint16_t *)base)[i]);
	case DT_F32:
		return ((const float *)base)[i];
	case DT_F64:
		return ((const double *)base)[i];
	default:
		BUG("bad dtype %d", dt);
	}
}

int64_t
dtype_get_int(enum dtype dt, const void *base, size_t i)
{
	if (dt == DT_I64)
		return ((const int64_t *)base)[i];
	return (int64_t)dtype_get(dt, base, i);
}

static int64_t
wrap_int(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

void
dtype_put_int(enum dtype dt, void *base, size_t i, int64_t v)
{
	switch (dt) {
	case DT_U8:
		((uint8_t *)base)[i] = (uint8_t)v;
		break;
	case DT_I8:
		((int8_t *)base)[i] = (int8_t)(uint8_t)v;
		break;
	case DT_I16:
		((int16_t *)base)[i] = (int16_t)(uint16_t)v;
		break;
	case DT_I32:
		((int32_t *)base)[i] = (int32_t)(uint32_t)v;
		break;
	case DT_I64:
		((int64_t *)base)[i] = v;
		break;
	default:
		dtype_put(dt, base, i, (double)v);
	}
}

void
dtype_put(enum dtype dt, void *base, size_t i, double v)
{
	switch (dt) {
	case DT_F16:
		((uint16_t *)base)[i] = f16_from_f32((float)v);
		break;
	case DT_BF16:
		((uint16_t *)base)[i] = bf16_from_f32((float)v);
		break;
	case DT_F32:
		((float *)base)[i] = (float)v;
		break;
	case DT_F64:
		((double *)base)[i] = v;
		break;
	default:
		dtype_put_int(dt, base, i, wrap_int(v));
	}
}

void
dtype_convert(enum dtype dt_dst, void *dst, enum dtype dt_src, const void *src,
    size_t n)
{
	kern_convert(dt_dst, dst, dt_src, src, n);
}

void
reduce_apply(enum dtype dt, enum reduce_op op, void *acc, const void *x, size_t n)
{
	kern_reduce(dt, op, acc, acc, x, n);
}

void
dtype_convert_ref(enum dtype dt_dst, void *dst, enum dtype dt_src,
    const void *src, size_t n)
{
	if (dt_dst == dt_src) {
		memmove(dst, src, n * dtype_size(dt_dst));
		return;
	}
	if (dt_dst == DT_F32 && dt_src == DT_F16) {
		for (size_t i = 0; i < n; i++)
			((float *)dst)[i] =
			    f16_to_f32(((const uint16_t *)src)[i]);
		return;
	}
	if (dt_dst == DT_F32 && dt_src == DT_BF16) {
		for (size_t i = 0; i < n; i++)
			((float *)dst)[i] =
			    bf16_to_f32(((const uint16_t *)src)[i]);
		return;
	}
	if (dt_dst == DT_F16 && dt_src == DT_F32) {
		for (size_t i = 0; i < n; i++)
			((uint16_t *)dst)[i] =
			    f16_from_f32(((const float *)src)[i]);
		return;
	}
	if (dt_dst == DT_BF16 && dt_src == DT_F32) {
		for (size_t i = 0; i < n; i++)
			((uint16_t *)dst)[i] =
			    bf16_from_f32(((const float *)src)[i]);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (dtype_is_float(dt_src) || dtype_is_float(dt_dst))
			dtype_put(dt_dst, dst, i, dtype_get(dt_src, src, i));
		else
			dtype_put_int(dt_dst, dst, i,
			    dtype_get_int(dt_src, src, i));
	}
}

/*
 * One loop per (type, op) so the compiler vectorises the common sum cases.
 * Integer sums wrap (computed unsigned), as on the device.
 */
#define KEEP(a, r) (r)
#define REDUCE_LOOPS(T, U, FIX) \
	do { \
		T *a = acc; \
		const T *b = x; \
		switch (op) { \
		case RED_SUM: \
			for (size_t i = 0; i < n; i++) \
				a[i] = FIX(a[i], (T)((U)a[i] + (U)b[i])); \
			break; \
		case RED_PROD: \
			for (size_t i = 0; i < n; i++) \
				a[i] = FIX(a[i], (T)((U)a[i] * (U)b[i])); \
			break; \
		case RED_MAX: \
			for (size_t i = 0; i < n; i++) \
				a[i] = b[i] > a[i] ? b[i] : a[i]; \
			break; \
		case RED_MIN: \
			for (size_t i = 0; i < n; i++) \
				a[i] = b[i] < a[i] ? b[i] : a[i]; \
			break; \
		default: \
			BUG("bad reduce op %d", op); \
		} \
	} while (0)

static void
reduce_half(enum dtype dt, enum reduce_op op, uint16_t *acc, const uint16_t *x,
    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		float a = dt == DT_F16 ? f16_to_f32(acc[i]) : bf16_to_f32(acc[i]);
		float b = dt == DT_F16 ? f16_to_f32(x[i]) : bf16_to_f32(x[i]);
		float r;
		float one = a;
		reduce_apply_ref(DT_F32, op, &one, &b, 1);
		r = one;
		acc[i] = dt == DT_F16 ? f16_from_f32(r) : bf16_from_f32(r);
	}
}

void
reduce_apply_ref(enum dtype dt, enum reduce_op op, void *acc, const void *x,
    size_t n)
{
	switch (dt) {
	case DT_U8:
		REDUCE_LOOPS(uint8_t, uint32_t, KEEP);
		break;
	case DT_I8:
		REDUCE_LOOPS(int8_t, uint32_t, KEEP);
		break;
	case DT_I16:
		REDUCE_LOOPS(int16_t, uint32_t, KEEP);
		break;
	case DT_I32:
		REDUCE_LOOPS(int32_t, uint32_t, KEEP);
		break;
	case DT_I64:
		REDUCE_LOOPS(int64_t, uint64_t, KEEP);
		break;
	case DT_F32:
		REDUCE_LOOPS(float, float, dtype_nan_first_f32);
		break;
	case DT_F64:
		REDUCE_LOOPS(double, double, dtype_nan_first_f64);
		break;
	case DT_F16:
	case DT_BF16:
		reduce_half(dt, op, acc, x, n);
		break;
	default:
		BUG("bad dtype %d", dt);
	}
}

int
dtype_atomic_add_ok(enum dtype dt)
{
	return dt == DT_F32 || dt == DT_F16 || dt == DT_BF16 || dt == DT_I32 ||
	    dt == DT_I16 || dt == DT_I8;
}

void
dtype_atomic_add(enum dtype dt, void *dst, const void *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (dt) {
		case DT_I8:
			atomic_fetch_add((_Atomic int8_t *)dst + i,
			    ((const int8_t *)src)[i]);
			break;
		case DT_I16:
			atomic_fetch_add((_Atomic int16_t *)dst + i,
			    ((const int16_t *)src)[i]);
			break;
		case DT_I32:
			atomic_fetch_add((_Atomic int32_t *)dst + i,
			    ((const int32_t *)src)[i]);
			break;
		case DT_F32: {
			_Atomic uint32_t *p = (_Atomic uint32_t *)dst + i;
			uint32_t old = atomic_load(p), nw;
			do {
				nw = f32_bits(
				    bits_f32(old) + ((const float *)src)[i]);
			} while (!atomic_compare_exchange_weak(p, &old, nw));
			break;
		}
		case DT_F16:
		case DT_BF16: {
			_Atomic uint16_t *p = (_Atomic uint16_t *)dst + i;
			uint16_t old = atomic_load(p), nw;
			uint16_t b = ((const uint16_t *)src)[i];
			do {
				nw = old;
				reduce_half(dt, RED_SUM, &nw, &b, 1);
			} while (!atomic_compare_exchange_weak(p, &old, nw));
			break;
		}
		default:
			BUG("atomic add on %s", dtype_name(dt));
		}
	}
}

void
dtype_format(enum dtype dt, const void *base, size_t i, struct strbuf *sb)
{
	if (dtype_is_float(dt))
		strbuf_addf(sb, "%g", dtype_get(dt, base, i));
	else
		strbuf_addf(sb, "%lld", (long long)dtype_get_int(dt, base, i));
}
