/*
 * rank-mpi.c - ranks as an MPI job (`colldb -t mpi`, `colldb run -t mpi`;
 * docs/mpi.md): the two kinds, colldb's agents and a user program's
 * processes, started by the MPI launcher on one host or many.
 *
 * What they do is what the local kinds do (rank-agent.c, rank-user.c: the
 * same words, the same settling); what differs is where the ranks are.
 * The session's segment becomes the shell's mirror of them (its sync
 * hooks send every change, view_mirror_init() reads them), and:
 *
 *   open    listen, start the launcher, accept every rank, start the relay
 *   end     (user ranks) MSG_END: the rank ends by itself (exit, a fatal
 *           signal) and waits; its end is reported as rank-user.c does,
 *           and it is let go once the others settled (release_held())
 *   gone    a connection closed: MPI is not fault tolerant, so the job is
 *           over.  The rank that said how it ends, or else the first to
 *           go (by when its connection closed), is named with what it
 *           did; the others end with the job.  Then the session ends
 *           (session_end(): the diagnosis from the last boards, the
 *           launcher's process group killed, its files gone), unless
 *           every rank had ended by itself already (job_done()).
 *   kill    MSG_SIGNAL: the rank raises it itself
 *   close   MSG_QUIT went to every rank: wait for the launcher, then end
 *           its process group and its files, stop the relay
 *   submit  (user ranks) what the prompt aims at a rank's memory is done
 *           there by its control thread (MSG_MEM), as rank-user.c does it
 *           on the segment for local ranks
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "call.h"
#include "ctl.h"
#include "oneside.h"
#include "mpi-int.h"
#include "out/out.h"
#include "xmalloc.h"

#define QUIT_GRACE_MS 5000
/* How long a rank that said how it ends (MSG_END) is held for the others
 * to settle: a rank that computes on is not waited for longer (the rank
 * itself waits REMOTE_END_HOLD_MS at most) */
#define END_SETTLE_MS 2000

static void tell_culprit(struct session *s, struct mpi_world *w);
static void scan_lines(struct mpi_world *w);
static void release_held(struct session *s, struct mpi_world *w, int now);

static struct mpi_world *
world_of(struct session *s)
{
	return ((struct mpi_ranks *)s->kind_arg)->w;
}

static void
v_sample(void *arg)
{
	mpi_sample(arg);
}

static int
v_read(void *arg, int r, uint64_t off, void *dst, size_t n)
{
	struct mpi_world *w = arg;
	struct seg_rank *b = seg_board(&w->s->seg, r);

	struct mpi_link *l = &w->links[r];
	int32_t v;
	int have;

	/* the cell a blocked rank waits on: as its last board saw it, so
	 * settling judges state and value from the same moment; so is the
	 * cell its current wait is on once it is gone */
	pthread_mutex_lock(&w->mu);
	have = n == sizeof v && l->board.value_off == off && l->board.has_value &&
	    (l->gone || atomic_load(&b->state) == RS_BLOCKED);
	v = l->board.wait_value;
	pthread_mutex_unlock(&w->mu);
	if (have) {
		memcpy(dst, &v, sizeof v);
		return 0;
	}
	return mpi_read(w, r, off, dst, n);
}

static const struct view_source mpi_view_source = {
	.name = "mpi",
	.sample = v_sample,
	.read = v_read,
};

static void
world_free(struct mpi_world *w)
{
	for (int r = 0; w->links != NULL && r < w->s->nranks; r++) {
		strbuf_release(&w->links[r].in);
		strbuf_release(&w->links[r].outq);
		strbuf_release(&w->links[r].pairq);
	}
	free(w->links);
	strbuf_release(&w->lines);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->doing);
	free(w);
}

static struct view_mirror mirror;

/* Every agent's hello, read as a local agent's is (rank-agent.c): a
 * board is merged only once the session has read what the rank sent
 * before it, so until then the mirror said "starting" to a first command
 * that does not settle (`where`). */
