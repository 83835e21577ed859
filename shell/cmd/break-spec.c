/*
 * break-spec.c - what a breakpoint stops at, as typed and as shown:
 * micro-op kinds (`wait`), a user program's call sites (`ring.c:51`,
 * `cdb_wait`), cells (`row 3`, `cell sig[3,*]`), and the slots of the
 * segment's breakpoint table they go into.  The ranks match them at their
 * gate (core/brk.c); break, tbreak, until and advance parse them here.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "brk.h"
#include "ctl.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

const char *const break_kinds[] = { "notify", "wait", "put", "get", "reduce",
	"barrier", "copy", NULL };

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

static int
all_digits(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s))
			return 0;
	}
	return 1;
}

/* "ring.c:51" or "docs/examples/ring.c:51" (the last component counts) */
static int
parse_file_line(struct cmdctx *ctx, size_t i, struct seg_break *nb)
{
	const char *a = arg(ctx, i), *colon = strrchr(a, ':'), *base;
	uint64_t line;
	char *cause = NULL;
	size_t n;

	if (parse_uint(colon + 1, &line, 0, &cause) != 0 || line == 0 ||
	    line > INT32_MAX) {
		free(cause);
		return arg_error(ctx, i,
		    "bad line number in '%s' (expected FILE:LINE, a line from 1)",
		    a);
	}
	base = memrchr(a, '/', (size_t)(colon - a));
	base = base != NULL ? base + 1 : a;
	n = (size_t)(colon - base);
	if (n == 0 || n >= sizeof nb->file)
		return arg_error(ctx, i,
		    "bad file name in '%s' (expected FILE:LINE, a name of 1..%zu characters)",
		    a, sizeof nb->file - 1);
	memcpy(nb->file, base, n);
	nb->file[n] = '\0';
	nb->line = (int32_t)line;
	return 0;
}

/* One index of a cell pattern: a number or '*' (-1). */
static int
parse_index(const char *s, size_t n, int64_t *out)
{
	char buf[32];
	uint64_t v;
	char *cause = NULL;

	if (n == 1 && s[0] == '*') {
		*out = -1;
		return 0;
	}
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (parse_uint(buf, &v, 0, &cause) != 0 || v > INT32_MAX) {
		free(cause);
		return -1;
	}
	*out = (int64_t)v;
	return 0;
}

/* The window's shape against a pattern (when the window exists). */
static int
check_cells(struct cmdctx *ctx, size_t i, const struct seg_window *w,
    const struct seg_break *nb)
{
	if (nb->hi > 0) {
		if (nb->hi > w->count)
			return arg_error(ctx, i,
			    "'%s' runs past the end of '%s' (%llu elements)",
			    arg(ctx, i), w->name, (unsigned long long)w->count);
		return 0;
	}
	if (nb->row < 0 && nb->col < 0)
		return 0;
	if (w->ndim != 2)
		return arg_error(ctx, i,
		    "'%s': '%s' has %d dimension%s; [ROW,COL] needs 2 (or give a flat index)",
		    arg(ctx, i), w->name, w->ndim, w->ndim == 1 ? "" : "s");
	if (nb->row >= (int64_t)w->shape[0] || nb->col >= (int64_t)w->shape[1])
		return arg_error(ctx, i, "'%s' is outside '%s' [%llu,%llu]",
		    arg(ctx, i), w->name, (unsigned long long)w->shape[0],
		    (unsigned long long)w->shape[1]);
	return 0;
}

