/*
 * shell.h - the shell's internal interfaces, one section per file
 * (tmux-style).  Nothing here is visible to core/ or viz/.
 *
 * Output: command output goes to stdout, `error:` / `warning:` lines to
 * stderr (stdout is flushed first so a merged transcript keeps its order).
 * Everything a command prints is also kept for `expect output`.
 */
#ifndef COLLDB_SHELL_H
#define COLLDB_SHELL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <poll.h>
#include <sys/types.h>

#include "call.h"
#include "coll.h"
#include "common.h"
#include "diag.h"
#include "lang/parse.h"
#include "prog.h"
#include "seg.h"
#include "strbuf.h"
#include "trace/trace-meta.h"
#include "out/out.h"
#include "session/session.h"

/* ---- cmd.c: the command table; args.c: argument helpers ------------------ */

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
int peer_list(struct cmdctx *ctx, size_t i, int rank, int *peers);

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

/* ---- lineedit.c: the line editor behind four functions ------------------ */

int le_init(const char *prog, int use_editor);
/* Returns a line (without newline; the caller frees) or NULL at EOF. */
char *le_read(const char *prompt);
void le_history_add(const char *line);
void le_free(void);
/* Redraw the prompt and the half-typed line after an async print. */
void le_refresh(void);
/* Whether the last le_read() was ended by Ctrl-C (its line is to be
 * dropped, with whatever continuation was pending). */
int le_cancelled(void);
/* Terminal rows between the prompt's first row and the cursor (a long
 * half-typed line wraps); async output clears from there. */
int le_rows_above_cursor(void);
/* Run every tenth of a second while le_read() waits for a key. */
extern void (*le_idle_hook)(void);
/* The two above, for out_set_prompt() while le_read() runs. */
extern const struct out_prompt le_out_prompt;

/* ---- repl.c: the interactive loop ----------------------------------------- */

int repl_run(struct session *s);

/* ---- opts.c: options shared by colldb and colldb run ----------------------- */

struct shell_opts {
	int nranks;		/* -n, -1 when not given */
	int batch, echo;
	double timeout;		/* --timeout, < 0 when not given */
	uint64_t area;		/* --window-area, 0 when not given */
	char name[64];		/* --name, "" when not given */
	const char **xfiles;	/* -x FILE ... (borrowed argv strings) */
	size_t nx;
};

void shell_opts_init(struct shell_opts *o);
void shell_opts_release(struct shell_opts *o);
/* One getopt result: 1 handled, 0 not a shared option, -1 bad (said). */
int shell_opt(int c, const char *optarg, const char *who, struct shell_opts *o);
/* The end of an options loop: shell_opt, and for anything but a shared
 * option print usage (when unknown), release o and return -1. */
int shell_opt_last(int c, const char *optarg, const char *who,
    struct shell_opts *o, void (*usage)(FILE *));
/* Every script readable and not a directory (else said; returns 0). */
int shell_opts_scripts_ok(const struct shell_opts *o, const char *who);
/* Take -n / --timeout from a script's "#! args:" line where o has none;
 * 0, or -1 (said) when the line is malformed. */
int shell_opts_from_script(struct shell_opts *o, const char *path,
    const char *who);

/* ---- cmd-watch.c ---------------------------------------------------------- */

/* `colldb watch [NAME]`. */
int watch_main(int argc, char **argv);
/* learn.c: `colldb learn [LESSON]`. */
int learn_main(int argc, char **argv);

/* ---- main.c ----------------------------------------------------------------- */

extern const char *colldb_argv0;
/* start.c: the one start-up of `colldb` and `colldb run`. */
struct start_mode {
	const char *who;	/* "colldb", "colldb run": messages name it */
	const struct rank_kind *kind;
	void *kind_arg;
	const char *program;	/* what the ranks run (warnings), or NULL */
	size_t npos;		/* scripts given as FILE arguments (colldb) */
	int scripts_end;	/* -x scripts are the whole session (run) */
	/* instead of commands: run the world to its end (run --batch) */
	int (*free_run)(struct session *s);
	/* after the session opened, before any command */
	void (*started)(struct session *s);
};
/* Open the session o asks for and run its commands; returns the exit
 * status (o's defaults are filled in). */
