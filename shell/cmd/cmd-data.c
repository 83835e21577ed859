/* cmd-data.c - fill, print and set: data in windows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

#define PRINT_LIMIT 64

/*
 * Check that v can be stored in window w: integers must be whole numbers
 * within the dtype's range, floats must not overflow to infinity.  where
 * is NULL for a value written out (checked exactly), else what yields v
 * (" is 130 on rank 3,").
 */
static int
value_fits(struct cmdctx *ctx, size_t i, const struct seg_window *w, double v,
    const char *where)
{
	static const long long
	    lo[] = { [DT_U8] = 0, [DT_I8] = -128, [DT_I16] = -32768, [DT_I32] = INT32_MIN, [DT_I64] = INT64_MIN };
	static const long long
	    hi[] = { [DT_U8] = 255, [DT_I8] = 127, [DT_I16] = 32767, [DT_I32] = INT32_MAX, [DT_I64] = INT64_MAX };
	enum dtype dt = w->dtype;
	int written = where == NULL;
	uint8_t tmp[8];

	if (written)
		where = "";
	if (dtype_is_float(dt)) {
		dtype_put(dt, tmp, 0, v);
		if (isfinite(v) && !isfinite(dtype_get(dt, tmp, 0))) {
			double max = dt == DT_F16 ? 65504.0 :
			    dt == DT_BF16	  ? 3.3895313892515355e38 :
						    3.4028234663852886e38;
			return arg_error(ctx, i,
			    "value %s%s out of range for %s (%s: %g..%g)",
			    arg(ctx, i), where, w->name, dtype_name(dt), -max,
			    max);
		}
		return 0;
	}
	if (written) {
		/* an integer written out is checked exactly (i64 near its
		 * limits does not survive a trip through double) */
		int64_t iv;
		if (parse_int(arg(ctx, i), &iv, 0, NULL) == 0) {
			if (iv < lo[dt] || iv > hi[dt])
				return arg_error(ctx, i,
				    "value %s out of range for %s (%s: %lld..%lld)",
				    arg(ctx, i), w->name, dtype_name(dt),
				    lo[dt], hi[dt]);
			return 0;
		}
	}
	if (v != floor(v))
		return arg_error(ctx, i, "value %s%s not an integer (%s is %s)",
		    arg(ctx, i), written ? " is" : where, w->name,
		    dtype_name(dt));
	if (v < (double)lo[dt] || v > (double)hi[dt] ||
	    (dt == DT_I64 && v >= 0x1p63))
		return arg_error(ctx, i,
		    "value %s%s out of range for %s (%s: %lld..%lld)",
		    arg(ctx, i), where, w->name, dtype_name(dt), lo[dt], hi[dt]);
	return 0;
}

static enum cmd_retval
submit_fill(struct cmdctx *ctx, const struct region *rg, enum fill_pattern pat,
    double v)
{
	char *what;
	struct rankset live;
	struct uop u;
	struct strbuf sb = STRBUF_INIT;

	if (targets_live(ctx, &live) != 0)
		return CMD_ERROR;
	what = words_rest(&ctx->w, ctx->line, 1);
	memset(&u, 0, sizeof u);
	u.kind = UOP_FILL;
	u.dtype = rg->w->dtype;
	u.op = (uint8_t)pat;
	u.dst = rg->w->off + rg->first * dtype_size(rg->w->dtype);
	u.count = rg->count;
	u.fval = v;
	if (!dtype_is_float(rg->w->dtype) && pat != FILL_RANDOM) {
		/* integers travel exactly (i64 beyond 2^53) */
		const char *t = arg(ctx, 1);
		int64_t iv = (int64_t)v;
		if (strncmp(t, "rank", 4) == 0)
			t = t[4] != '\0' ? t + 4 : "0";
		else if (strcmp(t, "iota") == 0 || strcmp(t, "zero") == 0)
			t = "0";
		if (parse_int(t[0] == '+' ? t + 1 : t, &iv, 0, NULL) != 0)
			iv = (int64_t)v;
		u.flags |= UOP_F_INT;
		u.src = (uint64_t)iv;
	}
	for (int r = 0; r < ctx->s->nranks; r++) {
		struct uop ur = u;

		if (!rankset_has(&live, r))
			continue;
		if (pat == FILL_RANK && rg->w->domain != 0) {
			/* inside a domain `rank` is the rank's place in it */
			int d = seg_domain_rank(&ctx->s->seg, rg->w->domain, r);
			ur.op = FILL_VALUE;
			if (ur.flags & UOP_F_INT)
				ur.src = (uint64_t)((int64_t)u.src + d);
			else
				ur.fval = u.fval + d;
		}
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s %s %s", ctx->entry->name, arg(ctx, 0), what);
		if (cmd_submit(ctx, r, prog_one(ctx->entry->name, &ur),
			strbuf_detach(&sb, NULL), 0, 0) != 0) {
			strbuf_release(&sb);
			free(what);
			return CMD_ERROR;
		}
	}
	strbuf_release(&sb);
	free(what);
	return CMD_OK;
}