/* WIN, WIN[i], WIN[a:b], WIN[r,c] with '*' for any row or column */
static int
parse_cells(struct cmdctx *ctx, size_t i, struct seg_break *nb)
{
	const char *a = arg(ctx, i), *lb = strchr(a, '['), *in, *comma, *end;
	size_t n = lb != NULL ? (size_t)(lb - a) : strlen(a);
	struct seg_window *w;
	int64_t x, y;

	nb->flags |= BRK_CELLS;
	nb->row = nb->col = -1;
	if (n == 0 || n >= sizeof nb->win)
		return arg_error(ctx, i,
		    "bad cells '%s' (expected WINDOW[ROW,COL], '*' for any)", a);
	memcpy(nb->win, a, n);
	nb->win[n] = '\0';
	if (lb != NULL) {
		in = lb + 1;
		end = strchr(in, ']');
		if (end == NULL || end[1] != '\0')
			return arg_error(ctx, i,
			    "bad cells '%s' (expected WINDOW[ROW,COL], '*' for any)",
			    a);
		comma = memchr(in, ',', (size_t)(end - in));
		if (comma != NULL) {
			if (parse_index(in, (size_t)(comma - in), &x) != 0 ||
			    parse_index(comma + 1, (size_t)(end - comma - 1),
				&y) != 0)
				return arg_error(ctx, i,
				    "bad cells '%s' (expected WINDOW[ROW,COL], each a number or '*')",
				    a);
			nb->row = x;
			nb->col = y;
		} else {
			const char *colon = memchr(in, ':', (size_t)(end - in));
			if (parse_index(in,
				colon != NULL ? (size_t)(colon - in) :
						(size_t)(end - in),
				&x) != 0 ||
			    x < 0 ||
			    (colon != NULL &&
				(parse_index(colon + 1,
				     (size_t)(end - colon - 1), &y) != 0 ||
				    y <= x)))
				return arg_error(ctx, i,
				    "bad cells '%s' (expected WINDOW[I], WINDOW[A:B] or WINDOW[ROW,COL])",
				    a);
			nb->lo = (uint64_t)x;
			nb->hi = colon != NULL ? (uint64_t)y : (uint64_t)x + 1;
		}
	}
	if ((w = view_win_find(&ctx->s->view, nb->win)) != NULL)
		return check_cells(ctx, i, w, nb);
	if (ctx->s->kind->own_code)
		return 0; /* the program allocates it later */
	return win_lookup(ctx, i, nb->win) == NULL ? -1 : 0;
}

int
break_spec_parse(struct cmdctx *ctx, size_t *ip, struct seg_break *nb)
{
	size_t i = *ip;
	const char *a = arg(ctx, i), *colon = strrchr(a, ':');
	enum api_fn fn;

	if ((nb->kinds = kind_bits(a)) != 0) {
		*ip = i + 1;
		return 0;
	}
	nb->kinds = BREAK_ANY_KIND;
	if (strncmp(a, "cdb_", 4) == 0) {
		if (api_fn_from_name(a, &fn) != 0)
			return arg_error(ctx, i,
			    "'%s' is no operation of colldb.h (expected cdb_notify, cdb_wait, cdb_put, cdb_get or a collective such as cdb_allreduce)",
			    a);
		nb->flags |= BRK_AT_CALL;
		nb->fn = (uint8_t)fn;
	} else if (colon != NULL && colon[1] != '\0' && strchr(a, '[') == NULL) {
		if (parse_file_line(ctx, i, nb) != 0)
			return -1;
		nb->flags |= BRK_AT_CALL;
	} else if (strcmp(a, "row") == 0) {
		uint64_t row;
		char *cause = NULL;

		if (i + 1 >= nargs(ctx)) {
			cmd_usage_error(ctx, "'row' needs a row number");
			return -1;
		}
		if (parse_uint(arg(ctx, i + 1), &row, 0, &cause) != 0 ||
		    row > INT32_MAX) {
			free(cause);
			return arg_error(ctx, i + 1,
			    "bad row '%s' (expected a row number, 0 or more)",
			    arg(ctx, i + 1));
		}
		nb->flags |= BRK_CELLS;
		nb->row = (int64_t)row;
		nb->col = -1;
		i++;
	} else if (strcmp(a, "cell") == 0) {
		if (i + 1 >= nargs(ctx)) {
			cmd_usage_error(ctx,
			    "'cell' needs cells, such as sig[3,*]");
			return -1;
		}
		if (parse_cells(ctx, i + 1, nb) != 0)
			return -1;
		i++;
	} else {
		return arg_error(ctx, i,
		    "unknown breakpoint location '%s' (expected FILE:LINE, cdb_FUNCTION, row R, cell WIN[R,C] or a micro-op kind: notify, wait, put, get, reduce, copy, barrier)",
		    a);
	}
	*ip = i + 1;
	return 0;
}

int
break_spec_is_location(const char *a)
{
	const char *colon = strrchr(a, ':');

	return strncmp(a, "cdb_", 4) == 0 || all_digits(a) ||
	    (colon != NULL && all_digits(colon + 1));
}

