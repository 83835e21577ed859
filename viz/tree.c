/* tree.c - PyPTO span-tree formatting; see tree.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"
#include "../core/xmalloc.h"
#include "tree.h"

const char tree_msg_no_tree[] =
    "BenchmarkStats: no span tree captured "
    "(non-SIMPLER_HOST_STRACE build or *sim platform)";
const char tree_msg_unstable[] =
    "BenchmarkStats: per-dispatch view "
    "unavailable \xe2\x80\x94 a rank's dispatch order varies between rounds, "
    "so a slot does not identify one callable. The per-rank / per-round "
    "sums are unaffected.";

/* A name table local to one rendering: unique names in first-seen order. */
struct names {
	const struct tree_item *items;
	size_t *first; /* unique -> item index */
	size_t n;
	size_t *slots; /* unique + 1 */
	size_t nslots;
};

struct row {
	size_t label; /* offset into the text buffer */
	size_t label_len;
	int ncols;
	size_t col[TREE_MAX_COLS]; /* offsets into the text buffer */
	size_t col_len[TREE_MAX_COLS];
};

struct walk {
	size_t node;	/* unique name index */
	size_t next;	/* next child to visit */
	size_t pfx_len; /* length of this node's child prefix */
};

static const struct tree_item *sort_items;
static const size_t *sort_first;

#define NAME_HASH_INIT 1469598103934665603ULL
#define NAME_HASH_STEP(h, c) (((h) ^ (unsigned char)(c)) * 1099511628211ULL)

static uint64_t
name_hash(const char *s, size_t len)
{
	uint64_t h = NAME_HASH_INIT;
	size_t i;

	for (i = 0; i < len; i++)
		h = NAME_HASH_STEP(h, s[i]);
	return h;
}

/*
 * Index of the unique name equal to S (whose name_hash() is H), or
 * SIZE_MAX; *slot = the free slot where it would go.
 */
static size_t
names_find(const struct names *nm, const char *s, size_t len, uint64_t h,
    size_t *slot)
{
	size_t mask = nm->nslots - 1, j, id;

	for (j = h & mask; (id = nm->slots[j]) != 0; j = (j + 1) & mask) {
		const struct tree_item *it = &nm->items[nm->first[id - 1]];

		if (it->len == len && memcmp(it->name, s, len) == 0)
			return id - 1;
	}
	if (slot != NULL)
		*slot = j;
	return SIZE_MAX;
}

