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

/* pump.c: rank r has ended (wait status st) though its process may
 * still be there: what it printed so far, then its end, as when a local
 * rank is reaped (the kind's gone() reports it).  An mpi user rank that
 * said so before MPI ends the job (rank-mpi.c). */
void session_rank_ended(struct session *s, int r, int st);

/* rank-user.c: the end of user rank r (wait status st) in the local
 * kinds' words, said as an event and kept in rp->death, its board's state
 * DEAD or EXITED; batch: quiet about a rank that finalized and exited 0 */
void user_end(struct session *s, int r, int st, int batch);

/* rank-user.c: free rp->user_memo (the programs it shares) */
void user_memo_release(struct rankproc *rp);
/* rank-user.c: user rank r's announcement read last is held until the
 * next record of the same read.  user_call_end(): the rank ended the
 * call tagged tag with e; 1 when that was the held announcement's call,
 * now told to the hooks as a call read whole (struct user_call), 0 when
 * the end is a job's (the held one, if any, is one now): session_job_end()
 * it.  user_flush(): the read ended, or a record that is not the held
 * call's end came: the held announcement becomes a job.  The pump calls
 * both for any rank (they do nothing for an agent). */
int user_call_end(struct session *s, int r, uint32_t tag,
    const struct job_end *e);
void user_flush(struct session *s, int r);

/* rank-user.c: where user rank r is in its program ("in its own code
 * after ring.c:40", "before cdb_init", a call's position) */
void where_user(struct session *s, int r, struct strbuf *sb, int verbose);

#endif
