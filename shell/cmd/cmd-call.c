/*
 * cmd-call.c - call [LIB:]SYM(ARGS) [-> TYPE]: call a C function inside
 * every target rank through libffi (docs/libcolldb.md); the results are
 * collected by call-results.c, which load shares.
 *
 * The syntax is lang/call-expr.c's; here window names become this rank's
 * pointer (an area offset the rank adds to its own base), &buf[i] the
 * pointer to element i, rank and nranks ints (the world's), domain_rank
 * and domain_size the rank's place in the call's comm domain and its
 * size.  The call's domain is the one its windows are on, or domain=D (a
 * last word, as alloc and bench spell it); it runs on the domain's
 * members, as any command on a domain's windows does.  Each rank gets a one-op
 * CALL program whose descriptor rides in the string table (core/call.h)
 * and runs it through its gate.  Results print per rank, "[rank 1]
 * scale(buf, 256, 2.0) = 256"; failures every rank shares (an unknown
 * symbol) print once.  A call still running, blocked or stopped when the
 * world settles is reported like any command, and its result prints as
 * an event when it ends.  A call that crashes kills its rank only: the
 * death is reported and the session goes on.
 */
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

/* ---- call ---------------------------------------------------------------------- */

static int arg_fail(struct cmdctx *ctx, const struct call_word *a,
    const char *fmt, ...) printflike(3, 4);

static int
arg_fail(struct cmdctx *ctx, const struct call_word *a, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	cmd_error(ctx, "%s", msg);
	out_caret(ctx->w.v[0].col + a->col, a->len);
	free(msg);
	return -1;
}

static struct seg_window *
window(struct cmdctx *ctx, const struct call_word *a, const char *name)
{
	struct seg_window *w = view_win_find(&ctx->s->view, name);
	const char *best;

	if (w != NULL)
		return w;
	best = nearest_window(&ctx->s->view, name);
	if (best != NULL)
		arg_fail(ctx, a, "unknown window '%s' (did you mean '%s'?)",
		    name, best);
	else
		arg_fail(ctx, a,
		    "unknown window '%s' (arguments are numbers, strings, windows, &WINDOW[I], rank, nranks, domain_rank, domain_size or NULL)",
		    name);
	return NULL;
}

/* rank, nranks (the world's), domain_rank, domain_size (ctx->dom's) of
 * rank r. */
static int64_t
name_value(struct cmdctx *ctx, const char *name, int r)
{
	struct seg *seg = &ctx->s->seg;

	if (strcmp(name, "rank") == 0)
		return r;
	if (strcmp(name, "nranks") == 0)
		return ctx->s->nranks;
	if (strcmp(name, "domain_rank") == 0)
		return seg_domain_rank(seg, ctx->dom, r);
	return seg_domain_get(seg, ctx->dom)->nranks;
}

/* Argument a of the call for rank r, as the rank will get it. */
static int
resolve(struct cmdctx *ctx, const struct call_word *a, int r, struct call_arg *out)
{
	struct region_syntax rs;
	struct seg_window *w;
	struct call_word num = *a;
	uint64_t first, count;
	int is_cell;
	char *cause = NULL;

	memset(out, 0, sizeof *out);
	out->type = CT_PTR;
	switch (a->kind) {
	case CW_STR:
		out->kind = CA_STR;
		out->s = xstrdup(a->s);
		return 0;
	case CW_NULL:
		out->kind = CA_NULL;
		return 0;
	case CW_ADDR:
		if (parse_region_syntax(a->s, &rs, &cause) != 0)
			goto bad;
		if ((w = window(ctx, a, rs.name)) == NULL)
			return -1;
		if (region_resolve(&rs, w->shape, w->ndim, &first, &count,
			&is_cell, &cause) != 0)
			goto bad;
		out->kind = CA_WIN;
		out->off = w->off + first * dtype_size((enum dtype)w->dtype);
		return 0;
	case CW_NAME:
		if (strncmp(a->s, "domain_", 7) == 0 &&
		    call_name_is_int(a->s) && ctx->dom == 0) {
			arg_fail(ctx, a,
			    "%s needs a comm domain: a window argument on one, or domain=D after the call",
			    a->s);
			return -1;
		}
		if (call_name_is_int(a->s)) {
			num.kind = CW_INT;
			num.i = name_value(ctx, a->s, r);
			break;
		}
		if ((w = window(ctx, a, a->s)) == NULL)
			return -1;
		out->kind = CA_WIN;
		out->off = w->off;
		return 0;
	default:
		break;
	}
	if (call_word_number(&num, out, &cause) == 0)
		return 0;
bad:
	arg_fail(ctx, a, "%s", cause);
	free(cause);
	return -1;
}

