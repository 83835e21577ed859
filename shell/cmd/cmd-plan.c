/*
 * cmd-plan.c - plan: print each rank's micro-op program for a collective
 * (or a single operation) without running anything.  The listing is the
 * same array the ranks execute, `where` indexes and `bench` names spans by.
 */
#include <stdlib.h>
#include <string.h>

#include "rma.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

static enum cmd_retval
cmd_plan_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	static const char *const plan_extra[] = { "from", NULL };
	struct coll_call cc;
	enum coll_kind kind;
	char title[64];
	uint64_t extra, from = 1;
	struct prog_gen *g;

	static const char *const rma[] = { "put", "get", "remote_store",
		"remote_load" };

	for (size_t k = 0; k < ARRAY_SIZE(rma); k++) {
		if (strcmp(arg(ctx, 0), rma[k]) == 0) {
			/* the transfer's own words, carets still in place */
			struct word w0 = ctx->w.v[0];
			enum cmd_retval rv;

			memmove(ctx->w.v, ctx->w.v + 1,
			    (ctx->w.n - 1) * sizeof *ctx->w.v);
			ctx->w.n--;
			if (nargs(ctx) < 3) {
				out_error("plan %s needs DST PEER SRC", rma[k]);
				rv = CMD_ERROR;
			} else {
				rv = rma_plan(ctx, (enum rma_form)k) == 0 ?
				    CMD_OK :
				    CMD_ERROR;
			}
			memmove(ctx->w.v + 1, ctx->w.v,
			    ctx->w.n * sizeof *ctx->w.v);
			ctx->w.v[0] = w0;
			ctx->w.n++;
			return rv;
		}
	}
	if (coll_kind_from_name(arg(ctx, 0), &kind) != 0) {
		arg_error(ctx, 0,
		    "plan needs a collective (allreduce, barrier, broadcast, allgather, reduce_scatter, all_to_all, all_to_all_v) or a transfer (put, get, remote_store, remote_load), got '%s'",
		    arg(ctx, 0));
		return CMD_ERROR;
	}
	if (coll_parse(ctx, kind, 1, &cc, plan_extra, &extra) != 0)
		return CMD_ERROR;
	for (size_t i = 1; i < nargs(ctx) && i < 64; i++) {
		const char *v;
		char *cause = NULL;

		if (!(extra & (1ull << i)) || !arg_is_kv(arg(ctx, i), "from", &v))
			continue;
		if (parse_uint(v, &from, 0, &cause) != 0 || from == 0) {
			arg_error(ctx, i,
			    "from= needs a micro-op number (1 or more), got '%s'",
			    v);
			free(cause);
			return CMD_ERROR;
		}
	}
	if (coll_synth_signal(ctx, &cc, 1) != 0)
		return CMD_ERROR;
	coll_title(&cc.a, title, sizeof title);
	g = coll_describe(&cc.a, s->nranks);
	for (int r = 0; r < s->nranks; r++) {
		struct strbuf who = STRBUF_INIT;
		struct prog *p;
		uint64_t len;

		/* a domain's collective runs on its members only */
		if (!rankset_has(&ctx->targets, r) || coll_dense(&cc.a, r) < 0) {
			if (ctx->explicit_targets &&
			    rankset_has(&ctx->targets, r) &&
			    rankset_count(&ctx->targets) == 1) {
				domain_describe(s, cc.a.domain, &who);
				cmd_error(ctx,
				    "rank %d is not in domain %s: it runs nothing of this %s",
				    r, who.buf, coll_kind_name(cc.a.kind));
				strbuf_release(&who);
				prog_gen_put(g);
				return CMD_ERROR;
			}
			continue;
		}
		p = coll_prog(g, r);
		len = prog_len(p);
		describe_rank_name(&s->view, r, cc.a.domain, &who);
		out_printf("%s: %s, %llu micro-op%s\n", who.buf, title,
		    (unsigned long long)len, len == 1 ? "" : "s");
		strbuf_release(&who);
		if (from > 1 && from > len)
			out_printf("  (no micro-op %llu)\n",
			    (unsigned long long)from);
		else
			plan_print(s, p, r, "  ", from - 1);
		prog_free(p);
	}
	prog_gen_put(g);
	return CMD_OK;
}

static const char *const plan_keywords[] = { "allreduce", "barrier", "broadcast",
	"allgather", "reduce_scatter", "all_to_all", "all_to_all_v", "put",
	"get", "remote_store", "remote_load", "op=sum", "mode=mesh",
	"mode=ring", "impl=composite", "impl=builtin", "root=", "from=", NULL };

const struct cmd_entry cmd_plan_entry = {
	.name = "plan",
	.usage =
	    "COLLECTIVE ARGS... [from=N] | put|get|remote_store|remote_load ARGS...",
	.summary = "print each rank's micro-ops for a collective or transfer",
	.example = "plan allreduce buf sig mode=ring",
	.group = GRP_COLL,
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_TARGETS | CMD_NO_SETTLE,
	.keywords = plan_keywords,
	.exec = cmd_plan_exec,
};
