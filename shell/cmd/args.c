/*
 * args.c - helpers for exec functions: their words, errors with a caret
 * under the bad word, options, rank targets, windows, regions, cells and
 * peers.  Everything is checked before a command sends anything, so a
 * rejected command changes nothing.
 */
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

int
arg_error(struct cmdctx *ctx, size_t i, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	out_error("%s", msg);
	free(msg);
	ctx->nerrors++;
	if (i < ctx->w.n)
		out_caret(ctx->w.v[i].col, ctx->w.v[i].len);
	return -1;
}

int
cmd_error(struct cmdctx *ctx, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	out_error("%s", msg);
	free(msg);
	ctx->nerrors++;
	return -1;
}

void
cmd_usage_error(struct cmdctx *ctx, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	out_error("%s (usage: %s%s%s)", msg, ctx->entry->name,
	    ctx->entry->usage[0] ? " " : "", ctx->entry->usage);
	free(msg);
	ctx->nerrors++;
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
	n = (size_t)(eq - a) + 1;	/* "key=" */
	for (size_t k = from; k < i; k++) {
		if (strncmp(arg(ctx, k), a, n) == 0)
			return arg_error(ctx, i, "%.*s given twice (first as '%s')",
			    (int)n - 1, a, arg(ctx, k));
	}
	return 0;
}

int
targets_alive(struct cmdctx *ctx, struct rankset *out)
{
	struct session *s = ctx->s;

	rankset_clear(out);
	for (int r = 0; r < s->nranks; r++) {
		if (!rankset_has(&ctx->targets, r))
			continue;
		if (rank_alive(s, r)) {
			rankset_add(out, r);
		} else if (ctx->explicit_targets) {
			/* Naming a dead rank is a mistake; a focus that
			 * includes one just skips it. */
			cmd_error(ctx, "rank %d is %s: %s", r,
			    rank_state_name(rank_state_of(s, r)), s->rp[r].death);
			return -1;
		}
	}
	if (rankset_count(out) == 0) {
		cmd_error(ctx, "no live rank among the targets %s", ctx->target_text);
		return -1;
	}
	return 0;
}

int
targets_live(struct cmdctx *ctx, struct rankset *out)
{
	struct session *s = ctx->s;

	if (targets_alive(ctx, out) != 0)
		return -1;
	/* every target must have room, or none is sent anything */
	for (int r = 0; r < s->nranks; r++) {
		char *cause = NULL;
		if (rankset_has(out, r) && session_queue_full(s, r, &cause)) {
			cmd_error(ctx, "%s", cause);
			free(cause);
			return -1;
		}
	}
	return 0;
}

const char *
nearest_window(struct view *v, const char *name)
{
	struct seg_window *list[SEG_MAX_WINDOWS];
	struct nearest near = NEAREST_INIT;
	int n = view_win_list(v, list, SEG_MAX_WINDOWS);

	for (int k = 0; k < n; k++)
		nearest_try(&near, name, list[k]->name);
	return near.best;
}

struct seg_window *
win_lookup(struct cmdctx *ctx, size_t i, const char *name)
{
	struct seg_window *w = view_win_find(&ctx->s->view, name);
	const char *best;

	if (w != NULL)
		return w;
	best = nearest_window(&ctx->s->view, name);
	if (best != NULL)
		arg_error(ctx, i, "unknown window '%s' (did you mean '%s'?)", name, best);
	else if (view_win_list(&ctx->s->view, &w, 1) == 0)
		arg_error(ctx, i, "unknown window '%s' (there are no windows; see 'alloc')", name);
	else
		arg_error(ctx, i, "unknown window '%s' (see 'windows')", name);
	return NULL;
}

int
region_arg(struct cmdctx *ctx, size_t i, struct region *r)
{
	struct region_syntax rs;
	char *cause = NULL;
	const char *a = arg(ctx, i);

	memset(r, 0, sizeof *r);
	if (parse_region_syntax(a, &rs, &cause) != 0) {
		if (strstr(a, ">=") != NULL || strstr(a, "==") != NULL)
			arg_error(ctx, i, "%s (put spaces around the comparison: 'sig[0] >= 1')", cause);
		else
			arg_error(ctx, i, "%s", cause);
		free(cause);
		return -1;
	}
	r->w = win_lookup(ctx, i, rs.name);
	if (r->w == NULL)
		return -1;
	if (region_resolve(&rs, r->w->shape, r->w->ndim, &r->first, &r->count,
		&r->is_cell, &cause) != 0) {
		arg_error(ctx, i, "%s", cause);
		free(cause);
		return -1;
	}
	return 0;
}

int
cell_arg(struct cmdctx *ctx, size_t i, struct region *r)
{
	if (region_arg(ctx, i, r) != 0)
		return -1;
	if (r->w->dtype != DT_I32)
		return arg_error(ctx, i, "%s is %s; signal cells must be i32", r->w->name,
		    r->w->flags & WIN_BYTES ? "untyped bytes" : dtype_name(r->w->dtype));
	if (r->count != 1) {
		if (r->w->count == 1 && !r->is_cell) {
			r->is_cell = 1;
			return 0;
		}
		return arg_error(ctx, i, "'%s' is %llu cells; expected one cell like %s[0]",
		    arg(ctx, i), (unsigned long long)r->count, r->w->name);
	}
	return 0;
}

int
peer_syntax_ok(struct cmdctx *ctx, size_t i)
{
	const char *a = arg(ctx, i);
	int64_t v;
	char *cause = NULL;

	if (strcmp(a, "next") == 0 || strcmp(a, "prev") == 0 ||
	    strcmp(a, "all") == 0)
		return 0;
	if (parse_int(a, &v, 0, &cause) != 0) {
		free(cause);
		return arg_error(ctx, i, "bad peer '%s' (expected a rank number, next, prev or all)", a);
	}
	if (v < 0 || v >= ctx->s->nranks)
		return arg_error(ctx, i, "peer %lld out of range (world has %d ranks)",
		    (long long)v, ctx->s->nranks);
	return 0;
}

int
peer_list(struct cmdctx *ctx, size_t i, int rank, int *peers)
{
	const char *a = arg(ctx, i);
	int n = ctx->s->nranks, k = 0;

	if (strcmp(a, "next") == 0) {
		peers[0] = (rank + 1) % n;
		return 1;
	}
	if (strcmp(a, "prev") == 0) {
		peers[0] = (rank - 1 + n) % n;
		return 1;
	}
	if (strcmp(a, "all") == 0) {
		for (int p = 0; p < n; p++) {
			if (p != rank)
				peers[k++] = p;
		}
		return k;
	}
	{
		int64_t v = -1;
		/* checked by peer_syntax_ok(): the same parser, so "0x2" is 2 */
		if (parse_int(a, &v, 0, NULL) != 0 || v < 0 || v >= n)
			BUG("peer '%s' not checked", a);
		peers[0] = (int)v;
	}
	return 1;
}
