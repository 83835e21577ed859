/*
 * cmd.h - shell/cmd/: the commands.  The one command table and lookup
 * (table.c); running a line against it (run.c: arity, preconditions,
 * usage errors; help and completion read the same table); argument
 * helpers (words.c, args.c, coll-args.c, domains.c); running lines and
 * scripts (script.c); sending a command's programs (submit.c); one
 * cmd-*.c per command or small family, each exporting its const struct
 * cmd_entry.  A new command is a cmd-NAME.c here and a line in
 * cmd_table[] (table.c).
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
#include "out/group.h"
#include "out/out.h"
#include "prog.h"
#include "seg.h"
#include "session/session.h"
#include "strbuf.h"
#include "trace/trace.h"
#include "view/view.h"

/* ---- table.c, run.c: the table; words.c, args.c: argument helpers ------ */

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
	CMD_TARGETS = 1 << 0,	      /* accepts an @ranks prefix */
	CMD_ALL_RANKS_ONLY = 1 << 1,  /* always all ranks; @ is an error */
	CMD_NO_SETTLE = 1 << 2,	      /* do not wait for quiescence after */
	CMD_NO_CAPTURE = 1 << 3,      /* keep the previous capture (expect) */
	CMD_AGENTS_ONLY = 1 << 4,     /* needs ranks that run the shell's
					 * programs: refused where the ranks
					 * run their own code (`colldb run`);
					 * .agents_why says why */
	CMD_RAW_REST = 1 << 5,	      /* the rest of the line is one
					 * argument, verbatim (say) */
	CMD_RANKS_ARG = 1 << 6,	      /* its argument is an @ranks list,
					 * not a target (focus) */
	CMD_NEEDS_TARGETS = 1 << 7,   /* an explicit @ranks is required */
	CMD_NEEDS_NO_COLL = 1 << 8,   /* no collective in progress */
	CMD_NEEDS_NO_BREAKS = 1 << 9, /* no breakpoint set */
	CMD_NEEDS_ALL_IDLE = 1 << 10, /* every rank alive and idle */
	CMD_EXPLORE = 1 << 11,	      /* may appear in an explore script: it
					 * only builds programs (submit.c) */
	CMD_REPEAT = 1 << 12,	      /* at the prompt an empty line runs
					 * it again (gdb's step, continue) */
};

struct cmdctx;

struct cmd_entry {
	const char *name;
	const char *alias;
	const char *usage; /* arguments, after the name */
	const char *summary;
	const char *example;
	enum cmd_group group;
	int min_args, max_args;	     /* max -1: unlimited */
	unsigned flags;		     /* enum cmd_flags */
	const char *const *keywords; /* completion candidates */
	/* CMD_AGENTS_ONLY: why, after "not available under 'colldb run': "
	 * (NULL: the collectives' reason) */
	const char *agents_why;
	const void *data; /* what exec needs besides the words (a
				 * collective's enum coll_kind), or NULL */
	enum cmd_retval (*exec)(struct cmdctx *ctx);
};

struct cmdctx {
	struct session *s;
	const struct cmd_entry *entry;
	const char *line; /* the whole line */
	struct words w;	  /* words after the @prefix and name */
	struct rankset targets;
	int explicit_targets; /* an @ prefix was given */
	const char *target_text;
	struct {
		int rank;
		uint32_t tag;
	} * subs; /* programs sent */
	size_t nsubs;
	int nerrors; /* errors reported (cmd_error, arg_error) */
	/* The comm domain the command's windows are on (cmd-domain.c): set
	 * when a region or cell argument names a domain's window, which also
	 * narrows targets to its ranks; peers then count inside it. */
	int dom;
	size_t dom_arg;	 /* the argument that set it, + 1 (0: none) */
	size_t peer_arg; /* peer_syntax_ok()'s argument, + 1 */
};

extern const struct cmd_entry *const cmd_table[];
extern const char *const cmd_group_names[GRP__COUNT];

/* ---- domains.c, cmd-domain.c: comm domains -------------------------------- */