static int
agents_hello(struct session *s, char **cause)
{
	uint64_t deadline = mono_ns() + 60000000000ull;

	for (int r = 0; r < s->nranks; r++) {
		struct rankproc *rp = &s->rp[r];
		struct pollfd p = { rp->sock, POLLIN, 0 };
		struct msg_hdr h;
		void *payload = NULL;
		int left = (int)((int64_t)(deadline - mono_ns()) / 1000000);

		if (left < 0 || poll(&p, 1, left) != 1 ||
		    proto_recv(rp->sock, &h, &payload) != 1 ||
		    h.type != MSG_HELLO) {
			free(payload);
			return cause_set(cause, "rank %d failed to start", r);
		}
		rp->nread++;
		free(payload);
	}
	return 0;
}

/* Bring the ranks up: 0, or -1 + cause (the session closes then). */
static int
mpi_open(struct session *s, int user, char **cause)
{
	struct mpi_ranks *o = s->kind_arg;
	struct mpi_world *w = xcalloc(1, sizeof *w);
	pthread_condattr_t ca;
	char exe[PATH_MAX], *agent[3] = { exe, (char *)"--agent-mpi", NULL };
	ssize_t n;

	w->s = s;
	w->opt = o;
	w->user = user;
	w->listen_fd = w->launcher_out = w->wake[0] = w->wake[1] = -1;
	w->culprit = -1;
	w->links = xcalloc((size_t)s->nranks, sizeof *w->links);
	for (int r = 0; r < s->nranks; r++) {
		struct mpi_link *l = &w->links[r];

		l->tcp = l->pair = l->out = -1;
		strbuf_init(&l->in, 0);
		strbuf_init(&l->outq, 0);
		strbuf_init(&l->pairq, 0);
	}
	strbuf_init(&w->lines, 0);
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	o->w = w;
	/* the segment is the shell's mirror now: nobody else maps it */
	seg_unlink(&s->seg);
	s->seg.sync = &mpi_seg_sync;
	s->seg.sync_arg = w;
	view_mirror_init(&s->view, &mirror, &s->seg, &mpi_view_source, w);
	if (!user) {
		n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			return cause_set(cause, "cannot find colldb itself: %s",
			    strerror(errno));
		exe[n] = '\0';
	}
	if (mpi_listen(w, cause) != 0 ||
	    mpi_launch(w, user ? o->user.argv : agent, cause) != 0)
		return -1;
	if (mpi_attach_all(w, cause) != 0)
		return -1;
	for (int r = 0; r < s->nranks; r++) {
		int dup = 0;

		for (int q = 0; q < r; q++)
			dup |= strcmp(w->links[q].host, w->links[r].host) == 0;
		w->nhosts += !dup;
	}
	snprintf(w->transport, sizeof w->transport, "mpi (%s, %d host%s)",
	    w->mpi, w->nhosts, w->nhosts == 1 ? "" : "s");
	s->transport = w->transport;
	if (mpi_relay_start(w, cause) != 0 ||
	    (!user && agents_hello(s, cause) != 0))
		return -1;
	mpi_sample(w); /* every board as it is now: idle */
	session_register(s);
	return 0;
}

static int
open_agents(struct session *s, char **cause)
{
	return mpi_open(s, 0, cause);
}

static int
open_user(struct session *s, char **cause)
{
	struct mpi_ranks *o = s->kind_arg;

	for (int r = 0; r < s->nranks && !o->user.batch; r++)
		ctl_step_mode(&s->seg, r);
	return mpi_open(s, 1, cause);
}

/* ---- the job's end ------------------------------------------------------------- */

/* The rank whose connection closed first, of those that closed without
 * leaving the session first (a user rank after cdb_finalize). */
static int
first_gone(struct mpi_world *w)
{
	uint64_t until = mono_ns() + 500000000ull;
	int first = -1, pending;

	pthread_mutex_lock(&w->mu);
	/* a rank `kill` just sent a signal to and whose end is still on its
	 * way: give its connection half a second to be seen closed */
	do {
		pending = 0;
		for (int r = 0; r < w->s->nranks; r++) {
			struct mpi_link *l = &w->links[r];

			if (l->signal != 0 && !l->gone &&
			    atomic_load(&l->board.slot.state) != RS_EXITED)
				pending = 1;
		}
		if (pending) {
			pthread_mutex_unlock(&w->mu);
			poll(NULL, 0, 10);
			pthread_mutex_lock(&w->mu);
		}
	} while (pending && mono_ns() < until);
	for (int r = 0; r < w->s->nranks; r++) {
		struct mpi_link *l = &w->links[r];

		if (!l->gone || atomic_load(&l->board.slot.state) == RS_EXITED)
			continue;
		/* a rank `kill` sent a signal to goes before the ones that
		 * went down with the job after it, however the relay heard
		 * of them (MPICH's launcher can end rank 0 before rank 1's
		 * connection is seen closed) */
		if (first < 0 ||
		    (l->signal != 0) > (w->links[first].signal != 0) ||
		    ((l->signal != 0) == (w->links[first].signal != 0) &&
			l->gone_ns < w->links[first].gone_ns))
			first = r;
	}
	pthread_mutex_unlock(&w->mu);
	return first;
}

