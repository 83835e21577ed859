/*
 * cmd-until.c - until and advance, as in gdb: run the stopped targets on
 * to a location, each rank stopping once when it gets there.  The stop is
 * a momentary breakpoint (id BREAK_ID_UNTIL | n, BRK_ONCE_PER_RANK): a
 * rank's hit clears its bit, and the entry goes when every rank has hit
 * it or the next until/advance replaces it.  `until` without a location
 * runs each rank to its next call from a later line of the same file:
 * out of the loop it is in.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "ctl.h"
#include "xmalloc.h"

static uint32_t until_seq;

static void
drop_untils(struct session *s)
{
	for (int k = 0; k < SEG_MAX_BREAKS; k++) {
		struct seg_break *bp = &s->seg.h->breaks[k];
		if (bp->id & BREAK_ID_UNTIL)
			ctl_break_clear(&s->seg, bp);
	}
	ctl_breaks_changed(&s->seg);
}

/* The call site stopped rank r is at, or 0 (in cdb_init, an agent). */
static int
stopped_site(struct session *s, int r, struct site *out)
{
	struct view_board b;

	view_board(&s->view, r, &b);
	if (!rank_alive(s, r) || b.state != RS_STOPPED || b.nops == 0 ||
	    b.site.fn == FN_NONE || b.site.file[0] == '\0')
		return 0;
	*out = b.site;
	return 1;
}

/* One entry per distinct site of the stopped ranks in set: `until` (no
 * location: a later line) or `until LINE` (that line of their file). */
static int
add_per_site(struct cmdctx *ctx, const struct rankset *set, int32_t line,
    struct seg_break *proto)
{
	struct session *s = ctx->s;
	struct rankset left = *set;

	for (int r = 0; r < s->nranks; r++) {
		struct site st;
		struct seg_break nb = *proto;
		struct rankset group;

		if (!rankset_has(&left, r))
			continue;
		rankset_del(&left, r);
		if (!stopped_site(s, r, &st)) {
			struct view_board b;

			view_board(&s->view, r, &b);
			if (!rank_alive(s, r) || b.state != RS_STOPPED)
				continue; /* it stops when it gets there: it cannot */
			cmd_error(ctx,
			    "rank %d is stopped %s, not at a call of its program; give %s a location (FILE:LINE or cdb_FUNCTION)",
			    r, b.nops == 0 ? "in cdb_init" : "in a command",
			    ctx->entry->name);
			return -1;
		}
		rankset_clear(&group);
		rankset_add(&group, r);
		for (int q = r + 1; q < s->nranks; q++) {
			struct site o;
			if (rankset_has(&left, q) && stopped_site(s, q, &o) &&
			    strcmp(o.file, st.file) == 0 && o.line == st.line) {
				rankset_add(&group, q);
				rankset_del(&left, q);
			}
		}
		memcpy(nb.file, st.file, sizeof nb.file);
		nb.line = line > 0 ? line : st.line;
		nb.flags |= BRK_AT_CALL | (line > 0 ? 0 : BRK_LINE_AFTER);
		if (break_add(ctx, &nb, &group, BREAK_ID_UNTIL | ++until_seq) ==
		    NULL)
			return -1;
	}
	return 0;
}