/* Domains declared. */
int domain_count(struct session *s);
/* Domain d's member ranks. */
void domain_members(const struct seg_domain *d, struct rankset *set);
/* Window w (argument i) is the command's: on a domain it must be the
 * only domain of the command, explicit targets must be its members and
 * implicit ones are narrowed to them (ctx->dom is set).  0 or -1 (said). */
int domain_window(struct cmdctx *ctx, size_t i, const struct seg_window *w);
/* "d1 (ranks 0,2,3)", for messages. */
void domain_describe(struct session *s, int k, struct strbuf *sb);
/* A peer word "D:K" (domain D's rank K): 1 and *rank set, 0 when the word
 * is not of that form, -1 (said, argument i) when it is but is wrong. */
int domain_peer(struct cmdctx *ctx, size_t i, const char *word, int *rank);

/* Run one line; returns enum cmd_retval.  *incomplete is set (and nothing
 * runs) when the line needs continuation. */
enum cmd_retval cmd_run_line(struct session *s, const char *line,
    int *incomplete);
/* Find by alias, exact name, then unique prefix; NULL + cause if none. */
const struct cmd_entry *cmd_find(const char *name, char **cause);
/* cmd-help.c: print the command listing (word NULL) or one command's
 * usage, as `help [CMD]` does; 0, or -1 + cause (word is no command). */
int cmd_help_print(const char *word, char **cause);
/* Whether an empty line at the prompt repeats this line (its command is
 * CMD_REPEAT: step, continue, until, advance, with any @ prefix). */
int cmd_line_repeats(const char *line);
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

/* Argument i is a bare flag (check, json, ns, pipeline) that one of
 * arguments from..i-1 is too: say so and return -1 (else 0). */
int arg_flag_repeated(struct cmdctx *ctx, size_t from, size_t i);

/* Peers: a rank number, next, prev or all (every rank but self).
 * peer_syntax_ok() checks argument i; peer_list() expands it for rank. */
int peer_syntax_ok(struct cmdctx *ctx, size_t i);
int peer_list(struct cmdctx *ctx, size_t i, int rank,
    int *peers); /* peers: nranks entries */

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
	int expect_error; /* next command must fail */
	int failed;	  /* an error or failed expect happened */
	int depth;	  /* source nesting */
	int quit;
	const char *file; /* the script running now, or NULL */
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
/* FILE's commands, continued lines joined, without running them (explore
 * reads a script this way).  0, or -1 (said); free with script_cmds_free(). */
struct script_cmd {
	char *text;
	unsigned long lineno; /* of its first line */
};
int script_read(const char *path, struct script_cmd **out, size_t *n);
void script_cmds_free(struct script_cmd *v, size_t n);

/* ---- cmd-reset.c / cmd-alloc.c -------------------------------------------- */

/* Before an iteration of a repeat: zero what `set reset-windows` names;
 * 0, or -1 (said) when a window is missing or in use. */
int windows_reset_each(struct session *s);
/* Window w is in use by a rank's job (running or queued): say so, with a
 * caret under argument i, and return -1; else 0. */
int window_busy(struct cmdctx *ctx, size_t i, const struct seg_window *w);
/* A window or domain name (argument i) is letters, digits and _, not a
 * reserved word; what names it in the message.  0 or -1 (said). */
int name_check(struct cmdctx *ctx, size_t i, const char *name, const char *what);

/* ---- cmd-script.c: expect REGION == V[,V...] ----------------------------- */

/* One expected value as typed, and as the window holds it. */
struct expect_want {
	const char *text;
	double v;
	int64_t iv;
	int exact; /* compare iv exactly (an integer written out) */
};

struct expect_spec {
	struct region rg;
	struct expect_want *want; /* 1 (every element) or rg.count */
	size_t nwant;
	char *list; /* the values as typed; want[].text points here */
	struct rankset targets;
};

/* Parse arguments 0..2 of an expect command; 0, or -1 (reported). */
int expect_spec_parse(struct cmdctx *ctx, struct expect_spec *sp);
void expect_spec_release(struct expect_spec *sp);
/* Check rank r's values of the region (vals: its rg.count elements, from
 * the world or a copy of it) against sp: 0, or -1 with *why ("rank 1
 * buf[2] = 9, expected 7"; the caller frees it). */
