/* screen.c - the cell grid panes draw into; see screen.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xmalloc.h"
#include "screen.h"

static int screen_visible(const struct screen *, int, int);

void
screen_init(struct screen *s, int cols, int rows)
{
	s->cols = s->rows = 0;
	s->cells = NULL;
	screen_resize(s, cols, rows);
}

void
screen_release(struct screen *s)
{
	free(s->cells);
	s->cells = NULL;
	s->cols = s->rows = 0;
	s->clip = (struct screen_rect){ 0, 0, 0, 0 };
}

void
screen_resize(struct screen *s, int cols, int rows)
{
	cols = MAX(cols, 0);
	rows = MAX(rows, 0);
	if (cols != s->cols || rows != s->rows || s->cells == NULL) {
		free(s->cells);
		s->cells = xreallocarray(NULL, (size_t)cols * rows + 1,
		    sizeof *s->cells);
		s->cols = cols;
		s->rows = rows;
	}
	screen_clear(s);
}

void
screen_clear(struct screen *s)
{
	size_t i, n = (size_t)s->cols * s->rows;

	for (i = 0; i < n; i++) {
		s->cells[i].ch = ' ';
		s->cells[i].style = 0;
	}
	screen_clip(s, NULL);
}

void
screen_clip(struct screen *s, const struct screen_rect *r)
{
	int x0, y0, x1, y1;

	if (r == NULL) {
		s->clip = (struct screen_rect){ 0, 0, s->cols, s->rows };
		return;
	}
	x0 = MAX(r->x, 0);
	y0 = MAX(r->y, 0);
	x1 = MIN(r->x + MAX(r->w, 0), s->cols);
	y1 = MIN(r->y + MAX(r->h, 0), s->rows);
	s->clip =
	    (struct screen_rect){ x0, y0, MAX(x1 - x0, 0), MAX(y1 - y0, 0) };
}

static int
screen_visible(const struct screen *s, int x, int y)
{
	return x >= s->clip.x && x < s->clip.x + s->clip.w && y >= s->clip.y &&
	    y < s->clip.y + s->clip.h;
}

const struct screen_cell *
screen_at(const struct screen *s, int x, int y)
{
	if (x < 0 || y < 0 || x >= s->cols || y >= s->rows)
		return NULL;
	return &s->cells[(size_t)y * s->cols + x];
}

void
screen_putc(struct screen *s, int x, int y, int ch, unsigned style)
{
	struct screen_cell *c;

	if (!screen_visible(s, x, y))
		return;
	if (ch < 0x20 || ch >= 0x7f)
		ch = '?';
	c = &s->cells[(size_t)y * s->cols + x];
	c->ch = (char)ch;
	c->style = (uint16_t)style;
}

int
screen_putn(struct screen *s, int x, int y, const char *str, int max,
    unsigned style)
{
	int i;

	for (i = 0; i < max && str[i] != '\0'; i++)
		screen_putc(s, x + i, y, (unsigned char)str[i], style);
	return x + i;
}

int
screen_puts(struct screen *s, int x, int y, const char *str, unsigned style)
{
	return screen_putn(s, x, y, str, (int)MIN(strlen(str), (size_t)1 << 30),
	    style);
}

int
screen_printf(struct screen *s, int x, int y, unsigned style, const char *fmt, ...)
{
	va_list ap;
	char *str;

	va_start(ap, fmt);
	str = xvasprintf(fmt, ap);
	va_end(ap);
	x = screen_puts(s, x, y, str, style);
	free(str);
	return x;
}

int
screen_field(struct screen *s, int x, int y, int w, const char *str, int align,
    unsigned style)
{
	int len = (int)MIN(strlen(str), (size_t)1 << 30), pad;

	if (w <= 0)
		return x;
	if (len > w) {
		screen_putn(s, x, y, str, w - 1, style);
		screen_putc(s, x + w - 1, y, '~', style);
		return x + w;
	}
	pad = w - len;
	screen_fill(s, &(struct screen_rect){ x, y, w, 1 }, ' ', style);
	screen_puts(s, align > 0 ? x + pad : x, y, str, style);
	return x + w;
}

void
screen_fill(struct screen *s, const struct screen_rect *r, int ch, unsigned style)
{
	int x, y;

	for (y = r->y; y < r->y + r->h; y++)
		for (x = r->x; x < r->x + r->w; x++)
			screen_putc(s, x, y, ch, style);
}

void
screen_restyle(struct screen *s, const struct screen_rect *r, unsigned style)
{
	int x, y;

	for (y = r->y; y < r->y + r->h; y++)
		for (x = r->x; x < r->x + r->w; x++)
			if (screen_visible(s, x, y))
				s->cells[(size_t)y * s->cols + x].style =
				    (uint16_t)style;
}

void
screen_box(struct screen *s, const struct screen_rect *r, unsigned style)
{
	int x1 = r->x + r->w - 1, y1 = r->y + r->h - 1, i;

	if (r->w < 2 || r->h < 2)
		return;
	for (i = r->x + 1; i < x1; i++) {
		screen_putc(s, i, r->y, '-', style);
		screen_putc(s, i, y1, '-', style);
	}
	for (i = r->y + 1; i < y1; i++) {
		screen_putc(s, r->x, i, '|', style);
		screen_putc(s, x1, i, '|', style);
	}
	screen_putc(s, r->x, r->y, '+', style);
	screen_putc(s, x1, r->y, '+', style);
	screen_putc(s, r->x, y1, '+', style);
	screen_putc(s, x1, y1, '+', style);
}