static int
cmp_child(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int64_t tx = sort_items[sort_first[x]].ts;
	int64_t ty = sort_items[sort_first[y]].ts;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void
pad(struct strbuf *out, size_t have, size_t want)
{
	if (want > have)
		strbuf_addchars(out, ' ', want - have);
}

/* The unique names of items, in first-seen order. */
static void
names_build(struct names *nm, const struct tree_item *items, size_t n)
{
	size_t slot;

	memset(nm, 0, sizeof *nm);
	nm->items = items;
	nm->first = xreallocarray(NULL, n, sizeof *nm->first);
	for (nm->nslots = 16; nm->nslots < 2 * n; nm->nslots *= 2)
		;
	nm->slots = xcalloc(nm->nslots, sizeof *nm->slots);
	for (size_t i = 0; i < n; i++) {
		if (names_find(nm, items[i].name, items[i].len,
			name_hash(items[i].name, items[i].len), &slot) != SIZE_MAX)
			continue;
		nm->first[nm->n] = i;
		nm->slots[slot] = ++nm->n;
	}
}

/* Who is whose child: node nm->n is the roots' parent. */
struct forest {
	size_t *parent;	 /* [nm->n] */
	size_t *kid_off; /* [nm->n + 2]: node i's kids at kids[kid_off[i]..] */
	size_t *kids;	 /* [nm->n], each node's sorted by ts */
};

/*
 * parent = longest proper dotted prefix that is itself a name; the prefix
 * hashes come from one forward pass, so a name with many dots costs
 * O(length), not O(length^2).
 */
static void
forest_build(struct forest *f, const struct names *nm)
{
	const struct tree_item *items = nm->items;
	size_t *dots = NULL, ndot_cap = 0, *kid_pos;
	uint64_t *dot_hash = NULL;

	f->parent = xreallocarray(NULL, nm->n, sizeof *f->parent);
	f->kid_off = xcalloc(nm->n + 2, sizeof *f->kid_off);
	for (size_t i = 0; i < nm->n; i++) {
		const struct tree_item *it = &items[nm->first[i]];
		size_t p = SIZE_MAX, ndots = 0;
		uint64_t h = NAME_HASH_INIT;

		for (size_t j = 0; j < it->len; j++) {
			if (it->name[j] == '.') {
				if (ndots == ndot_cap) {
					ndot_cap = ndot_cap ? 2 * ndot_cap : 16;
					dots = xreallocarray(dots, ndot_cap,
					    sizeof *dots);
					dot_hash = xreallocarray(dot_hash,
					    ndot_cap, sizeof *dot_hash);
				}
				dots[ndots] = j;
				dot_hash[ndots++] = h;
			}
			h = NAME_HASH_STEP(h, it->name[j]);
		}
		while (ndots > 0 && p == SIZE_MAX) {
			ndots--;
			p = names_find(nm, it->name, dots[ndots],
			    dot_hash[ndots], NULL);
		}
		f->parent[i] = p == SIZE_MAX ? nm->n : p; /* nm->n: the roots */
		f->kid_off[f->parent[i] + 1]++;
	}
	for (size_t i = 1; i <= nm->n + 1; i++)
		f->kid_off[i] += f->kid_off[i - 1];
	f->kids = xreallocarray(NULL, nm->n, sizeof *f->kids);
	kid_pos = xreallocarray(NULL, nm->n + 1, sizeof *kid_pos);
	memcpy(kid_pos, f->kid_off, (nm->n + 1) * sizeof *kid_pos);
	for (size_t i = 0; i < nm->n; i++)
		f->kids[kid_pos[f->parent[i]]++] = i;
	sort_items = items;
	sort_first = nm->first;
	for (size_t i = 0; i <= nm->n; i++)
		qsort(f->kids + f->kid_off[i], f->kid_off[i + 1] - f->kid_off[i],
		    sizeof *f->kids, cmp_child);
	sort_items = NULL;
	sort_first = NULL;
	free(kid_pos);
	free(dots);
	free(dot_hash);
}

static void
forest_release(struct forest *f)
{
	free(f->parent);
	free(f->kid_off);
	free(f->kids);
}

/* The rows of the tree, labels and columns in one text buffer. */
struct rows {
	struct row *v;
	size_t n;
	struct strbuf text;
};

/* Walk depth-first, children by ts, connectors in the label; each row's
 * columns come from fn. */
static void
rows_walk(struct rows *out, const struct names *nm, const struct forest *f,
    tree_cols_fn fn, void *arg)
{
	const struct tree_item *items = nm->items;
	struct strbuf pfx = STRBUF_INIT;
	struct walk *stack;
	char cols[TREE_MAX_COLS][TREE_COL_MAX];
	size_t depth = 1;

	out->v = xreallocarray(NULL, nm->n, sizeof *out->v);
	out->n = 0;
	strbuf_init(&out->text, 0);
	stack = xreallocarray(NULL, nm->n + 1, sizeof *stack);
	stack[0].node = nm->n;
	stack[0].next = 0;
	stack[0].pfx_len = 0;
	while (depth > 0) {
		struct walk *w = &stack[depth - 1];
		size_t nk = f->kid_off[w->node + 1] - f->kid_off[w->node], u, cut;
		const struct tree_item *it;
		struct row *r;
		int last;

		if (w->next == nk) {
			depth--;
			continue;
		}
		u = f->kids[f->kid_off[w->node] + w->next++];
		last = w->next == nk;
		it = &items[nm->first[u]];
		strbuf_setlen(&pfx, w->pfx_len);
		r = &out->v[out->n++];
		r->label = out->text.len;
		strbuf_add(&out->text, pfx.buf, pfx.len);
		if (w->node != nm->n)
			strbuf_addstr(&out->text, last ? "`- " : "|- ");
		cut = f->parent[u] == nm->n ?
		    0 :
		    items[nm->first[f->parent[u]]].len + 1;
		strbuf_add(&out->text, it->name + cut, it->len - cut);
		if (it->device)
			strbuf_addstr(&out->text, " [dev]");
		r->label_len = out->text.len - r->label;
		r->ncols = fn(arg, it->key, cols);
		if (r->ncols < 0 || r->ncols > TREE_MAX_COLS)
			BUG("bad tree column count %d", r->ncols);
		for (int c = 0; c < r->ncols; c++) {
			r->col[c] = out->text.len;
			r->col_len[c] = strnlen(cols[c], TREE_COL_MAX);
			strbuf_add(&out->text, cols[c], r->col_len[c]);
		}
		if (w->node != nm->n)
			strbuf_addstr(&pfx, last ? "   " : "|  ");
		stack[depth].node = u;
		stack[depth].next = 0;
		stack[depth].pfx_len = pfx.len;
		depth++;
	}
	free(stack);
	strbuf_release(&pfx);
}

/* The rows as text: labels padded to one width, each column to its own. */
static void
rows_print(const struct rows *rw, struct strbuf *out)
{
	const char *text = rw->text.buf;
	size_t name_w = 0, col_w[TREE_MAX_COLS] = { 0 };

	for (size_t i = 0; i < rw->n; i++) {
		const struct row *r = &rw->v[i];

		name_w =
		    MAX(name_w, strace_utf8_len(text + r->label, r->label_len));
		for (int c = 0; c < r->ncols; c++)
			col_w[c] = MAX(col_w[c],
			    strace_utf8_len(text + r->col[c], r->col_len[c]));
	}
	for (size_t i = 0; i < rw->n; i++) {
		const struct row *r = &rw->v[i];

		if (i != 0)
			strbuf_addch(out, '\n');
		strbuf_add(out, text + r->label, r->label_len);
		pad(out, strace_utf8_len(text + r->label, r->label_len), name_w);
		for (int c = 0; c < r->ncols; c++) {
			const char *cs = text + r->col[c];

			strbuf_addstr(out, "  ");
			pad(out, strace_utf8_len(cs, r->col_len[c]), col_w[c]);
			strbuf_add(out, cs, r->col_len[c]);
		}
		/*
		 * Python rstrip()s each line; every value column ends in a
		 * digit, a unit or ']', so there is never anything to strip.
		 */
	}
}

void
tree_render(struct strbuf *out, const struct tree_item *items, size_t n,
    tree_cols_fn fn, void *arg)
{
	struct names nm;
	struct forest f;
	struct rows rw;

	if (n == 0)
		return;
	names_build(&nm, items, n);
	forest_build(&f, &nm);
	rows_walk(&rw, &nm, &f, fn, arg);
	rows_print(&rw, out);
	free(rw.v);
	strbuf_release(&rw.text);
	forest_release(&f);
	free(nm.first);
	free(nm.slots);
}

int
tree_parse_spread(const char *s, enum tree_spread *out)
{
	static const char *const names[] = { "stdev", "minmax", "both", "none" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (enum tree_spread)i;
			return 0;
		}
	}
	return -1;
}

