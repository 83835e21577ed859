/*
 * views.c - what fuzz-strace and fuzz-chrome do with the spans they read:
 * the views `colldb stats` and `colldb tree` print, at L2, L3 and as
 * decided, every launch, the last, and the mean trees.
 */
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "strace.h"
#include "strbuf.h"
#include "tree.h"

void fuzz_views(const struct span_set *set);

void
fuzz_views(const struct span_set *set)
{
	static const enum stats_level levels[] = { STATS_AUTO, STATS_L2,
		STATS_L3 };

	for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
		struct stats_opts so;
		struct stats *st;
		struct strbuf out = STRBUF_INIT;
		struct tree_mean_opts mo = { TREE_SPREAD_BOTH, 0, 0, 0, 0, 0 };
		char *cause = NULL;

		memset(&so, 0, sizeof so);
		so.level = levels[l];
		so.rounds = l == 1 ? 2 : -1;
		so.warmup = l == 2 ? 0 : 3;
		st = stats_new(set, &so);
		stats_format(st, &out);
		if (tree_format_launches(st, &out, 0, 0, 0, &cause) != 0)
			free(cause), cause = NULL;
		if (tree_format_launches(st, &out, 1, -1, 1, &cause) != 0)
			free(cause);
		tree_format_mean(st, &out, &mo);
		mo.ns = 1;
		mo.spread = TREE_SPREAD_MINMAX;
		tree_format_mean(st, &out, &mo);
		strbuf_release(&out);
		stats_free(st);
	}
}
