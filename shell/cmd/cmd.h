/*
 * cmd.h - shell/cmd/: the commands.  The one command table and lookup
 * (table.c), running a line against it (run.c: arity, preconditions,
 * usage errors; help and completion read the same table); argument helpers (args.c, coll-args.c); running
 * lines and scripts (script.c); sending a command's programs (submit.c);
 * one cmd-*.c per command or small family, each exporting its const
 * struct cmd_entry.  A new command is a cmd-NAME.c here and a line in
 * cmd_table[].
 *
 * Re-entry, by design: the table names every entry, and a few entries
 * read the table or run lines themselves (help and completion list it;
 * source, start, pause and repeat run lines through cmd_run_line()).
 * Those are the only circles.
 *
 * May use: core, viz, shell/lang, out, view, session, user, diag, trace.
 * Not bench (the table only names its entries), repl or start.
 *
 * Output: command output goes to stdout, `error:` / `warning:` lines to
 * stderr (out/out.h); an exec function reports through its context
 * (cmd_error(), arg_error()) and returns enum cmd_retval.
 */
#ifndef COLLDB_CMD_H
#define COLLDB_CMD_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "call.h"
#include "coll.h"
#include "common.h"
#include "diag/diagnose.h"
#include "lang/call-expr.h"
#include "lang/parse.h"
#include "out/out.h"
#include "prog.h"
#include "seg.h"
#include "session/session.h"
#include "strbuf.h"
#include "trace/trace.h"
#include "view/view.h"

/* ---- table.c, run.c: the command table; args.c: argument helpers -------- */

enum cmd_retval { CMD_ERROR = -1, CMD_OK = 0, CMD_QUIT = 1 };

enum cmd_group {
	GRP_WORLD,
	GRP_WINDOWS,
	GRP_SIGNALS,
	GRP_COLL,
	GRP_CONTROL,
	GRP_OBSERVE,
	GRP_BENCH,
	GRP_CODE,
	GRP_SCRIPT,
	GRP_SESSION,
	GRP__COUNT
};

/*
 * What an entry asks of the line and of the world.  The preconditions
 * (CMD_NEEDS_*, CMD_AGENTS_ONLY) are checked once, in cmd_run_line(),
 * after the arity and before exec, in the order they are listed, each
 * with one wording for every command that sets it (git's RUN_SETUP).
 */
enum cmd_flags {
	CMD_TARGETS = 1 << 0,		/* accepts an @ranks prefix */
	CMD_ALL_RANKS_ONLY = 1 << 1,	/* always all ranks; @ is an error */
	CMD_NO_SETTLE = 1 << 2,		/* do not wait for quiescence after */
	CMD_NO_CAPTURE = 1 << 3,	/* keep the previous capture (expect) */
	CMD_AGENTS_ONLY = 1 << 4,	/* needs ranks that run the shell's
					 * programs: refused where the ranks
					 * run their own code (`colldb run`);
					 * .agents_why says why */
	CMD_RAW_REST = 1 << 5,		/* the rest of the line is one
					 * argument, verbatim (say) */
	CMD_RANKS_ARG = 1 << 6,		/* its argument is an @ranks list,
					 * not a target (focus) */
	CMD_NEEDS_TARGETS = 1 << 7,	/* an explicit @ranks is required */
	CMD_NEEDS_NO_COLL = 1 << 8,	/* no collective in progress */
	CMD_NEEDS_NO_BREAKS = 1 << 9,	/* no breakpoint set */
	CMD_NEEDS_ALL_IDLE = 1 << 10,	/* every rank alive and idle */
};

struct cmdctx;

struct cmd_entry {
	const char *name;
	const char *alias;
	const char *usage;	/* arguments, after the name */
	const char *summary;
	const char *example;
	enum cmd_group group;
	int min_args, max_args;	/* max -1: unlimited */
	unsigned flags;		/* enum cmd_flags */
	const char *const *keywords;	/* completion candidates */
	/* CMD_AGENTS_ONLY: why, after "not available under 'colldb run': "
	 * (NULL: the collectives' reason) */
	const char *agents_why;
	const void *data;	/* what exec needs besides the words (a
				 * collective's enum coll_kind), or NULL */
	enum cmd_retval (*exec)(struct cmdctx *ctx);
};