/*
 * What a launcher's line says of a rank killed by a signal, noted in its
 * link: Open MPI names the rank ("mpirun noticed that process rank 2 with
 * PID 4711 on node node2 exited on signal 9 (Killed)."); MPICH's banner
 * names the process ("=   PID 4711 RUNNING AT node2", later "YOUR
 * APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)").
 */
static void
launcher_says(struct mpi_world *w, const char *line)
{
	const char *p;
	int r, pid, sig;

	if ((p = strstr(line, "process rank ")) != NULL &&
	    (p = strstr(p, " exited on signal ")) != NULL &&
	    sscanf(strstr(line, "process rank "), "process rank %d", &r) == 1 &&
	    sscanf(p, " exited on signal %d", &sig) == 1) {
		if (r >= 0 && r < w->s->nranks && sig > 0)
			w->links[r].ended_sig = sig;
		return;
	}
	if ((p = strstr(line, "PID ")) != NULL && strstr(p, " RUNNING AT ") &&
	    sscanf(p, "PID %d", &pid) == 1) {
		w->banner_pid = pid;
		return;
	}
	if (strstr(line, "TERMINATED WITH THE EXIT STRING") != NULL &&
	    (p = strstr(line, "(signal ")) != NULL &&
	    sscanf(p, "(signal %d)", &sig) == 1 && sig > 0 && w->banner_pid > 0) {
		for (r = 0; r < w->s->nranks; r++) {
			if (w->links[r].pid == w->banner_pid) {
				w->links[r].ended_sig = sig;
				break;
			}
		}
	}
}

/* Read what the launcher said so far for the signals it names, without
 * taking its lines. */
