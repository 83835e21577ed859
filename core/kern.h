/*
 * kern.h - the data path's kernels: element-wise reductions and the
 * f16/bf16 <-> f32 conversions, vectorised per dtype.
 *
 * Every kernel gives, bit for bit, what the scalar reference in dtype.c
 * gives (dtype_convert_ref(), reduce_apply_ref()): the same IEEE f32/f64
 * operation per element, in the same order; max and min keep the
 * reference's `b > a ? b : a` (a NaN in b never wins, one in a stays);
 * integer sums and products wrap; f16 and bf16 are computed in f32 and
 * rounded to nearest-even, NaNs made quiet.  tests/unit/check_kern.c
 * compares each level against the reference, NaN, infinities and
 * subnormals included.
 *
 * Levels: KERN_SCALAR is the reference itself; KERN_GENERIC the loops
 * compiled for the baseline ISA (auto-vectorised, -O3); KERN_AVX2 the same
 * loops for AVX2, with f16 through F16C's VCVTPH2PS/VCVTPS2PH.  The best
 * level the CPU has is chosen on first use; kern_force() exists for tests
 * and `make bench`.
 *
 * Pointers: dst may equal a source exactly (in place); a partial overlap
 * falls back to the scalar reference.  All functions are thread-safe.
 */
#ifndef COLLDB_KERN_H
#define COLLDB_KERN_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

enum kern_level { KERN_SCALAR, KERN_GENERIC, KERN_AVX2, KERN__COUNT };

/* The level in use, and its name ("scalar", "generic", "avx2"). */
enum kern_level kern_level(void);
const char *kern_level_name(enum kern_level l);
/* Use level l from now on (clamped to what the CPU has); returns the
 * level now in use. */
enum kern_level kern_force(enum kern_level l);

/* dst[i] = a[i] op b[i], n elements of dt (f16/bf16: in f32, rounded). */
void kern_reduce(enum dtype dt, enum reduce_op op, void *dst, const void *a,
    const void *b, size_t n);
/* dst[i] (f32) = wa op wb, where wa/wb are a[i]/b[i] widened to f32 when
 * their dtype (adt/bdt) is f16 or bf16, or read as f32 when DT_F32. */
void kern_reduce_f32(enum reduce_op op, float *dst, enum dtype adt,
    const void *a, enum dtype bdt, const void *b, size_t n);
/* Convert n elements between f32 and f16/bf16 (either direction), or
 * copy when the dtypes are equal. */
void kern_convert(enum dtype ddt, void *dst, enum dtype sdt, const void *src,
    size_t n);

/*
 * memcpy(dst, src, n) whose stores bypass the cache (non-temporal): for a
 * destination nobody reads again soon, so it does not evict what the
 * next chunks need.  Any alignment: the bytes up to dst's first 32-byte
 * boundary and after its last are copied plainly, the body with
 * streaming stores; the copy ends with a store fence, so a release store
 * after it (a notify) publishes the data.  Same bytes as memcpy at every
 * level; KERN_SCALAR is memcpy.  dst and src overlapping: memmove.
 */
void kern_copy_stream(void *dst, const void *src, size_t n);

#endif
