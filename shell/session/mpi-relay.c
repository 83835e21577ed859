/*
 * mpi-relay.c - the relay thread of an mpi session, and the main thread's
 * side of what it carries (mpi-int.h).
 *
 * The session talks to a rank of an mpi session as to a local one: a
 * SEQPACKET socket (rp->sock) and an output pipe (rp->out).  Their other
 * ends are the relay's, which joins them to the rank's TCP connection:
 *
 *   session -> pair -> relay -> TCP     everything, in order (the
 *                                       segment's sync hooks and the view
 *                                       send through the pair too)
 *   TCP -> relay -> pair -> session     HELLO, DONE, announcements, ALLOC
 *   TCP -> relay -> output pipe         MSG_OUT (before anything that
 *                                       follows it reaches the pair)
 *   TCP -> relay (kept under mu)        MSG_BOARD (the main thread merges
 *                                       it into the segment: mpi_merge()),
 *                                       MSG_DATA (a read's bytes)
 *   TCP -> relay -> the segment's ring  MSG_SPANS (the relay is the
 *                                       producer of the mirror's rings)
 *
 * Why merge in the main thread: the segment's control words are written
 * by the main thread (core/ctl.h) and, for the rank, by the rank; a board
 * overwrites them only when it reflects every MSG_CTL sent (its ack),
 * which only the main thread can tell without a race.
 *
 * Nothing the relay writes to the session blocks it: what a full pipe or
 * socket does not take waits in the link's queue.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "mpi-int.h"
#include "xmalloc.h"

#define SAMPLE_WAIT_MS 2000
#define READ_WAIT_MS 10000

static void
wake_relay(struct mpi_world *w)
{
	if (write(w->wake[1], "w", 1) < 0) {
		/* full: it is awake already */
	}
}

/* ---- the relay thread ------------------------------------------------------ */

/* Move what the queues hold into the pipe, then (only once the output is
 * all out) into the pair. */
static void
flush_link(struct mpi_link *l)
{
	while (l->outq.len > 0 && l->out >= 0) {
		ssize_t n = write(l->out, l->outq.buf, l->outq.len);

		if (n <= 0)
			break;
		memmove(l->outq.buf, l->outq.buf + n, l->outq.len - (size_t)n);
		strbuf_setlen(&l->outq, l->outq.len - (size_t)n);
	}
	if (l->outq.len > 0)
		return;
	while (l->pairq.len >= sizeof(struct msg_hdr) && l->pair >= 0) {
		struct msg_hdr h;
		size_t whole;

		memcpy(&h, l->pairq.buf, sizeof h);
		whole = sizeof h + h.len;
		if (send(l->pair, l->pairq.buf, whole,
			MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)whole)
			break;
		memmove(l->pairq.buf, l->pairq.buf + whole, l->pairq.len - whole);
		strbuf_setlen(&l->pairq, l->pairq.len - whole);
	}
}

static void
link_gone(struct mpi_world *w, struct mpi_link *l)
{
	pthread_mutex_lock(&w->mu);
	l->gone = 1;
	l->gone_ns = mono_ns();
	/* a user rank that finalized leaves before MPI_Finalize: the job
	 * goes on (and ends well, or with a later loss) */
	if (!w->stopping && atomic_load(&l->board.slot.state) != RS_EXITED)
		w->lost = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	if (l->out >= 0)
		fcntl(l->out, F_SETFL, 0); /* the rest of its output, whole */
	if (l->pair >= 0)
		fcntl(l->pair, F_SETFL, 0);
	flush_link(l);
	if (l->tcp >= 0)
		close(l->tcp);
	if (l->out >= 0)
		close(l->out);
	if (l->pair >= 0)
		close(l->pair); /* the session sees the rank go */
	l->tcp = l->out = l->pair = -1;
}

