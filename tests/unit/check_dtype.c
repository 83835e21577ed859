/* check_dtype.c - dtypes, f16/bf16 rounding, reduction kernels. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "dtype.h"

START_TEST(names_and_sizes)
{
	enum dtype dt;

	ck_assert_uint_eq(dtype_size(DT_BF16), 2);
	ck_assert_uint_eq(dtype_size(DT_I64), 8);
	ck_assert_int_eq(dtype_from_name("bf16", &dt), 0);
	ck_assert_int_eq(dt, DT_BF16);
	ck_assert_int_eq(dtype_from_name("f128", &dt), -1);
	ck_assert_int_eq(dtype_acc(DT_F16), DT_F32);
	ck_assert_int_eq(dtype_acc(DT_I32), DT_I32);
}
END_TEST

START_TEST(f16_round_trip_and_rne)
{
	ck_assert_uint_eq(f16_from_f32(1.0f), 0x3c00);
	ck_assert_uint_eq(f16_from_f32(-2.0f), 0xc000);
	ck_assert_uint_eq(f16_from_f32(65504.0f), 0x7bff);
	ck_assert_uint_eq(f16_from_f32(65520.0f), 0x7c00); /* rounds to inf */
	ck_assert_uint_eq(f16_from_f32(0x1p-24f), 0x0001); /* smallest subnormal */
	ck_assert_uint_eq(f16_from_f32(0x1p-25f), 0x0000); /* tie to even: 0 */
	ck_assert_uint_eq(f16_from_f32(0x1.8p-25f), 0x0001);
	/* 1 + 2^-11 is halfway between 1 and 1+2^-10: ties to even (1.0) */
	ck_assert_uint_eq(f16_from_f32(1.0f + 0x1p-11f), 0x3c00);
	ck_assert_uint_eq(f16_from_f32(1.0f + 3 * 0x1p-11f), 0x3c02);
	ck_assert(isnan(f16_to_f32(f16_from_f32(NAN))));
	for (uint32_t h = 0; h < 0x7c00; h++)
		ck_assert_uint_eq(f16_from_f32(f16_to_f32((uint16_t)h)), h);
}
END_TEST

START_TEST(bf16_rne)
{
	ck_assert_uint_eq(bf16_from_f32(1.0f), 0x3f80);
	/* 1 + 2^-8 is halfway: ties to even */
	ck_assert_uint_eq(bf16_from_f32(1.0f + 0x1p-8f), 0x3f80);
	ck_assert_uint_eq(bf16_from_f32(1.0f + 3 * 0x1p-8f), 0x3f82);
	ck_assert(bf16_to_f32(0x4049) > 3.14f && bf16_to_f32(0x4049) < 3.15f);
	ck_assert(isnan(bf16_to_f32(bf16_from_f32(NAN))));
}
END_TEST

START_TEST(reduce_kernels)
{
	float a[4] = { 1, 5, -3, 2 }, b[4] = { 2, 1, -4, 2 };
	int32_t ia[3] = { INT32_MAX, 3, -3 }, ib[3] = { 1, 4, 7 };
	uint16_t ha[2], hb[2];

	reduce_apply(DT_F32, RED_SUM, a, b, 4);
	ck_assert(a[0] == 3 && a[2] == -7);
	reduce_apply(DT_F32, RED_MAX, a, b, 4);
	ck_assert(a[1] == 6 && a[2] == -4);
	reduce_apply(DT_I32, RED_SUM, ia, ib, 3);
	ck_assert_int_eq(ia[0], INT32_MIN); /* wraps like the device */
	reduce_apply(DT_I32, RED_PROD, ia + 1, ib + 1, 1);
	ck_assert_int_eq(ia[1], 28);
	reduce_apply(DT_I32, RED_MIN, ia + 2, ib + 2, 1);
	ck_assert_int_eq(ia[2], 4);
	ha[0] = f16_from_f32(1.5f);
	hb[0] = f16_from_f32(2.25f);
	ha[1] = bf16_from_f32(3.0f);
	hb[1] = bf16_from_f32(4.0f);
	reduce_apply(DT_F16, RED_SUM, ha, hb, 1);
	ck_assert(f16_to_f32(ha[0]) == 3.75f);
	reduce_apply(DT_BF16, RED_PROD, ha + 1, hb + 1, 1);
	ck_assert(bf16_to_f32(ha[1]) == 12.0f);
}
END_TEST

START_TEST(convert_and_atomic)
{
	float f[3] = { 1.25f, -2.0f, 65504.0f }, back[3];
	uint16_t h[3];
	int16_t s16[2] = { 100, -5 }, add16[2] = { 28, 10 };

	dtype_convert(DT_F16, h, DT_F32, f, 3);
	dtype_convert(DT_F32, back, DT_F16, h, 3);
	ck_assert(memcmp(f, back, sizeof f) == 0);
	dtype_atomic_add(DT_I16, s16, add16, 2);
	ck_assert_int_eq(s16[0], 128);
	ck_assert_int_eq(s16[1], 5);
	dtype_atomic_add(DT_F32, f, f, 2);
	ck_assert(f[0] == 2.5f && f[1] == -4.0f);
	ck_assert(dtype_atomic_add_ok(DT_BF16) &&
	    !dtype_atomic_add_ok(DT_F64) && !dtype_atomic_add_ok(DT_I64));
}
END_TEST

START_TEST(put_get_values)
{
	uint8_t buf[16];
	struct strbuf sb = STRBUF_INIT;

	dtype_put(DT_I8, buf, 0, -3);
	ck_assert_int_eq(dtype_get_int(DT_I8, buf, 0), -3);
	dtype_put_int(DT_I64, buf, 1, INT64_MAX);
	ck_assert(dtype_get_int(DT_I64, buf, 1) == INT64_MAX);
	dtype_put(DT_F64, buf, 0, 0.1);
	dtype_format(DT_F64, buf, 0, &sb);
	ck_assert_str_eq(sb.buf, "0.1");
	strbuf_release(&sb);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("dtype");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, names_and_sizes);
	tcase_add_test(tc, f16_round_trip_and_rne);
	tcase_add_test(tc, bf16_rne);
	tcase_add_test(tc, reduce_kernels);
	tcase_add_test(tc, convert_and_atomic);
	tcase_add_test(tc, put_get_values);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
