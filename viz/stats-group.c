/* stats-group.c - spans grouped into invocations (group_invocations). */
#include <stdlib.h>
#include <string.h>

#include "../core/xmalloc.h"
#include "stats.h"

static uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

struct groups {
	int64_t *pid;
	uint64_t *inv;
	uint32_t *count;
	uint32_t *first_span;
	size_t n;
	size_t cap;
	uint32_t *slots; /* group + 1 */
	size_t nslots;
};

static size_t
groups_find(struct groups *g, const struct span *sp, size_t idx)
{
	uint64_t h = mix64((uint64_t)sp->pid * 0x9e3779b97f4a7c15ULL ^ sp->inv);
	size_t mask, j, k;
	uint32_t id;

	if ((g->n + 1) * 2 > g->nslots) {
		size_t ns = g->nslots ? g->nslots * 2 : 1024;
		uint32_t *slots = xcalloc(ns, sizeof *slots);

		for (k = 0; k < g->n; k++) {
			uint64_t hk =
			    mix64((uint64_t)g->pid[k] * 0x9e3779b97f4a7c15ULL ^
				g->inv[k]);

			for (j = hk & (ns - 1); slots[j] != 0;
			     j = (j + 1) & (ns - 1))
				;
			slots[j] = (uint32_t)k + 1;
		}
		free(g->slots);
		g->slots = slots;
		g->nslots = ns;
	}
	mask = g->nslots - 1;
	for (j = h & mask; (id = g->slots[j]) != 0; j = (j + 1) & mask) {
		if (g->pid[id - 1] == sp->pid && g->inv[id - 1] == sp->inv)
			return id - 1;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->pid = xreallocarray(g->pid, g->cap, sizeof *g->pid);
		g->inv = xreallocarray(g->inv, g->cap, sizeof *g->inv);
		g->count = xreallocarray(g->count, g->cap, sizeof *g->count);
		g->first_span =
		    xreallocarray(g->first_span, g->cap, sizeof *g->first_span);
	}
	g->pid[g->n] = sp->pid;
	g->inv[g->n] = sp->inv;
	g->count[g->n] = 0;
	g->first_span[g->n] = (uint32_t)idx;
	g->slots[j] = (uint32_t)g->n + 1;
	return g->n++;
}

static const struct groups *sort_groups;

static int
cmp_group(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct groups *g = sort_groups;

	if (g->pid[x] != g->pid[y])
		return g->pid[x] < g->pid[y] ? -1 : 1;
	if (g->inv[x] != g->inv[y])
		return g->inv[x] < g->inv[y] ? -1 : 1;
	return 0;
}

/* Group the spans of VIEW into st->invs / st->order (group_invocations). */
void
stats_index(struct stats *st, uint32_t view)
{
	const struct span_set *set = st->set;
	size_t n, i, k;
	const struct span *sp = span_set_spans(set, &n);
	uint32_t root =
	    span_set_lookup(set, st->root_name, strlen(st->root_name));
	uint32_t dev =
	    span_set_lookup(set, st->device_name, strlen(st->device_name));
	struct groups g;
	uint32_t *gid, *start, *pos, *perm;

	if (n >= UINT32_MAX)
		BUG("too many spans");
	memset(&g, 0, sizeof g);
	gid = xreallocarray(NULL, n ? n : 1, sizeof *gid);
	for (i = 0; i < n; i++) {
		if ((sp[i].flags & view) == 0 ||
		    (sp[i].flags & SPAN_FOREIGN) != 0) {
			gid[i] = UINT32_MAX;
			continue;
		}
		gid[i] = (uint32_t)groups_find(&g, &sp[i], i);
		g.count[gid[i]]++;
	}
	start = xreallocarray(NULL, g.n + 1, sizeof *start);
	pos = xreallocarray(NULL, g.n + 1, sizeof *pos);
	for (k = 0, i = 0; k < g.n; k++) {
		start[k] = pos[k] = (uint32_t)i;
		i += g.count[k];
	}
	st->order = xreallocarray(NULL, i ? i : 1, sizeof *st->order);
	for (i = 0; i < n; i++) {
		if (gid[i] != UINT32_MAX)
			st->order[pos[gid[i]]++] = (uint32_t)i;
	}

	perm = xreallocarray(NULL, g.n ? g.n : 1, sizeof *perm);
	for (k = 0; k < g.n; k++)
		perm[k] = (uint32_t)k;
	sort_groups = &g;
	qsort(perm, g.n, sizeof *perm, cmp_group);
	sort_groups = NULL;

	st->ninvs = g.n;
	st->invs = xcalloc(g.n ? g.n : 1, sizeof *st->invs);
	for (k = 0; k < g.n; k++) {
		struct stats_inv *iv = &st->invs[k];
		uint32_t gk = perm[k], j;
		int64_t dev_ts = 0, host_ts = 0;
		int have_dev = 0, have_host = 0;

		iv->pid = g.pid[gk];
		iv->inv = g.inv[gk];
		iv->hid = sp[g.first_span[gk]].hid;
		iv->first = start[gk];
		iv->nspans = g.count[gk];
		iv->round = iv->slot = -1;
		for (j = 0; j < iv->nspans; j++) {
			const struct span *s = &sp[st->order[iv->first + j]];

			if (s->name == root && root != SPAN_NOSTR) {
				if (s->depth == 0)
					iv->flags |= STATS_INV_DISPATCH;
				if (!have_host) {
					iv->flags |= STATS_INV_HOST;
					iv->host_us = s->dur / 1000.0;
					iv->host_ts = s->ts;
					iv->host_dur = s->dur;
				}
				/* simpler's by_name(): earliest ts wins */
				if (!have_host || s->ts < host_ts) {
					host_ts = s->ts;
					iv->host_early_us = s->dur / 1000.0;
				}
				have_host = 1;
			}
			if (s->name == dev && dev != SPAN_NOSTR) {
				if (!have_dev)
					iv->device_us = s->dur / 1000.0;
				if (!have_dev || s->ts < dev_ts) {
					dev_ts = s->ts;
					iv->device_early_us = s->dur / 1000.0;
				}
				iv->flags |= STATS_INV_DEVICE;
				have_dev = 1;
			}
		}
	}
	free(perm);
	free(start);
	free(pos);
	free(gid);
	free(g.pid);
	free(g.inv);
	free(g.count);
	free(g.first_span);
	free(g.slots);
}
