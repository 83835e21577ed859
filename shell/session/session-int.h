/*
 * session-int.h - what the files of shell/session/ share and nothing
 * else sees.
 */
#ifndef COLLDB_SESSION_INT_H
#define COLLDB_SESSION_INT_H

#include "session.h"

/* proc.c: SIGCHLD turned into a readable pipe */
void proc_watch_children(void);
int proc_chld_fd(void);
/* Consume the pending SIGCHLD wake-ups; 1 if there were any. */
int proc_chld_pending(void);

/* jobs.c: add j at the end of rank r's queue */
void job_enqueue(struct session *s, int r, struct job *j);

/* pump.c: handle what user rank r queued in its outbox (core/outbox.h)
 * and has not been read yet; 1 if there was something. */
int session_drain_outbox(struct session *s, int r);

/* rank-user.c: free rp->user_memo (the programs it shares) */
void user_memo_release(struct rankproc *rp);

/* rank-user.c: where user rank r is in its program ("in its own code
 * after ring.c:40", "before cdb_init", a call's position) */
void where_user(struct session *s, int r, struct strbuf *sb, int verbose);

#endif
