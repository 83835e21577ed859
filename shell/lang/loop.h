/*
 * loop.h - `repeat N` ... `end` blocks of the command language.
 *
 * Pure functions over lines, no I/O and no session: the prompt, scripts,
 * lessons and any other front end (explore) collect, run and expand loops
 * with the same code, so a loop means one thing everywhere.
 *
 * A block opens with a line `repeat N` (N a count, 0 allowed) and closes
 * with a line `end`, each on a line of its own; blocks nest.  The body is
 * kept verbatim (nested blocks included) and is split into commands again
 * on every iteration, so a nested block is collected afresh each time.
 * Which words are `repeat` and `end` is the caller's to say (a resolver
 * that maps a command word to its canonical name, e.g. through the command
 * table with its unique prefixes), so the module stays independent of it.
 *
 * Ownership: a struct loop_block owns its lines (loop_block_release());
 * loop_expand()'s result is the caller's (loop_lines_free()); cause
 * strings are the caller's to free().
 */
#ifndef COLLDB_LOOP_H
#define COLLDB_LOOP_H

#include <stddef.h>
#include <stdint.h>

/* The most iterations a repeat takes (a typo like 1e9 is refused). */
#define LOOP_MAX_COUNT 100000000ull

enum loop_line {
	LOOP_PLAIN,  /* any other line (commands, comments, blank) */
	LOOP_REPEAT, /* repeat N: *count set */
	LOOP_END,    /* end */
	LOOP_BAD,    /* a malformed repeat or end: cause, col, len set */
};

/* Canonical command name of a word, or NULL when it is none. */
typedef const char *(*loop_resolve_fn)(const char *word);

/*
 * Classify one line.  For LOOP_BAD, *cause says what is wrong and *col /
 * *len locate the bad word in the line (for a caret).
 */
enum loop_line loop_classify(const char *line, loop_resolve_fn resolve,
    uint64_t *count, char **cause, size_t *col, size_t *len);

struct loop_block {
	uint64_t count; /* iterations */
	char *head;	/* the repeat line, for messages */
	char **lines;	/* the body, verbatim */
	size_t nlines, alines;
	int depth; /* nested blocks open while collecting */
};

void loop_block_init(struct loop_block *b, uint64_t count, const char *head);
/*
 * Feed the next line of an open block: 1 when it was the block's own
 * `end` (not stored), 0 when it went into the body, -1 (with cause, col
 * and len as loop_classify() sets them) for a malformed repeat or end,
 * which is not stored: the block stays open.
 */
int loop_block_feed(struct loop_block *b, const char *line,
    loop_resolve_fn resolve, char **cause, size_t *col, size_t *len);
void loop_block_release(struct loop_block *b);

/*
 * Run a block: for every iteration k = 0..count-1, iter(arg, b, k) (may be
 * NULL), then every command of the body through line(arg, text); a nested
 * block in the body is collected and run recursively (its iter calls
 * included).  Stops at the first non-zero return, which is returned.  A
 * nested block without its `end` calls bad(arg, head, cause); the body of
 * a block that was closed cannot have one, so that only happens to hand-
 * built blocks.
 */
struct loop_ops {
	int (*iter)(void *arg, const struct loop_block *b, uint64_t k);
	int (*line)(void *arg, const char *text);
	int (*bad)(void *arg, const char *head, const char *cause);
	loop_resolve_fn resolve;
};
int loop_block_run(const struct loop_block *b, const struct loop_ops *ops,
    void *arg);

/*
 * Unroll every block of lines[0..n) into plain lines (the repeat and end
 * lines dropped, bodies repeated).  0, or -1 + cause: an end without a
 * repeat, a repeat without its end, a malformed repeat, or more than max
 * lines of output.
 */
int loop_expand(char *const *lines, size_t n, loop_resolve_fn resolve,
    size_t max, char ***out, size_t *nout, char **cause);
void loop_lines_free(char **lines, size_t n);

#endif
