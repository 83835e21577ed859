/*
 * cmd-rma.c - put and get: one-sided transfers between a rank's window and
 * a peer's.  DST and SRC are regions; dst=/src= shift them (elements) and
 * count= limits the transfer; without count both regions must be the same
 * size.
 */
#include <stdlib.h>
#include <string.h>

#include "shell.h"
#include "xmalloc.h"

struct xfer {
	struct region dst, src;
	uint64_t count;
	int atomic;
};

static int
opt_uint(struct cmdctx *ctx, size_t i, const char *val, uint64_t *out)
{
	char *cause = NULL;

	if (parse_uint(val, out, 0, &cause) != 0) {
		arg_error(ctx, i, "%s", cause);
		free(cause);
		return -1;
	}
	return 0;
}

static int
parse_xfer(struct cmdctx *ctx, struct xfer *x, int allow_atomic)
{
	uint64_t doff = 0, soff = 0, count = 0;
	size_t di = 0, si = 2, ci = 0;	/* words to point at on errors */
	int have_count = 0;
	const char *v;

	memset(x, 0, sizeof *x);
	if (region_arg(ctx, 0, &x->dst) != 0 || peer_syntax_ok(ctx, 1) != 0 ||
	    region_arg(ctx, 2, &x->src) != 0)
		return -1;
	for (size_t i = 3; i < nargs(ctx); i++) {
		const char *a = arg(ctx, i);
		if (arg_is_kv(a, "dst", &v)) {
			if (opt_uint(ctx, i, v, &doff) != 0)
				return -1;
			di = i;
		} else if (arg_is_kv(a, "src", &v)) {
			if (opt_uint(ctx, i, v, &soff) != 0)
				return -1;
			si = i;
		} else if (arg_is_kv(a, "count", &v)) {
			if (opt_uint(ctx, i, v, &count) != 0)
				return -1;
			if (count == 0)
				return arg_error(ctx, i, "count must be at least 1");
			have_count = 1;
			ci = i;
		} else if (allow_atomic && arg_is_kv(a, "atomic", &v)) {
			if (strcmp(v, "add") == 0)
				x->atomic = 1;
			else if (strcmp(v, "none") != 0)
				return arg_error(ctx, i, "bad atomic '%s' (expected add or none)", v);
		} else {
			return arg_error(ctx, i, "unknown option '%s' (expected dst=OFF, src=OFF, count=K%s)",
			    a, allow_atomic ? " or atomic=add" : "");
		}
	}
	if (x->dst.w->dtype != x->src.w->dtype)
		return arg_error(ctx, 2, "dtype mismatch: %s is %s, %s is %s", x->dst.w->name,
		    dtype_name(x->dst.w->dtype), x->src.w->name, dtype_name(x->src.w->dtype));
	if (doff >= x->dst.count)
		return arg_error(ctx, di, "dst=%llu is past the end of the destination %s (%llu elements)",
		    (unsigned long long)doff, arg(ctx, 0), (unsigned long long)x->dst.count);
	if (soff >= x->src.count)
		return arg_error(ctx, si, "src=%llu is past the end of the source %s (%llu elements)",
		    (unsigned long long)soff, arg(ctx, 2), (unsigned long long)x->src.count);
	x->dst.first += doff;
	x->dst.count -= doff;
	x->src.first += soff;
	x->src.count -= soff;
	if (have_count) {
		if (count > x->dst.count)
			return arg_error(ctx, ci, "count=%llu overflows the destination %s (%llu element%s left from offset %llu)",
			    (unsigned long long)count, x->dst.w->name,
			    (unsigned long long)x->dst.count, x->dst.count == 1 ? "" : "s",
			    (unsigned long long)x->dst.first);
		if (count > x->src.count)
			return arg_error(ctx, ci, "count=%llu overflows the source %s (%llu element%s left from offset %llu)",
			    (unsigned long long)count, x->src.w->name,
			    (unsigned long long)x->src.count, x->src.count == 1 ? "" : "s",
			    (unsigned long long)x->src.first);
		x->count = count;
	} else if (x->dst.count != x->src.count) {
		return arg_error(ctx, 2, "shape mismatch: destination has %llu elements, source %llu (give count=K)",
		    (unsigned long long)x->dst.count, (unsigned long long)x->src.count);
	} else {
		x->count = x->dst.count;
	}
	if (x->atomic && !dtype_atomic_add_ok(x->dst.w->dtype))
		return arg_error(ctx, 0, "atomic=add needs f32, f16, bf16, i32, i16 or i8; %s is %s",
		    x->dst.w->name, x->dst.w->flags & WIN_BYTES ? "untyped bytes" :
		    dtype_name(x->dst.w->dtype));
	return 0;
}