int expect_spec_check(struct session *s, const struct expect_spec *sp, int r,
    const uint8_t *vals, char **why);
/* The region's first byte in a window area. */
static inline uint64_t
expect_spec_off(const struct expect_spec *sp)
{
	return sp->rg.w->off + sp->rg.first * dtype_size(sp->rg.w->dtype);
}

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
/* where_line() of each rank in which, into out; grouped in a large world
 * (out/group.h). */
void where_lines(struct session *s, const struct rankset *which,
    struct strbuf *out);
/* Release stopped targets: n micro-ops each (stepping) or free running;
 * *moved gets who was released.  0, or -1 + cause when none is stopped. */
int ranks_release(struct session *s, const struct rankset *targets,
    int stepping, uint32_t n, struct rankset *moved, char **cause);
/* Settle, then print the `where` line of every released rank (and of
 * ranks that finished meanwhile). */
void report_moved(struct session *s, const struct rankset *released);
/* cmd-world.c: the session's name as output shows it: the default one
 * (colldb-PID) is "colldb-*" in batch runs, unless set times on, so a
 * transcript is the same every run (like bench's figures).  Borrowed. */
const char *session_name_shown(const struct session *s);
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

/* ---- break-source.c: source breakpoints against the program's text ------- */

/* For a user program's FILE:LINE breakpoint nb (typed as typed): find
 * the source and its cdb_* calls; a line in a call spanning several
 * lines takes them all (nb->line..nb->line_end), a line without code
 * before a call moves to it, and anything else worth saying goes into
 * note ("pending: no source file x.c ...", "ring.c:72 holds no cdb_*
 * call; ..."), left empty when all is well.  Nothing for colldb's agents
 * or other breakpoints. */
void break_source_resolve(struct session *s, const char *typed,
    struct seg_break *nb, struct strbuf *note);
/* Says, once the program has ended, which breakpoints on its calls never
 * stopped a rank (a session hook). */
extern const struct session_hook break_session_hook;
/* cmd-rma.c: `plan put|get|remote_store|remote_load ...` (the transfer's
 * words start at argument 0); 0 or -1 (said). */
int rma_plan(struct cmdctx *ctx, int form);

/* ---- cmd-call.c / cmd-load.c ---------------------------------------------- */

