/*
 * trace-meta.h - how a trace colldb saved describes itself, so that
 * `colldb tree FILE` and `colldb stats FILE` read it as the shell's `tree`
 * and `bench` did (the run root is the collective, not PyPTO's chip.run).
 *
 * A [STRACE] file starts with one line that simpler's parser ignores:
 *
 *   [colldb] trace v=1 ranks=4 root=allreduce rounds=50 warmup=3
 *
 * and a Chrome JSON file starts with the member
 *
 *   {"colldb": {"trace": 1, "ranks": 4, "root": "allreduce",
 *    "rounds": 50, "warmup": 3}, ...
 *
 * root is the name every run root in the trace shares (a collective's
 * name; single commands, one micro-op each, have no root and do not
 * count), absent when they differ; rounds only for the trace of a bench
 * (warmup is then the bench's, otherwise 0: interactive calls have none).
 *
 * Ownership: trace_meta_read() fills root with a heap string the caller
 * frees (trace_meta_release()).
 */
#ifndef COLLDB_TRACE_META_H
#define COLLDB_TRACE_META_H

#include <stddef.h>

struct strbuf;

struct trace_meta {
	int ranks;   /* 0 if unknown */
	char *root;  /* the run root span, NULL if none */
	long rounds; /* -1: not a bench */
	long warmup; /* -1: not said */
};

/* The header line or JSON member for m, appended (no newline). */
void trace_meta_strace(const struct trace_meta *m, struct strbuf *sb);
void trace_meta_json(const struct trace_meta *m, struct strbuf *sb);

/*
 * Look for a colldb header at the start of buf (the first len bytes of a
 * file).  Returns 1 and fills *m when found, 0 otherwise (*m zeroed, with
 * rounds and warmup -1).
 */
int trace_meta_read(const char *buf, size_t len, struct trace_meta *m);
void trace_meta_release(struct trace_meta *m);

#endif
