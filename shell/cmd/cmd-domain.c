/*
 * cmd-domain.c - comm domains: `domain NAME @RANKS` declares one (`domain
 * delete NAME` deletes it once nothing is on it), windows
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

/* A job on domain k, queued or running, on any rank: 1 and *rank, *job. */
static int
domain_job(struct session *s, int k, int *rank, struct job **job)
{
	for (int r = 0; r < s->nranks; r++) {
		for (struct job *j = rank_job(s, r); j != NULL; j = j->next) {
			if (j->domain == k) {
				*rank = r;
				*job = j;
				return 1;
			}
		}
	}
	return 0;
}

/*
 * `domain delete NAME`: refused while a program on the domain is queued
 * or runs (it counts its ranks in it) and while a window is on it (free
 * them first, as `free` is refused while a rank uses a window); then the
 * slot is free for the next `domain`.
 */
static enum cmd_retval
domain_delete(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct seg_window *list[SEG_MAX_WINDOWS];
	struct strbuf sb = STRBUF_INIT;
	const char *name;
	struct job *j;
	int k, n, r, nwin = 0;

	if (nargs(ctx) < 2) {
		cmd_usage_error(ctx, "'domain delete' needs the domain's NAME");
		return CMD_ERROR;
	}
	name = arg(ctx, 1);
	if (name[0] == '@') {
		arg_error(ctx, 0,
		    "'delete' is a word of the domain command (domain delete NAME); pick another domain name");
		return CMD_ERROR;
	}
	if ((k = seg_domain_find(&s->seg, name)) == 0) {
		arg_error(ctx, 1, "unknown domain '%s' (%s)", name,
		    domain_count(s) ? "see 'domain'" : "there are no domains");
		return CMD_ERROR;
	}
	if (domain_job(s, k, &r, &j)) {
		describe_rank_name(&s->view, r, k, &sb);
		strbuf_addf(&sb, ": %s%s", j->desc,
		    j != rank_job(s, r) ? ", queued" : "");
		arg_error(ctx, 1,
		    "domain '%s' is in use by %s (let it finish, or interrupt it)",
		    name, sb.buf);
		strbuf_release(&sb);
		return CMD_ERROR;
	}
	n = seg_win_list(&s->seg, list, SEG_MAX_WINDOWS);
	for (int i = 0; i < n; i++) {
		if (list[i]->domain != k)
			continue;
		strbuf_addf(&sb, "%s'%s'", nwin ? ", " : "", list[i]->name);
		nwin++;
	}
	if (nwin > 0) {
		arg_error(ctx, 1, "domain '%s' has window%s %s (free %s first)",
		    name, nwin == 1 ? "" : "s", sb.buf,
		    nwin == 1 ? "it" : "them");
		strbuf_release(&sb);
		return CMD_ERROR;
	}
	/* what a dead rank left on it is shown with world ranks from now on
	 * (the slot may soon hold another domain) */
	for (r = 0; r < s->nranks; r++) {
		for (j = s->rp[r].orphans; j != NULL; j = j->next) {
			if (j->domain == k)
				j->domain = 0;
		}
	}
	seg_lock(&s->seg);
	seg_domain_free(&s->seg, k);
	seg_unlock(&s->seg);
	strbuf_release(&sb);
	return CMD_OK;
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
	if (strcmp(arg(ctx, 0), "delete") == 0)
		return domain_delete(ctx);
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
		    "domain '%s' already exists (its ranks are fixed; to change them: domain delete %s, then declare it again)",
		    arg(ctx, 0), arg(ctx, 0));
		return CMD_ERROR;
	}
	if (arg(ctx, 1)[0] != '@') {
		arg_error(ctx, 1,
		    "expected the domain's ranks as @R,S,... or @R-S, got '%s'",
		    arg(ctx, 1));
		return CMD_ERROR;
	}
	if (domain_count(s) == SEG_MAX_DOMAINS) {
		arg_error(ctx, 0,
		    "too many domains (at most %d; 'domain delete NAME' frees one)",
		    SEG_MAX_DOMAINS);
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

static const char *const domain_keywords[] = { "delete", NULL };

const struct cmd_entry cmd_domain_entry = {
	.name = "domain",
	.usage = "[NAME [@RANKS]] | delete NAME",
	.summary = "declare, list or delete a comm domain (a subset of the ranks)",
	.example = "domain d1 @0,2,3",
	.group = GRP_WINDOWS,
	.min_args = 0,
	.max_args = 2,
	.flags = CMD_NO_SETTLE,
	.keywords = domain_keywords,
	.exec = cmd_domain_exec,
};