/* One whole message from rank r. */
static void
from_rank(struct mpi_world *w, int r, const struct msg_hdr *h, const char *payload)
{
	struct mpi_link *l = &w->links[r];
	struct session *s = w->s;

	switch (h->type) {
	case MSG_BOARD:
		if (h->len != sizeof l->board)
			return;
		pthread_mutex_lock(&w->mu);
		memcpy(&l->board, payload, sizeof l->board);
		if (h->tag != 0)
			l->sample_id = h->tag;
		l->board_seq++;
		/* status 1: it reflects the message that follows (a DONE) */
		l->board_after = l->forwarded + (h->status == 1);
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		return;
	case MSG_DATA: {
		uint64_t off;

		if (h->len < sizeof off)
			return;
		memcpy(&off, payload, sizeof off);
		pthread_mutex_lock(&w->mu);
		if (h->tag == l->rd_id && l->rd_buf != NULL) {
			uint64_t n = h->len - sizeof off;

			if (off >= l->rd_off && off - l->rd_off <= l->rd_len &&
			    n <= l->rd_len - (off - l->rd_off))
				memcpy(l->rd_buf + (off - l->rd_off),
				    payload + sizeof off, (size_t)n);
			if (h->status)
				l->rd_done = 1;
			pthread_cond_broadcast(&w->cv);
		}
		pthread_mutex_unlock(&w->mu);
		return;
	}
	case MSG_SPANS: {
		struct remote_spans hs;

		if (h->len < sizeof hs)
			return;
		memcpy(&hs, payload, sizeof hs);
		if (hs.n > (h->len - sizeof hs) / sizeof(struct span_rec))
			return;
		span_ring_append(seg_spans(&s->seg, r), s->seg.span_bytes,
		    (const struct span_rec *)(const void *)(payload + sizeof hs),
		    (size_t)hs.n, l->clock, hs.lost);
		return;
	}
	case MSG_OUT:
		strbuf_add(&l->outq, payload, h->len);
		flush_link(l);
		return;
	case MSG_END:
		/* the session takes the rank as ended once it reads this, and
		 * closes its end of the pair; the rank waits for the go */
		l->ending = 1;
		/* FALLTHROUGH */
	default:
		pthread_mutex_lock(&w->mu);
		l->forwarded++;
		pthread_mutex_unlock(&w->mu);
		if (l->pairq.len == 0 && l->outq.len == 0 && l->pair >= 0) {
			/* nothing queued before it: to the pair from where
			 * it was read, not through the queue (a copy of
			 * every batch of calls) */
			struct iovec iov[2] = { { (void *)h, sizeof *h },
				{ (void *)payload, h->len } };
			struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };

			if (sendmsg(l->pair, &m, MSG_DONTWAIT | MSG_NOSIGNAL) ==
			    (ssize_t)(sizeof *h + h->len))
				return;
		}
		strbuf_add(&l->pairq, h, sizeof *h);
		strbuf_add(&l->pairq, payload, h->len);
		flush_link(l);
		return;
	}
}

/* What rank r's connection has: whole messages are handled, a partial
 * one waits in l->in.  Its end is the rank's. */
static void
read_rank(struct mpi_world *w, int r)
{
	struct mpi_link *l = &w->links[r];
	ssize_t n;
	size_t at = 0;

	/* straight into l->in: a batch of calls is tens of KB */
	for (;;) {
		strbuf_grow(&l->in, 65536);
		n = recv(l->tcp, l->in.buf + l->in.len, 65536, MSG_DONTWAIT);
		if (n <= 0)
			break;
		strbuf_setlen(&l->in, l->in.len + (size_t)n);
	}
	while (l->in.len - at >= sizeof(struct msg_hdr)) {
		struct msg_hdr h;

		memcpy(&h, l->in.buf + at, sizeof h);
		if (h.len > PROTO_MAX_MSG) {
			n = 0; /* not colldb talking: drop the rank */
			break;
		}
		if (l->in.len - at < sizeof h + h.len)
			break;
		from_rank(w, r, &h, l->in.buf + at + sizeof h);
		at += sizeof h + h.len;
	}
	memmove(l->in.buf, l->in.buf + at, l->in.len - at);
	strbuf_setlen(&l->in, l->in.len - at);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		link_gone(w, l);
}

