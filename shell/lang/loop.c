/* loop.c - repeat ... end blocks; see loop.h. */
#include <stdlib.h>
#include <string.h>

#include "loop.h"
#include "parse.h"
#include "xmalloc.h"

enum loop_line
loop_classify(const char *line, loop_resolve_fn resolve, uint64_t *count,
    char **cause, size_t *col, size_t *len)
{
	struct words w;
	const char *name;
	enum loop_line k = LOOP_PLAIN;
	char *why = NULL;
	size_t ecol;

	if (parse_line(line, &w, &why, &ecol) != PARSE_OK) {
		free(why);
		return LOOP_PLAIN; /* the command parser says what is wrong */
	}
	if (w.n == 0 || w.v[0].quoted || w.v[0].s[0] == '@' ||
	    (name = resolve(w.v[0].s)) == NULL)
		goto out;
	if (strcmp(name, "end") == 0) {
		k = LOOP_END;
		if (w.n > 1) {
			k = LOOP_BAD;
			cause_set(cause,
			    "'end' takes nothing after it, got '%s'", w.v[1].s);
			*col = w.v[1].col;
			*len = w.v[1].len;
		}
	} else if (strcmp(name, "repeat") == 0) {
		uint64_t n = 0;

		k = LOOP_REPEAT;
		if (w.n != 2) {
			k = LOOP_BAD;
			if (w.n < 2) {
				cause_set(cause,
				    "repeat needs a count (usage: repeat N, then the commands, then end)");
				*col = w.v[0].col;
				*len = w.v[0].len;
			} else {
				cause_set(cause,
				    "repeat takes only a count, got '%s' after it (the commands go on the lines that follow)",
				    w.v[2].s);
				*col = w.v[2].col;
				*len = w.v[2].len;
			}
		} else if (parse_uint(w.v[1].s, &n, 0, &why) != 0 ||
		    n > LOOP_MAX_COUNT) {
			k = LOOP_BAD;
			cause_set(cause,
			    "bad count '%s' for repeat (expected a number 0..%llu)",
			    w.v[1].s, LOOP_MAX_COUNT);
			*col = w.v[1].col;
			*len = w.v[1].len;
		} else {
			*count = n;
		}
	}
out:
	free(why);
	words_free(&w);
	return k;
}

void
loop_block_init(struct loop_block *b, uint64_t count, const char *head)
{
	memset(b, 0, sizeof *b);
	b->count = count;
	b->head = xstrdup(head);
}

static void
block_add(struct loop_block *b, const char *line)
{
	if (b->nlines == b->alines) {
		b->alines = b->alines ? 2 * b->alines : 8;
		b->lines = xreallocarray(b->lines, b->alines, sizeof *b->lines);
	}
	b->lines[b->nlines++] = xstrdup(line);
}

int
loop_block_feed(struct loop_block *b, const char *line, loop_resolve_fn resolve,
    char **cause, size_t *col, size_t *len)
{
	uint64_t n;

	switch (loop_classify(line, resolve, &n, cause, col, len)) {
	case LOOP_BAD:
		return -1;
	case LOOP_REPEAT:
		b->depth++;
		break;
	case LOOP_END:
		if (b->depth == 0)
			return 1;
		b->depth--;
		break;
	default:
		break;
	}
	block_add(b, line);
	return 0;
}

void
loop_block_release(struct loop_block *b)
{
	loop_lines_free(b->lines, b->nlines);
	free(b->head);
	memset(b, 0, sizeof *b);
}

/*
 * The block that opens at body line *i (a repeat line), collected up to
 * its end; *i is left on that end.  0, or -1 when the body ends first.
 */
static int
nested(const struct loop_block *b, size_t *i, uint64_t count,
    loop_resolve_fn resolve, struct loop_block *out)
{
	char *cause = NULL;
	size_t col, len;

	loop_block_init(out, count, b->lines[*i]);
	for ((*i)++; *i < b->nlines; (*i)++) {
		int rc = loop_block_feed(out, b->lines[*i], resolve, &cause,
		    &col, &len);
		free(cause);
		cause = NULL;
		if (rc == 1)
			return 0;
	}
	return -1;
}

int
loop_block_run(const struct loop_block *b, const struct loop_ops *ops, void *arg)
{
	int rc = 0;

	for (uint64_t k = 0; k < b->count && rc == 0; k++) {
		if (ops->iter != NULL && (rc = ops->iter(arg, b, k)) != 0)
			break;
		for (size_t i = 0; i < b->nlines && rc == 0; i++) {
			struct loop_block inner;
			char *cause = NULL;
			size_t col, len;
			uint64_t n = 0;

			switch (loop_classify(b->lines[i], ops->resolve, &n,
			    &cause, &col, &len)) {
			case LOOP_REPEAT:
				if (nested(b, &i, n, ops->resolve, &inner) != 0)
					rc = ops->bad(arg, inner.head,
					    "this repeat has no 'end'");
				else
					rc = loop_block_run(&inner, ops, arg);
				loop_block_release(&inner);
				break;
			case LOOP_END:
				rc = ops->bad(arg, b->lines[i],
				    "'end' without a repeat");
				break;
			case LOOP_BAD:
				rc = ops->bad(arg, b->lines[i], cause);
				break;
			default:
				rc = ops->line(arg, b->lines[i]);
			}
			free(cause);
		}
	}
	return rc;
}

/* loop_expand() collects output lines through loop_block_run(). */
struct expand {
	char **out;
	size_t n, a, max;
	char *cause;
};

static int
expand_line(void *arg, const char *text)
{
	struct expand *x = arg;

	if (x->n == x->max) {
		x->cause =
		    xasprintf("the loops unroll to more than %zu lines", x->max);
		return -1;
	}
	if (x->n == x->a) {
		x->a = x->a ? 2 * x->a : 16;
		x->out = xreallocarray(x->out, x->a, sizeof *x->out);
	}
	x->out[x->n++] = xstrdup(text);
	return 0;
}

static int
expand_bad(void *arg, const char *head, const char *cause)
{
	struct expand *x = arg;

	x->cause = xasprintf("%s: %s", head, cause);
	return -1;
}

int
loop_expand(char *const *lines, size_t n, loop_resolve_fn resolve, size_t max,
    char ***out, size_t *nout, char **cause)
{
	struct loop_ops ops = { NULL, expand_line, expand_bad, resolve };
	struct expand x = { NULL, 0, 0, max, NULL };
	struct loop_block top;
	int rc = 0;

	/* The whole input is the body of a block run once; a stray end at
	 * its top level is an error there, an open repeat runs off the end. */
	loop_block_init(&top, 1, "");
	for (size_t i = 0; i < n; i++)
		block_add(&top, lines[i]);
	rc = loop_block_run(&top, &ops, &x);
	loop_block_release(&top);
	if (rc != 0) {
		loop_lines_free(x.out, x.n);
		if (cause != NULL)
			*cause = x.cause;
		else
			free(x.cause);
		*out = NULL;
		*nout = 0;
		return -1;
	}
	*out = x.out;
	*nout = x.n;
	return 0;
}

void
loop_lines_free(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}
