/*
 * strace.h - span records: a string pool and span array (struct span_set,
 * spanset.c), the PyPTO/simpler "[STRACE]" log parser (strace.c, with
 * Python's text rules in strace-text.c), and the Chrome trace-event reader
 * (chrome-read.c).
 *
 * A span is one timed, named scope of one invocation, exactly the fields of
 * simpler's `[STRACE] v=1` record (docs/benchmarking.md):
 *
 *   [STRACE] v=1 pid=P tid=T inv=I hid=H depth=D name=N ts=NS dur=NS [k=v ...]
 *
 * The parser follows simpler's strace_timing.parse_spans() and the text
 * handling PyPTO's bench.py puts in front of it, rule for rule:
 *   - the input is UTF-8; invalid bytes become U+FFFD (Python's
 *     errors="replace"), lines end where str.splitlines() ends them, and
 *     every "[STRACE]" starts a new line (two records may share one
 *     physical line when forked ranks share a file descriptor);
 *   - a record is recognised anywhere on a line; its attributes run up to
 *     the next host-log prefix ("[mono_ns=..][T0x..][LEVEL] func: "), the
 *     next record or the end of the line, and are stripped of whitespace;
 *   - names are percent-decoded byte by byte into code points U+0000-U+00FF
 *     (as Python's chr() does, so "%C3%A9" reads as two characters); a
 *     trailing '~' (truncation marker) is kept; hid is lower-cased;
 *   - a record that does not match the grammar is dropped (as simpler
 *     does) and, when it starts like one ("[STRACE] v=<n>"), reported as a
 *     diagnostic with its physical line number;
 *   - "[pypto] l3_swimlane_pass=timing event=begin|end" sentinels delimit
 *     the clean timing regions of a two-pass L3 capture: spans inside a
 *     complete region carry SPAN_VIEW_TIMING, and the set records whether
 *     the sentinels were well formed and how many regions there were.
 * Deviations, all for input Python would accept only by its unbounded
 * integers or Unicode digit classes: numeric fields must be ASCII digits
 * and fit in 63 bits (depth in 31); other records are diagnosed and dropped.
 *
 * Ownership: a span_set owns its spans and strings.  Strings never move once
 * interned, so `const char *` results of span_set_str() are borrowed until
 * span_set_free(); `const struct span *` results of span_set_spans() are
 * borrowed until the next span_set_add() or parse call on the same set.
 * Diagnostics are owned by the set.
 */
#ifndef COLLDB_STRACE_H
#define COLLDB_STRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/common.h"

#define SPAN_NOSTR UINT32_MAX /* "no such string" from span_set_lookup() */

enum span_flags {
	SPAN_DEVICE = (1 << 0),	   /* attrs contain "clk=dev" (device clock) */
	SPAN_VIEW_FULL = (1 << 1), /* in the whole-log view */
	SPAN_VIEW_TIMING = (1 << 2), /* in the L3 timing-region view */
	SPAN_FOREIGN = (1 << 3),     /* l3./node./network1-3./ext. family: */
				     /* carries no invocation, never grouped */
};

struct span {
	int64_t pid; /* OS pid of the emitting process (rank) */
	int64_t tid;
	uint64_t inv;	/* invocation id, unique per pid */
	int64_t ts;	/* start, ns (host monotonic or device clock) */
	int64_t dur;	/* duration, ns */
	uint32_t name;	/* string id: decoded dotted name */
	uint32_t hid;	/* string id: callable hash, lower case */
	uint32_t attrs; /* string id: raw attributes, stripped */
	int32_t depth;	/* nesting level, 0 = invocation root */
	uint32_t line;	/* 1-based source line, 0 if not from a log */
	uint32_t flags; /* enum span_flags */
};

/* How the L3 swimlane sentinels looked (see strace_timing_state). */
enum strace_timing {
	STRACE_TIMING_NONE = 0, /* no "[pypto] l3_swimlane_pass=" at all */
	STRACE_TIMING_OK,	/* complete begin/end regions, counted */
	STRACE_TIMING_BAD,	/* malformed or incomplete sentinels */
};

struct strace_diag {
	uint32_t line; /* 1-based physical line (0: whole input) */
	char *msg;     /* owned by the set */
};

struct span_set;

struct span_set *span_set_new(void);
void span_set_free(struct span_set *set);

/*
 * Intern LEN bytes at S (may contain NUL) and return its id; equal strings
 * get equal ids.  span_set_str() is NUL-terminated; span_set_strlen() gives
 * the length in bytes.  span_set_lookup() returns SPAN_NOSTR if absent.
 */