static void
read_launcher(struct mpi_world *w)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(w->launcher_out, buf, sizeof buf)) > 0) {
		pthread_mutex_lock(&w->mu);
		strbuf_add(&w->lines, buf, (size_t)n);
		pthread_mutex_unlock(&w->mu);
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(w->launcher_out);
		w->launcher_out = -1;
		pthread_mutex_lock(&w->mu);
		w->launcher_ended = 1;
		pthread_mutex_unlock(&w->mu);
	}
}

/* Every packet the session put in l's pair, to its rank. */
static void
drain_pair(struct mpi_link *l)
{
	struct msg_hdr h;
	void *payload = NULL;

	while (l->tcp >= 0 && proto_recv(l->pair, &h, &payload) == 1) {
		proto_send(l->tcp, &h, payload);
		free(payload);
		payload = NULL;
	}
}

/* The ranks the main thread let go (mpi_end_go()): MSG_END to each. */
static void
send_gos(struct mpi_world *w)
{
	for (int r = 0; r < w->s->nranks; r++) {
		struct mpi_link *l = &w->links[r];
		struct msg_hdr h = { .type = MSG_END };
		int go;

		pthread_mutex_lock(&w->mu);
		go = l->end_go && !l->end_sent;
		if (go) {
			l->end_sent = 1;
			w->gos--;
		}
		pthread_mutex_unlock(&w->mu);
		if (go && l->tcp >= 0)
			proto_send(l->tcp, &h, NULL);
	}
}

static void *
relay_main(void *arg)
{
	struct mpi_world *w = arg;
	int n = w->s->nranks;
	struct pollfd *fds = xcalloc((size_t)(3 * n + 2), sizeof *fds);
	int *who = xcalloc((size_t)(3 * n + 2), sizeof *who);

	for (;;) {
		int nfd = 0, stop, gos;

		fds[nfd].fd = w->wake[0];
		fds[nfd].events = POLLIN;
		who[nfd++] = -1;
		if (w->launcher_out >= 0) {
			fds[nfd].fd = w->launcher_out;
			fds[nfd].events = POLLIN;
			who[nfd++] = -2;
		}
		for (int r = 0; r < n; r++) {
			struct mpi_link *l = &w->links[r];

			if (l->tcp < 0)
				continue;
			fds[nfd].fd = l->tcp;
			fds[nfd].events = POLLIN;
			who[nfd++] = 3 * r;
			fds[nfd].fd = l->pair;
			fds[nfd].events = POLLIN |
			    (l->pairq.len > 0 && l->outq.len == 0 ? POLLOUT : 0);
			who[nfd++] = 3 * r + 1;
			if (l->outq.len > 0) {
				fds[nfd].fd = l->out;
				fds[nfd].events = POLLOUT;
				who[nfd++] = 3 * r + 2;
			}
		}
		if (poll(fds, (nfds_t)nfd, 100) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < nfd; i++) {
			struct mpi_link *l;

			if (fds[i].revents == 0)
				continue;
			if (who[i] == -1) {
				char c[64];
				while (read(w->wake[0], c, sizeof c) > 0)
					;
				continue;
			}
			if (who[i] == -2) {
				read_launcher(w);
				continue;
			}
			l = &w->links[who[i] / 3];
			if (l->tcp < 0)
				continue;
			switch (who[i] % 3) {
			case 0:
				read_rank(w, who[i] / 3);
				break;
			case 1:
				if (fds[i].revents & POLLIN) {
					struct msg_hdr h;
					void *payload = NULL;

					int st =
					    proto_recv(l->pair, &h, &payload);

					if (st == 1)
						proto_send(l->tcp, &h, payload);
					free(payload);
					if (st == 0 && l->ending) {
						/* it ends by itself: the
						 * connection stays for the go */
						close(l->pair);
						l->pair = -1;
						break;
					}
					if (st == 0) {
						/* the session let the rank go */
						link_gone(w, l);
						break;
					}
				}
				flush_link(l);
				break;
			default:
				flush_link(l);
			}
		}
		pthread_mutex_lock(&w->mu);
		stop = w->stopping;
		gos = w->gos;
		pthread_mutex_unlock(&w->mu);
		if (gos > 0)
			send_gos(w);
		if (stop) {
			/* what the session sent before it stopped us still
			 * goes out: its QUITs (a rank that missed one stayed
			 * idle, its peers in MPI_Finalize, until the launcher
			 * was killed 5 s later) */
			for (int r = 0; r < n; r++)
				drain_pair(&w->links[r]);
			break;
		}
	}
	free(fds);
	free(who);
	return NULL;
}

