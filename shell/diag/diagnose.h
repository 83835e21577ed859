/*
 * diagnose.h - shell/diag/: what the shell knows about hangs.  The history
 * of completed notifies, puts and waits, the hang watchdog (both fed as a
 * session hook), `diagnose` (core/diag.c's analysis fed from the
 * session, worded in the command language) and lint (warnings at the
 * moment a command matches a known failure pattern).
 *
 * May use: core, shell/lang, out, view, session.  Not cmd, bench, trace,
 * repl or start: commands call in, nothing here calls out.
 */
#ifndef COLLDB_DIAGNOSE_H
#define COLLDB_DIAGNOSE_H

#include "diag.h"
#include "session/session.h"

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
/* A defer_wait registered on rank's cell off (>= expected, unsigned). */
void lint_defer(struct session *s, int rank, uint64_t off, int32_t expected);
void lint_wait(struct session *s, int rank, uint64_t off, enum wait_cmp cmp,
    int32_t expected);
/* leftover.c: the last collective on each signal.  note_end() records
 * one that ended (completed or not); why() explains the credits a cell at
 * off holds when that collective left them (1, text appended), else 0;
 * note_issue() counts a collective sent (note_end() one that ended, or
 * with completed -1 one that could not be sent);
 * note_start() says the collective about to start finds its signal not
 * zero, for why; diagnose() appends a note per signal left non-zero that
 * way, and a likely cause when a blocked wait is on such a start. */
void leftover_note_issue(void);
void leftover_note_end(struct session *s, const struct coll_args *a,
    const char *title, int completed);
int leftover_why(struct session *s, uint64_t off, struct strbuf *sb);
void leftover_note_start(struct session *s, const struct coll_args *a,
    const char *title, const char *why);
void leftover_diagnose(struct session *s, const struct diag_in *in,
    const struct diag_result *res, struct strbuf *sb);
/* A collective about to start on a signal with credits in it. */
void lint_coll_signal(struct session *s, const struct coll_args *a,
    const char *title);
/* Returns 1 when it warned of a put after notify. */
int lint_put(struct session *s, int from, int peer, uint64_t off, uint64_t bytes);

#endif
