/*
 * xmalloc.h - allocation wrappers that never return NULL.
 *
 * Every allocation in colldb goes through one hook (realloc-shaped), so a
 * unit test can make the Nth allocation fail.  When the hook returns NULL
 * for a non-zero size, the wrappers print a message and abort: colldb
 * treats running out of memory as fatal, like tmux and git.
 *
 * Returned memory is the caller's to free() (x*() results are plain heap
 * blocks).
 */
#ifndef COLLDB_XMALLOC_H
#define COLLDB_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

#include "common.h"

/* realloc-shaped hook: ptr NULL means allocate; size 0 is never passed. */
typedef void *(*xalloc_hook_fn)(void *ptr, size_t size);

/* Install a hook (NULL restores realloc).  Returns the previous hook. */
xalloc_hook_fn xalloc_set_hook(xalloc_hook_fn hook);

__attribute__((malloc, returns_nonnull)) void *xmalloc(size_t size);
__attribute__((malloc, returns_nonnull)) void *xcalloc(size_t n, size_t size);
__attribute__((returns_nonnull)) void *xrealloc(void *ptr, size_t size);
__attribute__((returns_nonnull)) void *xreallocarray(void *ptr, size_t n,
    size_t size);
__attribute__((malloc, returns_nonnull, nonnull)) char *xstrdup(const char *s);
__attribute__((malloc, returns_nonnull, nonnull)) char *xstrndup(const char *s,
    size_t n);
__attribute__((returns_nonnull))
printflike(1, 2) char *xasprintf(const char *fmt, ...);
__attribute__((returns_nonnull))
printflike(1, 0) char *xvasprintf(const char *fmt, va_list ap);

#endif
