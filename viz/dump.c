/* dump.c - the text backend: a screen model as text, for tests; see viz.h. */
#include <string.h>

#include "../core/strbuf.h"
#include "viz.h"

static const char *const dump_attr_names[] = {
	"bold",
	"reverse",
	"dim",
	"underline",
};

static const char *const dump_color_names[SCREEN_NCOLORS] = {
	"default",
	"red",
	"green",
	"yellow",
	"blue",
	"magenta",
	"cyan",
};

static const struct {
	const char *name;
	int key;
} viz_key_names[] = {
	{ "tab", '\t' },
	{ "btab", VIZ_KEY_BTAB },
	{ "up", VIZ_KEY_UP },
	{ "down", VIZ_KEY_DOWN },
	{ "left", VIZ_KEY_LEFT },
	{ "right", VIZ_KEY_RIGHT },
	{ "pgup", VIZ_KEY_PGUP },
	{ "pgdn", VIZ_KEY_PGDN },
	{ "home", VIZ_KEY_HOME },
	{ "end", VIZ_KEY_END },
	{ "esc", VIZ_KEY_ESC },
	{ "enter", VIZ_KEY_ENTER },
	{ "resize", VIZ_KEY_RESIZE },
	{ "C-l", VIZ_CTRL('l') },
	{ "space", ' ' },
};

int
viz_key_parse(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(viz_key_names); i++)
		if (strcmp(viz_key_names[i].name, name) == 0)
			return viz_key_names[i].key;
	if (name[0] > ' ' && name[0] < 0x7f && name[1] == '\0')
		return (unsigned char)name[0];
	return VIZ_KEY_NONE;
}

void
dump_style_name(unsigned style, struct strbuf *out)
{
	size_t i, len = out->len;

	for (i = 0; i < ARRAY_SIZE(dump_attr_names); i++)
		if (style & (1u << i))
			strbuf_addf(out, "%s%s", out->len > len ? "," : "",
			    dump_attr_names[i]);
	if (SCREEN_COLOR_OF(style) != SCREEN_DEFAULT &&
	    SCREEN_COLOR_OF(style) < SCREEN_NCOLORS)
		strbuf_addf(out, "%s%s", out->len > len ? "," : "",
		    dump_color_names[SCREEN_COLOR_OF(style)]);
	if (out->len == len)
		strbuf_addstr(out, "plain");
}

void
dump_screen(const struct screen *s, struct strbuf *out, int flags)
{
	uint16_t styles[52];
	const struct screen_cell *c;
	size_t mark;
	int nstyles = 0, x, y, k;

	for (y = 0; y < s->rows; y++) {
		strbuf_addch(out, '|');
		for (x = 0; x < s->cols; x++)
			strbuf_addch(out, screen_at(s, x, y)->ch);
		strbuf_rtrim(out);
		strbuf_addch(out, '\n');
		if (!(flags & DUMP_STYLES))
			continue;
		mark = out->len;
		strbuf_addch(out, ':');
		for (x = 0; x < s->cols; x++) {
			c = screen_at(s, x, y);
			if (c->style == 0) {
				strbuf_addch(out, ' ');
				continue;
			}
			for (k = 0; k < nstyles && styles[k] != c->style; k++)
				;
			if (k == nstyles && nstyles < (int)ARRAY_SIZE(styles))
				styles[nstyles++] = c->style;
			strbuf_addch(out,
			    k < 26     ? 'A' + k :
				k < 52 ? 'a' + k - 26 :
					 '#');
		}
		strbuf_rtrim(out);
		if (out->len == mark + 1)
			strbuf_setlen(out, mark);
		else
			strbuf_addch(out, '\n');
	}
	for (k = 0; k < nstyles; k++) {
		strbuf_addf(out, "style %c: ", k < 26 ? 'A' + k : 'a' + k - 26);
		dump_style_name(styles[k], out);
		strbuf_addch(out, '\n');
	}
}
