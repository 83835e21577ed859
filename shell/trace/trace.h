/*
 * trace.h - shell/trace/: the spans the ranks record (core/span.h), as the
 * session collects them (trace.c, a session hook), saves them as Chrome
 * trace-event JSON or [STRACE] lines (trace-save.c, trace-flow.c) with a
 * header saying what they are (trace-meta.h), and reads such files back
 * for `colldb tree` / `colldb stats` (tool-logs.h).
 *
 * May use: core, viz, shell/lang, out, view, session.  Not cmd, bench,
 * diag, repl or start.
 */
#ifndef COLLDB_TRACE_H
#define COLLDB_TRACE_H

#include <stdio.h>

#include "session/session.h"
#include "span.h"
#include "trace/trace-meta.h"

/* ---- trace.c: the spans the ranks record (core/span.h) ------------------- */

/*
 * The session's trace: every span record drained from the ranks' rings
 * since the session started, the last `trace clear` or the last `bench`,
 * with the programs (and window tables) needed to name them.  At most
 * TRACE_KEEP records are kept; later ones are counted as not kept, except
 * roots (level 1), which are always kept.  The rings are drained on every
 * session_pump(), so ranks never wait for the shell.
 */
#define TRACE_KEEP 2000000
/* TRACE_KEEP, or COLLDB_TRACE_KEEP from the environment (1000..10^9;
 * another value is warned about once and the default used). */
unsigned long trace_keep(void);
/* ... and the programs of at most TRACE_PROGS_MAX commands (each names its
 * records; a long interactive session would otherwise keep ~1.6 KB per
 * command for ever): beyond, the oldest quarter goes with its records,
 * counted as dropped, except the last bench's. */
#define TRACE_PROGS_MAX 16384

struct trace;
struct span_rec;

/* A record with its names resolved (borrowed until the next trace call). */
struct trace_span {
	const struct span_rec *rec;
	const struct prog *prog;
	const struct uop *op; /* the micro-op, NULL for a phase */
	struct seg *wins;     /* window table when the program was sent */
	const char *name;     /* dotted span name */
	int depth;	      /* components - 1 */
	uint64_t inv;	      /* per rank: 1 + runs (tag, iteration) before */
	uint64_t hid;	      /* hash of the program's description */
	int coll;	      /* collective instance, 0 if none */
};

/* What trace_summary() reports. */
struct trace_counts {
	uint64_t kept;	   /* records held */
	uint64_t not_kept; /* drained past TRACE_KEEP */
	uint64_t dropped;  /* of commands older than TRACE_PROGS_MAX */
	uint64_t lost;	   /* dropped by full rings (all ranks) */
	uint64_t unnamed;  /* records of a program the shell no longer had */
	uint32_t gen;	   /* bumped by every trace_clear() */
};

/* trace_init, trace_drain, trace_job_done and trace_free as a session
 * hook (the session calls them; nothing else needs to). */
extern const struct session_hook trace_session_hook;
void trace_init(struct session *s);
void trace_free(struct session *s);
/* Copy new records from every rank's ring. */
void trace_drain(struct session *s);
/* Rank r finished job j: drain it and keep j's program if spans name it
 * (j->prog becomes NULL then). */
void trace_job_done(struct session *s, int r, struct job *j);
/* Drain, then forget every record and program (lost counts restart). */
void trace_clear(struct session *s);
void trace_summary(struct session *s, struct trace_counts *c);
/* Keep the programs tagged tags[0..n) whatever TRACE_PROGS_MAX lets go
 * (the last bench's: `tree` shows them); replaces the previous pins. */
void trace_pin(struct session *s, const uint32_t *tags, size_t n);
/* Records lost by rank r's ring since the last clear. */
uint64_t trace_lost(struct session *s, int r);
/*
 * Call fn on every record (in each rank's order), or only on those of the
 * programs whose tags are in tags[0..ntags) (NULL: all); roots_only skips
 * all but level-1 records.  fn returns non-zero to stop.
 */
typedef int (*trace_visit_fn)(void *arg, const struct trace_span *sp);
void trace_visit(struct session *s, const uint32_t *tags, size_t ntags,
    int roots_only, trace_visit_fn fn, void *arg);

/* ---- trace-save.c: Chrome trace-event JSON and [STRACE] lines ----------- */

enum trace_format { TRACE_JSON, TRACE_STRACE };

/* Write the trace to path (atomically, via a temporary file); 0, or -1
 * with *cause.  *nspans receives the spans written.  meta becomes the
 * file's header (trace-meta.h). */
int trace_save(struct session *s, const char *path, enum trace_format fmt,
    const struct trace_meta *meta, uint64_t *nspans, char **cause);
/* Append the strace attributes of sp ("peer=1 cell=sig%5B0%5D ..."). */
void trace_attrs(const struct trace_span *sp, struct strbuf *sb);

/* ---- trace-flow.c: notify->wait arrows of the JSON trace ---------------- */

struct trace_flows;

/* ns as microseconds with exactly three decimals (exact, invertible). */
void trace_json_us(struct strbuf *sb, uint64_t ns);
struct trace_flows *trace_flows_new(void);
void trace_flows_free(struct trace_flows *f);
/* Remember sp if it is a notify or a wait. */
void trace_flows_note(struct trace_flows *f, const struct trace_span *sp);
/* Append a ",\n"-led "s"/"f" event pair per wait whose releasing notify
 * is known; sb is written to fp whenever it grows large. */
void trace_flows_json(struct trace_flows *f, struct strbuf *sb, FILE *fp);

#endif