static enum cmd_retval
cmd_fill_exec(struct cmdctx *ctx)
{
	struct region rg;
	const char *what = arg(ctx, 1);
	enum fill_pattern pat = FILL_VALUE;
	double v = 0;
	int64_t seed;
	char *cause = NULL;

	if (region_arg(ctx, 0, &rg) != 0)
		return CMD_ERROR;
	if (strcmp(what, "rank") == 0) {
		pat = FILL_RANK;
	} else if (strncmp(what, "rank+", 5) == 0 ||
	    strncmp(what, "rank-", 5) == 0) {
		pat = FILL_RANK;
		if (parse_number(what + 4, &v, &cause) != 0) {
			free(cause);
			arg_error(ctx, 1,
			    "bad offset in '%s' (expected rank+K)", what);
			return CMD_ERROR;
		}
	} else if (strcmp(what, "iota") == 0) {
		pat = FILL_IOTA;
	} else if (strcmp(what, "zero") == 0) {
		pat = FILL_VALUE;
	} else if (strcmp(what, "random") == 0) {
		pat = FILL_RANDOM;
		if (nargs(ctx) < 3) {
			cmd_usage_error(ctx, "random needs a SEED");
			return CMD_ERROR;
		}
		/* The seed travels as a double: whole numbers up to 2^53. */
		if (parse_int(arg(ctx, 2), &seed, 0, &cause) != 0 || seed < 0 ||
		    seed > (1ll << 53)) {
			free(cause);
			arg_error(ctx, 2,
			    "bad seed '%s' (expected a whole number, 0..2^53)",
			    arg(ctx, 2));
			return CMD_ERROR;
		}
		v = (double)seed;
	} else if (parse_number(what, &v, &cause) != 0) {
		if (strstr(cause, "out of range") != NULL)
			arg_error(ctx, 1, "%s", cause); /* a number, too big */
		else
			arg_error(ctx, 1,
			    "bad fill value '%s' (expected a number, rank, rank+K, iota, zero or random SEED)",
			    what);
		free(cause);
		return CMD_ERROR;
	} else if (value_fits(ctx, 1, rg.w, v, NULL) != 0) {
		return CMD_ERROR;
	}
	if (pat != FILL_RANDOM && nargs(ctx) > 2) {
		arg_error(ctx, 2, "unexpected '%s' after the fill value",
		    arg(ctx, 2));
		return CMD_ERROR;
	}
	/* rank+K must fit on the lowest and the highest target rank. */
	if (pat == FILL_RANK) {
		int first = rankset_first(&ctx->targets), last = first;
		for (int r = first; r < ctx->s->nranks; r++)
			last = rankset_has(&ctx->targets, r) ? r : last;
		char lo_at[64], hi_at[64];

		snprintf(lo_at, sizeof lo_at, " is %g on rank %d,", v + first,
		    first);
		snprintf(hi_at, sizeof hi_at, " is %g on rank %d,", v + last,
		    last);
		if (value_fits(ctx, 1, rg.w, v + first, lo_at) != 0 ||
		    value_fits(ctx, 1, rg.w, v + last, hi_at) != 0)
			return CMD_ERROR;
	}
	/* iota counts 0 .. count-1 over the region */
	if (pat == FILL_IOTA) {
		char at[96];
		double top = (double)(rg.count - 1);

		snprintf(at, sizeof at,
		    " reaches %g at the region's last element,", top);
		if (value_fits(ctx, 1, rg.w, top, at) != 0)
			return CMD_ERROR;
	}
	return submit_fill(ctx, &rg, pat, v);
}

void print_region_values(struct session *s, int r, const struct region *rg,
    struct strbuf *sb);

void
print_region_values(struct session *s, int r, const struct region *rg,
    struct strbuf *sb)
{
	const struct seg_window *w = rg->w;
	uint64_t esz = dtype_size(w->dtype), shown = MIN(rg->count, PRINT_LIMIT);
	uint8_t *vals = xmalloc(shown * esz);
	int rows;
	int nd = w->ndim;
	uint64_t row;