int
mpi_relay_start(struct mpi_world *w, char **cause)
{
	struct session *s = w->s;

	if (pipe2(w->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		return cause_set(cause, "pipe: %s", strerror(errno));
	for (int r = 0; r < s->nranks; r++) {
		struct mpi_link *l = &w->links[r];
		struct rankproc *rp = &s->rp[r];
		int sv[2], outp[2];

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) !=
			0 ||
		    pipe2(outp, O_CLOEXEC) != 0)
			return cause_set(cause, "socketpair: %s",
			    strerror(errno));
		rp->sock = sv[0];
		rp->out = outp[0];
		rp->pid = 0; /* not ours: its launcher's */
		rp->alive = 1;
		fcntl(rp->out, F_SETFL, O_NONBLOCK);
		l->pair = sv[1];
		l->out = outp[1];
		fcntl(l->out, F_SETFL, O_NONBLOCK);
		fcntl(l->pair, F_SETFL, O_NONBLOCK);
	}
	if (w->launcher_out >= 0)
		fcntl(w->launcher_out, F_SETFL, O_NONBLOCK);
	if (pthread_create(&w->relay, NULL, relay_main, w) != 0)
		return cause_set(cause, "cannot start the relay thread");
	w->relay_on = 1;
	return 0;
}

void
mpi_relay_stop(struct mpi_world *w)
{
	if (w->relay_on) {
		pthread_mutex_lock(&w->mu);
		w->stopping = 1;
		pthread_mutex_unlock(&w->mu);
		wake_relay(w);
		pthread_join(w->relay, NULL);
		w->relay_on = 0;
	}
	for (int r = 0; r < w->s->nranks; r++) {
		struct mpi_link *l = &w->links[r];

		if (l->tcp >= 0)
			close(l->tcp);
		if (l->pair >= 0)
			close(l->pair);
		if (l->out >= 0)
			close(l->out);
		l->tcp = l->pair = l->out = -1;
	}
	if (w->wake[0] >= 0) {
		close(w->wake[0]);
		close(w->wake[1]);
		w->wake[0] = w->wake[1] = -1;
	}
}

/* ---- the main thread's side --------------------------------------------------- */

int
mpi_send(struct mpi_world *w, int r, uint32_t type, uint32_t tag,
    int32_t status, const void *payload, size_t len)
{
	struct msg_hdr h = { .type = type,
		.tag = tag,
		.status = status,
		.len = (uint32_t)len };
	int sock = w->s->rp[r].sock;

	if (sock < 0)
		return -1;
	return proto_send(sock, &h, payload);
}

static int
live(struct mpi_world *w, int r)
{
	return w->s->rp[r].sock >= 0 && w->s->rp[r].alive;
}

static void
sync_ctl(void *arg, const struct ctl_op *op)
{
	struct mpi_world *w = arg;

	for (int r = 0; r < w->s->nranks; r++) {
		if ((op->rank == -1 || op->rank == r) && live(w, r) &&
		    mpi_send(w, r, MSG_CTL, 0, 0, op, sizeof *op) == 0)
			w->links[r].ctl_sent++;
	}
}