int shell_start(struct session *s, struct shell_opts *o,
    const struct start_mode *m);
/* The session hooks, colour and the record tap, wired in. */
void shell_wire(struct session *s);


/* ---- diagnose.c: hang analysis, history, watchdog; lint.c ---------------- */

/* Record a finished single command's notifies, puts and waits. */
void hist_record(struct session *s, const struct job *j);
/* Forget what the history says about bytes [lo, hi) (a reset zeroed them). */
void hist_forget(struct session *s, uint64_t lo, uint64_t hi);
/* The history (hist_record) and the watchdog (watchdog_tick), as a
 * session hook. */
extern const struct session_hook diag_session_hook;
/* Analyse the session now; the caller releases *res and *in. */
void diag_run(struct session *s, struct diag_result *res, struct diag_in *in);
void diag_in_release(struct diag_in *in);
/* The diagnosis as text (what `diagnose` prints). */
void diag_format(struct session *s, const struct diag_in *in,
    const struct diag_result *res, struct strbuf *sb);
/* expect hang / expect nohang: 0 when the verdict agrees. */
int diag_expect_hang(struct session *s, int want_hang);
/* The ranks' states were just shown (where, ranks, diagnose, expect);
 * diag_state_unshown(): they changed since, or were never shown. */
void diag_state_shown(struct session *s);
int diag_state_unshown(struct session *s);
/* Called while the shell waits: fires the hang watchdog when due. */
void watchdog_tick(struct session *s);
/* lint.c: warnings for commands that match a known failure pattern. */
void lint_notify(struct session *s, int from, int peer, uint64_t off,
    enum notify_op op, int32_t value);
void lint_wait(struct session *s, int rank, uint64_t off, enum wait_cmp cmp,
    int32_t expected);
/* A collective about to start on a signal with credits in it. */
void lint_coll_signal(struct session *s, const struct coll_args *a,
    const char *title);
/* Returns 1 when it warned of a put after notify. */
int lint_put(struct session *s, int from, int peer, uint64_t off,
    uint64_t bytes);

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
/* Rank r's stop at a breakpoint has been shown (by a `where` line or an
 * event); no-op when r is not stopped at one. */
void break_stop_said(struct session *s, int r);
/* Every rank stopped at a breakpoint and not said so yet gets an event,
 * whichever command (or other rank) made it run there. */
void report_break_stops(struct session *s);
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
struct seg_break *break_add(struct session *s, const struct seg_break *nb,
    const struct rankset *ranks, uint32_t id);
/* Free the slots of spent one-shot breakpoints. */
void breaks_gc(struct session *s);
/* cmd-rma.c: `plan put|get|remote_store|remote_load ...` (the transfer's
 * words start at argument 0); 0 or -1 (said). */
int rma_plan(struct cmdctx *ctx, int form);
/* cmd-plan.c: print a program as `plan` does. */
void plan_print(struct session *s, const struct prog *p, int rank,
    const char *indent);

/* ---- run.c: `colldb run`, ranks that are a user program ------------------ */

/* `colldb run ...` (argv[0] is "run"); returns the exit status. */
int run_main(int argc, char **argv);

/* ---- lang/call-expr.c: the syntax of `call` (pure) ------------------------ */

enum ffi_arg_kind {
	FA_INT,		/* i (or u when big) */
	FA_FLOAT,	/* f */
	FA_STR,		/* s: the text, unquoted */
	FA_NAME,	/* s: a window name, rank or nranks */
	FA_ADDR,	/* s: the region after '&' ("buf[4]", "sig[1,0]") */
	FA_NULL,
};