/* The window argument a names, or NULL (resolve() reports an unknown
 * one later). */
static struct seg_window *
arg_window(struct cmdctx *ctx, const struct call_word *a)
{
	struct region_syntax rs;
	struct seg_window *w = NULL;
	char *cause = NULL;

	if (a->kind == CW_NAME && !call_name_is_int(a->s))
		return view_win_find(&ctx->s->view, a->s);
	if (a->kind != CW_ADDR)
		return NULL;
	if (parse_region_syntax(a->s, &rs, &cause) == 0)
		w = view_win_find(&ctx->s->view, rs.name);
	free(cause);
	return w;
}

/*
 * The call's comm domain (ctx->dom): domain=D, or the one its window
 * arguments are on (a window of the world is on every rank, so it goes
 * with any domain; two domains' windows do not).  The targets narrow to
 * its members; an explicit target outside it is an error, as for any
 * command on a domain's windows.  0, or -1 (reported).
 */
static int
call_domain(struct cmdctx *ctx, const struct call_expr *fc, size_t dword)
{
	struct session *s = ctx->s;
	const struct call_word *by = NULL;
	const struct seg_domain *d;
	struct strbuf sb = STRBUF_INIT;
	struct rankset set;
	const char *v;
	int rc = -1;

	ctx->dom = 0;
	if (dword != 0) {
		v = arg(ctx, dword) + strlen("domain=");
		if ((ctx->dom = seg_domain_find(&s->seg, v)) == 0) {
			arg_error(ctx, dword, "unknown domain '%s' (%s)", v,
			    domain_count(s) ?
				"see 'domain'" :
				"declare it first: domain NAME @RANKS");
			goto out;
		}
	}
	for (int i = 0; i < fc->nargs; i++) {
		const struct call_word *a = &fc->args[i];
		struct seg_window *w = arg_window(ctx, a);

		if (w == NULL || w->domain == 0)
			continue;
		if (ctx->dom != 0 && w->domain != ctx->dom) {
			domain_describe(s, w->domain, &sb);
			if (by != NULL) {
				strbuf_addf(&sb, ", '%s' on ", by->s);
				domain_describe(s, ctx->dom, &sb);
				arg_fail(ctx, a,
				    "the call's windows are on different domains: '%s' is on %s",
				    a->s, sb.buf);
			} else {
				arg_fail(ctx, a,
				    "window '%s' is on %s, not on the call's %s",
				    a->s, sb.buf, arg(ctx, dword));
			}
			goto out;
		}
		ctx->dom = w->domain;
		if (by == NULL && dword == 0)
			by = a;
	}
	if (ctx->dom == 0 || (d = seg_domain_get(&s->seg, ctx->dom)) == NULL) {
		ctx->dom = 0;
		rc = 0;
		goto out;
	}
	domain_members(d, &set);
	for (int r = 0; r < s->nranks; r++) {
		if (!rankset_has(&ctx->targets, r) || rankset_has(&set, r))
			continue;
		if (ctx->explicit_targets) {
			domain_describe(s, ctx->dom, &sb);
			cmd_error(ctx,
			    "the call is on domain %s: rank %d is not in it",
			    sb.buf, r);
			if (by != NULL)
				out_caret(ctx->w.v[0].col + by->col, by->len);
			else
				out_caret(ctx->w.v[dword].col,
				    ctx->w.v[dword].len);
			goto out;
		}
		rankset_del(&ctx->targets, r); /* the focus: its members */
	}
	if (rankset_count(&ctx->targets) == 0) {
		domain_describe(s, ctx->dom, &sb);
		cmd_error(ctx,
		    "the call is on domain %s, and no rank of the focus %s is in it",
		    sb.buf, ctx->target_text);
		goto out;
	}
	rc = 0;
out:
	strbuf_release(&sb);
	return rc;
}

