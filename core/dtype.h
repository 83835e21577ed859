/*
 * dtype.h - element types of windows, conversions and reduction kernels.
 *
 * DT_U8 is the untyped-bytes view of `alloc NAME BYTES`.  f16 and bf16 are
 * stored as their IEEE/bfloat bit patterns; arithmetic on them happens in
 * f32 and is rounded back to nearest-even (dtype_acc() names the type a
 * reduction accumulates in); widening an f16 NaN makes it quiet (as the
 * CPU's VCVTPH2PS does), narrowing keeps a NaN a quiet NaN.  All
 * functions are pure and thread-safe; the element-wise ones run the
 * vectorised kernels of kern.h.
 */
#ifndef COLLDB_DTYPE_H
#define COLLDB_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

enum dtype {
	DT_U8,
	DT_I8,
	DT_I16,
	DT_I32,
	DT_I64,
	DT_F16,
	DT_BF16,
	DT_F32,
	DT_F64,
	DT__COUNT
};

enum reduce_op { RED_SUM, RED_MAX, RED_MIN, RED_PROD, RED__COUNT };

size_t dtype_size(enum dtype dt);
/* "i32", "f32", ...; "u8" for untyped bytes. */
const char *dtype_name(enum dtype dt);
/* 0 and *out on success; -1 if name is not a dtype. */
int dtype_from_name(const char *name, enum dtype *out);
int dtype_is_float(enum dtype dt);
/* The type a reduction accumulates in: f32 for f16/bf16, else dt. */
enum dtype dtype_acc(enum dtype dt);

const char *reduce_op_name(enum reduce_op op);
int reduce_op_from_name(const char *name, enum reduce_op *out);

uint16_t f16_from_f32(float f);
float f16_to_f32(uint16_t h);
uint16_t bf16_from_f32(float f);
float bf16_to_f32(uint16_t h);

/* Element i of an array of dt, as a double (i64 may lose precision). */
double dtype_get(enum dtype dt, const void *base, size_t i);
/* Store v into element i, converting (integers: truncation toward zero and
 * wrap-around as in C's conversion of an in-range value; floats: RNE). */
void dtype_put(enum dtype dt, void *base, size_t i, double v);
/* Exact integer store (i64 keeps every bit). */
void dtype_put_int(enum dtype dt, void *base, size_t i, int64_t v);
/* Exact integer read for integer dtypes; for floats, the value truncated. */
int64_t dtype_get_int(enum dtype dt, const void *base, size_t i);

/* Convert n elements; dst and src must not overlap unless dt_dst == dt_src. */
void dtype_convert(enum dtype dt_dst, void *dst, enum dtype dt_src,
    const void *src, size_t n);

/*
 * The NaN rule of float sums and products: IEEE leaves it to the
 * implementation which NaN a + b gives when both are NaNs (and compilers
 * swap the operands of a commutative op), so colldb fixes it: when the
 * accumulated value a is a NaN, the result is a, made quiet.  Every
 * kernel applies it, so they all agree to the bit.
 */
static inline float
dtype_nan_first_f32(float a, float r)
{
	/* a + 0 is a made quiet when a is a NaN (and cannot be folded away:
	 * -0 + 0 is +0); computed always and then selected, so the loops
	 * still vectorise */
	float q = a + 0.0f;

	return __builtin_isunordered(a, a) ? q : r;
}

static inline double
dtype_nan_first_f64(double a, double r)
{
	double q = a + 0.0;

	return __builtin_isunordered(a, a) ? q : r;
}

/* acc[i] = op(acc[i], x[i]) for n elements of type dt (no conversion; float
 * sums and products follow the NaN rule above). */
void reduce_apply(enum dtype dt, enum reduce_op op, void *acc, const void *x,
    size_t n);

/* The scalar references of the two above: one element at a time, the
 * definition the vectorised kernels (kern.h) match bit for bit. */
void dtype_convert_ref(enum dtype dt_dst, void *dst, enum dtype dt_src,
    const void *src, size_t n);
void reduce_apply_ref(enum dtype dt, enum reduce_op op, void *acc,
    const void *x, size_t n);

/* Whether dt supports put atomic=add (f32 f16 bf16 i32 i16 i8). */
int dtype_atomic_add_ok(enum dtype dt);
/* dst[i] += src[i] atomically per element (dst is shared memory). */
void dtype_atomic_add(enum dtype dt, void *dst, const void *src, size_t n);

/* Append element i formatted for display (%g for floats, %lld for ints). */
void dtype_format(enum dtype dt, const void *base, size_t i, struct strbuf *sb);

#endif