struct cmdctx {
	struct session *s;
	const struct cmd_entry *entry;
	const char *line;	/* the whole line */
	struct words w;		/* words after the @prefix and name */
	struct rankset targets;
	int explicit_targets;	/* an @ prefix was given */
	const char *target_text;
	struct { int rank; uint32_t tag; } *subs;	/* programs sent */
	size_t nsubs;
	int nerrors;		/* errors reported (cmd_error, arg_error) */
};

extern const struct cmd_entry *const cmd_table[];
extern const char *const cmd_group_names[GRP__COUNT];

/* Run one line; returns enum cmd_retval.  *incomplete is set (and nothing
 * runs) when the line needs continuation. */
enum cmd_retval cmd_run_line(struct session *s, const char *line,
    int *incomplete);
/* Find by alias, exact name, then unique prefix; NULL + cause if none. */
const struct cmd_entry *cmd_find(const char *name, char **cause);
void cmd_usage_error(struct cmdctx *ctx, const char *fmt, ...) printflike(2, 3);
/* An error of the running command: "error: ..." (counted in the ctx);
 * returns -1, so `return cmd_error(ctx, ...)` reads as a failure. */
printflike(2, 3) int cmd_error(struct cmdctx *ctx, const char *fmt, ...);

/* Errors about argument i (0-based after the name): caret under it. */
printflike(3, 4) int arg_error(struct cmdctx *ctx, size_t i, const char *fmt,
    ...);
const char *arg(struct cmdctx *ctx, size_t i);
size_t nargs(struct cmdctx *ctx);
/* key=value options from argument `from` on; unknown keys are errors. */
int arg_is_kv(const char *a, const char *key, const char **val);
/* Argument i is KEY=VALUE and one of arguments from..i-1 set KEY too:
 * say so and return -1 (else 0). */
int arg_key_repeated(struct cmdctx *ctx, size_t from, size_t i);

/* Peers: a rank number, next, prev or all (every rank but self).
 * peer_syntax_ok() checks argument i; peer_list() expands it for rank. */
int peer_syntax_ok(struct cmdctx *ctx, size_t i);
int peer_list(struct cmdctx *ctx, size_t i, int rank, int *peers);	/* peers: nranks entries */

/* Targets the command applies to, minus dead ranks (an explicit dead one
 * is an error).  targets_live() also refuses when a target's queue is
 * full (commands that send); targets_alive() does not (interrupt, kill). */
int targets_alive(struct cmdctx *ctx, struct rankset *out);
int targets_live(struct cmdctx *ctx, struct rankset *out);

/* The window whose name is closest to name (a typo), or NULL. */
const char *nearest_window(struct view *v, const char *name);
/* Resolve a window name with did-you-mean. */
struct seg_window *win_lookup(struct cmdctx *ctx, size_t i, const char *name);
/* Resolve argument i as a region. */
struct region {
	struct seg_window *w;
	uint64_t first, count;
	int is_cell;
};
int region_arg(struct cmdctx *ctx, size_t i, struct region *r);
/* Resolve argument i as a single i32 cell. */
int cell_arg(struct cmdctx *ctx, size_t i, struct region *r);

/* ---- the person at the terminal ------------------------------------------- */

/* Where a command that asks the person a line (`pause`) reads it; the
 * line editor, set by the start-up (NULL: nobody to ask, as in batch). */
struct cmd_reader {
	/* a line without its newline (the caller frees), or NULL at EOF */
	char *(*read)(const char *prompt);
	/* whether the last read was ended by Ctrl-C */
	int (*cancelled)(void);
	void (*history_add)(const char *line);
};
extern const struct cmd_reader *cmd_reader;

/* ---- script.c: scripts and batch mode ------------------------------------ */

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_HANG = 3 };

struct script_state {
	int expect_error;	/* next command must fail */
	int failed;		/* an error or failed expect happened */
	int depth;		/* source nesting */
	int quit;
};
extern struct script_state script;

/* Run one complete line (cmd_run_line plus `expect error` bookkeeping). */
enum cmd_retval script_run_line(struct session *s, const char *line,
    int *incomplete);