/* Results of the load/call jobs the running command sent. */
struct call_result {
	int rank;
	uint32_t tag;
	int done;   /* its DONE arrived */
	int status; /* enum done_status */
	char *text; /* the return value or the error (owned) */
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
/* cmd-load.c: how many libraries `load` has loaded (on any rank). */
size_t shlib_count(void);

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

/*
 * While s->sink is set (explore reading a script, cmd-explore.c), the
 * commands that would send programs hand them to it instead, and nothing
 * reaches a rank; cmd_run_line() runs only CMD_EXPLORE commands then.
 * Each hook returns 0 or -1 (reported).
 */
struct coll_call;
struct expect_spec;
struct prog_sink {
	void *arg;
	/* rank's program (takes p and desc) */
	int (*prog)(void *arg, int rank, struct prog *p, char *desc);
	/* a collective, parsed and validated; its signal placed */
	int (*coll)(void *arg, const struct coll_call *cc);
	/* an `expect REGION == V` line (takes sp's contents) */
	int (*expect)(void *arg, struct expect_spec *sp);
};

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
	int check;			/* `check` given */
	int json;			/* `json` given (bench) */
	size_t argpos[CARG_RCOUNT + 1]; /* argument index per enum coll_arg */
	int synth;			/* mesh allreduce without a signal */
	char synth_name[SEG_NAME_MAX];
	char names[5][SEG_NAME_MAX]; /* copies of the buf/src/sig/scount/
					 * rcount names */
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
/* A rank's output region(s) of a collective, as coll_output_copy()
 * lays them out, read through the view. */
void coll_read_output(struct view *v, int r, const struct coll_output *o,
    void *out);
/* Issue cc on every rank (pflags: PROG_F_START ...).  0 or -1. */
int coll_issue(struct cmdctx *ctx, struct coll_call *cc, unsigned pflags);
/* Frees the collectives in progress at session_close(). */
extern const struct session_hook coll_session_hook;

/* ---- cmd-explore.c / explore-save.c: explore ----------------------------- */

struct explore;
struct explore_finding;
struct xstep;

/* What the explored sequence is made of: one script line (or the
 * collective of `explore COLL`) in one pass. */
struct xunit {
	const char *text;     /* as written (borrowed) */
	unsigned long lineno; /* 0: not from a script */
	int pass;	      /* 0-based */
	uint32_t call;	      /* the explorer's call number */
	int coll;	      /* a collective */
	char title[64];	      /* its title */
};

/* One exploration: the sequence, where each program came from, the
 * checks, and the explorer (core/explore.h). */
struct xrun {
	struct session *s;
	struct explore *x;
	const char *file; /* the script, or NULL */
	int repeat;
	struct xunit *units;
	size_t nunits;
	struct xorigin {
		size_t unit;
		char *desc; /* "fill buf 7", "broadcast(root=0)" */
	} * *orig;	    /* per rank, per program */
	size_t *norig;
	struct expect_spec *expects;
	size_t nexpects;
	int check; /* `check`: reference results of check_args */
	struct coll_args check_args;
	int selfclear; /* some call must leave its signal at zero */
};

/* What the capture collects before the explorer exists (its area size
 * depends on what the programs touch). */
struct xpending {
	int rank;
	uint32_t call;
	size_t unit;
	struct prog *p;
	char *desc;
};

struct xcapture {
	struct xrun *xr;
	struct xpending *pend;
	size_t npend;
	uint8_t *flags;	     /* per call */
	uint64_t (*sigs)[2]; /* per call: a collective's signal bytes */
	uint32_t ncalls;
	int seg_open; /* per-rank lines are adding to a call */
	uint32_t seg_call;
	int pass;
	const struct script_cmd *line;
	ssize_t unit; /* the current line's unit, -1 before its first
				 * program */
	uint64_t top; /* bytes the programs may touch */
};

/* explore-capture.c: the script's lines, repeat times (0 or -1, said);
 * a collective cc as one call; the explorer from what was captured; and
 * releasing what is left. */
int xcap_script(struct xcapture *c, const struct script_cmd *lines, size_t n);
int xcap_coll(void *arg, const struct coll_call *cc);
void xcap_build(struct xrun *xr, struct xcapture *c);
void xcap_release(struct xcapture *c);
void xrun_release(struct xrun *xr);
/* explore-report.c: the report of an explore that ran; -1 if it failed. */
struct explore_opts;
int explore_report_all(struct xrun *xr, const struct explore_opts *o,
    const char *save);

/* A saved counterexample, for `explore show N`. */
struct explore_saved {
	int id;
	char *headline; /* "data race on rank 0 buf[0:4]" */
	char *path;
	int nranks;
	size_t nsteps;
	size_t nrows; /* nsteps, then (a hang) one per blocked rank */
	int *rank;    /* per row */
	char **desc;  /* per row: the micro-op ("blocked: wait ..." after
		       * the steps) */
	struct explore_saved *next;
};

/* explore-save.c: "broadcast(root=0) step 5/7: get buf 0 buf" or "fill
 * buf 7, line 2" for a step of the sequence. */
void explore_step_text(const struct xrun *xr, const struct xstep *st,
    struct strbuf *sb);
/* Write f as a replayable script in dir and keep it for `explore show`;
 * fail is the FAIL text.  *id is the counterexample's number in the
 * session; the file is explore-N.coll with N = *fileno, the first name
 * from *id on that is free (a file already there, or a symlink, is never
 * written over or through).  The path (the caller frees it), or NULL
 * (said). */
char *explore_save(struct xrun *xr, const struct explore_finding *f,
    const char *fail, const char *dir, int *id, int *fileno);
/* Print counterexample id as a per-rank timeline; 0 or -1 (said). */
int explore_show(struct session *s, int id);
/* Forget the saved counterexamples (a session hook, on close). */
extern const struct session_hook explore_session_hook;

/* ---- cmd-watch.c: `colldb watch [NAME [@RANKS]]` --------------------------- */

int watch_main(int argc, char **argv);

#endif
