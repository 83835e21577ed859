/* xmalloc.c - allocation wrappers; see xmalloc.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

static void *
default_hook(void *ptr, size_t size)
{
	return realloc(ptr, size);
}

static xalloc_hook_fn hook = default_hook;

xalloc_hook_fn
xalloc_set_hook(xalloc_hook_fn h)
{
	xalloc_hook_fn old = hook;

	hook = h != NULL ? h : default_hook;
	return old;
}

static noreturn_ void
oom(size_t size)
{
	fprintf(stderr, "colldb: out of memory (allocating %zu bytes)\n", size);
	abort();
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p;

	if (size == 0)
		size = 1;
	p = hook(ptr, size);
	if (p == NULL)
		oom(size);
	return p;
}

void *
xmalloc(size_t size)
{
	return xrealloc(NULL, size);
}

void *
xreallocarray(void *ptr, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		oom(SIZE_MAX);
	return xrealloc(ptr, n * size);
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = xreallocarray(NULL, n, size);

	memset(p, 0, n * size);
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, SIZE_MAX);
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	va_list aq;
	int n;
	char *p;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		oom(0);
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void
bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "colldb: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

int
cause_set(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (cause == NULL)
		return -1;
	free(*cause);
	va_start(ap, fmt);
	*cause = xvasprintf(fmt, ap);
	va_end(ap);
	return -1;
}
