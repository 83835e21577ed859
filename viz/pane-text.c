/* pane-text.c - a boxed, scrollable text overlay; see pane.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"
#include "../core/xmalloc.h"
#include "pane.h"
#include "viz.h"

struct text_data {
	char *title;
	char **lines;
	int nlines;
	int width; /* longest line */
	int off;   /* first display line shown (after wrapping) */
	int page;  /* display lines shown at the last draw */
	int total; /* display lines at the last draw */
};

#define TEXT_INDENT 4 /* indent of a wrapped line's continuations */

static void text_init(struct pane *);
static void text_free(struct pane *);
static void text_clear(struct text_data *);
static int text_break(const char *, int, int, int, int *);
static int text_wrap(const struct text_data *, int, int, struct screen *,
    const struct screen_rect *, int);
static void text_draw(struct pane *, struct screen *, const struct screen_rect *);
static int text_key(struct pane *, int);

static const struct pane_help text_help[] = {
	{ "arrows, PgUp PgDn", "scroll an overlay" },
	{ "Esc q Enter", "close an overlay" },
	{ NULL, NULL },
};

const struct pane_class pane_text_class = {
	.name = "text",
	.help = text_help,
	.init = text_init,
	.free = text_free,
	.update = NULL,
	.draw = text_draw,
	.key = text_key,
};

static void
text_init(struct pane *p)
{
	struct text_data *d = xcalloc(1, sizeof *d);

	d->title = xstrdup("");
	d->page = 1;
	p->data = d;
}

static void
text_clear(struct text_data *d)
{
	int i;

	for (i = 0; i < d->nlines; i++)
		free(d->lines[i]);
	free(d->lines);
	free(d->title);
	d->lines = NULL;
	d->title = NULL;
	d->nlines = d->width = d->off = 0;
}

static void
text_free(struct pane *p)
{
	text_clear(p->data);
	free(p->data);
}

void
pane_text_set(struct pane *p, const char *title, const char *text)
{
	struct text_data *d = p->data;
	struct strbuf sb = STRBUF_INIT;
	const char *c;

	if (p->cls != &pane_text_class)
		BUG("pane_text_set on a %s pane", p->cls->name);
	text_clear(d);
	d->title = xstrdup(title);
	for (c = text;; c++) {
		if (*c == '\t') {
			do
				strbuf_addch(&sb, ' ');
			while (sb.len % 8 != 0);
			continue;
		}
		if (*c != '\n' && *c != '\0') {
			strbuf_addch(&sb, *c);
			continue;
		}
		/* No empty last line for a text ending in '\n' (or ""). */
		if (*c == '\0' && sb.len == 0 && (c == text || c[-1] == '\n'))
			break;
		strbuf_rtrim(&sb);
		d->lines =
		    xreallocarray(d->lines, d->nlines + 1, sizeof *d->lines);
		d->width = MAX(d->width, (int)sb.len);
		d->lines[d->nlines++] = strbuf_detach(&sb, NULL);
		if (*c == '\0')
			break;
	}
	strbuf_release(&sb);
}

/*
 * Where the display line starting at l[from] ends when w columns are
 * free: at the end, or after the last space that fits, or (one long word)
 * at w.  *next is where the following display line starts.
 */
static int
text_break(const char *l, int len, int from, int w, int *next)
{
	int k;

	if (len - from <= w) {
		*next = len;
		return len;
	}
	for (k = from + w; k > from; k--)
		if (l[k] == ' ') {
			*next = k + 1;
			while (*next < len && l[*next] == ' ')
				(*next)++;
			return k;
		}
	*next = from + w;
	return from + w;
}

/*
 * Count the display lines of line i at width iw (continuations indented
 * by TEXT_INDENT); when s is not NULL also draw those inside the scrolled
 * view, the first being display line y.
 */
static int
text_wrap(const struct text_data *d, int i, int iw, struct screen *s,
    const struct screen_rect *in, int y)
{
	const char *l = d->lines[i];
	int len = (int)strlen(l), from = 0, end, next, n = 0, w, x;

	do {
		w = n == 0 ? iw : iw - TEXT_INDENT;
		x = n == 0 ? 1 : 1 + TEXT_INDENT;
		end = text_break(l, len, from, w, &next);
		if (s != NULL && y + n >= d->off && y + n < d->off + in->h)
			screen_putn(s, in->x + x, in->y + y + n - d->off,
			    l + from, end - from, 0);
		n++;
		from = next;
	} while (from < len);
	return n;
}

static void
text_draw(struct pane *p, struct screen *s, const struct screen_rect *rc)
{
	struct text_data *d = p->data;
	struct screen_rect box, in;
	char foot[64];
	int i, y, bw, bh, iw, total;

	bw = MIN(MAX(d->width, (int)strlen(d->title) + 4) + 4, rc->w);
	iw = MAX(bw - 4, TEXT_INDENT + 1);
	for (i = total = 0; i < d->nlines; i++)
		total += text_wrap(d, i, iw, NULL, NULL, 0);
	bh = MIN(total + 2, rc->h);
	box = (struct screen_rect){ rc->x + (rc->w - bw) / 2,
		rc->y + (rc->h - bh) / 2, bw, bh };
	in = (struct screen_rect){ box.x + 1, box.y + 1, box.w - 2, box.h - 2 };
	d->page = MAX(in.h, 1);
	d->total = total;
	d->off = MAX(MIN(d->off, total - in.h), 0);

	screen_fill(s, &box, ' ', 0);
	screen_box(s, &box, SCREEN_BOLD);
	if (d->title[0] != '\0')
		screen_printf(s, box.x + 2, box.y, SCREEN_BOLD, " %s ", d->title);
	if (total > in.h) {
		snprintf(foot, sizeof foot, " %d-%d of %d ", d->off + 1,
		    d->off + in.h, total);
		screen_puts(s, box.x + box.w - 2 - (int)strlen(foot),
		    box.y + box.h - 1, foot, SCREEN_BOLD);
	}
	screen_clip(s, &in);
	for (i = y = 0; i < d->nlines && y < d->off + in.h; i++)
		y += text_wrap(d, i, iw, s, &in, y);
	screen_clip(s, rc);
}

static int
text_key(struct pane *p, int key)
{
	struct text_data *d = p->data;

	switch (key) {
	case VIZ_KEY_UP:
		d->off--;
		break;
	case VIZ_KEY_DOWN:
		d->off++;
		break;
	case VIZ_KEY_PGUP:
		d->off -= d->page;
		break;
	case VIZ_KEY_PGDN:
		d->off += d->page;
		break;
	case VIZ_KEY_HOME:
		d->off = 0;
		break;
	case VIZ_KEY_END:
		d->off = d->total;
		break;
	case 'q':
	case VIZ_KEY_ESC:
	case VIZ_KEY_ENTER:
	case '\r':
	case '\n':
		return VIZ_CLOSE | VIZ_REDRAW;
	default:
		return 0;
	}
	d->off = MAX(MIN(d->off, d->total - d->page), 0);
	return VIZ_REDRAW;
}
