/* strbuf.c - growable strings; see strbuf.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xmalloc.h"

char strbuf_slopbuf[1];

void
strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint != 0)
		strbuf_grow(sb, hint);
}

void
strbuf_release(struct strbuf *sb)
{
	if (sb->alloc != 0)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *
strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *p;

	if (sb->alloc == 0)
		strbuf_grow(sb, 0);
	p = sb->buf;
	if (len != NULL)
		*len = sb->len;
	strbuf_init(sb, 0);
	return p;
}

void
strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;
	int fresh = sb->alloc == 0;

	if (want < sb->len)
		BUG("strbuf overflow");
	if (want <= sb->alloc)
		return;
	if (fresh)
		sb->buf = NULL;
	sb->alloc = want < 64 ? 64 : want + want / 2;
	sb->buf = xrealloc(sb->buf, sb->alloc);
	if (fresh)
		sb->buf[0] = '\0';
}

void
strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > (sb->alloc != 0 ? sb->alloc - 1 : 0))
		BUG("strbuf_setlen beyond allocation");
	sb->len = len;
	sb->buf[len] = '\0';
}

void
strbuf_reset(struct strbuf *sb)
{
	if (sb->alloc != 0)
		strbuf_setlen(sb, 0);
}

void
strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	strbuf_setlen(sb, sb->len + len);
}

void
strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void
strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len] = (char)c;
	strbuf_setlen(sb, sb->len + 1);
}

void
strbuf_addchars(struct strbuf *sb, int c, size_t n)
{
	strbuf_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	strbuf_setlen(sb, sb->len + n);
}

void
strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		BUG("bad format '%s'", fmt);
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	strbuf_setlen(sb, sb->len + (size_t)n);
}

void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void
strbuf_rtrim(struct strbuf *sb)
{
	size_t len = sb->len;

	while (len > 0 && (sb->buf[len - 1] == ' ' || sb->buf[len - 1] == '\t'))
		len--;
	if (sb->alloc != 0)
		strbuf_setlen(sb, len);
}

void
strbuf_add_json(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c < 0x20)
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_addch(sb, c);
	}
	strbuf_addch(sb, '"');
}
