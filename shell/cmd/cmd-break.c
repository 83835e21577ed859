/*
 * cmd-break.c - break, delete and the breakpoint list.  Breakpoints live in
 * the segment's table so ranks evaluate them at their step gate without
 * asking the shell: kinds (a bit per micro-op kind, or "the first micro-op
 * of a credit barrier"), a rank mask and an optional cell condition.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "shell.h"
#include "xmalloc.h"

static const char *const break_kinds[] = { "notify", "wait", "put", "get",
	"reduce", "barrier", "copy", NULL };

static unsigned
kind_bits(const char *k)
{
	enum uop_kind uk;

	if (strcmp(k, "barrier") == 0)
		return BREAK_BARRIER;
	if (uop_kind_from_name(k, &uk) == 0 && uk <= UOP_COPY)
		return 1u << uk;
	return 0;
}

static void
format_break(struct session *s, const struct seg_break *bp, struct strbuf *sb)
{
	struct rankset set;
	char *t;

	rankset_clear(&set);
	for (int r = 0; r < s->nranks; r++) {
		if ((bp->ranks[r / 64] >> (r % 64)) & 1)
			rankset_add(&set, r);
	}
	t = rankset_format(&set, s->nranks);
	for (int i = 0; break_kinds[i] != NULL; i++) {
		if (bp->kinds & kind_bits(break_kinds[i]))
			strbuf_addf(sb, "%s ", break_kinds[i]);
	}
	strbuf_addstr(sb, t);
	if (bp->has_cond) {
		strbuf_addstr(sb, " if ");
		describe_cell(&s->view, bp->cell_off, 1, sb);
		strbuf_addf(sb, " %s %d", wait_cmp_name(bp->cmp), bp->value);
	}
	free(t);
}

static int
parse_cmp(const char *s, enum wait_cmp *out)
{
	static const char *const names[] = { "==", ">=", "!=", ">", "<", "<=" };

	for (int i = 0; i < 6; i++) {
		if (strcmp(names[i], s) == 0) {
			*out = (enum wait_cmp)i;
			return 0;
		}
	}
	return -1;
}

static enum cmd_retval
cmd_break_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct seg_break nb, *slot = NULL;
	struct rankset set = ctx->targets;
	struct strbuf sb = STRBUF_INIT;
	size_t i = 1;

	memset(&nb, 0, sizeof nb);
	nb.kinds = kind_bits(arg(ctx, 0));
	if (nb.kinds == 0) {
		arg_error(ctx, 0, "unknown breakpoint kind '%s' (expected notify, wait, put, get, reduce, copy or barrier)",
		    arg(ctx, 0));
		return CMD_ERROR;
	}
	if (i < nargs(ctx) && arg(ctx, i)[0] == '@') {
		char *cause = NULL;
		if (ctx->explicit_targets) {
			arg_error(ctx, i, "give the ranks once");
			return CMD_ERROR;
		}
		if (parse_ranks(arg(ctx, i), s->nranks, &set, &cause) != 0) {
			arg_error(ctx, i, "%s", cause);
			free(cause);
			return CMD_ERROR;
		}
		i++;
	}
	if (i < nargs(ctx)) {
		struct region cell;
		int64_t v;
		enum wait_cmp cmp;
		char *cause = NULL;

		if (strcmp(arg(ctx, i), "if") != 0) {
			arg_error(ctx, i, "unexpected '%s' (expected @RANKS or 'if CELL CMP V')", arg(ctx, i));
			return CMD_ERROR;
		}
		if (nargs(ctx) != i + 4) {
			cmd_usage_error(ctx, "a condition is 'if CELL CMP V'");
			return CMD_ERROR;
		}
		if (cell_arg(ctx, i + 1, &cell) != 0)
			return CMD_ERROR;
		if (parse_cmp(arg(ctx, i + 2), &cmp) != 0) {
			arg_error(ctx, i + 2, "bad comparison '%s' (expected ==, >=, !=, >, < or <=)",
			    arg(ctx, i + 2));
			return CMD_ERROR;
		}
		if (parse_int(arg(ctx, i + 3), &v, 0, &cause) != 0 || v < INT32_MIN ||
		    v > INT32_MAX) {
			free(cause);
			arg_error(ctx, i + 3, "bad value '%s' (expected an i32)", arg(ctx, i + 3));
			return CMD_ERROR;
		}
		nb.has_cond = 1;
		nb.cmp = (uint8_t)cmp;
		nb.value = (int32_t)v;
		nb.cell_off = cell.w->off + cell.first * 4;
	}
	for (int k = 0; k < SEG_MAX_BREAKS && slot == NULL; k++) {
		if (s->seg.h->breaks[k].id == 0)
			slot = &s->seg.h->breaks[k];
	}
	if (slot == NULL) {
		out_error("too many breakpoints (at most %d; see 'delete')", SEG_MAX_BREAKS);
		return CMD_ERROR;
	}
	for (int r = 0; r < s->nranks; r++) {
		if (rankset_has(&set, r))
			nb.ranks[r / 64] |= 1ull << (r % 64);
	}
	nb.id = ++s->next_break;
	ctl_break_set(&s->seg, slot, &nb);
	ctl_breaks_changed(&s->seg);
	session_update_gate(s);
	format_break(s, slot, &sb);
	out_printf("breakpoint %u: %s\n", nb.id, sb.buf);
	strbuf_release(&sb);
	return CMD_OK;
}

static enum cmd_retval
cmd_delete_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	uint64_t id = 0;
	char *cause = NULL;
	int found = 0;

	if (nargs(ctx) == 1 && (parse_uint(arg(ctx, 0), &id, 0, &cause) != 0 || id == 0)) {
		free(cause);
		arg_error(ctx, 0, "bad breakpoint number '%s'", arg(ctx, 0));
		return CMD_ERROR;
	}
	for (int k = 0; k < SEG_MAX_BREAKS; k++) {
		struct seg_break *bp = &s->seg.h->breaks[k];
		if (bp->id != 0 && (id == 0 || bp->id == id)) {
			ctl_break_clear(&s->seg, bp);
			found++;
		}
	}
	if (id != 0 && !found) {
		arg_error(ctx, 0, "no breakpoint %llu (see 'info breaks')", (unsigned long long)id);
		return CMD_ERROR;
	}
	ctl_breaks_changed(&s->seg);
	session_update_gate(s);
	if (id == 0)
		out_printf("deleted %d breakpoint%s\n", found, found == 1 ? "" : "s");
	return CMD_OK;
}

void
breaks_list(struct session *s)
{
	struct strbuf sb = STRBUF_INIT;
	int any = 0;

	for (uint32_t id = 1; id <= s->next_break; id++) {
		for (int k = 0; k < SEG_MAX_BREAKS; k++) {
			struct seg_break *bp = &s->seg.h->breaks[k];
			uint64_t hits;
			if (bp->id != id)
				continue;
			strbuf_reset(&sb);
			format_break(s, bp, &sb);
			hits = atomic_load(&bp->hits);
			out_printf("%u  %s  (hit %llu time%s)\n", id, sb.buf,
			    (unsigned long long)hits, hits == 1 ? "" : "s");
			any = 1;
		}
	}
	if (!any)
		out_printf("no breakpoints\n");
	strbuf_release(&sb);
}

const struct cmd_entry cmd_break_entry = {
	.name = "break", .alias = "b",
	.usage = "notify|wait|put|get|reduce|copy|barrier [@RANKS] [if CELL CMP V]",
	.summary = "stop ranks before matching micro-ops",
	.example = "break wait @2 if sig[0,1] >= 1", .group = GRP_CONTROL,
	.min_args = 1, .max_args = 6, .flags = CMD_TARGETS | CMD_NO_SETTLE,
	.keywords = break_kinds, .exec = cmd_break_exec,
};

const struct cmd_entry cmd_delete_entry = {
	.name = "delete", .usage = "[ID]",
	.summary = "delete a breakpoint, or all of them",
	.example = "delete 1", .group = GRP_CONTROL, .min_args = 0,
	.max_args = 1, .flags = CMD_NO_SETTLE, .exec = cmd_delete_exec,
};