static enum cmd_retval
cmd_call_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct call_expr fc;
	struct rankset live;
	struct call_desc *descs = NULL;
	struct call_result *res;
	struct words w = ctx->w;
	char *text, *cause = NULL;
	size_t col = 0, len = 0, n, dword = 0;
	size_t c0 = ctx->w.v[0].col;
	enum cmd_retval rv = CMD_ERROR;
	int ndesc = 0;

	/* domain=D: the last word, after the call */
	if (w.n > 1 && strncmp(w.v[w.n - 1].s, "domain=", 7) == 0) {
		dword = w.n - 1;
		w.n--;
	}
	text = words_rest(&w, ctx->line, 0);
	if (call_expr_parse(text, &fc, &cause, &col, &len) != 0) {
		cmd_error(ctx, "%s", cause);
		out_caret(c0 + col, len);
		free(cause);
		free(text);
		return CMD_ERROR;
	}
	if (call_domain(ctx, &fc, dword) != 0 || targets_live(ctx, &live) != 0)
		goto out;
	descs = xcalloc((size_t)s->nranks, sizeof *descs);
	for (int r = 0; r < s->nranks; r++) {
		struct call_desc *d = &descs[r];

		if (!rankset_has(&live, r))
			continue;
		if (fc.lib != NULL && shlib_path(fc.lib, r) == NULL) {
			cmd_error(ctx,
			    "no library named '%s' is loaded on rank %d (see 'load')",
			    fc.lib, r);
			out_caret(c0 + fc.lib_col, strlen(fc.lib));
			goto out;
		}
		ndesc = r + 1;
		d->lib = xstrdup(fc.lib != NULL ? fc.lib : "");
		d->sym = xstrdup(fc.sym);
		d->ret = fc.ret;
		for (int i = 0; i < fc.nargs; i++) {
			if (resolve(ctx, &fc.args[i], r, &d->args[i]) != 0)
				goto out;
			d->nargs++;
		}
	}
	/* nothing is sent before every rank's call is known to be good */
	call_results_begin();
	for (int r = 0; r < s->nranks; r++) {
		struct strbuf sb = STRBUF_INIT;
		struct prog *p;
		struct uop u;

		if (!rankset_has(&live, r))
			continue;
		call_desc_encode(&descs[r], &sb);
		p = prog_new("call");
		memset(&u, 0, sizeof u);
		u.kind = UOP_CALL;
		u.src = prog_str(p, sb.buf);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "call.%s", fc.sym);
		u.name = prog_str(p, sb.buf);
		strbuf_release(&sb);
		prog_add(p, &u);
		if (call_submit(ctx, r, p, xstrdup(fc.text)) != 0)
			goto out;
	}
	res = call_results_settle(ctx, &n);
	for (size_t i = 0; i < n; i++) {
		struct strbuf sb = STRBUF_INIT;

		if (!res[i].done || res[i].status == DONE_ERROR)
			continue;
		if (res[i].status == DONE_ABORTED) {
			out_event(res[i].rank, "[rank %d] %s interrupted%s%s",
			    res[i].rank, fc.text, res[i].text[0] ? ": " : "",
			    res[i].text);
		} else {
			call_value_format(s, res[i].text, &sb);
			out_event(res[i].rank, "[rank %d] %s %s", res[i].rank,
			    fc.text, sb.buf);
		}
		strbuf_release(&sb);
	}
	if (call_results_report_errors(ctx, c0 + fc.sym_col, strlen(fc.sym)) == 0)
		rv = CMD_OK;
out:
	call_results_end();
	for (int r = 0; r < ndesc; r++)
		call_desc_release(&descs[r]);
	free(descs);
	call_expr_release(&fc);
	free(text);
	return rv;
}

static const char *const call_keywords[] = { "rank", "nranks", "domain_rank",
	"domain_size", "domain=", "NULL", "->", "void", "ptr", "i8", "i16",
	"i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", NULL };

const struct cmd_entry cmd_call_entry = {
	.name = "call",
	.usage = "[LIB:]SYM(ARGS) [-> TYPE] [domain=D]",
	.summary = "call a C function in the ranks; TYPE: void, ptr or a dtype",
	.example = "call scale(buf, 256, 2.0) -> i32",
	.group = GRP_CODE,
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_TARGETS | CMD_AGENTS_ONLY,
	.keywords = call_keywords,
	.agents_why = "load and call run in colldb's own ranks (colldb -n N); "
		      "these ranks are the program",
	.exec = cmd_call_exec,
};
