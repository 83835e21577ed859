/*
 * tree.h - span trees, formatted exactly as PyPTO's BenchmarkStats
 * print_tree() / print_mean_tree() (bench.py format_tree, format_mean_tree).
 *
 * The layout (PyPTO's print_tree; docs/benchmarking.md): a span's parent is the
 * span whose name is its longest proper dotted prefix, the label is the rest of
 * the name plus " [dev]" for device spans, siblings are ordered by start time
 * (stable), connectors are "|- " / "`- " with "|  " / "   " continuation;
 * the label column is left-justified and each value column right-justified
 * to its widest entry, two spaces apart.  Widths count code points, as
 * Python's len() does.  When a name occurs more than once in one tree, the
 * first occurrence is the node.
 *
 * tree.c has tree_render() and print_tree; tree-mean.c print_mean_tree.
 * tree_render() is the generic core: it works on any list of named, timed
 * items and asks a callback for each node's value columns, so the shell's
 * own bench can reuse it on in-memory spans.  The tree_format_*() functions
 * render a struct stats (see stats.h) as print_tree / print_mean_tree.
 *
 * Ownership: all functions append to a caller-owned strbuf, without a
 * trailing newline (Python's print() adds it); inputs are borrowed.
 */
#ifndef COLLDB_TREE_H
#define COLLDB_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

struct strbuf;

#define TREE_MAX_COLS 3
#define TREE_COL_MAX 96

struct tree_item {
	const char *name; /* dotted name, UTF-8, LEN bytes (may hold NUL) */
	size_t len;
	int64_t ts; /* sibling order; ties keep input order */
	int device; /* non-zero: label gets " [dev]" */
	size_t key; /* handed back to the column callback */
};

/*
 * Fill COLS with the value columns of the node whose first item has KEY;
 * return how many (0 .. TREE_MAX_COLS).  Each column is NUL-terminated.
 */
typedef int (*tree_cols_fn)(void *arg, size_t key,
    char cols[TREE_MAX_COLS][TREE_COL_MAX]);

/* Render ITEMS (in emission order) as one tree; nothing for N == 0. */
void tree_render(struct strbuf *out, const struct tree_item *items, size_t n,
    tree_cols_fn fn, void *arg);

enum tree_spread {
	TREE_SPREAD_STDEV,  /* mean ±stdev (the default) */
	TREE_SPREAD_MINMAX, /* mean [min..max] */
	TREE_SPREAD_BOTH,   /* mean ±stdev [min..max] */
	TREE_SPREAD_NONE,   /* mean */
};

/* "stdev", "minmax", "both", "none" -> *out; -1 for anything else. */
int tree_parse_spread(const char *s, enum tree_spread *out);

/*
 * Value units, the `ns` argument of tree_format_launches() and field of
 * struct tree_mean_opts: 0 microseconds (PyPTO's default), 1 integer
 * nanoseconds (us=False), either OR TREE_MASKED: every figure prints as
 * '*' ("*us" or "*ns", "±*", "[*..*]"), for transcripts that must not
 * depend on timing.
 */
#define TREE_MASKED 2
/* With TREE_MASKED: the launch count of the mean tree's header is a
 * figure too (a bench whose rounds time= picked) and prints as '*'. */
#define TREE_MASK_COUNT 4

/*
 * print_tree(launch, us=!ns): every measured launch, or only LAUNCH when
 * HAS_LAUNCH (a Python index: negative counts from the end).  Returns -1
 * with *cause when LAUNCH is out of range (Python raises IndexError).
 */
int tree_format_launches(const struct stats *st, struct strbuf *out,
    int has_launch, long launch, int ns, char **cause);

struct tree_mean_opts {
	enum tree_spread spread;
	int ns;	     /* values in ns instead of us; TREE_MASKED */
	int has_pid; /* select pid= (L3) */
	int64_t pid;
	int has_slot; /* select slot= (L3) */
	long slot;
};

/* print_mean_tree(us=, spread=, pid=, slot=), messages included. */
void tree_format_mean(const struct stats *st, struct strbuf *out,
    const struct tree_mean_opts *o);

/* The messages PyPTO prints instead of a tree. */
extern const char tree_msg_no_tree[];
extern const char tree_msg_unstable[];

#endif