struct ffi_arg {
	enum ffi_arg_kind kind;
	enum call_type cast;	/* CT__COUNT when none */
	int64_t i;
	uint64_t u;
	int big;		/* an integer past INT64_MAX: in u */
	double f;
	char *s;		/* owned */
	size_t col, len;	/* where it is in the text */
};

struct ffi_call {
	char *lib;		/* NULL when no LIB: was given (owned) */
	char *sym;		/* owned */
	char *text;		/* "SYM(ARGS)" as typed, for messages (owned) */
	size_t lib_col, sym_col, ret_col;
	enum call_type ret;	/* CT_I32 unless -> TYPE */
	int nargs;
	struct ffi_arg args[CALL_MAX_ARGS];
};

/* Parse `[LIB:]SYM(ARGS) [-> TYPE]`; 0, or -1 with *cause and the column
 * and length of the bad part of text.  Release with ffi_call_release(). */
int ffi_parse(const char *text, struct ffi_call *c, char **cause, size_t *col,
    size_t *len);
void ffi_call_release(struct ffi_call *c);
/* A number argument (FA_INT / FA_FLOAT) with its cast as a typed call
 * argument; 0 or -1 + cause (does not fit, float to an integer type). */
int ffi_number(const struct ffi_arg *a, struct call_arg *out, char **cause);

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

struct trace;
struct span_rec;

/* A record with its names resolved (borrowed until the next trace call). */
struct trace_span {
	const struct span_rec *rec;
	const struct prog *prog;
	const struct uop *op;	/* the micro-op, NULL for a phase */
	struct seg *wins;	/* window table when the program was sent */
	const char *name;	/* dotted span name */
	int depth;		/* components - 1 */
	uint64_t inv;		/* per rank: 1 + runs (tag, iteration) before */
	uint64_t hid;		/* hash of the program's description */
	int coll;		/* collective instance, 0 if none */
};

/* What trace_summary() reports. */
struct trace_counts {
	uint64_t kept;		/* records held */
	uint64_t not_kept;	/* drained past TRACE_KEEP */
	uint64_t lost;		/* dropped by full rings (all ranks) */
	uint64_t unnamed;	/* records of a program the shell no longer had */
	uint32_t gen;		/* bumped by every trace_clear() */
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
/* ns as microseconds with exactly three decimals (exact, invertible). */
void trace_json_us(struct strbuf *sb, uint64_t ns);

/* ---- trace-flow.c: notify->wait arrows of the JSON trace ---------------- */

struct trace_flows;

struct trace_flows *trace_flows_new(void);
void trace_flows_free(struct trace_flows *f);
/* Remember sp if it is a notify or a wait. */
void trace_flows_note(struct trace_flows *f, const struct trace_span *sp);
/* Append a ",\n"-led "s"/"f" event pair per wait whose releasing notify
 * is known; sb is written to fp whenever it grows large. */
void trace_flows_json(struct trace_flows *f, struct strbuf *sb, FILE *fp);

/* ---- cmd-bench.c ---------------------------------------------------------- */

/* The last bench, for `tree` and the header of `trace save`. */
struct bench_last {
	char root[32];		/* the collective: the run root span */
	long rounds, warmup;
	int rounds_timed;	/* time= picked the rounds (a figure) */
	uint32_t *tags;		/* per rank: the jobs (time=: two each) */
	int ntags;
	uint32_t gen;		/* trace generation holding its spans */
	int complete;		/* none of its spans lost or not kept */
	uint64_t lost, not_kept;
};

/* Whether figures (times, bandwidths) are shown: interactive sessions and
 * `set times on`; masked as '*' otherwise (transcripts). */
int bench_figures(struct session *s);
/* Forget the last bench (session close). */
void bench_last_free(struct session *s);
/* bench_last_free() as a session hook. */
extern const struct session_hook bench_session_hook;

#endif
