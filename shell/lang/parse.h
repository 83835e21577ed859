/*
 * parse.h - the command language's lexical layer: pure functions, no I/O.
 *
 * shell/lang/ is the command language without a world: words, numbers,
 * rank sets, regions and shapes (parse.c), the syntax of `call`
 * (call-expr.h), `repeat` blocks (loop.h).  It uses core's strbuf and
 * xmalloc only; every other folder of the shell may use it.
 *
 * parse_line() splits a line into words.  Quotes ("..." with \-escapes,
 * '...' literal) and bracket/paren groups ([4, 1], f(a, b)) stay one word
 * even with spaces inside; a '#' at the start of a word ends the line.  An
 * unclosed quote or group gives PARSE_INCOMPLETE (the REPL then prompts
 * for more; *err_col is where the innermost open quote or bracket is), a
 * stray closer PARSE_ERROR.  Every word remembers its column
 * in the line so errors can point at it.
 *
 * Ownership: struct words owns its strings; words_free() releases them.
 * Cause strings are the caller's to free().
 */
#ifndef COLLDB_PARSE_H
#define COLLDB_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define RANKSET_WORDS 256 /* 16384 ranks (SEG_MAX_RANKS) */

enum parse_rc { PARSE_OK = 0, PARSE_INCOMPLETE = 1, PARSE_ERROR = -1 };

struct word {
	char *s;    /* unquoted text */
	size_t col; /* column of the first character in the line */
	size_t len; /* length in the line (quotes included) */
	int quoted;
};

struct words {
	struct word *v;
	size_t n;
	size_t alloc;
};

int parse_line(const char *line, struct words *out, char **cause,
    size_t *err_col);
void words_free(struct words *w);
/* Text of the line from word i's column to the end (comment stripped). */
char *words_rest(const struct words *w, const char *line, size_t i);

struct rankset {
	uint64_t w[RANKSET_WORDS];
};

void rankset_clear(struct rankset *s);
void rankset_all(struct rankset *s, int nranks);
void rankset_add(struct rankset *s, int r);
void rankset_del(struct rankset *s, int r);
int rankset_has(const struct rankset *s, int r);
int rankset_count(const struct rankset *s);
int rankset_first(const struct rankset *s);
/* "@0", "@1,3", "@0-2", "@all", "@!1": text for messages (caller frees). */
char *rankset_format(const struct rankset *s, int nranks);

/* Parse "@R", "@R,S", "@R-S", "@all", "@!R" (lists may mix: "@0,2-3",
 * "@!1,2").  0 or -1 + cause. */
int parse_ranks(const char *s, int nranks, struct rankset *out, char **cause);

/* Integers: decimal or 0x hex, optional sign; with_suffix allows k/M/G
 * (powers of 1024, case-insensitive, optional trailing B/iB).
 * 0 or -1 + cause naming s and what was expected. */
int parse_int(const char *s, int64_t *out, int with_suffix, char **cause);
int parse_uint(const char *s, uint64_t *out, int with_suffix, char **cause);
/* A number that may be a float ("1.5", "-2e3", "inf") or an integer. */
int parse_number(const char *s, double *out, char **cause);

/* "[4,1]" / "[256]" -> dims; 0 or -1 + cause. */
int parse_shape(const char *s, uint64_t *dims, int max, int *ndim, char **cause);

/* "[0,-1,2]" -> signed integers (offsets); 0 or -1 + cause. */
int parse_int_list(const char *s, int64_t *out, int max, int *n, char **cause);

/*
 * A region is "name", "name[i]" (flat element), "name[a:b]" (flat slice,
 * either bound optional) or "name[i,j,...]" (one index per dimension; the
 * last may be a slice a:b or ':').  parse_region_syntax() only splits it;
 * region_resolve() (with the shape) checks bounds.
 */
struct region_syntax {
	char name[64];
	int has_index; /* brackets present */
	int nidx;      /* number of comma-separated parts */
	struct {
		int slice; /* a:b form */
		int has_lo, has_hi;
		int64_t lo, hi; /* index when !slice */
	} idx[8];
	size_t bracket_col; /* offset of '[' inside the word */
};

int parse_region_syntax(const char *s, struct region_syntax *out, char **cause);

/* Resolve against a shape: first element and count (flat, row-major).
 * is_cell is set when the region names exactly one element by index. */
int region_resolve(const struct region_syntax *rs, const uint64_t *shape,
    int ndim, uint64_t *first, uint64_t *count, int *is_cell, char **cause);

/* Edit distance (a neighbour swap counts one edit), for did-you-mean. */
size_t edit_distance(const char *a, const char *b);

/*
 * The one did-you-mean rule, for commands, settings and windows alike:
 * a candidate is near a typed word when the edit distance is at most 2
 * (and less than the longer word's length), or when the typed word is a
 * longer form of it (two letters longer at least, the candidate three at
 * least): its start (the candidate's length, give or take a letter)
 * within one edit ("alocate" is near "alloc", "frobnicate" not
 * near "free"); the nearest wins, then the nearest as a whole word
 * ("timeot" is "timeout", not "times"), then the first.
 *   struct nearest n = NEAREST_INIT;
 *   for each candidate: nearest_try(&n, typed, candidate);
 *   n.best: the suggestion, or NULL.
 */
struct nearest {
	const char *best;
	size_t d, whole;
};
#define NEAREST_INIT \
	{ \
		NULL, (size_t)-1, (size_t)-1 \
	}
void nearest_try(struct nearest *n, const char *typed, const char *cand);

#endif
