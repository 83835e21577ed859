/*
 * domains.c - comm domains as arguments see them: how many there are,
 * their members, what a window's domain allows, a peer written D:K, and
 * a domain in words.  The `domain` command is cmd-domain.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

int
domain_count(struct session *s)
{
	int n = 0;

	for (int k = 1; k <= SEG_MAX_DOMAINS; k++)
		n += seg_domain_get(&s->seg, k) != NULL;
	return n;
}

void
domain_members(const struct seg_domain *d, struct rankset *set)
{
	rankset_clear(set);
	for (int r = 0; r < SEG_MAX_RANKS; r++) {
		if ((d->ranks[r / 64] >> (r % 64)) & 1)
			rankset_add(set, r);
	}
}

void
domain_describe(struct session *s, int k, struct strbuf *sb)
{
	const struct seg_domain *d = seg_domain_get(&s->seg, k);
	struct rankset set;
	char *t;

	if (d == NULL) {
		strbuf_addstr(sb, "the world");
		return;
	}
	domain_members(d, &set);
	t = rankset_format(&set, s->nranks);
	strbuf_addf(sb, "%s (%s)", d->name, t);
	free(t);
}

int
domain_window(struct cmdctx *ctx, size_t i, const struct seg_window *w)
{
	struct session *s = ctx->s;
	const struct seg_domain *d;
	struct strbuf sb = STRBUF_INIT;
	struct rankset set;
	int rc = 0;

	if (ctx->dom_arg != 0 && w->domain != ctx->dom) {
		/* one command, one domain: PyPTO resolves a call's windows to
		 * one comm-domain scope */
		domain_describe(s, ctx->dom, &sb);
		strbuf_addf(&sb, ", '%s' on ", w->name);
		domain_describe(s, w->domain, &sb);
		rc = arg_error(ctx, i,
		    "the windows are on different domains: '%s' is on %s",
		    arg(ctx, ctx->dom_arg - 1), sb.buf);
		goto out;
	}
	if (ctx->dom_arg == 0) {
		ctx->dom = w->domain;
		ctx->dom_arg = i + 1;
	}
	if (w->domain == 0 || (d = seg_domain_get(&s->seg, w->domain)) == NULL)
		goto out;
	domain_members(d, &set);
	for (int r = 0; r < s->nranks; r++) {
		if (!rankset_has(&ctx->targets, r) || rankset_has(&set, r))
			continue;
		if (ctx->explicit_targets) {
			domain_describe(s, w->domain, &sb);
			rc = arg_error(ctx, i,
			    "window '%s' is on domain %s: rank %d is not in it",
			    w->name, sb.buf, r);
			goto out;
		}
		rankset_del(&ctx->targets, r); /* the focus: its members */
	}
	if (rankset_count(&ctx->targets) == 0) {
		domain_describe(s, w->domain, &sb);
		rc = arg_error(ctx, i,
		    "window '%s' is on domain %s, and no rank of the focus %s is in it",
		    w->name, sb.buf, ctx->target_text);
	}
out:
	strbuf_release(&sb);
	return rc;
}

int
domain_peer(struct cmdctx *ctx, size_t i, const char *word, int *rank)
{
	struct session *s = ctx->s;
	const char *colon = strchr(word, ':');
	char name[SEG_NAME_MAX];
	int64_t v;
	int k;

	if (colon == NULL || colon == word ||
	    (size_t)(colon - word) >= sizeof name)
		return 0;
	snprintf(name, sizeof name, "%.*s", (int)(colon - word), word);
	if ((k = seg_domain_find(&s->seg, name)) == 0)
		return arg_error(ctx, i,
		    "unknown domain '%s' in peer '%s' (see 'domain')", name,
		    word);
	if (parse_int(colon + 1, &v, 0, NULL) != 0 || v < 0 ||
	    v >= (int64_t)seg_domain_get(&s->seg, k)->nranks)
		return arg_error(ctx, i,
		    "bad domain rank in '%s' (domain %s has ranks 0..%u)", word,
		    name, seg_domain_get(&s->seg, k)->nranks - 1);
	*rank = seg_domain_member(&s->seg, k, (int)v);
	return 1;
}