static enum cmd_retval
rma_exec(struct cmdctx *ctx, enum uop_kind kind)
{
	struct session *s = ctx->s;
	struct rankset live;
	struct xfer x;
	struct uop u;
	int peers[SEG_MAX_RANKS];
	uint64_t esz;
	char *rest;

	if (parse_xfer(ctx, &x, kind == UOP_PUT) != 0 || targets_live(ctx, &live) != 0)
		return CMD_ERROR;
	if (s->nranks == 1 && strcmp(arg(ctx, 1), "all") == 0) {
		arg_error(ctx, 1, "'all' means every peer but self, and a 1-rank world has none");
		return CMD_ERROR;
	}
	esz = dtype_size(x.dst.w->dtype);
	memset(&u, 0, sizeof u);
	u.kind = (uint8_t)kind;
	u.dtype = x.dst.w->dtype;
	u.op = x.atomic ? ATOMIC_ADD : ATOMIC_NONE;
	u.dst = x.dst.w->off + x.dst.first * esz;
	u.src = x.src.w->off + x.src.first * esz;
	u.count = x.count;
	rest = words_rest(&ctx->w, ctx->line, 0);
	for (int r = 0; r < s->nranks; r++) {
		struct prog *p;
		int n;
		unsigned jflags = 0;

		if (!rankset_has(&live, r))
			continue;

		p = prog_new(uop_kind_name(kind));
		n = peer_list(ctx, 1, r, peers);
		for (int k = 0; k < n; k++) {
			u.peer = peers[k];
			prog_add(p, &u);
			if (kind == UOP_PUT &&
			    lint_put(s, r, u.peer, u.dst, u.count * esz))
				jflags |= JOB_STALE_PUT;
		}
		if (cmd_submit(ctx, r, p, xasprintf("%s %s", uop_kind_name(kind), rest),
			jflags, 0) != 0) {
			free(rest);
			return CMD_ERROR;
		}
	}
	free(rest);
	return CMD_OK;
}

static enum cmd_retval
cmd_put_exec(struct cmdctx *ctx)
{
	return rma_exec(ctx, UOP_PUT);
}

static enum cmd_retval
cmd_get_exec(struct cmdctx *ctx)
{
	return rma_exec(ctx, UOP_GET);
}

static const char *const put_keywords[] = { "next", "prev", "all", "dst=",
	"src=", "count=", "atomic=add", NULL };
static const char *const get_keywords[] = { "next", "prev", "all", "dst=",
	"src=", "count=", NULL };

const struct cmd_entry cmd_put_entry = {
	.name = "put", .usage = "DST PEER SRC [dst=OFF] [src=OFF] [count=K] [atomic=add]",
	.summary = "write local SRC into the peer's DST (notifies nobody)",
	.example = "@0 put buf 1 buf count=4", .group = GRP_SIGNALS,
	.min_args = 3, .max_args = 7, .flags = CMD_TARGETS | CMD_EXPLORE,
	.keywords = put_keywords, .exec = cmd_put_exec,
};

const struct cmd_entry cmd_get_entry = {
	.name = "get", .usage = "DST PEER SRC [dst=OFF] [src=OFF] [count=K]",
	.summary = "read the peer's SRC into local DST (one-sided)",
	.example = "@1 get buf 0 buf count=4", .group = GRP_SIGNALS,
	.min_args = 3, .max_args = 6, .flags = CMD_TARGETS | CMD_EXPLORE,
	.keywords = get_keywords, .exec = cmd_get_exec,
};
