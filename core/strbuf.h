/*
 * strbuf.h - growable strings, after git's strbuf.
 *
 * Invariants: sb->buf is never NULL and always NUL-terminated; sb->len is
 * the length without the NUL; sb->alloc is 0 while buf points at the shared
 * empty string (no heap block yet).  Initialise with STRBUF_INIT or
 * strbuf_init().  strbuf_release() frees and re-initialises;
 * strbuf_detach() hands the heap string to the caller (to free()) and
 * leaves the strbuf empty and usable.
 */
#ifndef COLLDB_STRBUF_H
#define COLLDB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "common.h"

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT \
	{ \
		0, 0, strbuf_slopbuf \
	}

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addchars(struct strbuf *sb, int c, size_t n);
printflike(2, 3) void strbuf_addf(struct strbuf *sb, const char *fmt, ...);
printflike(2, 0) void strbuf_vaddf(struct strbuf *sb, const char *fmt,
    va_list ap);
/* Append s as a JSON string literal (quotes, escapes). */
void strbuf_add_json(struct strbuf *sb, const char *s);
/* Remove trailing spaces and tabs. */
void strbuf_rtrim(struct strbuf *sb);

#endif
