/*
 * pump.c - reading the ranks: their messages, their output lines, their
 * end.  Everything read becomes a job's end or an event (out_event()).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "out/out.h"
#include "outbox.h"
#include "proto.h"
#include "session-int.h"
#include "xmalloc.h"

static void handle_msg(struct session *s, int r, const struct msg_hdr *h,
    void *payload);

struct msg_to {
	struct session *s;
	int r;
};

static void
handle_cb(void *arg, const struct msg_hdr *h, void *payload)
{
	struct msg_to *to = arg;

	handle_msg(to->s, to->r, h, payload);
}

/* What rank r queued in its outbox (core/outbox.h), in order. */
static void
drain_outbox(struct session *s, int r)
{
	(void)session_drain_outbox(s, r);
}

int
session_drain_outbox(struct session *s, int r)
{
	struct rankproc *rp = &s->rp[r];
	struct msg_to to = { s, r };

	if (rp->outbox == NULL || rp->outbox_busy ||
	    outbox_pending(rp->outbox) == 0)
		return 0;
	rp->outbox_busy = 1;
	if (outbox_read(rp->outbox, (uint8_t *)rp->outbox + OUTBOX_HDR,
		rp->outbox_len - OUTBOX_HDR, handle_cb, &to) < 0 &&
	    !rp->outbox_said) {
		rp->outbox_said = 1;
		out_event(r,
		    "[rank %d] error: its outbox to colldb was written over; what was in it is skipped",
		    r);
	}
	user_flush(s, r); /* the call it is in: a job */
	rp->outbox_busy = 0;
	return 1;
}

/* Rank r's process ended with wait status st (reaped by the caller). */
static void
rank_gone(struct session *s, int r, int st)
{
	struct rankproc *rp = &s->rp[r];
	struct view_board b;
	struct job_end died = { .status = JOB_DIED, .text = "rank died" };
	int queued = -1; /* the head is what it was doing */

	if (!rp->alive)
		return;
	drain_outbox(s, r); /* nothing it wrote is lost */
	rp->alive = 0;
	free(rp->death);
	rp->death = NULL;
	rp->wstatus = st;
	s->kind->gone(s, r, st);
	for (struct job *j = rp->jobs; j != NULL; j = j->next)
		queued++;
	if (queued > 0)
		out_event(r, "[rank %d] %d queued command%s dropped", r, queued,
		    queued == 1 ? "" : "s");
	/* What it still had to run stays for diagnose ("died owing ..."). */
	view_board(&s->view, r, &b);
	rp->orphan_pc = b.prog_tag == (rp->jobs ? rp->jobs->tag : 0) ? b.pc : 0;
	rp->orphans = rp->jobs;
	rp->jobs = NULL;
	for (struct job *j = rp->orphans; j != NULL; j = j->next) {
		if (j->done != NULL)
			j->done(s, j, &died);
	}
	if (rp->sock >= 0)
		close(rp->sock);
	rp->sock = -1;
	for (int i = 0; i < s->nhooks; i++) {
		if (s->hooks[i]->gone != NULL)
			s->hooks[i]->gone(s, r);
	}
}

static void drain_output(struct session *s, int r, int final);

void
session_rank_ended(struct session *s, int r, int st)
{
	if (s->rp[r].out >= 0)
		drain_output(s, r, 0);
	rank_gone(s, r, st);
}

/* One message of rank r (payload borrowed): from its socket, its outbox
 * or a batch. */
static void
handle_msg(struct session *s, int r, const struct msg_hdr *h, void *payload)
{
	if (h->type == MSG_DONE && h->len >= sizeof(struct done_info)) {
		struct done_info di;
		struct job_end e = { .status = h->status,
			.di = &di,
			.text = (char *)payload + sizeof di };

		memcpy(&di, payload, sizeof di);
		if (!user_call_end(s, r, h->tag, &e))
			session_job_end(s, r, h->tag, &e);
	} else if (h->type == MSG_KICK) {
		drain_outbox(s, r); /* what it wrote before the bell */
	} else if (h->type == MSG_QUEUED) {
		struct msg_to to = { s, r };

		if (outbox_unbatch(payload, h->len, handle_cb, &to) < 0)
			out_event(r, "[rank %d] sent a malformed batch", r);
		user_flush(s, r);
	} else if (s->kind->message != NULL) {
		s->kind->message(s, r, h, payload);
	}
}