/* The same for a line that must be complete (a script's, a pause's): an
 * unclosed quote or bracket is an error naming it, at the line's end. */
enum cmd_retval script_run_whole(struct session *s, const char *line);
/* A repeat block is being collected (the prompt shows "... "). */
int script_block_open(void);
/* Drop the block being collected (Ctrl-C at the prompt). */
void script_block_cancel(void);
/* Run FILE; returns 0, or -1 after an error (already reported). */
int script_run_file(struct session *s, const char *path);
/* Run lines from fp (script or batch stdin). */
int script_run_stream(struct session *s, FILE *fp, const char *name);

/* ---- cmd-reset.c / cmd-alloc.c -------------------------------------------- */

/* Before an iteration of a repeat: zero what `set reset-windows` names;
 * 0, or -1 (said) when a window is missing or in use. */
int windows_reset_each(struct session *s);
/* Window w is in use by a rank's job (running or queued): say so, with a
 * caret under argument i, and return -1; else 0. */
int window_busy(struct cmdctx *ctx, size_t i, const struct seg_window *w);

/* ---- cmd-record.c --------------------------------------------------------- */

/* Append a command that ran (explicit targets), or an event as a comment. */
void record_command(struct cmdctx *ctx);
void record_event(const char *text);
/* Around each command: its events are written after its line. */
void record_begin(void);
void record_end(void);
/* While `start` runs its command, only the start line is recorded. */
void record_suppress(int on);
void record_close(void);
/* record-expect.c: copy every window's cells (before a command); append
 * the expect lines for what changed since, and the ranks' states when
 * they changed (after it); forget everything (record stop). */
void record_expect_snap(struct session *s);
void record_expect_diff(struct session *s, struct strbuf *out);
void record_expect_reset(void);

/* ---- cmd-step.c --------------------------------------------------------------- */

/* One line for rank r in `where` form: "rank 0: stopped  allreduce(ring)
 * step 2/105 rs row 0: wait sig[0,3] >= 1 (now 0)". */
void where_line(struct session *s, int r, struct strbuf *sb);
/* Release stopped targets: n micro-ops each (stepping) or free running;
 * *moved gets who was released.  0, or -1 + cause when none is stopped. */
int ranks_release(struct session *s, const struct rankset *targets,
    int stepping, uint32_t n, struct rankset *moved, char **cause);
/* Settle, then print the `where` line of every released rank (and of
 * ranks that finished meanwhile). */
void report_moved(struct session *s, const struct rankset *released);
/* cmd-break.c: the `info breaks` list. */
void breaks_list(struct session *s);
/* "@RANKS" and "if CELL CMP V" from argument i on: the rank set (the
 * targets unless given) and the condition into nb; 0 or -1 (reported). */
int break_tail_parse(struct cmdctx *ctx, size_t i, struct seg_break *nb,
    struct rankset *set);

/* ---- break-spec.c: what breakpoints stop at --------------------------------- */

extern const char *const break_kinds[];
/* Parse the location at argument *i (a kind, FILE:LINE, cdb_FUNCTION,
 * `row R`, `cell WIN[R,C]`) into nb; *i moves past it.  0 or -1. */
int break_spec_parse(struct cmdctx *ctx, size_t *i, struct seg_break *nb);
/* Whether a word reads as a location until/advance take (FILE:LINE,
 * LINE, cdb_FUNCTION). */
int break_spec_is_location(const char *a);
/* "ring.c:51 @all if sig[0] >= 1" (ranks: the entry's own when NULL). */
void break_spec_format(struct session *s, const struct seg_break *bp,
    const struct rankset *ranks, struct strbuf *sb);
/* Put nb (for ranks) in a free slot with id; NULL (reported) if full. */
struct seg_break *break_add(struct cmdctx *ctx, const struct seg_break *nb,
    const struct rankset *ranks, uint32_t id);
/* Free the slots of spent one-shot breakpoints. */
void breaks_gc(struct session *s);
/* cmd-rma.c: `plan put|get|remote_store|remote_load ...` (the transfer's
 * words start at argument 0); 0 or -1 (said). */
int rma_plan(struct cmdctx *ctx, int form);

/* ---- cmd-call.c / cmd-load.c ---------------------------------------------- */