static void
sync_wins(void *arg)
{
	struct mpi_world *w = arg;
	struct seg_header *h = w->s->seg.h;

	for (int r = 0; r < w->s->nranks; r++) {
		if (live(w, r))
			mpi_send(w, r, MSG_WINS, 0, 0, h->windows,
			    sizeof h->windows);
	}
}

static void
sync_zero(void *arg, int rank, uint64_t off, uint64_t len)
{
	struct mpi_world *w = arg;
	struct remote_range q = { off, len };

	for (int r = 0; r < w->s->nranks; r++) {
		if ((rank < 0 || rank == r) && live(w, r))
			mpi_send(w, r, MSG_ZERO, 0, 0, &q, sizeof q);
	}
	/* done everywhere before anything follows: a peer's notify may
	 * reach a rank by MPI sooner than its zero by the relay */
	mpi_sample(w);
}

const struct seg_sync mpi_seg_sync = {
	.ctl = sync_ctl,
	.wins = sync_wins,
	.zero = sync_zero,
};

static void
deadline_in(struct timespec *ts, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

/* Rank r's board b into the segment (main thread). */
static void
merge_board(struct mpi_world *w, int r, const struct remote_board *rb)
{
	struct seg *sg = &w->s->seg;
	struct seg_rank *b = seg_board(sg, r);
	const struct seg_rank *n = &rb->slot;
	struct mpi_link *l = &w->links[r];

	if (!w->s->rp[r].alive)
		return; /* dead: what the shell wrote stays */
	atomic_store(&b->sleeping, atomic_load(&n->sleeping));
	atomic_store(&b->wait_off, atomic_load(&n->wait_off));
	atomic_store(&b->wait_expected, atomic_load(&n->wait_expected));
	atomic_store(&b->wait_cmp, atomic_load(&n->wait_cmp));
	atomic_store(&b->progress, atomic_load(&n->progress));
	atomic_store(&b->pc, atomic_load(&n->pc));
	atomic_store(&b->nops, atomic_load(&n->nops));
	atomic_store(&b->prog_tag, atomic_load(&n->prog_tag));
	atomic_store(&b->stop_reason, atomic_load(&n->stop_reason));
	atomic_store(&b->stop_break, atomic_load(&n->stop_break));
	atomic_store(&b->ctl_seen, atomic_load(&n->ctl_seen));
	b->pid = n->pid;
	b->site = n->site;
	seg_write_cur(b, &n->cur, n->title);
	atomic_store(&b->state_ns,
	    (uint64_t)((int64_t)atomic_load(&n->state_ns) + l->clock));
	atomic_store(&b->state, atomic_load(&n->state));
	/* the rank's side of the control words, once it has every change */
	if (rb->ack == l->ctl_sent)
		ctl_adopt(sg, r, n);
}

/* The breakpoints' hits: the sum of what each rank counted. */
static void
merge_hits(struct mpi_world *w)
{
	struct seg *sg = &w->s->seg;

	for (int i = 0; i < SEG_MAX_BREAKS; i++) {
		struct seg_break *bp = &sg->h->breaks[i];
		uint64_t hits = 0;

		if (bp->id == 0)
			continue;
		for (int r = 0; r < w->s->nranks; r++) {
			const struct remote_board *rb = &w->links[r].board;
			uint64_t bit = 1ull << (r % 64);

			if (rb->brk[i].id != bp->id)
				continue;
			hits += rb->brk[i].hits;
			if ((bp->flags & BRK_ONCE_PER_RANK) &&
			    rb->brk_ranks[i] == 0)
				__atomic_fetch_and(&bp->ranks[r / 64], ~bit,
				    __ATOMIC_RELAXED);
		}
		atomic_store(&bp->hits, hits);
	}
}

void
mpi_merge(struct mpi_world *w)
{
	struct remote_board *rb = NULL;
	int any = 0;

	for (int r = 0; r < w->s->nranks; r++) {
		struct mpi_link *l = &w->links[r];
		int fresh;

		pthread_mutex_lock(&w->mu);
		/* a board is newer than the messages the rank sent before it:
		 * it waits until the session has read those (the end of a
		 * call, the announcement of the next) */
		fresh = l->board_seq != l->merged_seq &&
		    l->board_after <= w->s->rp[r].nread;
		if (fresh) {
			if (rb == NULL)
				rb = xmalloc(sizeof *rb);
			memcpy(rb, &l->board, sizeof *rb);
			l->merged_seq = l->board_seq;
		}
		pthread_mutex_unlock(&w->mu);
		if (fresh) {
			merge_board(w, r, rb);
			any = 1;
		}
	}
	if (any) {
		pthread_mutex_lock(&w->mu);
		merge_hits(w);
		pthread_mutex_unlock(&w->mu);
	}
	free(rb);
}

void
mpi_sample(struct mpi_world *w)
{
	uint32_t id = ++w->next_id;
	struct timespec dl;

	for (int r = 0; r < w->s->nranks; r++) {
		if (live(w, r))
			mpi_send(w, r, MSG_SAMPLE, id, 0, NULL, 0);
	}
	deadline_in(&dl, SAMPLE_WAIT_MS);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		int waiting = 0;

		for (int r = 0; r < w->s->nranks && !waiting; r++) {
			struct mpi_link *l = &w->links[r];
			waiting = live(w, r) && !l->gone && l->sample_id != id;
		}
		/* a rank that does not answer keeps its last board */
		if (!waiting || pthread_cond_timedwait(&w->cv, &w->mu, &dl) != 0)
			break;
	}
	pthread_mutex_unlock(&w->mu);
	mpi_merge(w);
}