/* Handle what rank r has sent; 1 when its socket closed. */
static int
read_msgs(struct session *s, int r)
{
	struct rankproc *rp = &s->rp[r];

	drain_outbox(s, r);
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
		rp->nread++;
		handle_msg(s, r, &h, payload);
		user_flush(s, r); /* one message a read */
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

	if (!rp->alive || rp->pid <= 0 ||
	    waitpid(rp->pid, &st, WNOHANG) != rp->pid)
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
	if (s->kind->remote) {
		/* not our child: the connection was the rank */
		drain_output(s, r, 1);
		rank_gone(s, r, -1);
		return;
	}
	for (int i = 0; i < 200; i++) {
		struct pollfd p = { rp->out, POLLIN, 0 };

		if (rank_reap(s, r))
			return;
		if (rp->out >= 0)
			drain_output(s, r, 0);
		poll(rp->out >= 0 ? &p : NULL, rp->out >= 0, 1);
	}
	free(rp->death);
	rp->death = xstrdup(
	    "left colldb: its connection closed while the process runs on");
	out_event(r,
	    "[rank %d] closed its connection to colldb and runs on (exec?): it can no longer be stopped or stepped; its output and exit are still reported",
	    r);
}

static void
drain_output(struct session *s, int r, int final)
{
	struct rankproc *rp = &s->rp[r];
	char buf[4096];
	ssize_t n = -1; /* no read when out is closed */

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
		memmove(rp->outbuf.buf, rp->outbuf.buf + len,
		    rp->outbuf.len - len);
		strbuf_setlen(&rp->outbuf, rp->outbuf.len - len);
	}
}

/* session_pollfds(), and in who[] (when not NULL) the rank of each fd
 * (-1 for the others). */
static int
pollfds_who(struct session *s, struct pollfd *fds, int *who, int max)
{
	int n = 0;

	if (proc_chld_fd() >= 0 && n < max) {
		if (who != NULL)
			who[n] = -1;
		fds[n].fd = proc_chld_fd();
		fds[n++].events = POLLIN;
	}
	if (s->kind != NULL && s->kind->pollfds != NULL) {
		int k = s->kind->pollfds(s, fds + n, max - n);

		for (int i = 0; who != NULL && i < k; i++)
			who[n + i] = -1;
		n += k;
	}
	for (int r = 0; r < s->nranks && n + 2 <= max; r++) {
		if (s->rp[r].sock >= 0) {
			if (who != NULL)
				who[n] = r;
			fds[n].fd = s->rp[r].sock;
			fds[n++].events = POLLIN;
		}
		if (s->rp[r].out >= 0) {
			if (who != NULL)
				who[n] = r;
			fds[n].fd = s->rp[r].out;
			fds[n++].events = POLLIN;
		}
	}
	return n;
}

int
session_pollfds(struct session *s, struct pollfd *fds, int max)
{
	return pollfds_who(s, fds, NULL, max);
}

int
session_pollfds_max(struct session *s)
{
	return 2 * s->nranks + 8;
}

/* A rank wrote over what the shell reads in the segment (a `call` into a
 * library that scribbles): say so once; the shell goes on with its own
 * checked copy (core/seg.h). */
void
session_check_segment(struct session *s)
{
	char *r, *line, *save = NULL;

	if (s->seg.h == NULL || (r = view_take_reports(&s->view)) == NULL)
		return;
	for (line = strtok_r(r, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		out_event(-1, "error: %s", line);
	free(r);
}

/*
 * Only the ranks whose fds poll() marked are read: with 1024 ranks a
 * look at every one would be thousands of system calls a pump.
 */
void
session_pump(struct session *s, int timeout_ms)
{
	int max = session_pollfds_max(s), n, last = -1;
	struct pollfd *fds = xreallocarray(NULL, (size_t)max, sizeof *fds);
	int *who = xreallocarray(NULL, (size_t)max, sizeof *who);

	n = pollfds_who(s, fds, who, max);
	/* the calls user ranks made since the last pump, whether they rang or
	 * not (before the hooks: the trace names their spans with them) */
	for (int r = 0; r < s->nranks; r++)
		drain_outbox(s, r);
	for (int i = 0; i < s->nhooks; i++) {
		if (s->hooks[i]->pump != NULL)
			s->hooks[i]->pump(s);
	}
	session_check_segment(s);
	session_withdraw_tick(s);
	if (s->kind->pump != NULL)
		s->kind->pump(s);
	if (n == 0) {
		if (timeout_ms > 0)
			poll(NULL, 0, timeout_ms);
		goto out;
	}
	if (poll(fds, (nfds_t)n, timeout_ms) <= 0)
		goto out;
	if (s->kind->pump != NULL)
		s->kind->pump(s); /* what came in, before the messages */
	for (int i = 0; i < n; i++) {
		int r = who[i];

		if (r < 0 || fds[i].revents == 0 || r == last)
			continue;
		last = r; /* its socket and its output: one visit */
		if (s->rp[r].out >= 0)
			drain_output(s, r, 0);
		if (read_msgs(s, r))
			rank_hup(s, r);
	}
	if (proc_chld_pending()) {
		for (int r = 0; r < s->nranks; r++)
			rank_reap(s, r);
	}
	/* what the kind makes of a rank that went just now (an mpi rank's
	 * death ends the job): now, not at a next pump that may not come
	 * (--batch stops pumping once no rank is alive) */
	if (s->kind->pump != NULL)
		s->kind->pump(s);
out:
	free(fds);
	free(who);
}
