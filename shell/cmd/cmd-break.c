/*
 * cmd-break.c - break, tbreak, delete and the breakpoint list.
 * Breakpoints live in the segment's table so ranks evaluate them at their
 * step gate without asking the shell (core/brk.c): what they stop at
 * (break-spec.c: kinds, call sites, cells), a rank mask and an optional
 * cell condition.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

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

/* "@RANKS" and "if CELL CMP V" after a location, from argument i on. */
int
break_tail_parse(struct cmdctx *ctx, size_t i, struct seg_break *nb,
    struct rankset *set)
{
	struct session *s = ctx->s;

	*set = ctx->targets;
	if (i < nargs(ctx) && arg(ctx, i)[0] == '@') {
		char *cause = NULL;
		if (ctx->explicit_targets)
			return arg_error(ctx, i, "give the ranks once");
		if (parse_ranks(arg(ctx, i), s->nranks, set, &cause) != 0) {
			arg_error(ctx, i, "%s", cause);
			free(cause);
			return -1;
		}
		i++;
	}
	if (i < nargs(ctx)) {
		struct region cell;
		int64_t v;
		enum wait_cmp cmp;
		char *cause = NULL;

		if (strcmp(arg(ctx, i), "if") != 0)
			return arg_error(ctx, i,
			    "unexpected '%s' (expected @RANKS or 'if CELL CMP V')",
			    arg(ctx, i));
		if (nargs(ctx) != i + 4) {
			cmd_usage_error(ctx, "a condition is 'if CELL CMP V'");
			return -1;
		}
		if (cell_arg(ctx, i + 1, &cell) != 0)
			return -1;
		if (parse_cmp(arg(ctx, i + 2), &cmp) != 0)
			return arg_error(ctx, i + 2,
			    "bad comparison '%s' (expected ==, >=, !=, >, < or <=)",
			    arg(ctx, i + 2));
		if (parse_int(arg(ctx, i + 3), &v, 0, &cause) != 0 ||
		    v < INT32_MIN || v > INT32_MAX) {
			free(cause);
			return arg_error(ctx, i + 3,
			    "bad value '%s' (expected an i32)", arg(ctx, i + 3));
		}
		nb->has_cond = 1;
		nb->cmp = (uint8_t)cmp;
		nb->value = (int32_t)v;
		nb->cell_off = cell.w->off + cell.first * 4;
	}
	return 0;
}

static enum cmd_retval
cmd_break_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct seg_break nb, *slot;
	struct rankset set;
	struct strbuf sb = STRBUF_INIT, note = STRBUF_INIT;
	int once = strcmp(ctx->entry->name, "tbreak") == 0;
	size_t i = 0;

	memset(&nb, 0, sizeof nb);
	if (break_spec_parse(ctx, &i, &nb) != 0 ||
	    break_tail_parse(ctx, i, &nb, &set) != 0)
		return CMD_ERROR;
	break_source_resolve(s, arg(ctx, 0), &nb, &note);
	if (once)
		nb.flags |= BRK_ONCE;
	if ((slot = break_add(ctx, &nb, &set, s->next_break + 1)) == NULL)
		return CMD_ERROR;
	s->next_break++;
	break_spec_format(s, slot, NULL, &sb);
	if ((nb.flags & BRK_CELLS) && nb.win[0] != '\0' &&
	    view_win_find(&s->view, nb.win) == NULL)
		strbuf_addf(&sb, " (pending: no window '%s' yet)", nb.win);
	if (note.len > 0)
		strbuf_addf(&sb, " (%s)", note.buf);
	out_printf("%sbreakpoint %u: %s\n", once ? "temporary " : "", slot->id,
	    sb.buf);
	strbuf_release(&note);
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

	if (nargs(ctx) == 1 &&
	    (parse_uint(arg(ctx, 0), &id, 0, &cause) != 0 || id == 0)) {
		free(cause);
		arg_error(ctx, 0,
		    "bad breakpoint number '%s' (expected an ID from 'info breaks': 1, 2, ...)",
		    arg(ctx, 0));
		return CMD_ERROR;
	}
	struct strbuf sb = STRBUF_INIT;

	for (int k = 0; k < SEG_MAX_BREAKS; k++) {
		struct seg_break *bp = &s->seg.h->breaks[k];
		if (bp->id != 0 && (id == 0 || bp->id == id)) {
			if (id != 0) /* what it was, as `break` said it */
				break_spec_format(s, bp, NULL, &sb);
			ctl_break_clear(&s->seg, bp);
			found++;
		}
	}
	if (id != 0 && !found) {
		arg_error(ctx, 0, "no breakpoint %llu (see 'info breaks')",
		    (unsigned long long)id);
		strbuf_release(&sb);
		return CMD_ERROR;
	}
	ctl_breaks_changed(&s->seg);
	session_update_gate(s);
	if (id == 0)
		out_printf("deleted %d breakpoint%s\n", found,
		    found == 1 ? "" : "s");
	else
		out_printf("deleted breakpoint %llu: %s\n",
		    (unsigned long long)id, sb.buf);
	strbuf_release(&sb);
	return CMD_OK;
}

