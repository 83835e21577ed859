/*
 * cmd-rma.c - put, get, remote_store and remote_load: one-sided transfers
 * between a rank's window and a peer's.
 *
 * put/get take two forms.  Flat: DST and SRC are regions; dst=/src= shift
 * them (elements) and count= limits the transfer; without count both
 * regions must be the same size.  Sub-rectangle: DST and SRC are whole
 * windows and dst_offsets=[..] src_offsets=[..] shape=[..] (all three,
 * one entry per dimension) name the region, as PyPTO's put/get take them.
 * Either form takes chunk_rows=/chunk_cols=/pipeline, which stage the data
 * through a tile (core/rma.h).  remote_store and remote_load are PyPTO's
 * tile-level pushes and loads: a whole 2-D SRC pushed at offsets=, or a
 * shape= region (its valid_shape= part) read into a local tile.  The
 * transfer itself is built by core (rma_build), so `plan` shows the same
 * micro-ops.
 */
#include <stdlib.h>
#include <string.h>

#include "rma.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

/* A parsed transfer: the core arguments and where each option was. */
struct xfer {
	struct rma_args a;
	struct region dst, src;
	size_t pos[RARG_ATOMIC + 1]; /* argument index per enum rma_arg */
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
opt_int(struct cmdctx *ctx, size_t i, const char *key, const char *val,
    int64_t *out)
{
	char *cause = NULL;

	if (parse_int(val, out, 0, &cause) != 0) {
		free(cause);
		return arg_error(ctx, i,
		    "bad %s '%s' (expected a count, 0 = the full extent)", key,
		    val);
	}
	return 0;
}

static int
opt_list(struct cmdctx *ctx, size_t i, const char *val, int64_t *out, int *n)
{
	char *cause = NULL;

	if (parse_int_list(val, out, COLLDB_MAX_DIMS, n, &cause) != 0) {
		arg_error(ctx, i, "%s", cause);
		free(cause);
		return -1;
	}
	return 0;
}

static int
opt_bool(struct cmdctx *ctx, size_t i, const char *key, const char *val, int *out)
{
	if (strcmp(val, "on") == 0 || strcmp(val, "true") == 0 ||
	    strcmp(val, "1") == 0)
		*out = 1;
	else if (strcmp(val, "off") == 0 || strcmp(val, "false") == 0 ||
	    strcmp(val, "0") == 0)
		*out = 0;
	else
		return arg_error(ctx, i, "bad %s '%s' (expected on or off)",
		    key, val);
	return 0;
}

static const char *
options_text(enum rma_form f)
{
	switch (f) {
	case RMA_PUT:
		return "dst=OFF, src=OFF, count=K, atomic=add, dst_offsets=[..], src_offsets=[..], shape=[..], chunk_rows=N, chunk_cols=N or pipeline";
	case RMA_GET:
		return "dst=OFF, src=OFF, count=K, dst_offsets=[..], src_offsets=[..], shape=[..], chunk_rows=N, chunk_cols=N or pipeline";
	case RMA_REMOTE_STORE:
		return "offsets=[..] or atomic=add";
	default:
		return "offsets=[..], shape=[..] or valid_shape=[..]";
	}
}

/* The options of arguments 3.. into x; 0 or -1 (said). */
static int
parse_options(struct cmdctx *ctx, struct xfer *x, uint64_t *doff,
    uint64_t *soff, uint64_t *count, int *have_count, size_t *flatpos)
{
	struct rma_args *a = &x->a;
	enum rma_form f = a->form;
	int plain = f == RMA_PUT || f == RMA_GET;
	const char *v;

	for (size_t i = 3; i < nargs(ctx); i++) {
		const char *s = arg(ctx, i);

		if (arg_key_repeated(ctx, 3, i) != 0)
			return -1;
		if (plain && arg_is_kv(s, "dst", &v)) {
			if (opt_uint(ctx, i, v, doff) != 0)
				return -1;
			flatpos[0] = i;
		} else if (plain && arg_is_kv(s, "src", &v)) {
			if (opt_uint(ctx, i, v, soff) != 0)
				return -1;
			flatpos[1] = i;
		} else if (plain && arg_is_kv(s, "count", &v)) {
			if (opt_uint(ctx, i, v, count) != 0)
				return -1;
			if (*count == 0)
				return arg_error(ctx, i,
				    "count must be at least 1");
			*have_count = 1;
			flatpos[2] = i;
		} else if (rma_kind(f) == UOP_PUT && arg_is_kv(s, "atomic", &v)) {
			if (strcmp(v, "add") == 0)
				a->atomic = 1;
			else if (strcmp(v, "none") != 0)
				return arg_error(ctx, i,
				    "bad atomic '%s' (expected add or none)", v);
			x->pos[RARG_ATOMIC] = i;
		} else if (plain && arg_is_kv(s, "dst_offsets", &v)) {
			if (opt_list(ctx, i, v, a->dst_off_raw, &a->ndst_off) != 0)
				return -1;
			a->have_dst_off = 1;
			x->pos[RARG_DST_OFF] = i;
		} else if (plain && arg_is_kv(s, "src_offsets", &v)) {
			if (opt_list(ctx, i, v, a->src_off_raw, &a->nsrc_off) != 0)
				return -1;
			a->have_src_off = 1;
			x->pos[RARG_SRC_OFF] = i;
		} else if (!plain && arg_is_kv(s, "offsets", &v)) {
			/* remote_store's land in DST, remote_load's read SRC */
			int store = f == RMA_REMOTE_STORE;
			if (opt_list(ctx, i, v,
				store ? a->dst_off_raw : a->src_off_raw,
				store ? &a->ndst_off : &a->nsrc_off) != 0)
				return -1;
			if (store)
				a->have_dst_off = 1;
			else
				a->have_src_off = 1;
			x->pos[RARG_DST_OFF] = x->pos[RARG_SRC_OFF] = i;
		} else if (f != RMA_REMOTE_STORE && arg_is_kv(s, "shape", &v)) {
			if (opt_list(ctx, i, v, a->shape_raw, &a->nshape) != 0)
				return -1;
			a->have_shape = 1;
			x->pos[RARG_SHAPE] = i;
		} else if (f == RMA_REMOTE_LOAD &&
		    arg_is_kv(s, "valid_shape", &v)) {
			if (opt_list(ctx, i, v, a->valid_raw, &a->nvalid) != 0)
				return -1;
			x->pos[RARG_VALID] = i;
		} else if (plain && arg_is_kv(s, "chunk_rows", &v)) {
			if (opt_int(ctx, i, "chunk_rows", v, &a->chunk_rows) != 0)
				return -1;
			x->pos[RARG_CHUNK_ROWS] = i;
		} else if (plain && arg_is_kv(s, "chunk_cols", &v)) {
			if (opt_int(ctx, i, "chunk_cols", v, &a->chunk_cols) != 0)
				return -1;
			x->pos[RARG_CHUNK_COLS] = i;
		} else if (plain && strcmp(s, "pipeline") == 0) {
			if (arg_flag_repeated(ctx, 3, i) != 0)
				return -1;
			a->pipeline = 1;
			x->pos[RARG_PIPELINE] = i;
		} else if (plain && arg_is_kv(s, "pipeline", &v)) {
			if (opt_bool(ctx, i, "pipeline", v, &a->pipeline) != 0)
				return -1;
			x->pos[RARG_PIPELINE] = i;
		} else {
			return arg_error(ctx, i,
			    "unknown option '%s' for %s (expected %s)", s,
			    rma_form_name(f), options_text(f));
		}
	}
	return 0;
}

/* The flat form: regions, dst=/src=/count=. */
static int
flat(struct cmdctx *ctx, struct xfer *x, uint64_t doff, uint64_t soff,
    uint64_t count, int have_count, const size_t *flatpos)
{
	struct region *dr = &x->dst, *sr = &x->src;

	if (doff >= dr->count)
		return arg_error(ctx, flatpos[0],
		    "dst=%llu is past the end of the destination %s (%llu elements)",
		    (unsigned long long)doff, arg(ctx, 0),
		    (unsigned long long)dr->count);
	if (soff >= sr->count)
		return arg_error(ctx, flatpos[1],
		    "src=%llu is past the end of the source %s (%llu elements)",
		    (unsigned long long)soff, arg(ctx, 2),
		    (unsigned long long)sr->count);
	dr->first += doff;
	dr->count -= doff;
	sr->first += soff;
	sr->count -= soff;
	if (have_count) {
		if (count > dr->count)
			return arg_error(ctx, flatpos[2],
			    "count=%llu overflows the destination %s (%llu element%s left from offset %llu)",
			    (unsigned long long)count, dr->w->name,
			    (unsigned long long)dr->count,
			    dr->count == 1 ? "" : "s",
			    (unsigned long long)dr->first);
		if (count > sr->count)
			return arg_error(ctx, flatpos[2],
			    "count=%llu overflows the source %s (%llu element%s left from offset %llu)",
			    (unsigned long long)count, sr->w->name,
			    (unsigned long long)sr->count,
			    sr->count == 1 ? "" : "s",
			    (unsigned long long)sr->first);
	} else if (dr->count != sr->count) {
		return arg_error(ctx, 2,
		    "shape mismatch: destination has %llu elements, source %llu (give count=K)",
		    (unsigned long long)dr->count, (unsigned long long)sr->count);
	} else {
		count = dr->count;
	}
	x->a.dst_first = dr->first;
	x->a.src_first = sr->first;
	x->a.count = count;
	return 0;
}

static int
parse_xfer(struct cmdctx *ctx, struct xfer *x, enum rma_form form)
{
	struct rma_args *a = &x->a;
	uint64_t doff = 0, soff = 0, count = 0;
	size_t flatpos[3] = { 0, 2, 0 }; /* words to point at on errors */
	int have_count = 0, region;
	enum rma_arg badarg = RARG_NONE;
	char *cause = NULL;

	memset(x, 0, sizeof *x);
	a->form = form;
	x->pos[RARG_DST] = 0;
	x->pos[RARG_SRC] = 2;
	if (region_arg(ctx, 0, &x->dst) != 0 || peer_syntax_ok(ctx, 1) != 0 ||
	    region_arg(ctx, 2, &x->src) != 0)
		return -1;
	if (parse_options(ctx, x, &doff, &soff, &count, &have_count, flatpos) != 0)
		return -1;
	seg_win_ref(x->dst.w, &a->dst);
	seg_win_ref(x->src.w, &a->src);
	region = a->have_dst_off || a->have_src_off || a->have_shape ||
	    form == RMA_REMOTE_STORE || form == RMA_REMOTE_LOAD;
	if (region) {
		for (int k = 0; k < 2; k++) {
			const struct region *r = k ? &x->src : &x->dst;
			if (r->first != 0 || r->count != r->w->count)
				return arg_error(ctx, k ? 2 : 0,
				    "%s names a region; with %s the %s is a whole window ('%s')",
				    arg(ctx, k ? 2 : 0),
				    form == RMA_PUT || form == RMA_GET ?
					"dst_offsets/src_offsets/shape" :
					"offsets",
				    k ? "source" : "destination", r->w->name);
		}
		if (flatpos[0] != 0 || flatpos[2] != 0 || flatpos[1] != 2)
			return arg_error(ctx,
			    flatpos[0]	   ? flatpos[0] :
				flatpos[2] ? flatpos[2] :
					     flatpos[1],
			    "dst=/src=/count= do not go with dst_offsets/src_offsets/shape (give the region one way)");
	}
	if (x->dst.w->dtype != x->src.w->dtype)
		return arg_error(ctx, 2, "dtype mismatch: %s is %s, %s is %s",
		    x->dst.w->name, dtype_name(x->dst.w->dtype), x->src.w->name,
		    dtype_name(x->src.w->dtype));
	if (!region && flat(ctx, x, doff, soff, count, have_count, flatpos) != 0)
		return -1;
	if (rma_validate(a, &cause, &badarg) != 0) {
		arg_error(ctx, badarg == RARG_NONE ? (size_t)-1 : x->pos[badarg],
		    "%s", cause);
		free(cause);
		return -1;
	}
	if (a->atomic && !dtype_atomic_add_ok(x->dst.w->dtype))
		return arg_error(ctx, 0,
		    "atomic=add needs f32, f16, bf16, i32, i16 or i8; %s is %s",
		    x->dst.w->name,
		    x->dst.w->flags & WIN_BYTES ? "untyped bytes" :
						  dtype_name(x->dst.w->dtype));
	return 0;
}

static enum cmd_retval
rma_exec(struct cmdctx *ctx, enum rma_form form)
{
	struct session *s = ctx->s;
	enum uop_kind kind = rma_kind(form);
	struct rankset live;
	struct xfer x;
	int *peers = NULL;
	char *rest;

	if (parse_xfer(ctx, &x, form) != 0 || targets_live(ctx, &live) != 0)
		return CMD_ERROR;
	if (s->nranks == 1 && strcmp(arg(ctx, 1), "all") == 0) {
		arg_error(ctx, 1,
		    "'all' means every peer but self, and a 1-rank world has none");
		return CMD_ERROR;
	}
	rest = words_rest(&ctx->w, ctx->line, 0);
	for (int r = 0; r < s->nranks; r++) {
		struct prog *p;
		int n;
		unsigned jflags = 0;

		if (!rankset_has(&live, r))
			continue;

		p = prog_new(rma_form_name(form));
		if (peers == NULL)
			peers = xreallocarray(NULL, (size_t)s->nranks,
			    sizeof *peers);
		n = peer_list(ctx, 1, r, peers);
		for (int k = 0; k < n; k++) {
			size_t first = p->nmops;
			x.a.peer = peers[k];
			rma_build(p, &x.a);
			for (size_t i = first; kind == UOP_PUT && i < p->nmops;
			     i++) {
				const struct uop *u = &p->mops[i];
				if (u->kind == UOP_PUT &&
				    lint_put(s, r, u->peer, u->dst,
					u->count * dtype_size(u->dtype))) {
					jflags |= JOB_STALE_PUT;
					break;
				}
			}
		}
		if (cmd_submit(ctx, r, p,
			xasprintf("%s %s", rma_form_name(form), rest), jflags,
			0) != 0) {
			free(rest);
			free(peers);
			return CMD_ERROR;
		}
	}
	free(rest);
	free(peers);
	return CMD_OK;
}

int
rma_plan(struct cmdctx *ctx, int form)
{
	struct session *s = ctx->s;
	struct xfer x;
	int *peers = NULL;

	if (parse_xfer(ctx, &x, (enum rma_form)form) != 0)
		return -1;
	for (int r = 0; r < s->nranks; r++) {
		struct prog *p;
		int n;

		if (!rankset_has(&ctx->targets, r))
			continue;
		p = prog_new(rma_form_name(form));
		if (peers == NULL)
			peers = xreallocarray(NULL, (size_t)s->nranks,
			    sizeof *peers);
		n = peer_list(ctx, 1, r, peers);
		for (int k = 0; k < n; k++) {
			x.a.peer = peers[k];
			rma_build(p, &x.a);
		}
		out_printf("rank %d: %s, %zu micro-op%s\n", r,
		    rma_form_name(form), p->nmops, p->nmops == 1 ? "" : "s");
		plan_print(s, p, r, "  ", 0);
		prog_free(p);
	}
	free(peers);
	return 0;
}

static enum cmd_retval
cmd_put_exec(struct cmdctx *ctx)
{
	return rma_exec(ctx, RMA_PUT);
}

static enum cmd_retval
cmd_get_exec(struct cmdctx *ctx)
{
	return rma_exec(ctx, RMA_GET);
}

static enum cmd_retval
cmd_remote_store_exec(struct cmdctx *ctx)
{
	return rma_exec(ctx, RMA_REMOTE_STORE);
}

static enum cmd_retval
cmd_remote_load_exec(struct cmdctx *ctx)
{
	return rma_exec(ctx, RMA_REMOTE_LOAD);
}

static const char *const put_keywords[] = { "next", "prev", "all",
	"dst=", "src=", "count=", "atomic=add", "dst_offsets=", "src_offsets=",
	"shape=", "chunk_rows=", "chunk_cols=", "pipeline", NULL };
static const char *const get_keywords[] = { "next", "prev", "all",
	"dst=", "src=", "count=", "dst_offsets=", "src_offsets=", "shape=",
	"chunk_rows=", "chunk_cols=", "pipeline", NULL };
static const char *const rstore_keywords[] = { "next", "prev", "all",
	"offsets=", "atomic=add", NULL };
static const char *const rload_keywords[] = { "next", "prev", "all",
	"offsets=", "shape=", "valid_shape=", NULL };

const struct cmd_entry cmd_put_entry = {
	.name = "put",
	.usage =
	    "DST PEER SRC [dst=OFF src=OFF count=K | dst_offsets=[..] src_offsets=[..] shape=[..]] [atomic=add] [chunk_rows=N] [chunk_cols=N] [pipeline]",
	.summary = "write local SRC into the peer's DST (notifies nobody)",
	.example =
	    "@0 put buf 1 buf dst_offsets=[1,0] src_offsets=[0,0] shape=[1,4]",
	.group = GRP_SIGNALS,
	.min_args = 3,
	.max_args = 11,
	.flags = CMD_TARGETS | CMD_EXPLORE,
	.keywords = put_keywords,
	.exec = cmd_put_exec,
};

const struct cmd_entry cmd_get_entry = {
	.name = "get",
	.usage =
	    "DST PEER SRC [dst=OFF src=OFF count=K | dst_offsets=[..] src_offsets=[..] shape=[..]] [chunk_rows=N] [chunk_cols=N] [pipeline]",
	.summary = "read the peer's SRC into local DST (one-sided)",
	.example = "@1 get buf 0 buf count=4",
	.group = GRP_SIGNALS,
	.min_args = 3,
	.max_args = 9,
	.flags = CMD_TARGETS | CMD_EXPLORE,
	.keywords = get_keywords,
	.exec = cmd_get_exec,
};

const struct cmd_entry cmd_remote_store_entry = {
	.name = "remote_store",
	.usage = "TARGET PEER SRC offsets=[..] [atomic=add]",
	.summary = "push all of a 2-D SRC into the peer's TARGET at offsets",
	.example = "@0 remote_store win 1 tile offsets=[2,0]",
	.group = GRP_SIGNALS,
	.min_args = 4,
	.max_args = 5,
	.flags = CMD_TARGETS | CMD_EXPLORE,
	.keywords = rstore_keywords,
	.exec = cmd_remote_store_exec,
};

const struct cmd_entry cmd_remote_load_entry = {
	.name = "remote_load",
	.usage = "TILE PEER TARGET offsets=[..] shape=[..] [valid_shape=[..]]",
	.summary = "read a region of the peer's TARGET into the local TILE",
	.example = "@1 remote_load tile 0 win offsets=[2,0] shape=[2,4]",
	.group = GRP_SIGNALS,
	.min_args = 5,
	.max_args = 6,
	.flags = CMD_TARGETS | CMD_EXPLORE,
	.keywords = rload_keywords,
	.exec = cmd_remote_load_exec,
};