int
mpi_read(struct mpi_world *w, int r, uint64_t off, void *dst, size_t n)
{
	struct mpi_link *l = &w->links[r];
	struct remote_range q = { off, n };
	struct timespec dl;
	uint32_t id = ++w->next_id;
	int done;

	if (!live(w, r)) {
		memset(dst, 0, n);
		return -1;
	}
	pthread_mutex_lock(&w->mu);
	l->rd_id = id;
	l->rd_buf = dst;
	l->rd_off = off;
	l->rd_len = n;
	l->rd_done = 0;
	pthread_mutex_unlock(&w->mu);
	memset(dst, 0, n);
	if (mpi_send(w, r, MSG_READ, id, 0, &q, sizeof q) != 0) {
		pthread_mutex_lock(&w->mu);
		l->rd_buf = NULL;
		pthread_mutex_unlock(&w->mu);
		return -1;
	}
	deadline_in(&dl, READ_WAIT_MS);
	pthread_mutex_lock(&w->mu);
	while (!l->rd_done && !l->gone &&
	    pthread_cond_timedwait(&w->cv, &w->mu, &dl) == 0)
		;
	done = l->rd_done;
	l->rd_buf = NULL;
	l->rd_id = 0;
	pthread_mutex_unlock(&w->mu);
	/* the mirror keeps what was last read, for `colldb watch NAME` */
	if (done && off <= w->s->seg.area_size && n <= w->s->seg.area_size - off)
		memcpy(seg_area(&w->s->seg, r) + off, dst, n);
	return done ? 0 : -1;
}

void
mpi_end_go(struct mpi_world *w, int r)
{
	pthread_mutex_lock(&w->mu);
	if (!w->links[r].end_go) {
		w->links[r].end_go = 1;
		w->gos++;
	}
	pthread_mutex_unlock(&w->mu);
	if (w->relay_on)
		wake_relay(w);
}

char *
mpi_take_lines(struct mpi_world *w)
{
	char *t = NULL;

	pthread_mutex_lock(&w->mu);
	if (w->lines.len > 0)
		t = strbuf_detach(&w->lines, NULL);
	pthread_mutex_unlock(&w->mu);
	return t;
}
