/*
 * cmd-domain.c - comm domains: `domain NAME @RANKS` declares one, windows
 * are allocated on it (`alloc ... domain=NAME`), and a command whose
 * windows are a domain's runs on its members, with ranks and peers
 * counted inside it (PyPTO's domain_rank / domain_size: the dense place
 * among the members, in rank order).
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

static void
list_one(struct session *s, int k)
{
	const struct seg_domain *d = seg_domain_get(&s->seg, k);
	struct strbuf sb = STRBUF_INIT;
	struct rankset set;
	char *t;
	int dense = 0;

	domain_members(d, &set);
	t = rankset_format(&set, s->nranks);
	for (int r = 0; r < s->nranks; r++) {
		if (rankset_has(&set, r))
			strbuf_addf(&sb, "%srank %d = %s:%d", dense ? ", " : "",
			    r, d->name, dense),
			    dense++;
	}
	out_printf("%s  %s  %u rank%s: %s\n", d->name, t, d->nranks,
	    d->nranks == 1 ? "" : "s", sb.buf);
	free(t);
	strbuf_release(&sb);
}

static enum cmd_retval
cmd_domain_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct rankset set;
	char *cause = NULL;
	int k;

	if (nargs(ctx) == 0) {
		if (domain_count(s) == 0) {
			out_printf(
			    "no domains (declare one: domain NAME @RANKS)\n");
			return CMD_OK;
		}
		for (k = 1; k <= SEG_MAX_DOMAINS; k++) {
			if (seg_domain_get(&s->seg, k) != NULL)
				list_one(s, k);
		}
		return CMD_OK;
	}
	if (nargs(ctx) == 1) {
		if ((k = seg_domain_find(&s->seg, arg(ctx, 0))) == 0) {
			arg_error(ctx, 0, "unknown domain '%s' (%s)", arg(ctx, 0),
			    domain_count(s) ? "see 'domain'" :
					      "declare it: domain NAME @RANKS");
			return CMD_ERROR;
		}
		list_one(s, k);
		return CMD_OK;
	}
	if (name_check(ctx, 0, arg(ctx, 0), "domain") != 0)
		return CMD_ERROR;
	if (seg_domain_find(&s->seg, arg(ctx, 0)) != 0) {
		arg_error(ctx, 0,
		    "domain '%s' already exists (domains are fixed once declared, as PyPTO's are)",
		    arg(ctx, 0));
		return CMD_ERROR;
	}
	if (arg(ctx, 1)[0] != '@') {
		arg_error(ctx, 1,
		    "expected the domain's ranks as @R,S,... or @R-S, got '%s'",
		    arg(ctx, 1));
		return CMD_ERROR;
	}
	if (parse_ranks(arg(ctx, 1), s->nranks, &set, &cause) != 0) {
		arg_error(ctx, 1, "%s", cause);
		free(cause);
		return CMD_ERROR;
	}
	seg_lock(&s->seg);
	k = seg_domain_add(&s->seg, arg(ctx, 0), set.w, &cause);
	seg_unlock(&s->seg);
	if (k < 0) {
		arg_error(ctx, 0, "%s", cause);
		free(cause);
		return CMD_ERROR;
	}
	list_one(s, k);
	return CMD_OK;
}

const struct cmd_entry cmd_domain_entry = {
	.name = "domain",
	.usage = "[NAME [@RANKS]]",
	.summary = "declare a comm domain (a rank subset with its own windows)",
	.example = "domain d1 @0,2,3",
	.group = GRP_WINDOWS,
	.min_args = 0,
	.max_args = 2,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_domain_exec,
};
