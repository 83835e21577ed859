/* cmd-alloc.c - alloc and free: windows on every rank at once. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

static enum cmd_retval
cmd_alloc_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	const char *name = arg(ctx, 0), *size = arg(ctx, 1);
	uint64_t shape[COLLDB_MAX_DIMS];
	enum dtype dt = DT_U8;
	unsigned flags = 0;
	char *cause = NULL;
	int ndim = 1, domain = 0;
	size_t na = nargs(ctx);
	const char *dv;

	if (name_check(ctx, 0, name, "window") != 0)
		return CMD_ERROR;
	for (size_t i = 1; i < na; i++) {
		if (arg_is_kv(arg(ctx, i), "domain", &dv) &&
		    arg_key_repeated(ctx, 1, i) != 0)
			return CMD_ERROR;
	}
	for (size_t i = 1; i < na; i++) {
		if (!arg_is_kv(arg(ctx, i), "domain", &dv))
			continue;
		if (i != na - 1) {
			arg_error(ctx, i,
			    "domain= goes last (alloc NAME SIZE [DTYPE] domain=D)");
			return CMD_ERROR;
		}
		if (*dv == '\0') {
			arg_error(ctx, i, "domain= needs a domain's name");
			return CMD_ERROR;
		}
		if ((domain = seg_domain_find(&s->seg, dv)) == 0) {
			arg_error(ctx, i, "unknown domain '%s' (%s)", dv,
			    domain_count(s) > 0 ?
				"see 'domain'" :
				"declare it first: domain NAME @RANKS");
			return CMD_ERROR;
		}
		na--;
	}
	if (na < 2) {
		cmd_usage_error(ctx, "'alloc' needs more arguments");
		return CMD_ERROR;
	}
	if (seg_win_find(&s->seg, name) != NULL) {
		arg_error(ctx, 0, "window '%s' already exists (free it first)",
		    name);
		return CMD_ERROR;
	}
	if (size[0] == '[') {
		if (parse_shape(size, shape, COLLDB_MAX_DIMS, &ndim, &cause) !=
		    0) {
			arg_error(ctx, 1, "%s", cause);
			goto fail;
		}
		if (na < 3) {
			arg_error(ctx, 1,
			    "shape %s needs a dtype after it (i8 i16 i32 i64 f16 bf16 f32 f64)",
			    size);
			return CMD_ERROR;
		}
		if (na > 3) {
			cmd_usage_error(ctx, "too many arguments to 'alloc'");
			out_caret(ctx->w.v[3].col, ctx->w.v[3].len);
			return CMD_ERROR;
		}
		if (dtype_from_name(arg(ctx, 2), &dt) != 0 || dt == DT_U8) {
			arg_error(ctx, 2,
			    "unknown dtype '%s' (expected i8 i16 i32 i64 f16 bf16 f32 f64)",
			    arg(ctx, 2));
			return CMD_ERROR;
		}
	} else {
		if (na > 2) {
			arg_error(ctx, 2,
			    "a byte size takes no dtype (use 'alloc %s [N] %s' for a typed window)",
			    name, arg(ctx, 2));
			return CMD_ERROR;
		}
		if (parse_uint(size, &shape[0], 1, &cause) != 0) {
			arg_error(ctx, 1,
			    "bad size '%s' (expected BYTES like 4096 or 1M, or a shape like [4,1])",
			    size);
			goto fail;
		}
		if (shape[0] == 0) {
			arg_error(ctx, 1, "size must be at least 1 byte");
			return CMD_ERROR;
		}
		flags = WIN_BYTES;
	}
	{
		/* A product of dimensions past 64 bits cannot fit either; say
		 * so rather than blame one dimension. */
		uint64_t n = dtype_size(dt);
		for (int d = 0; d < ndim; d++) {
			if (shape[d] > UINT64_MAX / n) {
				arg_error(ctx, 1,
				    "window of shape %s does not fit the window area (%llu bytes per rank)",
				    size, (unsigned long long)s->seg.area_size);
				return CMD_ERROR;
			}
			n *= shape[d];
		}
	}
	seg_lock(&s->seg);
	if (seg_win_alloc_in(&s->seg, name, shape, ndim, dt, flags, domain,
		&cause) == NULL) {
		seg_unlock(&s->seg);
		arg_error(ctx, 1, "%s", cause);
		goto fail;
	}
	seg_unlock(&s->seg);
	return CMD_OK;