static enum cmd_retval
cmd_until_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct seg_break nb;
	struct rankset set, moved;
	char *cause = NULL;
	size_t i = 0;
	int32_t line = 0;
	int resolve = 0; /* a FILE:LINE or cdb_FUNCTION to look up */

	memset(&nb, 0, sizeof nb);
	nb.kinds = BREAK_ANY_KIND;
	nb.flags = BRK_ONCE_PER_RANK;
	if (strcmp(ctx->entry->name, "advance") == 0 && arg(ctx, 0)[0] == '@') {
		cmd_usage_error(ctx, "advance needs a location");
		return CMD_ERROR;
	}
	if (nargs(ctx) > 0 && arg(ctx, 0)[0] != '@') {
		const char *a = arg(ctx, 0);
		uint64_t v;

		if (!break_spec_is_location(a)) {
			arg_error(ctx, 0,
			    "bad location '%s' (expected FILE:LINE, LINE or cdb_FUNCTION)",
			    a);
			return CMD_ERROR;
		}
		if (strchr(a, ':') == NULL && strncmp(a, "cdb_", 4) != 0) {
			if (parse_uint(a, &v, 0, &cause) != 0 || v == 0 ||
			    v > INT32_MAX) {
				free(cause);
				arg_error(ctx, 0,
				    "bad line '%s' (expected a line from 1)", a);
				return CMD_ERROR;
			}
			line = (int32_t)v;
			i = 1;
		} else if (break_spec_parse(ctx, &i, &nb) != 0) {
			return CMD_ERROR;
		} else {
			resolve = 1;
		}
	}
	/* a breakpoint's tail, less its condition */
	if (i < nargs(ctx) && arg(ctx, i)[0] != '@') {
		arg_error(ctx, i, "unexpected '%s' (expected @RANKS)",
		    arg(ctx, i));
		return CMD_ERROR;
	}
	if (break_tail_parse(ctx, i, &nb, &set) != 0)
		return CMD_ERROR;
	/* colldb's own ranks make cdb_* calls from source lines only inside
	 * a loaded library's functions (call): without one, no location is
	 * ever reached and the ranks would just run to their end */
	if (!s->kind->own_code && shlib_count() == 0) {
		const char *what =
		    "no source program here: colldb's own ranks run built-in commands, which have no source lines or cdb_* calls (run a program with 'colldb run PROGRAM', or 'load' a library and 'call' it)";

		if (i > 0)
			arg_error(ctx, 0, "%s: %s", arg(ctx, 0), what);
		else
			cmd_error(ctx, "%s: %s", ctx->entry->name, what);
		return CMD_ERROR;
	}
	if (resolve) {
		struct strbuf note = STRBUF_INIT;

		break_source_resolve(s, arg(ctx, 0), &nb, &note);
		if (note.len > 0 && nb.line_end > nb.line)
			out_printf("note: %s %s:%d-%d (%s)\n", ctx->entry->name,
			    nb.file, (int)nb.line, (int)nb.line_end, note.buf);
		else if (note.len > 0)
			out_printf("note: %s %s:%d (%s)\n", ctx->entry->name,
			    nb.file, (int)nb.line, note.buf);
		strbuf_release(&note);
	}
	drop_untils(s);
	if (i == 0 || line > 0) {
		if (add_per_site(ctx, &set, line, &nb) != 0) {
			drop_untils(s);
			return CMD_ERROR;
		}
	} else if (break_add(ctx, &nb, &set, BREAK_ID_UNTIL | ++until_seq) ==
	    NULL) {
		return CMD_ERROR;
	}
	if (ranks_release(s, &set, 0, 0, &moved, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		drop_untils(s);
		session_update_gate(s);
		return CMD_ERROR;
	}
	report_moved(s, &moved);
	breaks_gc(s);
	return CMD_OK;
}

const struct cmd_entry cmd_until_entry = {
	.name = "until",
	.alias = "u",
	.usage = "[FILE:LINE|LINE|cdb_FUNCTION] [@RANKS]",
	.summary = "run stopped targets to a location (none: out of the loop)",
	.example = "until ring.c:90",
	.group = GRP_CONTROL,
	.min_args = 0,
	.max_args = 2,
	.flags = CMD_TARGETS | CMD_NO_SETTLE | CMD_REPEAT,
	.exec = cmd_until_exec,
};

const struct cmd_entry cmd_advance_entry = {
	.name = "advance",
	.usage = "FILE:LINE|LINE|cdb_FUNCTION [@RANKS]",
	.summary = "run stopped targets until each reaches the location",
	.example = "advance cdb_allreduce",
	.group = GRP_CONTROL,
	.min_args = 1,
	.max_args = 2,
	.flags = CMD_TARGETS | CMD_NO_SETTLE | CMD_REPEAT,
	.exec = cmd_until_exec,
};
