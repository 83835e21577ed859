/* check_screen.c - the screen model, its clipping, and the text dump. */
#include <check.h>
#include <string.h>

#include "screen.h"
#include "strbuf.h"
#include "viz.h"

/* Row y of s as a string (static buffer; trailing blanks kept). */
static const char *
row(const struct screen *s, int y)
{
	static char buf[256];
	int x;

	for (x = 0; x < s->cols && x < (int)sizeof buf - 1; x++)
		buf[x] = screen_at(s, x, y)->ch;
	buf[x] = '\0';
	return buf;
}

static void
check_blank(const struct screen *s)
{
	int x, y;

	for (y = 0; y < s->rows; y++)
		for (x = 0; x < s->cols; x++) {
			ck_assert_int_eq(screen_at(s, x, y)->ch, ' ');
			ck_assert_uint_eq(screen_at(s, x, y)->style, 0);
		}
	ck_assert_int_eq(s->clip.x, 0);
	ck_assert_int_eq(s->clip.y, 0);
	ck_assert_int_eq(s->clip.w, s->cols);
	ck_assert_int_eq(s->clip.h, s->rows);
}

START_TEST(init_resize_clear)
{
	struct screen s;

	screen_init(&s, 10, 3);
	ck_assert_int_eq(s.cols, 10);
	ck_assert_int_eq(s.rows, 3);
	check_blank(&s);
	ck_assert_ptr_null(screen_at(&s, 10, 0));
	ck_assert_ptr_null(screen_at(&s, 0, 3));
	ck_assert_ptr_null(screen_at(&s, -1, 0));

	screen_puts(&s, 0, 0, "abc", SCREEN_BOLD);
	screen_clip(&s, &(struct screen_rect){ 1, 1, 2, 1 });
	screen_resize(&s, 20, 5);
	ck_assert_int_eq(s.cols, 20);
	ck_assert_int_eq(s.rows, 5);
	check_blank(&s); /* content and clip reset */

	screen_puts(&s, 0, 0, "abc", SCREEN_BOLD);
	screen_resize(&s, 20, 5); /* same size: still cleared */
	check_blank(&s);

	screen_resize(&s, -3, -1);
	ck_assert_int_eq(s.cols, 0);
	ck_assert_int_eq(s.rows, 0);
	screen_puts(&s, 0, 0, "x", 0); /* nowhere to go: no crash */
	screen_release(&s);
	ck_assert_int_eq(s.cols, 0);
	ck_assert_ptr_null(s.cells);
}
END_TEST

START_TEST(puts_clips_at_edges)
{
	struct screen s;

	screen_init(&s, 8, 2);
	ck_assert_int_eq(screen_puts(&s, 5, 0, "abcdef", 0), 11);
	ck_assert_str_eq(row(&s, 0), "     abc");
	ck_assert_int_eq(screen_puts(&s, -2, 1, "xyzw", SCREEN_DIM), 2);
	ck_assert_str_eq(row(&s, 1), "zw      ");
	ck_assert_uint_eq(screen_at(&s, 0, 1)->style, SCREEN_DIM);
	ck_assert_uint_eq(screen_at(&s, 2, 1)->style, 0);
	screen_puts(&s, 0, 5, "offscreen", 0);
	screen_puts(&s, 0, -1, "offscreen", 0);
	ck_assert_str_eq(row(&s, 0), "     abc");
	ck_assert_int_eq(screen_putn(&s, 0, 0, "12345", 2, 0), 2);
	ck_assert_str_eq(row(&s, 0), "12   abc");
	ck_assert_int_eq(screen_printf(&s, 0, 1, 0, "%d-%s", 42, "x"), 4);
	ck_assert_str_eq(row(&s, 1), "42-x    ");
	screen_release(&s);
}
END_TEST

START_TEST(control_bytes_are_shown_as_question_marks)
{
	struct screen s;

	screen_init(&s, 8, 1);
	screen_puts(&s, 0, 0, "a\tb\033[2Jc\xc3\xa9", 0);
	ck_assert_str_eq(row(&s, 0), "a?b?[2Jc");
	screen_putc(&s, 0, 0, 0x7f, 0);
	ck_assert_int_eq(screen_at(&s, 0, 0)->ch, '?');
	screen_release(&s);
}
END_TEST

START_TEST(clip_rectangle)
{
	struct screen s;

	screen_init(&s, 6, 4);
	screen_clip(&s, &(struct screen_rect){ 1, 1, 3, 2 });
	screen_fill(&s, &(struct screen_rect){ 0, 0, 6, 4 }, '#', SCREEN_BOLD);
	ck_assert_str_eq(row(&s, 0), "      ");
	ck_assert_str_eq(row(&s, 1), " ###  ");
	ck_assert_str_eq(row(&s, 2), " ###  ");
	ck_assert_str_eq(row(&s, 3), "      ");
	screen_restyle(&s, &(struct screen_rect){ 0, 0, 6, 4 }, SCREEN_DIM);
	ck_assert_uint_eq(screen_at(&s, 1, 1)->style, SCREEN_DIM);
	ck_assert_uint_eq(screen_at(&s, 0, 0)->style, 0);
	ck_assert_int_eq(screen_at(&s, 1, 1)->ch, '#');

	/* A clip partly outside the screen is cut to the screen. */
	screen_clip(&s, &(struct screen_rect){ 4, -2, 10, 4 });
	ck_assert_int_eq(s.clip.x, 4);
	ck_assert_int_eq(s.clip.y, 0);
	ck_assert_int_eq(s.clip.w, 2);
	ck_assert_int_eq(s.clip.h, 2);
	/* A negative size is empty. */
	screen_clip(&s, &(struct screen_rect){ 2, 2, -1, 5 });
	ck_assert_int_eq(s.clip.w, 0);
	screen_puts(&s, 2, 2, "zz", 0);
	ck_assert_int_eq(screen_at(&s, 2, 2)->ch, '#');
	screen_clip(&s, NULL);
	ck_assert_int_eq(s.clip.w, 6);
	ck_assert_int_eq(s.clip.h, 4);
	screen_release(&s);
}
END_TEST

