/* tree-mean.c - print_mean_tree: span trees averaged per dispatch; see tree.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"
#include "../core/xmalloc.h"
#include "tree.h"

struct mean_node {
	struct stats_iacc dur;
	struct stats_iacc ts;
};

struct mean_ctx {
	const struct mean_node *nodes;
	const struct tree_mean_opts *o;
};

static int
mean_cols(void *arg, size_t key, char cols[TREE_MAX_COLS][TREE_COL_MAX])
{
	const struct mean_ctx *mc = arg;
	const struct stats_iacc *a = &mc->nodes[key].dur;
	enum tree_spread sp = mc->o->spread;
	double scale = mc->o->ns ? 1.0 : 1000.0;
	int n = 0;

	if (mc->o->ns & TREE_MASKED) {
		snprintf(cols[n++], TREE_COL_MAX, "*%s",
		    mc->o->ns & 1 ? "ns" : "us");
		if (sp == TREE_SPREAD_STDEV || sp == TREE_SPREAD_BOTH)
			snprintf(cols[n++], TREE_COL_MAX, "\xc2\xb1*");
		if (sp == TREE_SPREAD_MINMAX || sp == TREE_SPREAD_BOTH)
			snprintf(cols[n++], TREE_COL_MAX, "[*..*]");
		return n;
	}
	snprintf(cols[n++], TREE_COL_MAX, "%.1f%s", stats_iacc_fmean(a) / scale,
	    mc->o->ns ? "ns" : "us");
	if (sp == TREE_SPREAD_STDEV || sp == TREE_SPREAD_BOTH)
		snprintf(cols[n++], TREE_COL_MAX, "\xc2\xb1%.1f",
		    a->n > 1 ? stats_iacc_stdev(a) / scale : 0.0);
	if (sp == TREE_SPREAD_MINMAX || sp == TREE_SPREAD_BOTH)
		snprintf(cols[n++], TREE_COL_MAX, "[%.1f..%.1f]",
		    (double)a->min / scale, (double)a->max / scale);
	return n;
}

/* Python's round(fmean(ts)) as a sort key. */
static int64_t
mean_ts_key(const struct stats_iacc *a)
{
	double m = nearbyint(stats_iacc_fmean(a));

	return m >= 9223372036854775807.0 ? INT64_MAX : (int64_t)m;
}

/* One mean tree over the invocations measured[idx[0..n)]. */
static void
render_mean(const struct stats *st, const uint32_t *idx, size_t n,
    int32_t *slot_of, struct strbuf *out, const struct tree_mean_opts *o)
{
	size_t nsp, i, j, nn = 0, cap = 16;
	const struct span *spans = span_set_spans(st->set, &nsp);
	struct mean_node *nodes = xcalloc(cap, sizeof *nodes);
	struct tree_item *items = xcalloc(cap, sizeof *items);
	uint32_t *ids = xcalloc(cap, sizeof *ids);
	struct mean_ctx mc;

	for (i = 0; i < n; i++) {
		const struct stats_inv *iv = &st->invs[idx[i]];

		for (j = 0; j < iv->nspans; j++) {
			const struct span *sp = &spans[st->order[iv->first + j]];
			int32_t k = slot_of[sp->name];

			if (k < 0) {
				if (nn == cap) {
					cap *= 2;
					nodes = xreallocarray(nodes, cap,
					    sizeof *nodes);
					items = xreallocarray(items, cap,
					    sizeof *items);
					ids =
					    xreallocarray(ids, cap, sizeof *ids);
				}
				k = slot_of[sp->name] = (int32_t)nn++;
				ids[k] = sp->name;
				memset(&nodes[k], 0, sizeof nodes[k]);
				/* template: the first span of the name */
				items[k].name = span_set_str(st->set, sp->name);
				items[k].len = span_set_strlen(st->set, sp->name);
				items[k].device = (sp->flags & SPAN_DEVICE) != 0;
				items[k].key = (size_t)k;
			}
			stats_iacc_add(&nodes[k].dur, sp->dur);
			stats_iacc_add(&nodes[k].ts, sp->ts);
		}
	}
	for (i = 0; i < nn; i++) {
		items[i].ts = mean_ts_key(&nodes[i].ts);
		slot_of[ids[i]] = -1;
	}
	mc.nodes = nodes;
	mc.o = o;
	tree_render(out, items, nn, mean_cols, &mc);
	free(ids);
	free(nodes);
	free(items);
}

