/*
 * args.c - helpers for exec functions (over words.c): rank targets,
 * windows, regions, cells, peers and names.  Everything is checked before a command sends anything, so a
 * rejected command changes nothing.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

/* A numeric peer (or D:K) of a command on a domain must be a member. */
static int
peer_in_domain(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	const struct seg_domain *d;
	size_t i = ctx->peer_arg - 1;
	int64_t v;
	int r;

	if (ctx->peer_arg == 0 || ctx->dom == 0 ||
	    (d = seg_domain_get(&s->seg, ctx->dom)) == NULL)
		return 0;
	if (domain_peer(ctx, i, arg(ctx, i), &r) == 1)
		v = r;
	else if (parse_int(arg(ctx, i), &v, 0, NULL) != 0)
		return 0; /* next, prev, all: inside the domain */
	if ((d->ranks[v / 64] >> (v % 64)) & 1)
		return 0;
	{
		struct strbuf sb = STRBUF_INIT;
		domain_describe(s, ctx->dom, &sb);
		arg_error(ctx, i, "peer %lld is not in domain %s, where '%s' is",
		    (long long)v, sb.buf, arg(ctx, ctx->dom_arg - 1));
		strbuf_release(&sb);
	}
	return -1;
}

int
targets_alive(struct cmdctx *ctx, struct rankset *out)
{
	struct session *s = ctx->s;

	if (peer_in_domain(ctx) != 0)
		return -1;
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
		cmd_error(ctx, "no live rank among the targets %s",
		    ctx->target_text);
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
		arg_error(ctx, i, "unknown window '%s' (did you mean '%s'?)",
		    name, best);
	else if (view_win_list(&ctx->s->view, &w, 1) == 0)
		arg_error(ctx, i,
		    "unknown window '%s' (there are no windows; see 'alloc')",
		    name);
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
			arg_error(ctx, i,
			    "%s (put spaces around the comparison: 'sig[0] >= 1')",
			    cause);
		else
			arg_error(ctx, i, "%s", cause);
		free(cause);
		return -1;
	}
	r->w = win_lookup(ctx, i, rs.name);
	if (r->w == NULL || domain_window(ctx, i, r->w) != 0)
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
		return arg_error(ctx, i, "%s is %s; signal cells must be i32",
		    r->w->name,
		    r->w->flags & WIN_BYTES ? "untyped bytes" :
					      dtype_name(r->w->dtype));
	if (r->count != 1) {
		if (r->w->count == 1 && !r->is_cell) {
			r->is_cell = 1;
			return 0;
		}
		return arg_error(ctx, i,
		    "'%s' is %llu cells; expected one cell like %s[0]",
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
	int r, rc;

	ctx->peer_arg = i + 1;
	if (strcmp(a, "next") == 0 || strcmp(a, "prev") == 0 ||
	    strcmp(a, "all") == 0)
		return 0;
	if ((rc = domain_peer(ctx, i, a, &r)) != 0)
		return rc < 0 ? -1 : 0;
	if (parse_int(a, &v, 0, &cause) != 0) {
		free(cause);
		return arg_error(ctx, i,
		    "bad peer '%s' (expected a rank number, D:K, next, prev or all)",
		    a);
	}
	if (v < 0 || v >= ctx->s->nranks)
		return arg_error(ctx, i,
		    "peer %lld out of range (world has %d ranks)", (long long)v,
		    ctx->s->nranks);
	return 0;
}

int
peer_list(struct cmdctx *ctx, size_t i, int rank, int *peers)
{
	struct session *s = ctx->s;
	const char *a = arg(ctx, i);
	int n = ctx->s->nranks, k = 0, dn, me, r;

	/* on a domain, next/prev/all count its members, in rank order */
	dn = ctx->dom != 0 && seg_domain_get(&s->seg, ctx->dom) != NULL ?
	    (int)seg_domain_get(&s->seg, ctx->dom)->nranks :
	    n;
	me = seg_domain_rank(&s->seg, ctx->dom, rank);
	if (strcmp(a, "next") == 0 && me >= 0) {
		peers[0] = seg_domain_member(&s->seg, ctx->dom, (me + 1) % dn);
		return 1;
	}
	if (strcmp(a, "prev") == 0 && me >= 0) {
		peers[0] =
		    seg_domain_member(&s->seg, ctx->dom, (me - 1 + dn) % dn);
		return 1;
	}
	if (strcmp(a, "all") == 0) {
		for (int d = 0; d < dn; d++) {
			int p = seg_domain_member(&s->seg, ctx->dom, d);
			if (p != rank && p >= 0)
				peers[k++] = p;
		}
		return k;
	}
	if (strchr(a, ':') != NULL && domain_peer(ctx, i, a, &r) == 1) {
		peers[0] = r;
		return 1;
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

/* Names `set` reads as settings, so a window may not take them. */
static const char *const reserved[] = { "times", "color", "timeout", "strict",
	"echo", "settle", "wait-giveup", "acc", "all", "next", "prev", "rank",
	"group", NULL };

int
name_check(struct cmdctx *ctx, size_t i, const char *name, const char *what)
{
	if (!isalpha((unsigned char)name[0]) && name[0] != '_')
		return arg_error(ctx, i,
		    "bad %s name '%s' (expected a letter or _ first)", what,
		    name);
	for (const char *p = name; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_')
			return arg_error(ctx, i,
			    "bad %s name '%s' (letters, digits and _ only)",
			    what, name);
	}
	if (strlen(name) >= SEG_NAME_MAX)
		return arg_error(ctx, i,
		    "%s name '%s' is longer than %d characters", what, name,
		    SEG_NAME_MAX - 1);
	for (int k = 0; reserved[k] != NULL; k++) {
		if (strcmp(name, reserved[k]) == 0)
			return arg_error(ctx, i,
			    "'%s' is a reserved word; pick another %s name",
			    name, what);
	}
	return 0;
}