/* Results of the load/call jobs the running command sent. */
struct call_result {
	int rank;
	uint32_t tag;
	int done;		/* its DONE arrived */
	int status;		/* enum done_status */
	char *text;		/* the return value or the error (owned) */
};
void call_results_begin(void);
/* Submit p (one LOAD or CALL op, taken with desc) to rank r and collect
 * its result; 0 or -1 (reported). */
int call_submit(struct cmdctx *ctx, int r, struct prog *p, char *desc);
/* Settle, then the results in rank order. */
struct call_result *call_results_settle(struct cmdctx *ctx, size_t *n);
/* Print the failures (one error line when every rank failed alike, the
 * caret at col/len of the command's first argument); returns how many
 * ranks failed. */
int call_results_report_errors(struct cmdctx *ctx, size_t col, size_t len);
void call_results_end(void);
/* A call's result as the prompt shows it: "= 5", "= &buf[4]", "done". */
void call_value_format(struct session *s, const char *text, struct strbuf *sb);
/* cmd-load.c: the path of library NAME if rank r loaded it, else NULL. */
const char *shlib_path(const char *name, int r);

/* ---- submit.c: send a command's programs and report on them -------------- */

/* Send p (owned) to rank r on behalf of the running command; says so if
 * the rank is busy (the program queues behind what it is doing). */
int cmd_submit(struct cmdctx *ctx, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags);
/* The same, with the job's done callback (NULL: the usual report). */
int cmd_submit_done(struct cmdctx *ctx, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags, job_done_fn done);
/* After settling: one status line per program that has not finished. */
void cmd_report(struct cmdctx *ctx);
/* A one-op program. */
struct prog *prog_one(const char *title, const struct uop *u);

/* ---- cmd-set.c: settings ------------------------------------------------- */

/* If arg 0 names a setting, apply it and return 1 (rv set); else 0. */
int settings_try(struct cmdctx *ctx, enum cmd_retval *rv);
void settings_init(struct settings *set);
/* Whether name is a setting (`set NAME ...` is then not a store). */
int settings_is(const char *name);

/* ---- coll-args.c / cmd-coll.c: collectives -------------------------------- */

/* A parsed collective call. */
struct coll_call {
	struct coll_args a;
	int check;		/* `check` given */
	int json;		/* `json` given (bench) */
	size_t argpos[5];	/* argument index per enum coll_arg */
	int synth;		/* mesh allreduce without a signal */
	char synth_name[SEG_NAME_MAX];
	char names[3][SEG_NAME_MAX];	/* copies of buf/src/sig names */
};

/* Parse `COLL ARGS...` starting at argument `first` (the collective's name
 * is argument first-1 or given by kind); validates with PyPTO's rules.
 * extra_ok lets a caller (bench) accept more key=value options, which are
 * left for it: *extra receives a bitmask of argument indexes skipped. */
int coll_parse(struct cmdctx *ctx, enum coll_kind kind, size_t first,
    struct coll_call *cc, const char *const *extra_keys, uint64_t *extra);
/* Apply the option argument i ("op=max", "mode=ring", "impl=builtin",
 * "root=1") of a call of kind to cc; 0, or -1 (reported).  An option the
 * collective does not take is an error listing `expected` (NULL: the
 * collective's own options).  root= sets *have_root. */
int coll_option(struct cmdctx *ctx, size_t i, enum coll_kind kind,
    struct coll_call *cc, int *have_root, const char *expected);
/* Does a collective of kind take the option key ("op", "root", ...)? */
int coll_option_allowed(enum coll_kind k, const char *key);
/* Place the synthesized signal of a mesh allreduce (allocating it unless
 * dry), so cc->a.sig describes it.  0 or -1 (reported). */
int coll_synth_signal(struct cmdctx *ctx, struct coll_call *cc, int dry);
/* A collective is queued or running on some rank (its title in *what). */
int coll_in_progress(struct session *s, const char **what);
/* Issue cc on every rank (pflags: PROG_F_START ...).  0 or -1. */
int coll_issue(struct cmdctx *ctx, struct coll_call *cc, unsigned pflags);

/* ---- cmd-watch.c: `colldb watch [NAME [@RANKS]]` --------------------------- */

int watch_main(int argc, char **argv);

#endif