static void
scan_lines(struct mpi_world *w)
{
	char *t, *save = NULL;

	pthread_mutex_lock(&w->mu);
	t = xstrdup(w->lines.buf);
	pthread_mutex_unlock(&w->mu);
	for (char *line = strtok_r(t, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		launcher_says(w, line);
	free(t);
}

static void
print_lines(struct mpi_world *w)
{
	char *t = mpi_take_lines(w), *save = NULL;

	if (t == NULL)
		return;
	for (char *line = strtok_r(t, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		launcher_says(w, line);
		/* Open MPI's rsh launcher loses a harmless race with its own
		 * child (setpgid after the child's exec) and says so */
		if (strstr(line, "plm:rsh: Warning: setpgid(") != NULL)
			continue;
		if (line[strspn(line, " \t-")] != '\0')
			out_event(INT_MAX, "[mpirun] %s", line);
	}
	free(t);
}

/* What rank r did as it went: " during allreduce(ring) step 4/105 ...". */
static char *
death_doing(struct session *s, struct mpi_world *w, int r)
{
	struct strbuf sb = STRBUF_INIT;
	char *t;

	if (w->user) {
		where_user(s, r, &sb, 0);
		t = xasprintf("%s%s", s->rp[r].jobs != NULL ? " during " : " ",
		    sb.buf);
	} else {
		int during = describe_last_words(s, r, &sb);

		t = xasprintf(" %s%s", during ? "during " : "", sb.buf);
	}
	strbuf_release(&sb);
	return t;
}

/* Why rank r is gone, the first to go, in the local kinds' words: killed
 * by the signal `kill` sent it (it raised that itself) or the one the
 * launcher says ended it, else its connection closed; and what it did. */
static char *
death_text(struct session *s, struct mpi_world *w, int r)
{
	const struct mpi_link *l = &w->links[r];
	char *doing = NULL, *t;

	/* the culprit's line can come later than its end (tell_culprit()):
	 * what it did is what it was doing as it went */
	if (r != w->culprit || w->doing == NULL)
		doing = death_doing(s, w, r);
	if (l->signal != 0 || l->ended_sig != 0)
		t = xasprintf("killed by %s%s",
		    signal_name(l->signal != 0 ? l->signal : l->ended_sig),
		    doing != NULL ? doing : w->doing);
	else
		t = xasprintf("its connection closed%s",
		    doing != NULL ? doing : w->doing);
	free(doing);
	return t;
}

static void
mpi_gone(struct session *s, int r, int st)
{
	struct mpi_world *w = world_of(s);
	struct rankproc *rp = &s->rp[r];
	struct seg_rank *b = seg_board(&s->seg, r);

	uint32_t last;

	if (w->links[r].end_told) {
		/* it said how it ends (handle_end()): the local kinds' words */
		user_end(s, r, st, w->opt->user.batch);
		if (w->culprit < 0) {
			w->culprit = r;
			w->told = 1;
		}
		return;
	}
	/* its last board, which may have come after the last merge */
	pthread_mutex_lock(&w->mu);
	last = atomic_load(&w->links[r].board.slot.state);
	pthread_mutex_unlock(&w->mu);
	if (w->user && last == RS_EXITED) {
		seg_set_state(b, RS_EXITED);
		/* after cdb_finalize: a rank that ended well */
		rp->wstatus = 0;
		rp->death = xstrdup("exited with status 0");
		if (!w->opt->user.batch)
			out_event(r, "[rank %d] %s", r, rp->death);
		return;
	}
	rp->wstatus = 1 << 8;
	if (w->culprit < 0 && !w->ended) {
		/* the first to go is the one to name, whichever the session
		 * hears of first */
		int first = first_gone(w);

		w->culprit = first >= 0 ? first : r;
		w->doing = death_doing(s, w, w->culprit);
		free(s->rp[w->culprit].death);
		s->rp[w->culprit].death = death_text(s, w, w->culprit);
		/* killed from outside: the launcher may say by what, so
		 * the line waits for it (job_lost()) */
		if (w->links[w->culprit].signal != 0)
			tell_culprit(s, w);
		seg_set_state(seg_board(&s->seg, w->culprit), RS_DEAD);
		/* a user rank: what it still owed is unknown (diagnose) */
		s->rp[w->culprit].ended_early = w->user;
		if (w->culprit == r)
			return;
	}
	if (r == w->culprit) {
		seg_set_state(b, RS_DEAD);
		rp->death = death_text(s, w, r); /* told already */
	} else {
		/* what it was doing when the job ended stays on its board for
		 * the diagnosis (job_lost() marks it dead after that) */
		if (w->ended)
			seg_set_state(b, RS_DEAD);
		rp->death = xstrdup("ended with the MPI job");
		rp->with_job = 1;
	}
}

/* "[rank N] died: ..." for the culprit, once. */
static void
tell_culprit(struct session *s, struct mpi_world *w)
{
	int c = w->culprit;

	if (c < 0 || w->told)
		return;
	w->told = 1;
	free(s->rp[c].death);
	s->rp[c].death = death_text(s, w, c);
	out_event(c, "[rank %d] died: %s", c, s->rp[c].death);
}

/* Wait for the launcher to end: what it says about the rank that went
 * first (which signal) comes as it ends.  Open MPI's launcher takes 2 s
 * to end after a rank on another host died; longer under load. */
static void
launcher_wait(struct mpi_world *w)
{
	uint64_t until = mono_ns() + (w->told ? 3 : 10) * 1000000000ull;
	int st, done = 0;

	while (!done && mono_ns() < until) {
		int reaped = mpi_launch_reap(w, &st);

		pthread_mutex_lock(&w->mu);
		done = reaped && w->launcher_ended;
		pthread_mutex_unlock(&w->mu);
		if (!done)
			poll(NULL, 0, 20);
	}
}

/* After a rank died: the rest of the job goes, the session ends. */
static void
job_lost(struct session *s, struct mpi_world *w)
{
	struct strbuf why = STRBUF_INIT;
	const struct mpi_link *c;

	w->ended = 1;
	release_held(s, w, 1);
	launcher_wait(w);
	scan_lines(w);
	tell_culprit(s, w);
	print_lines(w);
	c = &w->links[w->culprit];
	if (c->end_told && !WIFSIGNALED(c->end_status))
		strbuf_addf(&why,
		    "rank %d exited without cdb_finalize, and MPI ends the whole job with it",
		    w->culprit);
	else
		strbuf_addf(&why,
		    "rank %d died, and MPI ends the whole job with it",
		    w->culprit);
	session_end(s, why.buf);
	for (int r = 0; r < s->nranks; r++) {
		if (s->rp[r].with_job)
			seg_set_state(seg_board(&s->seg, r), RS_DEAD);
	}
	mpi_launch_end(w, 0);
	/* ranks the launcher's end did not reach (other hosts) see the
	 * shell go and end themselves */
	for (int r = 0; r < s->nranks; r++) {
		if (w->links[r].tcp >= 0)
			shutdown(w->links[r].tcp, SHUT_RDWR);
	}
	print_lines(w);
	out_event(INT_MAX, "colldb: the session is over: %s", why.buf);
	strbuf_release(&why);
}

/*
 * The job ended after every rank of the session had ended by itself
 * (finalized, or said how it ended): nothing was lost, as when the last
 * rank of a local session exits.  The culprit's line, if it still waits
 * for the launcher's word; no diagnosis, and the session goes on (as on
 * shm: `ranks` shows how each ended).  The launcher's lines only say
 * again what the ranks said.
 */
static void
job_done(struct session *s, struct mpi_world *w)
{
	w->ended = 1;
	if (!w->told) {
		launcher_wait(w);
		scan_lines(w);
		tell_culprit(s, w);
	}
	free(mpi_take_lines(w));
}

/*
 * Ranks that said how they end (MSG_END) wait for the shell before they
 * go, since MPI then ends the whole job: the others settle first, as on
 * shm (blocked, stopped, finished), so the diagnosis after the job's end
 * is the one shm would give.  At most END_SETTLE_MS from the first such
 * end.  now: let them go at once.
 */
static void
release_held(struct session *s, struct mpi_world *w, int now)
{
	uint64_t first = UINT64_MAX;
	int held = 0;

	for (int r = 0; r < s->nranks; r++) {
		const struct mpi_link *l = &w->links[r];

		if (l->end_told && !l->end_released) {
			held++;
			first = MIN(first, l->end_ns);
		}
	}
	if (held == 0)
		return;
	if (!now && mono_ns() - first < END_SETTLE_MS * 1000000ull) {
		mpi_sample(w);
		for (int r = 0; r < s->nranks; r++) {
			if (rank_alive(s, r) && !s->kind->settled(s, r))
				return;
		}
	}
	for (int r = 0; r < s->nranks; r++) {
		struct mpi_link *l = &w->links[r];

		if (l->end_told && !l->end_released) {
			l->end_released = 1;
			mpi_end_go(w, r);
		}
	}
}

/* MSG_END: user rank r ends by itself (wait status st) and waits for the
 * go: its end now, with the board it sent before (where it was). */
static void
handle_end(struct session *s, int r, int st)
{
	struct mpi_world *w = world_of(s);
	struct mpi_link *l = &w->links[r];

	if (l->end_told || !s->rp[r].alive)
		return;
	l->end_told = 1;
	l->end_status = st;
	l->end_ns = mono_ns();
	mpi_merge(w);
	session_rank_ended(s, r, st);
}

static void
mpi_pump(struct session *s)
{
	struct mpi_world *w = world_of(s);
	int lost, alive = 0;

	if (w == NULL || !w->relay_on)
		return;
	mpi_merge(w);
	if (w->culprit < 0)
		print_lines(w); /* else they follow its line (job_lost()) */
	if (!w->ended)
		release_held(s, w, 0);
	pthread_mutex_lock(&w->mu);
	lost = w->lost;
	pthread_mutex_unlock(&w->mu);
	if (!lost || w->ended || w->culprit < 0)
		return;
	/* ranks that went down with the job count: they were alive */
	for (int r = 0; r < s->nranks; r++)
		alive += s->rp[r].alive || s->rp[r].with_job;
	if (alive > 0)
		job_lost(s, w);
	else
		job_done(s, w);
}

static void
mpi_close(struct session *s)
{
	struct mpi_world *w = world_of(s);

	if (w == NULL)
		return;
	if (w->culprit >= 0 && !w->told) {
		scan_lines(w);
		tell_culprit(s, w);
	}
	/* a rank that said how it ends goes on to its end (exit, signal) */
	release_held(s, w, 1);
	if (w->relay_on) {
		/* QUIT is on its way to every rank; they finalize together */
		pthread_mutex_lock(&w->mu);
		w->stopping = 1;
		pthread_mutex_unlock(&w->mu);
	}
	mpi_launch_end(w, w->ended ? 0 : QUIT_GRACE_MS);
	mpi_relay_stop(w);
	for (int r = 0; r < s->nranks; r++) {
		s->rp[r].alive = 0;
		s->rp[r].pid = 0;
	}
	s->seg.sync = NULL;
	((struct mpi_ranks *)s->kind_arg)->w = NULL;
	world_free(w);
}

static void
mpi_kill(struct session *s, int r, int sig)
{
	struct mpi_world *w = world_of(s);

	/* (the rank catches CALL_END_SIGNAL and lives on: not a death's) */
	if (w != NULL && mpi_send(w, r, MSG_SIGNAL, 0, sig, NULL, 0) == 0 &&
	    sig != CALL_END_SIGNAL)
		w->links[r].signal = sig;
}

/* ---- what the local kinds do ----------------------------------------------- */

static void
agent_describe(struct session *s, int r, struct strbuf *sb, int verbose)
{
	rank_kind_agent.describe(s, r, sb, verbose);
}

/* Rank r's last board is not merged yet: the shell has not read what
 * the rank sent before it (a DONE), so what it shows of r is older than
 * what is on its way. */
static int
board_pending(struct session *s, int r)
{
	struct mpi_world *w = world_of(s);
	int pending;

	if (w == NULL)
		return 0;
	pthread_mutex_lock(&w->mu);
	pending = w->links[r].board_seq != w->links[r].merged_seq &&
	    !w->links[r].gone && s->rp[r].alive;
	pthread_mutex_unlock(&w->mu);
	return pending;
}

static int
agent_settled(struct session *s, int r)
{
	return !board_pending(s, r) && rank_kind_agent.settled(s, r);
}

static int
agent_submit(struct session *s, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags, struct job **jp, char **cause)
{
	return rank_kind_agent.submit(s, r, p, desc, flags, pflags, jp, cause);
}

static int
agent_interrupt(struct session *s, int r)
{
	return rank_kind_agent.interrupt(s, r);
}

const struct rank_kind rank_kind_mpi_agent = {
	.name = "mpi",
	.own_code = 0,
	.open = open_agents,
	.message = NULL,
	.describe = agent_describe,
	.settled = agent_settled,
	.gone = mpi_gone,
	.submit = agent_submit,
	.interrupt = agent_interrupt,
	.kill = mpi_kill,
	.not_stopped_hint = " (use 'start COMMAND' to run one stopped)",
	.remote = 1,
	.pump = mpi_pump,
	.close = mpi_close,
};

/* ---- a user program's ranks ----------------------------------------------------- */

/* MSG_ALLOC: a user rank's cdb_alloc, made in the shell's table (which
 * every rank then hears of); the answer is the window or why not. */
static void
user_alloc(struct session *s, int r, const void *payload, size_t len)
{
	struct mpi_world *w = world_of(s);
	struct remote_alloc a;
	struct seg_window *win;
	char *cause = NULL;

	if (len != sizeof a) {
		mpi_send(w, r, MSG_ALLOC, 0, -1, "malformed", 10);
		return;
	}
	memcpy(&a, payload, sizeof a);
	a.name[sizeof a.name - 1] = '\0';
	if (a.ndim < 1 || a.ndim > COLLDB_MAX_DIMS || a.dtype >= DT__COUNT) {
		mpi_send(w, r, MSG_ALLOC, 0, -1, "bad shape", 10);
		return;
	}
	seg_lock(&s->seg);
	win = seg_win_find(&s->seg, a.name);
	if (win == NULL)
		win = seg_win_alloc(&s->seg, a.name, a.shape, a.ndim,
		    (enum dtype)a.dtype, a.flags, &cause);
	seg_unlock(&s->seg);
	if (win == NULL) {
		mpi_send(w, r, MSG_ALLOC, 0, -1, cause, strlen(cause) + 1);
		free(cause);
		return;
	}
	mpi_send(w, r, MSG_ALLOC, 0, 0, win, sizeof *win);
}

static void
user_message(struct session *s, int r, const struct msg_hdr *h,
    const void *payload)
{
	if (h->type == MSG_ALLOC)
		user_alloc(s, r, payload, h->len);
	else if (h->type == MSG_END)
		handle_end(s, r, h->status);
	else
		rank_kind_user.message(s, r, h, payload);
}

static void
user_describe(struct session *s, int r, struct strbuf *sb, int verbose)
{
	rank_kind_user.describe(s, r, sb, verbose);
}

static int
user_settled(struct session *s, int r)
{
	return !board_pending(s, r) && rank_kind_user.settled(s, r);
}

static int
user_interrupt(struct session *s, int r)
{
	return rank_kind_user.interrupt(s, r);
}

/* Rank r's memory, written there by its control thread. */
static int
mem_op(struct mpi_world *w, int r, const struct remote_mem *m, const void *data,
    size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	strbuf_add(&sb, m, sizeof *m);
	if (len > 0)
		strbuf_add(&sb, data, len);
	rc = mpi_send(w, r, MSG_MEM, 0, 0, sb.buf, sb.len);
	strbuf_release(&sb);
	return rc;
}

/* One micro-op of a prompt command on user rank r, one-sided. */
static int
user_uop(struct session *s, int r, const struct uop *u, char **why)
{
	struct mpi_world *w = world_of(s);
	size_t bytes = u->count * dtype_size((enum dtype)u->dtype);
	struct remote_mem m;
	void *buf;
	int rc;

	memset(&m, 0, sizeof m);
	switch (u->kind) {
	case UOP_NOTIFY:
		m.kind = MEM_NOTIFY;
		m.off = u->dst;
		m.value = u->value;
		m.op = u->op;
		return mem_op(w, u->peer, &m, NULL, 0);
	case UOP_FILL:
		m.kind = MEM_FILL;
		m.fill = *u;
		return mem_op(w, r, &m, NULL, 0);
	case UOP_PUT:
	case UOP_GET:
		if (bytes > PROTO_MAX_MSG - sizeof m)
			return cause_set(why, "more than %u bytes at once",
			    PROTO_MAX_MSG / 2);
		buf = xmalloc(bytes ? bytes : 1);
		rc = u->kind == UOP_PUT ?
		    view_read(&s->view, r, u->src, buf, bytes) :
		    view_read(&s->view, u->peer, u->src, buf, bytes);
		if (rc == 0) {
			m.kind = u->op == ATOMIC_ADD ? MEM_ADD : MEM_WRITE;
			m.dtype = u->dtype;
			m.off = u->dst;
			m.count = u->op == ATOMIC_ADD ? u->count : bytes;
			rc = mem_op(w, u->kind == UOP_PUT ? u->peer : r, &m,
			    buf, bytes);
		}
		free(buf);
		return rc == 0 ? 0 : cause_set(why, "rank %d did not answer", r);
	default:
		return cause_set(why,
		    "%s cannot be done by the shell on a rank of an mpi session",
		    uop_kind_name((enum uop_kind)u->kind));
	}
}

static int
user_submit(struct session *s, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags, struct job **jp, char **cause)
{
	char *why = NULL;
	int rc = -1;

	(void)flags;
	(void)pflags;
	*jp = NULL;
	if (oneside_check(p, s->nranks, s->seg.area_size, &why) != 0)
		goto out;
	for (size_t i = 0; i < p->nmops; i++) {
		if (p->mops[i].kind == UOP_WAIT) {
			cause_set(&why, "the shell cannot wait for rank %d", r);
			goto out;
		}
	}
	for (size_t i = 0; i < p->nmops; i++) {
		if (user_uop(s, r, &p->mops[i], &why) != 0)
			goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		cause_set(cause, "%s for rank %d: %s", desc, r, why);
	free(why);
	prog_free(p);
	free(desc);
	return rc;
}

const struct rank_kind rank_kind_mpi_user = {
	.name = "mpi-user",
	.own_code = 1,
	.open = open_user,
	.message = user_message,
	.describe = user_describe,
	.settled = user_settled,
	.gone = mpi_gone,
	.submit = user_submit,
	.interrupt = user_interrupt,
	.kill = mpi_kill,
	.not_stopped_hint = " (they run their program; 'break' stops them)",
	.remote = 1,
	.pump = mpi_pump,
	.close = mpi_close,
};