static void
format_cells(const struct seg_break *bp, struct strbuf *sb)
{
	if (bp->win[0] == '\0') {
		strbuf_addf(sb, "row %lld", (long long)bp->row);
		return;
	}
	strbuf_addf(sb, "cell %s", bp->win);
	if (bp->hi > 0 && bp->hi == bp->lo + 1)
		strbuf_addf(sb, "[%llu]", (unsigned long long)bp->lo);
	else if (bp->hi > 0)
		strbuf_addf(sb, "[%llu:%llu]", (unsigned long long)bp->lo,
		    (unsigned long long)bp->hi);
	else if (bp->row >= 0 || bp->col >= 0) {
		strbuf_addch(sb, '[');
		if (bp->row >= 0)
			strbuf_addf(sb, "%lld", (long long)bp->row);
		else
			strbuf_addch(sb, '*');
		strbuf_addch(sb, ',');
		if (bp->col >= 0)
			strbuf_addf(sb, "%lld", (long long)bp->col);
		else
			strbuf_addch(sb, '*');
		strbuf_addch(sb, ']');
	}
}

void
break_spec_format(struct session *s, const struct seg_break *bp,
    const struct rankset *ranks, struct strbuf *sb)
{
	struct rankset set;
	char *t;

	if (ranks != NULL) {
		set = *ranks;
	} else {
		rankset_clear(&set);
		for (int r = 0; r < s->nranks; r++) {
			if ((bp->ranks[r / 64] >> (r % 64)) & 1)
				rankset_add(&set, r);
		}
	}
	t = rankset_format(&set, s->nranks);
	if (bp->flags & BRK_AT_CALL) {
		if (bp->flags & BRK_LINE_AFTER)
			strbuf_addf(sb, "a line after %s:%d ", bp->file,
			    (int)bp->line);
		else if (bp->file[0] != '\0' && bp->line_end > bp->line)
			strbuf_addf(sb, "%s:%d-%d ", bp->file, (int)bp->line,
			    (int)bp->line_end);
		else if (bp->file[0] != '\0')
			strbuf_addf(sb, "%s:%d ", bp->file, (int)bp->line);
		if (bp->fn != FN_NONE)
			strbuf_addf(sb, "%s ", api_fn_name((enum api_fn)bp->fn));
	}
	if (bp->flags & BRK_CELLS) {
		format_cells(bp, sb);
		strbuf_addch(sb, ' ');
	}
	for (int i = 0; break_kinds[i] != NULL && bp->kinds != BREAK_ANY_KIND;
	     i++) {
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

/* Spent one-shot entries leave the table: a tbreak that was hit, an
 * until every rank of which got there. */
void
breaks_gc(struct session *s)
{
	int changed = 0;

	for (int k = 0; k < SEG_MAX_BREAKS; k++) {
		struct seg_break *bp = &s->seg.h->breaks[k];
		int left = 0;

		if (bp->id == 0)
			continue;
		for (int w = 0; w < SEG_MAX_RANKS / 64; w++)
			left |= __atomic_load_n(&bp->ranks[w],
				    __ATOMIC_ACQUIRE) != 0;
		if (((bp->flags & BRK_ONCE) && atomic_load(&bp->hits) > 0) ||
		    ((bp->flags & BRK_ONCE_PER_RANK) && !left)) {
			ctl_break_clear(&s->seg, bp);
			changed = 1;
		}
	}
	if (changed) {
		ctl_breaks_changed(&s->seg);
		session_update_gate(s);
	}
}

struct seg_break *
break_add(struct cmdctx *ctx, const struct seg_break *nb,
    const struct rankset *ranks, uint32_t id)
{
	struct session *s = ctx->s;
	struct seg_break body = *nb, *slot = NULL;

	breaks_gc(s);
	for (int k = 0; k < SEG_MAX_BREAKS && slot == NULL; k++) {
		if (s->seg.h->breaks[k].id == 0)
			slot = &s->seg.h->breaks[k];
	}
	if (slot == NULL) {
		cmd_error(ctx, "too many breakpoints (at most %d; see 'delete')",
		    SEG_MAX_BREAKS);
		return NULL;
	}
	memset(body.ranks, 0, sizeof body.ranks);
	for (int r = 0; r < s->nranks; r++) {
		if (rankset_has(ranks, r))
			body.ranks[r / 64] |= 1ull << (r % 64);
	}
	body.id = id;
	ctl_break_set(&s->seg, slot, &body);
	ctl_breaks_changed(&s->seg);
	session_update_gate(s);
	return slot;
}
