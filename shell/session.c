/*
 * session.c - the world behind the prompt: start the rank processes, send
 * them programs, read what they report, notice deaths, and decide when the
 * world is quiescent (SPEC §3, "Asynchronous model").
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "futex.h"
#include "proto.h"
#include "registry.h"
#include "shell.h"
#include "span.h"
#include "xmalloc.h"

struct session *sess;

static void job_free(struct job *j);

/*
 * A rank's end is seen by SIGCHLD, not only by its socket closing: a rank
 * may exec another program (the socket closes, the process runs on and
 * writes), or leave a child holding the socket (the process is gone, the
 * socket stays open).  The handler writes to a pipe that every poll of
 * the session watches.
 */
static int chld_pipe[2] = { -1, -1 };

static void
on_sigchld(int sig)
{
	int e = errno;

	(void)sig;
	if (write(chld_pipe[1], "c", 1) < 0) {
		/* full: a wake-up is already pending */
	}
	errno = e;
}

static void
watch_children(void)
{
	struct sigaction sa;

	if (chld_pipe[0] >= 0 || pipe2(chld_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
}

static int
spawn_rank(struct session *s, int r, char **cause)
{
	struct rankproc *rp = &s->rp[r];
	int sv[2], outp[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return cause_set(cause, "socketpair: %s", strerror(errno));
	if (pipe2(outp, O_CLOEXEC) != 0) {
		close(sv[0]);
		close(sv[1]);
		return cause_set(cause, "pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		close(outp[0]);
		close(outp[1]);
		return cause_set(cause, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		char a_seg[16], a_sock[16], a_rank[16];

		rank_child_fds(s, sv, outp);
		snprintf(a_seg, sizeof a_seg, "%d", s->seg.fd);
		snprintf(a_sock, sizeof a_sock, "%d", sv[1]);
		snprintf(a_rank, sizeof a_rank, "%d", r);
		execl(s->self_exe, "colldb", "--agent", a_seg, a_sock, a_rank,
		    (char *)NULL);
		fprintf(stderr, "exec %s: %s\n", s->self_exe, strerror(errno));
		_exit(127);
	}
	rankproc_started(rp, pid, sv, outp);
	return 0;
}

void
rank_child_fds(struct session *s, const int sv[2], const int outp[2])
{
	int devnull = open("/dev/null", O_RDONLY);

	if (devnull >= 0) {
		dup2(devnull, 0);
		if (devnull != 0)
			close(devnull);
	}
	dup2(outp[1], 1);
	dup2(outp[1], 2);
	/* the two it needs survive the exec; everything else is CLOEXEC */
	fcntl(s->seg.fd, F_SETFD, 0);
	fcntl(sv[1], F_SETFD, 0);
}

void
rankproc_started(struct rankproc *rp, pid_t pid, const int sv[2],
    const int outp[2])
{
	close(sv[1]);
	close(outp[1]);
	rp->pid = pid;
	rp->sock = sv[0];
	rp->out = outp[0];
	rp->alive = 1;
	fcntl(rp->out, F_SETFL, O_NONBLOCK);
}

int
session_prepare(struct session *s, int nranks, const char *name,
    uint64_t area, char **cause)
{
	s->nranks = nranks;
	s->transport = "shm";
	snprintf(s->name, sizeof s->name, "%s", name);
	rankset_all(&s->focus, nranks);
	s->next_tag = 1;
	s->next_coll = 1;
	if (s->self_exe == NULL)
		s->self_exe = xstrdup("/proc/self/exe");
	if (seg_create(&s->seg, name, nranks, area ? area : seg_default_area(nranks),
		span_ring_default_bytes(nranks), cause) != 0)
		return -1;
	trace_init(s);
	watch_children();
	s->rp = xcalloc((size_t)nranks, sizeof *s->rp);
	for (int r = 0; r < nranks; r++) {
		s->rp[r].sock = s->rp[r].out = -1;
		strbuf_init(&s->rp[r].outbuf, 0);
	}
	return 0;
}

void
session_register(struct session *s)
{
	/* a name already in use only costs `colldb watch NAME` */
	char *why = NULL;

	if (registry_add(s->name, s->seg.fd, s->nranks, &why) == 0)
		s->registered = 1;
	else if (s->interactive)
		fprintf(stderr, "colldb: warning: %s; 'colldb watch %s' shows the other one\n",
		    why, s->name);
	free(why);
}

int
session_open(struct session *s, int nranks, const char *name, uint64_t area,
    char **cause)
{
	uint64_t deadline;
	int ready = 0;
	char hello[SEG_MAX_RANKS] = { 0 };

	if (session_prepare(s, nranks, name, area, cause) != 0)
		return -1;
	for (int r = 0; r < nranks; r++) {
		if (spawn_rank(s, r, cause) != 0)
			goto fail;
	}
	/* Every rank maps the segment, says hello; then the name goes. */
	deadline = mono_ns() + 20ull * 1000000000u;
	while (ready < nranks) {
		struct pollfd pfd[SEG_MAX_RANKS];
		int n = 0, map[SEG_MAX_RANKS];

		for (int r = 0; r < nranks; r++) {
			if (s->rp[r].sock >= 0 && !hello[r]) {
				pfd[n].fd = s->rp[r].sock;
				pfd[n].events = POLLIN;
				map[n++] = r;
			}
		}
		if (n == 0 || mono_ns() > deadline) {
			cause_set(cause, "ranks did not start");
			goto fail;
		}
		if (poll(pfd, (nfds_t)n, 100) < 0 && errno != EINTR) {
			cause_set(cause, "poll: %s", strerror(errno));
			goto fail;
		}
		for (int i = 0; i < n; i++) {
			struct msg_hdr h;
			void *payload;
			if (!(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			if (proto_recv(pfd[i].fd, &h, &payload) != 1 ||
			    h.type != MSG_HELLO) {
				free(payload);
				cause_set(cause, "rank %d failed to start", map[i]);
				goto fail;
			}
			free(payload);
			hello[map[i]] = 1;
			ready++;
		}
	}
	seg_unlink(&s->seg);
	session_register(s);
	s->idle_since = mono_ns();
	return 0;
fail:
	session_close(s);
	return -1;
}

void
session_close(struct session *s)
{
	bench_last_free(s);
	trace_free(s);
	if (s->rp != NULL) {
		for (int r = 0; r < s->nranks; r++) {
			struct rankproc *rp = &s->rp[r];
			if (rp->sock >= 0) {
				struct msg_hdr h = { .type = MSG_QUIT };
				proto_send(rp->sock, &h, NULL);
			}
		}
		for (int r = 0; r < s->nranks; r++) {
			struct rankproc *rp = &s->rp[r];
			if (rp->pid > 0 && rp->alive) {
				/* A rank blocked in a wait never reads QUIT;
				 * what a user program forked dies with it (a
				 * reaped rank's group went in rank_gone). */
				kill(rp->pid, SIGKILL);
				if (s->user)
					kill(-rp->pid, SIGKILL);
				waitpid(rp->pid, NULL, 0);
			}
			if (rp->sock >= 0)
				close(rp->sock);
			if (rp->out >= 0)
				close(rp->out);
			while (rp->jobs != NULL) {
				struct job *j = rp->jobs;
				rp->jobs = j->next;
				job_free(j);
			}
			while (rp->orphans != NULL) {
				struct job *j = rp->orphans;
				rp->orphans = j->next;
				job_free(j);
			}
			strbuf_release(&rp->outbuf);
			free(rp->last_op);
			free(rp->death);
		}
		free(s->rp);
		s->rp = NULL;
	}
	free(s->hist);
	s->hist = NULL;
	s->nhist = s->ahist = 0;
	if (s->seg.h != NULL)
		atomic_store(&s->seg.h->ended, 1);
	if (s->registered)
		registry_remove(s->name);
	s->registered = 0;
	seg_close(&s->seg);
}

static void
job_free(struct job *j)
{
	prog_free(j->prog);
	free(j->desc);
	free(j);
}

static void
job_range(struct job *j)
{
	const struct prog *p = j->prog;

	j->lo = UINT64_MAX;
	j->hi = 0;
	for (size_t i = 0; p != NULL && i < p->nops; i++) {
		const struct uop *u = &p->ops[i];
		uint64_t esz = dtype_size(u->dtype), n = u->count * esz;
		uint64_t d = u->dst, sr = u->src;
		int dspace = u->kind == UOP_COPY || u->kind == UOP_REDUCE ? u->dsp : SP_OWN;
		int sspace = u->kind == UOP_COPY || u->kind == UOP_REDUCE ? u->ssp : SP_OWN;
		int has_src = u->kind == UOP_PUT || u->kind == UOP_GET ||
		    u->kind == UOP_COPY || u->kind == UOP_REDUCE;

		if (u->kind == UOP_NOTIFY || u->kind == UOP_WAIT)
			n = 4;
		if (dspace != SP_ACC && n > 0) {
			j->lo = MIN(j->lo, d);
			j->hi = MAX(j->hi, d + n);
		}
		if (has_src && sspace != SP_ACC && n > 0) {
			j->lo = MIN(j->lo, sr);
			j->hi = MAX(j->hi, sr + n);
		}
	}
}

int
session_range_busy(struct session *s, uint64_t lo, uint64_t hi, int *rank)
{
	for (int r = 0; r < s->nranks; r++) {
		for (struct job *j = s->rp[r].jobs; j != NULL; j = j->next) {
			if (j->lo < hi && lo < j->hi) {
				*rank = r;
				return 1;
			}
		}
	}
	return 0;
}

int
rank_alive(struct session *s, int r)
{
	/* alive and still talking to us (not exec'd away) */
	return r >= 0 && r < s->nranks && s->rp[r].alive && s->rp[r].sock >= 0;
}

enum rank_state
rank_state_of(struct session *s, int r)
{
	return (enum rank_state)atomic_load(&seg_board(&s->seg, r)->state);
}

struct job *
rank_job(struct session *s, int r)
{
	return s->rp[r].jobs;
}

static void
enqueue(struct session *s, int r, struct job *j)
{
	struct job **p = &s->rp[r].jobs;

	while (*p != NULL)
		p = &(*p)->next;
	*p = j;
}

static int
send_or_fail(struct session *s, int r, const struct msg_hdr *h,
    const void *payload, char **cause)
{
	if (!rank_alive(s, r))
		return cause_set(cause, "rank %d is dead", r);
	if (proto_send(s->rp[r].sock, h, payload) != 0)
		return cause_set(cause, "cannot reach rank %d: %s", r,
		    strerror(errno));
	return 0;
}

int
session_queue_full(struct session *s, int r, char **cause)
{
	int n = 0;

	for (struct job *j = s->rp[r].jobs; j != NULL; j = j->next)
		n++;
	if (n < QUEUE_MAX)
		return 0;
	cause_set(cause, "rank %d already has %d commands queued behind what it is doing; "
	    "let it catch up, or interrupt it", r, n);
	return 1;
}

struct job *
session_submit(struct session *s, int r, struct prog *p, char *desc,
    unsigned flags, unsigned pflags, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	struct msg_hdr h = { .type = MSG_PROG, .flags = pflags };
	struct job *j;

	if (session_queue_full(s, r, cause))
		goto fail;
	prog_encode(p, &sb);
	h.tag = s->next_tag++;
	h.len = (uint32_t)sb.len;
	if (sb.len > PROTO_MAX_MSG) {
		cause_set(cause, "program too large (%zu bytes)", sb.len);
		goto fail;
	}
	if (send_or_fail(s, r, &h, sb.buf, cause) != 0)
		goto fail;
	strbuf_release(&sb);
	j = xcalloc(1, sizeof *j);
	j->tag = h.tag;
	j->rank = r;
	j->prog = p;
	j->desc = desc;
	j->flags = flags | ((pflags & PROG_F_START) ? JOB_START : 0);
	job_range(j);
	enqueue(s, r, j);
	return j;
fail:
	strbuf_release(&sb);
	prog_free(p);
	free(desc);
	return NULL;
}

struct job *
session_track(struct session *s, int r, uint32_t tag, struct prog *p,
    char *desc, unsigned flags)
{
	struct job *j = xcalloc(1, sizeof *j);

	j->tag = tag;
	j->rank = r;
	j->prog = p;
	j->desc = desc;
	j->flags = flags;
	job_range(j);
	enqueue(s, r, j);
	return j;
}

int
session_submit_coll(struct session *s, const struct coll_args *a,
    unsigned pflags, int coll_id, char **cause)
{
	return session_submit_coll_repeat(s, a, pflags, coll_id, 1, 0, cause);
}

int
session_submit_coll_repeat(struct session *s, const struct coll_args *a,
    unsigned pflags, int coll_id, uint32_t repeat, uint32_t first_iter,
    char **cause)
{
	struct coll_msg cm;
	struct msg_hdr h = { .type = MSG_COLL, .flags = pflags,
		.len = sizeof cm };

	struct prog *p0;

	memset(&cm, 0, sizeof cm);
	cm.args = *a;
	cm.repeat = repeat;
	cm.first_iter = first_iter;
	cm.args.buf.name = cm.args.src.name = cm.args.sig.name = NULL;
	/* Everything that can refuse is checked before any rank is told. */
	for (int r = 0; r < s->nranks; r++) {
		if (session_queue_full(s, r, cause))
			return -1;
	}
	p0 = coll_build(a, s->nranks, 0);
	if (p0->nops * (uint64_t)s->nranks > COLL_OPS_BUDGET) {
		cause_set(cause, "%s on %d ranks is %zu micro-ops per rank, %llu in all; "
		    "colldb keeps at most %u million (a smaller buffer, mode=mesh or fewer ranks)",
		    p0->title, s->nranks, p0->nops,
		    (unsigned long long)p0->nops * (uint64_t)s->nranks,
		    COLL_OPS_BUDGET / 1000000u);
		prog_free(p0);
		return -1;
	}
	for (int r = 0; r < s->nranks; r++) {
		struct job *j = xcalloc(1, sizeof *j);

		h.tag = s->next_tag++;
		if (send_or_fail(s, r, &h, &cm, cause) != 0) {
			free(j);
			if (r == 0)
				prog_free(p0);
			return -1;
		}
		j->tag = h.tag;
		j->rank = r;
		j->prog = r == 0 ? p0 : coll_build(a, s->nranks, r);
		j->desc = xstrdup(j->prog->title);
		j->flags = JOB_COLL | ((pflags & PROG_F_START) ? JOB_START : 0);
		j->coll = coll_id;
		job_range(j);
		enqueue(s, r, j);
	}
	return 0;
}

/* Collective bookkeeping lives with the collective commands. */
void coll_job_done(struct session *s, struct job *j, int status,
    const struct done_info *di, const char *text);

static void
job_done(struct session *s, int r, const struct msg_hdr *h,
    const struct done_info *di, const char *text)
{
	struct rankproc *rp = &s->rp[r];
	struct job **pp = &rp->jobs, *j;

	while (*pp != NULL && (*pp)->tag != h->tag)
		pp = &(*pp)->next;
	if ((j = *pp) == NULL)
		return;
	*pp = j->next;
	free(rp->last_op);
	rp->last_op = xstrdup(j->desc);
	if (h->status == DONE_OK && !(j->flags & JOB_COLL))
		hist_record(s, j);
	if (j->flags & JOB_CALL) {
		call_job_done(s, j, h->status, text);
	} else if (h->status == DONE_ERROR) {
		out_event(r, "[rank %d] %s failed: %s", r, j->desc,
		    text[0] ? text : "unknown error");
	} else if (j->flags & JOB_COLL) {
		coll_job_done(s, j, h->status, di, text);
	} else if (j->flags & JOB_WAIT) {
		out_event(r, "[rank %d] %s %s (value %d)", r, j->desc,
		    h->status == DONE_ABORTED ? "interrupted" :
		    di->gaveup ? "gave up (wait-giveup)" : "satisfied",
		    di->seen);
	} else if (h->status == DONE_ABORTED) {
		out_event(r, "[rank %d] %s interrupted", r, j->desc);
	} else if (j->flags & JOB_ANNOUNCE) {
		out_event(r, "[rank %d] %s done", r, j->desc);
	}
	trace_job_done(s, r, j);
	job_free(j);
}

static const char *
signame(int sig)
{
	static char buf[32];
	const char *n = sigabbrev_np(sig);

	if (n == NULL) {
		snprintf(buf, sizeof buf, "signal %d", sig);
		return buf;
	}
	snprintf(buf, sizeof buf, "SIG%s", n);
	return buf;
}

/* Rank r's process ended with wait status st (reaped by the caller). */
static void
rank_gone(struct session *s, int r, int st)
{
	struct rankproc *rp = &s->rp[r];
	struct seg_rank *b = seg_board(&s->seg, r);
	struct strbuf sb = STRBUF_INIT;

	if (!rp->alive)
		return;
	rp->alive = 0;
	if (s->user && rp->pid > 0)
		kill(-rp->pid, SIGKILL);	/* what it forked goes too */
	free(rp->death);
	rp->death = NULL;
	rp->wstatus = st;
	if (s->user)
		run_rank_gone(s, r, st);	/* its own words, see run.c */
	else if (rp->jobs != NULL)
		describe_rank(s, r, &sb, 0);
	else if (rp->last_op != NULL)
		strbuf_addf(&sb, "after %s", rp->last_op);
	else
		strbuf_addstr(&sb, "while idle");
	if (s->user) {
		/* reported */
	} else if (WIFSIGNALED(st)) {
		seg_set_state(b, RS_DEAD);
		rp->death = xasprintf("killed by %s %s%s", signame(WTERMSIG(st)),
		    rp->jobs != NULL ? "during " : "", sb.buf);
		out_event(r, "[rank %d] died: %s", r, rp->death);
	} else {
		seg_set_state(b, RS_EXITED);
		rp->death = xasprintf("exited with status %d %s%s",
		    WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		    rp->jobs != NULL ? "during " : "", sb.buf);
		out_event(r, "[rank %d] %s", r, rp->death);
	}
	strbuf_release(&sb);
	{
		int queued = -1;	/* the head is what it was doing */
		for (struct job *j = rp->jobs; j != NULL; j = j->next)
			queued++;
		if (queued > 0)
			out_event(r, "[rank %d] %d queued command%s dropped", r, queued,
			    queued == 1 ? "" : "s");
	}
	/* What it still had to run stays for diagnose ("died owing ..."). */
	rp->orphan_pc = atomic_load(&b->prog_tag) == (rp->jobs ? rp->jobs->tag : 0) ?
	    atomic_load(&b->pc) : 0;
	rp->orphans = rp->jobs;
	rp->jobs = NULL;
	for (struct job *j = rp->orphans; j != NULL; j = j->next) {
		if (j->flags & JOB_COLL)
			coll_job_done(s, j, -1, NULL, "rank died");
	}
	if (rp->sock >= 0)
		close(rp->sock);
	rp->sock = -1;
}

static void drain_output(struct session *s, int r, int final);

/* Handle what rank r has sent; 1 when its socket closed. */
static int
read_msgs(struct session *s, int r)
{
	struct rankproc *rp = &s->rp[r];

	while (rp->sock >= 0) {
		struct pollfd p = { rp->sock, POLLIN, 0 };
		struct msg_hdr h;
		void *payload;

		if (poll(&p, 1, 0) <= 0)
			return 0;
		if (proto_recv(rp->sock, &h, &payload) <= 0) {
			free(payload);
			return 1;
		}
		if (h.type == MSG_DONE && h.len >= sizeof(struct done_info)) {
			struct done_info di;
			memcpy(&di, payload, sizeof di);
			job_done(s, r, &h, &di, (char *)payload + sizeof di);
		} else if (s->user) {
			run_msg(s, r, &h, payload);
		}
		free(payload);
	}
	return 0;
}

/* Reap rank r if its process has ended: 1 if it had.  What it sent
 * before it ended is handled first. */
static int
rank_reap(struct session *s, int r)
{
	struct rankproc *rp = &s->rp[r];
	int st = 0;

	if (!rp->alive || rp->pid <= 0 || waitpid(rp->pid, &st, WNOHANG) != rp->pid)
		return 0;
	read_msgs(s, r);
	drain_output(s, r, 1);
	rank_gone(s, r, st);
	return 1;
}

/*
 * Rank r's socket closed.  Normally it is dying: reap it (its exit follows
 * the close within moments).  A process still running after that has
 * exec'd or closed the socket: colldb cannot control it any more, but its
 * output keeps coming and its exit is reported when it happens.
 */
static void
rank_hup(struct session *s, int r)
{
	struct rankproc *rp = &s->rp[r];

	close(rp->sock);
	rp->sock = -1;
	for (int i = 0; i < 200; i++) {
		struct pollfd p = { rp->out, POLLIN, 0 };

		if (rank_reap(s, r))
			return;
		if (rp->out >= 0)
			drain_output(s, r, 0);
		poll(rp->out >= 0 ? &p : NULL, rp->out >= 0, 1);
	}
	free(rp->death);
	rp->death = xstrdup("left colldb: its connection closed while the process runs on");
	out_event(r, "[rank %d] closed its connection to colldb and runs on (exec?): it can no longer be stopped or stepped; its output and exit are still reported",
	    r);
}

static void
drain_output(struct session *s, int r, int final)
{
	struct rankproc *rp = &s->rp[r];
	char buf[4096];
	ssize_t n;

	while (rp->out >= 0 && (n = read(rp->out, buf, sizeof buf)) > 0)
		strbuf_add(&rp->outbuf, buf, (size_t)n);
	if (rp->out >= 0 && (final || n == 0)) {
		if (n == 0) {
			close(rp->out);
			rp->out = -1;
		}
	}
	for (;;) {
		char *nl = memchr(rp->outbuf.buf, '\n', rp->outbuf.len);
		size_t len;
		if (nl == NULL) {
			if (!(rp->out < 0 && rp->outbuf.len > 0))
				break;
			len = rp->outbuf.len;
		} else {
			len = (size_t)(nl - rp->outbuf.buf);
		}
		out_event(r, "[rank %d] %.*s", r, (int)len, rp->outbuf.buf);
		len = MIN(len + 1, rp->outbuf.len);
		memmove(rp->outbuf.buf, rp->outbuf.buf + len, rp->outbuf.len - len);
		strbuf_setlen(&rp->outbuf, rp->outbuf.len - len);
	}
}

int
session_pollfds(struct session *s, struct pollfd *fds, int max)
{
	int n = 0;

	if (chld_pipe[0] >= 0 && n < max) {
		fds[n].fd = chld_pipe[0];
		fds[n++].events = POLLIN;
	}
	for (int r = 0; r < s->nranks && n + 2 <= max; r++) {
		if (s->rp[r].sock >= 0) {
			fds[n].fd = s->rp[r].sock;
			fds[n++].events = POLLIN;
		}
		if (s->rp[r].out >= 0) {
			fds[n].fd = s->rp[r].out;
			fds[n++].events = POLLIN;
		}
	}
	return n;
}

void
session_pump(struct session *s, int timeout_ms)
{
	struct pollfd fds[2 * SEG_MAX_RANKS + 1];
	int n = session_pollfds(s, fds, (int)ARRAY_SIZE(fds));
	char c[64];

	watchdog_tick(s);
	trace_drain(s);
	if (n == 0) {
		if (timeout_ms > 0)
			poll(NULL, 0, timeout_ms);
		return;
	}
	if (poll(fds, (nfds_t)n, timeout_ms) <= 0)
		return;
	for (int r = 0; r < s->nranks; r++) {
		if (s->rp[r].out >= 0)
			drain_output(s, r, 0);
		if (read_msgs(s, r))
			rank_hup(s, r);
	}
	if (chld_pipe[0] >= 0 && read(chld_pipe[0], c, sizeof c) > 0) {
		for (int r = 0; r < s->nranks; r++)
			rank_reap(s, r);
	}
}

/* Does rank r still have work that will move without outside help? */
static int
rank_settled(struct session *s, int r)
{
	struct seg_rank *b = seg_board(&s->seg, r);
	enum rank_state st;

	if (s->user)
		return run_rank_settled(s, r);
	if (!rank_alive(s, r) || s->rp[r].jobs == NULL)
		return 1;
	if (atomic_load(&b->interrupt) || atomic_load(&b->abort))
		return 0;	/* about to react to the shell */
	st = (enum rank_state)atomic_load(&b->state);
	if (st == RS_STOPPED)
		return atomic_load(&b->ctl_seen) == atomic_load(&b->ctl);
	if (st == RS_BLOCKED && atomic_load(&s->seg.h->wait_giveup) != 0)
		return 0;	/* it will give up by itself (set wait-giveup) */
	if (st == RS_BLOCKED) {
		uint64_t off = atomic_load(&b->wait_off);
		int32_t v = atomic_load((_Atomic int32_t *)(seg_area(&s->seg, r) + off));
		return !wait_cmp_holds((enum wait_cmp)atomic_load(&b->wait_cmp), v,
		    atomic_load(&b->wait_expected));
	}
	return 0;
}

int
session_quiescent(struct session *s)
{
	for (int r = 0; r < s->nranks; r++) {
		if (!rank_settled(s, r))
			return 0;
	}
	return 1;
}

extern volatile sig_atomic_t shell_interrupted;

int
session_settle(struct session *s)
{
	uint64_t deadline = mono_ns() + (uint64_t)s->set.settle_ms * 1000000u;
	/* A script waits for the world, however long the work takes (the
	 * hang watchdog and Ctrl-C still end the wait), so its output does
	 * not depend on the machine's speed; `set settle` makes it bounded,
	 * and so do user programs (their own code may run for ever). */
	int bounded = !s->batch || s->set.settle_explicit || s->user;
	int rc = -1;

	for (;;) {
		session_pump(s, 0);
		if (session_quiescent(s)) {
			rc = 0;
			break;
		}
		if ((bounded && mono_ns() >= deadline) || shell_interrupted ||
		    s->watchdog_fired)
			break;
		session_pump(s, 1);
	}
	/* One more pass: output written just before the last DONE. */
	session_pump(s, 0);
	return rc;
}

void
session_update_gate(struct session *s)
{
	uint32_t active = 0;

	for (int i = 0; i < SEG_MAX_BREAKS && !active; i++)
		active = s->seg.h->breaks[i].id != 0;
	for (int r = 0; r < s->nranks && !active; r++) {
		struct seg_rank *b = seg_board(&s->seg, r);
		active = atomic_load(&b->mode) == RUN_STEP ||
		    atomic_load(&b->interrupt) || atomic_load(&b->abort);
		/* A program sent to start stopped has not set its mode yet. */
		for (struct job *j = s->rp[r].jobs; j != NULL && !active; j = j->next)
			active = (j->flags & JOB_START) != 0;
	}
	atomic_store(&s->seg.h->gate_active, active);
}
