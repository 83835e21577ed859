/*
 * words.c - an exec function's words and its errors: argument i, how many
 * there are, key=value options, and errors counted in the command's
 * context with a caret under the bad word.  args.c builds on it.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

const char *
arg(struct cmdctx *ctx, size_t i)
{
	return i < ctx->w.n ? ctx->w.v[i].s : NULL;
}

size_t
nargs(struct cmdctx *ctx)
{
	return ctx->w.n;
}

/* "error: MSG[ (usage: ...)]", counted as the command's error. */
static void ctx_verror(struct cmdctx *ctx, int usage, const char *fmt,
    va_list ap) printflike(3, 0);

static void
ctx_verror(struct cmdctx *ctx, int usage, const char *fmt, va_list ap)
{
	char *msg = xvasprintf(fmt, ap);

	if (usage)
		out_error("%s (usage: %s%s%s)", msg, ctx->entry->name,
		    ctx->entry->usage[0] ? " " : "", ctx->entry->usage);
	else
		out_error("%s", msg);
	free(msg);
	ctx->nerrors++;
}

int
arg_error(struct cmdctx *ctx, size_t i, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctx_verror(ctx, 0, fmt, ap);
	va_end(ap);
	if (i < ctx->w.n)
		out_caret(ctx->w.v[i].col, ctx->w.v[i].len);
	return -1;
}

int
cmd_error(struct cmdctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctx_verror(ctx, 0, fmt, ap);
	va_end(ap);
	return -1;
}

void
cmd_usage_error(struct cmdctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctx_verror(ctx, 1, fmt, ap);
	va_end(ap);
}

int
arg_is_kv(const char *a, const char *key, const char **val)
{
	size_t n = strlen(key);

	if (strncmp(a, key, n) != 0 || a[n] != '=')
		return 0;
	*val = a + n + 1;
	return 1;
}

int
arg_key_repeated(struct cmdctx *ctx, size_t from, size_t i)
{
	const char *a = arg(ctx, i), *eq = strchr(a, '=');
	size_t n;

	if (eq == NULL)
		return 0;
	n = (size_t)(eq - a) + 1; /* "key=" */
	for (size_t k = from; k < i; k++) {
		if (strncmp(arg(ctx, k), a, n) == 0)
			return arg_error(ctx, i,
			    "%.*s given twice (first as '%s')", (int)n - 1, a,
			    arg(ctx, k));
	}
	return 0;
}

int
arg_flag_repeated(struct cmdctx *ctx, size_t from, size_t i)
{
	for (size_t k = from; k < i; k++) {
		if (strcmp(arg(ctx, k), arg(ctx, i)) == 0)
			return arg_error(ctx, i, "%s given twice", arg(ctx, i));
	}
	return 0;
}