static void
mean_header(const struct stats *st, struct strbuf *out,
    const struct tree_mean_opts *o, size_t n)
{
	if (o->ns & TREE_MASK_COUNT)
		strbuf_addstr(out, "mean of * launches");
	else
		strbuf_addf(out, "mean of %zu launches", n);
	strbuf_addf(out, " (warmup %ld excluded); each node: mean%s%s:\n",
	    st->warmup,
	    o->spread == TREE_SPREAD_STDEV || o->spread == TREE_SPREAD_BOTH ?
		" \xc2\xb1stdev" :
		"",
	    o->spread == TREE_SPREAD_MINMAX || o->spread == TREE_SPREAD_BOTH ?
		" [min..max]" :
		"");
}

static void
no_match(struct strbuf *out, const struct tree_mean_opts *o)
{
	strbuf_addstr(out, "BenchmarkStats: no dispatch matches pid=");
	if (o->has_pid)
		strbuf_addf(out, "%lld", (long long)o->pid);
	else
		strbuf_addstr(out, "None");
	strbuf_addstr(out, " slot=");
	if (o->has_slot)
		strbuf_addf(out, "%ld", o->slot);
	else
		strbuf_addstr(out, "None");
}

void
tree_format_mean(const struct stats *st, struct strbuf *out,
    const struct tree_mean_opts *o)
{
	uint32_t nstr = span_set_nstr(st->set), *idx;
	int32_t *slot_of;
	size_t r, s, k, i, ntrees = 0;

	if (st->unstable) {
		strbuf_addstr(out, tree_msg_unstable);
		return;
	}
	if (!st->grid) {
		if (o->has_pid || o->has_slot || st->nmeasured == 0) {
			if (st->nmeasured == 0)
				strbuf_addstr(out, tree_msg_no_tree);
			else
				no_match(out, o);
			return;
		}
	}
	slot_of = xreallocarray(NULL, nstr ? nstr : 1, sizeof *slot_of);
	for (i = 0; i < nstr; i++)
		slot_of[i] = -1;
	idx = xreallocarray(NULL, st->nmeasured, sizeof *idx);

	if (!st->grid) {
		mean_header(st, out, o, st->nmeasured);
		render_mean(st, st->measured, st->nmeasured, slot_of, out, o);
		goto out;
	}
	for (r = 0; r < st->nranks; r++) {
		const struct stats_rank *rk = &st->ranks[r];

		if (o->has_pid && rk->pid != o->pid)
			continue;
		for (s = 0; s < rk->per_round; s++) {
			if (o->has_slot && (long)s != o->slot)
				continue;
			for (k = 0; k < (size_t)st->rounds; k++)
				idx[k] =
				    st->measured[rk->base + k * rk->per_round + s];
			if (ntrees++ != 0)
				strbuf_addstr(out, "\n\n");
			strbuf_addf(out,
			    "dispatch pid=%lld slot=%zu task=%s "
			    "\xe2\x80\x94 ",
			    (long long)rk->pid, s,
			    span_set_str(st->set, st->invs[idx[0]].hid));
			mean_header(st, out, o, (size_t)st->rounds);
			render_mean(st, idx, (size_t)st->rounds, slot_of, out, o);
		}
	}
	if (ntrees == 0)
		no_match(out, o);
out:
	free(idx);
	free(slot_of);
}