START_TEST(fields_pad_and_cut)
{
	struct screen s;

	screen_init(&s, 12, 3);
	ck_assert_int_eq(screen_field(&s, 0, 0, 5, "ab", -1, 0), 5);
	ck_assert_int_eq(screen_field(&s, 5, 0, 5, "ab", 1, SCREEN_REVERSE), 10);
	ck_assert_str_eq(row(&s, 0), "ab      ab  ");
	/* The padding takes the style too (a reverse bar stays whole). */
	ck_assert_uint_eq(screen_at(&s, 5, 0)->style, SCREEN_REVERSE);
	screen_field(&s, 0, 1, 4, "abcdef", -1, 0);
	ck_assert_str_eq(row(&s, 1), "abc~        ");
	screen_field(&s, 0, 2, 4, "abcd", 1, 0);
	ck_assert_str_eq(row(&s, 2), "abcd        ");
	ck_assert_int_eq(screen_field(&s, 3, 2, 0, "zz", 1, 0), 3);
	ck_assert_str_eq(row(&s, 2), "abcd        ");
	screen_release(&s);
}
END_TEST

START_TEST(box_outline)
{
	struct screen s;

	screen_init(&s, 5, 3);
	screen_box(&s, &(struct screen_rect){ 0, 0, 5, 3 }, 0);
	ck_assert_str_eq(row(&s, 0), "+---+");
	ck_assert_str_eq(row(&s, 1), "|   |");
	ck_assert_str_eq(row(&s, 2), "+---+");
	screen_clear(&s);
	screen_box(&s, &(struct screen_rect){ 0, 0, 1, 3 }, 0);
	ck_assert_str_eq(row(&s, 1), "     ");
	screen_release(&s);
}
END_TEST

START_TEST(dump_text_and_styles)
{
	struct screen s;
	struct strbuf sb = STRBUF_INIT;

	screen_init(&s, 6, 3);
	screen_puts(&s, 0, 0, "ab", SCREEN_BOLD);
	screen_puts(&s, 3, 0, "c", SCREEN_REVERSE | SCREEN_FG(SCREEN_CYAN));
	screen_puts(&s, 0, 2, "  x", SCREEN_BOLD);
	/* A styled blank at the end of a row still shows in the overlay. */
	screen_putc(&s, 5, 2, ' ', SCREEN_REVERSE | SCREEN_FG(SCREEN_CYAN));
	dump_screen(&s, &sb, DUMP_STYLES);
	ck_assert_str_eq(sb.buf,
	    "|ab c\n"
	    ":AA B\n"
	    "|\n"
	    "|  x\n"
	    ":AAA  B\n"
	    "style A: bold\n"
	    "style B: reverse,cyan\n");
	strbuf_reset(&sb);
	dump_screen(&s, &sb, 0);
	ck_assert_str_eq(sb.buf, "|ab c\n|\n|  x\n");
	strbuf_release(&sb);
	screen_release(&s);
}
END_TEST

START_TEST(style_names)
{
	struct strbuf sb = STRBUF_INIT;

	dump_style_name(0, &sb);
	ck_assert_str_eq(sb.buf, "plain");
	strbuf_reset(&sb);
	dump_style_name(SCREEN_BOLD | SCREEN_DIM | SCREEN_UNDERLINE |
		SCREEN_FG(SCREEN_YELLOW),
	    &sb);
	ck_assert_str_eq(sb.buf, "bold,dim,underline,yellow");
	strbuf_reset(&sb);
	dump_style_name(SCREEN_FG(SCREEN_RED), &sb);
	ck_assert_str_eq(sb.buf, "red");
	strbuf_release(&sb);
}
END_TEST

START_TEST(key_names)
{
	ck_assert_int_eq(viz_key_parse("tab"), '\t');
	ck_assert_int_eq(viz_key_parse("btab"), VIZ_KEY_BTAB);
	ck_assert_int_eq(viz_key_parse("pgdn"), VIZ_KEY_PGDN);
	ck_assert_int_eq(viz_key_parse("C-l"), 12);
	ck_assert_int_eq(viz_key_parse("q"), 'q');
	ck_assert_int_eq(viz_key_parse("?"), '?');
	ck_assert_int_eq(viz_key_parse("qq"), VIZ_KEY_NONE);
	ck_assert_int_eq(viz_key_parse(""), VIZ_KEY_NONE);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("screen");
	TCase *tc = tcase_create("all");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, init_resize_clear);
	tcase_add_test(tc, puts_clips_at_edges);
	tcase_add_test(tc, control_bytes_are_shown_as_question_marks);
	tcase_add_test(tc, clip_rectangle);
	tcase_add_test(tc, fields_pad_and_cut);
	tcase_add_test(tc, box_outline);
	tcase_add_test(tc, dump_text_and_styles);
	tcase_add_test(tc, style_names);
	tcase_add_test(tc, key_names);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
