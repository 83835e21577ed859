/*
 * strace-text.c - text as Python's str sees it, over UTF-8: whitespace,
 * line breaks, decoding with errors="replace", percent-decoding; see
 * strace.h.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"
#include "strace.h"

/* Bytes in the whitespace code point at S (str.isspace), or 0. */
size_t
strace_ws_len(const char *s, const char *e)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = (size_t)(e - s);

	if (n == 0)
		return 0;
	if ((u[0] >= 0x09 && u[0] <= 0x0d) || (u[0] >= 0x1c && u[0] <= 0x20))
		return 1;
	if (u[0] < 0xc2)
		return 0;
	if (u[0] == 0xc2 && n >= 2 && (u[1] == 0x85 || u[1] == 0xa0))
		return 2;
	if (n < 3)
		return 0;
	if (u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80)
		return 3; /* U+1680 */
	if (u[0] == 0xe2 && u[1] == 0x80 &&
	    (u[2] <= 0x8a || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
		return 3; /* U+2000-200A, 2028, 2029, 202F */
	if (u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f)
		return 3; /* U+205F */
	if (u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80)
		return 3; /* U+3000 */
	return 0;
}

/* Bytes in the str.splitlines() break at S (other than '\n'), or 0. */
size_t
strace_break_len(const char *s, const char *e)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = (size_t)(e - s);

	if (u[0] == '\r' || u[0] == 0x0b || u[0] == 0x0c ||
	    (u[0] >= 0x1c && u[0] <= 0x1e))
		return 1;
	if (u[0] == 0xc2 && n >= 2 && u[1] == 0x85)
		return 2;
	if (u[0] == 0xe2 && n >= 3 && u[1] == 0x80 &&
	    (u[2] == 0xa8 || u[2] == 0xa9))
		return 3;
	return 0;
}

size_t
strace_utf8_len(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	}
	return n;
}

/*
 * Python's UTF-8 decoder with errors="replace": each maximal ill-formed
 * subpart becomes one U+FFFD.  Returns 0 if S is valid (OUT untouched),
 * else 1 with the repaired text in OUT.
 */
int
strace_utf8_repair(const char *s, size_t n, struct strbuf *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, start = 0, need, k;
	unsigned lo, hi;
	int bad = 0;

	while (i < n) {
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		lo = 0x80;
		hi = 0xbf;
		if (u[i] >= 0xc2 && u[i] <= 0xdf)
			need = 1;
		else if (u[i] >= 0xe0 && u[i] <= 0xef) {
			need = 2;
			if (u[i] == 0xe0)
				lo = 0xa0;
			else if (u[i] == 0xed)
				hi = 0x9f;
		} else if (u[i] >= 0xf0 && u[i] <= 0xf4) {
			need = 3;
			if (u[i] == 0xf0)
				lo = 0x90;
			else if (u[i] == 0xf4)
				hi = 0x8f;
		} else
			need = 0;
		for (k = 1; need != 0 && k <= need; k++) {
			if (i + k >= n)
				break;
			if (u[i + k] < (k == 1 ? lo : 0x80) ||
			    u[i + k] > (k == 1 ? hi : 0xbf))
				break;
		}
		if (need != 0 && k == need + 1) {
			i += need + 1;
			continue;
		}
		/* Ill-formed: bytes i .. i+k-1 (at least the lead). */
		if (!bad) {
			strbuf_reset(out);
			bad = 1;
		}
		strbuf_add(out, s + start, i - start);
		strbuf_add(out, "\xef\xbf\xbd", 3);
		i += need == 0 ? 1 : k;
		start = i;
	}
	if (bad)
		strbuf_add(out, s + start, n - start);
	return bad;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void
strace_decode_field(struct strbuf *out, const char *s, size_t len)
{
	size_t i;
	int hi, lo, v;

	for (i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len && (hi = hexval(s[i + 1])) >= 0 &&
		    (lo = hexval(s[i + 2])) >= 0) {
			/* chr(v) in Python: a code point, not a byte */
			v = hi * 16 + lo;
			if (v < 0x80)
				strbuf_addch(out, v);
			else {
				strbuf_addch(out, 0xc0 | (v >> 6));
				strbuf_addch(out, 0x80 | (v & 0x3f));
			}
			i += 2;
			continue;
		}
		strbuf_addch(out, s[i]);
	}
}