/* ---- print_tree ------------------------------------------------------------ */

struct launch_ctx {
	const struct span *spans;
	int ns;
};

static int
launch_cols(void *arg, size_t key, char cols[TREE_MAX_COLS][TREE_COL_MAX])
{
	const struct launch_ctx *lc = arg;
	const struct span *sp = &lc->spans[key];

	if (lc->ns & TREE_MASKED)
		snprintf(cols[0], TREE_COL_MAX, "*%s", lc->ns & 1 ? "ns" : "us");
	else if (lc->ns)
		snprintf(cols[0], TREE_COL_MAX, "%lldns", (long long)sp->dur);
	else
		snprintf(cols[0], TREE_COL_MAX, "%.1fus", sp->dur / 1000.0);
	return 1;
}

static void
render_inv(const struct stats *st, const struct stats_inv *iv,
    struct strbuf *out, int ns)
{
	size_t nsp, i;
	const struct span *spans = span_set_spans(st->set, &nsp);
	struct tree_item *items =
	    xreallocarray(NULL, iv->nspans ? iv->nspans : 1, sizeof *items);
	struct launch_ctx lc = { spans, ns };

	for (i = 0; i < iv->nspans; i++) {
		const struct span *sp = &spans[st->order[iv->first + i]];

		items[i].name = span_set_str(st->set, sp->name);
		items[i].len = span_set_strlen(st->set, sp->name);
		items[i].ts = sp->ts;
		items[i].device = (sp->flags & SPAN_DEVICE) != 0;
		items[i].key = st->order[iv->first + i];
	}
	tree_render(out, items, iv->nspans, launch_cols, &lc);
	free(items);
}

int
tree_format_launches(const struct stats *st, struct strbuf *out, int has_launch,
    long launch, int ns, char **cause)
{
	size_t i, lo = 0, hi = st->nmeasured;
	long n = (long)st->nmeasured;

	if (st->nmeasured == 0) {
		strbuf_addstr(out, tree_msg_no_tree);
		return 0;
	}
	if (has_launch) {
		long idx = launch < 0 ? n + launch : launch;

		if (idx < 0 || idx >= n)
			return cause_set(cause,
			    "launch %ld out of range "
			    "(%ld measured launch%s)",
			    launch, n, n == 1 ? "" : "es");
		lo = (size_t)idx;
		hi = lo + 1;
	}
	for (i = lo; i < hi; i++) {
		const struct stats_inv *iv = &st->invs[st->measured[i]];

		if (i != lo)
			strbuf_addch(out, '\n');
		strbuf_addf(out, "launch[%ld] (pid=%lld inv=%llu hid=%s",
		    has_launch ? launch : (long)i, (long long)iv->pid,
		    (unsigned long long)iv->inv, span_set_str(st->set, iv->hid));
		if (st->grid && iv->round >= 0)
			strbuf_addf(out, " round=%d slot=%d", iv->round,
			    iv->slot);
		strbuf_addstr(out, "):\n");
		render_inv(st, iv, out, ns);
	}
	return 0;
}