fail:
	free(cause);
	return CMD_ERROR;
}

int
window_busy(struct cmdctx *ctx, size_t i, const struct seg_window *w)
{
	struct session *s = ctx->s;
	struct strbuf sb = STRBUF_INIT;
	struct job *head, *j;
	int r;

	for (int k = 0; k < SEG_MAX_DEFERS; k++) {
		const struct seg_defer *d = &s->defers[k];
		if (d->used && d->off >= w->off && d->off < w->off + w->bytes) {
			describe_cell(&s->view, d->off, 1, &sb);
			arg_error(ctx, i,
			    "window '%s' has a deferred condition of rank %d (%s >= %d) waiting for its next command",
			    w->name, d->rank, sb.buf, d->expected);
			strbuf_release(&sb);
			return -1;
		}
	}
	if (!session_range_busy(s, w->off, w->off + w->bytes, &r))
		return 0;
	/* Name the job that uses the window: the one running, or one queued
	 * behind it. */
	head = j = rank_job(s, r);
	while (j != NULL && !(j->lo < w->off + w->bytes && w->off < j->hi))
		j = j->next;
	if (j == NULL)
		j = head;
	if (j == head)
		describe_rank(s, r, &sb, 0);
	if (sb.len == 0)
		strbuf_addstr(&sb, j->desc);
	if (j != head)
		strbuf_addstr(&sb, ", queued");
	arg_error(ctx, i, "window '%s' is in use by rank %d (%s)", w->name, r,
	    sb.buf);
	strbuf_release(&sb);
	return -1;
}

static enum cmd_retval
cmd_free_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct seg_window *w = win_lookup(ctx, 0, arg(ctx, 0));

	if (w == NULL || window_busy(ctx, 0, w) != 0)
		return CMD_ERROR;
	for (int i = 0; i < SEG_MAX_BREAKS; i++) {
		struct seg_break *bp = &s->seg.h->breaks[i];
		if (bp->id != 0 && bp->has_cond && bp->cell_off >= w->off &&
		    bp->cell_off < w->off + w->bytes) {
			arg_error(ctx, 0,
			    "window '%s' is used by breakpoint %u (delete it first)",
			    w->name, bp->id);
			return CMD_ERROR;
		}
	}
	seg_lock(&s->seg);
	seg_win_free(&s->seg, w);
	seg_unlock(&s->seg);
	return CMD_OK;
}

static const char *const alloc_keywords[] = { "i8", "i16", "i32", "i64", "f16",
	"bf16", "f32", "f64", "domain=", NULL };

const struct cmd_entry cmd_alloc_entry = {
	.name = "alloc",
	.usage = "NAME BYTES | NAME [d0,d1,...] DTYPE; [domain=D]",
	.summary = "allocate a symmetric window on every rank (zero-filled)",
	.example = "alloc sig [4,1] i32",
	.group = GRP_WINDOWS,
	.min_args = 2,
	.max_args = 4,
	.flags = CMD_ALL_RANKS_ONLY | CMD_NO_SETTLE,
	.keywords = alloc_keywords,
	.exec = cmd_alloc_exec,
};

const struct cmd_entry cmd_free_entry = {
	.name = "free",
	.usage = "NAME",
	.summary = "release a window on every rank",
	.example = "free buf",
	.group = GRP_WINDOWS,
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_ALL_RANKS_ONLY | CMD_NO_SETTLE | CMD_AGENTS_ONLY,
	.agents_why = "the program keeps pointers into its windows; they live "
		      "until the session ends",
	.exec = cmd_free_exec,
};