	view_read(&s->view, r, w->off + rg->first * esz, vals, shown * esz);
	while (nd > 1 && w->shape[nd - 1] == 1)
		nd--; /* [4,1] prints as a flat list */
	row = nd > 1 ? w->shape[nd - 1] : 0;
	rows = row > 0 && rg->count > row && rg->first % row == 0 &&
	    rg->count % row == 0;

	for (uint64_t i = 0; i < rg->count && i < PRINT_LIMIT; i++) {
		uint64_t e = rg->first + i;
		if (i > 0)
			strbuf_addstr(sb, rows && e % row == 0 ? " | " : " ");
		dtype_format(w->dtype, vals, i, sb);
	}
	if (rg->count > PRINT_LIMIT)
		strbuf_addf(sb, " ... (%llu more)",
		    (unsigned long long)(rg->count - PRINT_LIMIT));
	free(vals);
}

static enum cmd_retval
cmd_print_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT, out = STRBUF_INIT;
	struct rank_lines rl;
	struct region rg;

	if (region_arg(ctx, 0, &rg) != 0)
		return CMD_ERROR;
	view_sample(&s->view);
	/* equal rows group on a large world (values are never summarised) */
	rank_lines_begin(&rl, s->nranks, GROUP_EQUAL, "", &out);
	for (int r = 0; r < s->nranks; r++) {
		if (!rankset_has(&ctx->targets, r))
			continue;
		strbuf_reset(&sb);
		strbuf_reset(&line);
		if (!rank_alive(s, r)) {
			strbuf_addf(&line, ": (%s)",
			    rank_state_name(rank_state_of(s, r)));
		} else {
			print_region_values(s, r, &rg, &sb);
			strbuf_addf(&line, ": %s", sb.buf);
		}
		rank_lines_add(&rl, r, line.buf);
	}
	rank_lines_end(&rl);
	out_printf("%s", out.buf);
	strbuf_release(&sb);
	strbuf_release(&line);
	strbuf_release(&out);
	return CMD_OK;
}

static enum cmd_retval
cmd_set_exec(struct cmdctx *ctx)
{
	struct region rg;
	enum cmd_retval rv;
	char *cause = NULL;
	double v;

	if (settings_try(ctx, &rv))
		return rv;
	if (nargs(ctx) != 2) {
		cmd_usage_error(ctx, "'set' needs REGION VALUE or a setting");
		return CMD_ERROR;
	}
	if (region_arg(ctx, 0, &rg) != 0)
		return CMD_ERROR;
	if (parse_number(arg(ctx, 1), &v, &cause) != 0) {
		arg_error(ctx, 1, "%s", cause);
		free(cause);
		return CMD_ERROR;
	}
	if (value_fits(ctx, 1, rg.w, v, NULL) != 0)
		return CMD_ERROR;
	return submit_fill(ctx, &rg, FILL_VALUE, v);
}

static const char *const fill_keywords[] = { "rank", "iota", "zero", "random",
	NULL };
static const char *const set_keywords[] = { "times", "color", "timeout",
	"strict", "echo", "settle", "wait-giveup", "reset-windows", "group",
	"on", "off", "auto", "all", NULL };

const struct cmd_entry cmd_fill_entry = {
	.name = "fill",
	.usage = "REGION VALUE|rank|rank+K|iota|zero|random SEED",
	.summary = "initialise a window (or region) on the target ranks",
	.example = "@all fill buf rank",
	.group = GRP_WINDOWS,
	.min_args = 2,
	.max_args = 3,
	.flags = CMD_TARGETS | CMD_EXPLORE,
	.keywords = fill_keywords,
	.exec = cmd_fill_exec,
};

const struct cmd_entry cmd_print_entry = {
	.name = "print",
	.alias = "p",
	.usage = "REGION",
	.summary = "print a region's values, one line per target rank",
	.example = "@1 print buf[0:4]",
	.group = GRP_OBSERVE,
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_TARGETS | CMD_NO_SETTLE,
	.exec = cmd_print_exec,
};

const struct cmd_entry cmd_set_entry = {
	.name = "set",
	.usage = "REGION VALUE | SETTING VALUE",
	.summary = "store a value locally on the targets, or change a setting",
	.example = "@0 set sig[0] 1",
	.group = GRP_WINDOWS,
	.min_args = 0,
	.max_args = 2,
	.flags = CMD_TARGETS | CMD_EXPLORE,
	.keywords = set_keywords,
	.exec = cmd_set_exec,
};