void
breaks_list(struct session *s)
{
	struct strbuf sb = STRBUF_INIT;
	int any = 0;

	breaks_gc(s);
	for (uint32_t id = 1; id <= s->next_break; id++) {
		for (int k = 0; k < SEG_MAX_BREAKS; k++) {
			struct seg_break *bp = &s->seg.h->breaks[k];
			uint64_t hits;
			if (bp->id != id)
				continue;
			strbuf_reset(&sb);
			break_spec_format(s, bp, NULL, &sb);
			hits = atomic_load(&bp->hits);
			out_printf("%u  %s  (hit %llu time%s)\n", id, sb.buf,
			    (unsigned long long)hits, hits == 1 ? "" : "s");
			any = 1;
		}
	}
	for (int k = 0; k < SEG_MAX_BREAKS; k++) {
		struct seg_break *bp = &s->seg.h->breaks[k];
		if (!(bp->id & BREAK_ID_UNTIL))
			continue;
		strbuf_reset(&sb);
		break_spec_format(s, bp, NULL, &sb);
		out_printf("until  %s  (ranks still on their way)\n", sb.buf);
		any = 1;
	}
	if (!any)
		out_printf("no breakpoints\n");
	strbuf_release(&sb);
}

#define BREAK_USAGE \
	"FILE:LINE|cdb_FUNCTION|row R|cell WIN[R,C]|notify|wait|put|get|reduce|copy|barrier [@RANKS] [if CELL CMP V]"

const struct cmd_entry cmd_break_entry = {
	.name = "break",
	.alias = "b",
	.usage = BREAK_USAGE,
	.summary = "a breakpoint at a source line, cdb_* call, row, cell, op kind",
	.example = "break ring.c:76 @1",
	.group = GRP_CONTROL,
	.min_args = 1,
	.max_args = 7,
	.flags = CMD_TARGETS | CMD_NO_SETTLE,
	.keywords = break_kinds,
	.exec = cmd_break_exec,
};

const struct cmd_entry cmd_tbreak_entry = {
	.name = "tbreak",
	.usage = BREAK_USAGE,
	.summary = "a breakpoint deleted by its first hit (on any rank)",
	.example = "tbreak cdb_wait",
	.group = GRP_CONTROL,
	.min_args = 1,
	.max_args = 7,
	.flags = CMD_TARGETS | CMD_NO_SETTLE,
	.keywords = break_kinds,
	.exec = cmd_break_exec,
};

const struct cmd_entry cmd_delete_entry = {
	.name = "delete",
	.alias = "d",
	.usage = "[ID]",
	.summary = "delete a breakpoint, or all of them",
	.example = "delete 1",
	.group = GRP_CONTROL,
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_delete_exec,
};