uint32_t span_set_intern(struct span_set *set, const char *s, size_t len);
uint32_t span_set_lookup(const struct span_set *set, const char *s, size_t len);
const char *span_set_str(const struct span_set *set, uint32_t id);
size_t span_set_strlen(const struct span_set *set, uint32_t id);
/* Number of interned strings: ids are 0 .. span_set_nstr() - 1. */
uint32_t span_set_nstr(const struct span_set *set);

/*
 * Append one span built in memory (the shell's bench does this).  NAME, HID
 * and ATTRS are C strings copied into the pool (NAME already decoded; HID
 * is lower-cased).  The flags are derived exactly as for a parsed record:
 * SPAN_DEVICE from ATTRS, SPAN_FOREIGN from NAME, both view bits set.
 * Returns the span's index.
 */
size_t span_set_add(struct span_set *set, int64_t pid, int64_t tid,
    uint64_t inv, const char *hid, int depth, const char *name, int64_t ts,
    int64_t dur, const char *attrs);

/* span_set_add() with counted strings (NAME may contain NUL). */
size_t span_set_add_n(struct span_set *set, int64_t pid, int64_t tid,
    uint64_t inv, const char *hid, size_t hid_len, int depth, const char *name,
    size_t name_len, int64_t ts, int64_t dur, const char *attrs,
    size_t attrs_len);

const struct span *span_set_spans(const struct span_set *set, size_t *n);

/* Lines read so far (physical lines, '\n'-terminated or final). */
uint32_t span_set_lines(const struct span_set *set);

/* Swimlane sentinel summary; *blocks = complete timing regions when OK. */
enum strace_timing span_set_timing(const struct span_set *set, long *blocks);

/* Non-zero when the input contained "[pypto] l3_swimlane_pass=" anywhere. */
int span_set_has_pass_marker(const struct span_set *set);

/*
 * Diagnostics collected while reading (malformed records and the like):
 * at most STRACE_DIAG_KEEP are kept, *total counts all of them.
 */
#define STRACE_DIAG_KEEP 64
const struct strace_diag *span_set_diags(const struct span_set *set, size_t *n,
    size_t *total);
/* Add a diagnostic (readers other than the log parser use this). */
void span_set_diag(struct span_set *set, uint32_t line, const char *fmt, ...)
    printflike(3, 4);

/*
 * Streaming parser: feed any chunking of the input, then finish.  The
 * parser appends to SET; finishing settles the sentinel state.
 */
struct strace_parser;

struct strace_parser *strace_parser_new(struct span_set *set);
void strace_parser_feed(struct strace_parser *p, const char *buf, size_t len);
void strace_parser_finish(struct strace_parser *p);
void strace_parser_free(struct strace_parser *p);

/* Parse a whole buffer (feed + finish). */
void strace_parse_buf(struct span_set *set, const char *buf, size_t len);

/* Percent-decode NAME as simpler's decode_field() does, into OUT (UTF-8). */
struct strbuf;
void strace_decode_field(struct strbuf *out, const char *s, size_t len);

/* Number of code points in a valid UTF-8 string (display width in PyPTO). */
size_t strace_utf8_len(const char *s, size_t len);

/*
 * Internals shared by the readers (strace.c, strace-text.c, chrome-read.c)
 * and the set (spanset.c); not for other callers.
 */
struct span *span_set_push(struct span_set *set); /* uninitialised */
uint32_t span_set_flags_for(const struct span_set *set, uint32_t name,
    uint32_t attrs); /* SPAN_DEVICE and SPAN_FOREIGN of a name/attrs */
uint32_t span_set_next_line(struct span_set *set); /* count a line */
void span_set_mark_pass(struct span_set *set);	   /* saw a pass sentinel */
void span_set_settle_timing(struct span_set *set, enum strace_timing timing,
    long blocks);
/* Bytes in the str.isspace() code point at S (< E), or 0. */
size_t strace_ws_len(const char *s, const char *e);
/* Bytes in the str.splitlines() break at S other than '\n', or 0. */
size_t strace_break_len(const char *s, const char *e);
/* Replace invalid UTF-8 as Python's errors="replace": 0 if S was valid,
 * else 1 with the repaired text in OUT. */
int strace_utf8_repair(const char *s, size_t n, struct strbuf *out);

/* chrome-read.c */

/*
 * Read Chrome trace-event JSON (simpler's to_chrome_trace layout: "X"
 * events whose args carry inv, hid, depth and attrs, one lane per
 * invocation named "<label> inv=<n> (pid=<p>)") back into spans.  Events
 * that are not complete spans are skipped.  Returns 0, or -1 with *cause
 * (naming line and column for a JSON syntax error).
 */
int chrome_read(struct span_set *set, const char *buf, size_t len, char **cause);

/* Non-zero if BUF looks like JSON rather than a text log. */
int chrome_sniff(const char *buf, size_t len);

#endif
