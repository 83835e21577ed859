/* remote.c - a rank of an mpi session: attach, the control thread; see remote.h. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "call.h"
#include "exec.h"
#include "futex.h"
#include "mpi.h"
#include "remote-rank.h"
#include "strbuf.h"
#include "xmalloc.h"

#define CONNECT_NS (20ull * 1000000000u)
#define WELCOME_MS 60000
/* span records per MSG_SPANS */
#define SPANS_PER_MSG \
	((PROTO_MAX_MSG - sizeof(struct remote_spans)) / sizeof(struct span_rec))

int
remote_wanted(void)
{
	return getenv("COLLDB_SHELL") != NULL;
}

static const struct mpi_plugin *
load_plugin(const char *path, char **cause)
{
	cdb_mpi_plugin_fn fn;
	const struct mpi_plugin *p;
	void *dl;

	if (path == NULL || path[0] == '\0') {
		cause_set(cause, "COLLDB_MPI_PLUGIN is not set");
		return NULL;
	}
	/* global: the MPI library's own components look its symbols up */
	if ((dl = dlopen(path, RTLD_NOW | RTLD_GLOBAL)) == NULL) {
		cause_set(cause, "cannot load the MPI plugin: %s", dlerror());
		return NULL;
	}
	fn = (cdb_mpi_plugin_fn)(uintptr_t)dlsym(dl, CDB_MPI_PLUGIN_SYM);
	if (fn == NULL || (p = fn()) == NULL || p->abi != CDB_MPI_PLUGIN_ABI) {
		cause_set(cause,
		    "%s is not a colldb MPI plugin of this version", path);
		return NULL;
	}
	return p;
}

/* COLLDB_SHELL is HOST:PORT; a connected socket or -1 + cause. */
static int
connect_shell(const char *where, char **cause)
{
	const char *colon = where != NULL ? strrchr(where, ':') : NULL;
	struct addrinfo hints, *res = NULL;
	uint64_t deadline = mono_ns() + CONNECT_NS;
	char host[256];
	int fd = -1, one = 1, err;

	if (colon == NULL || colon == where ||
	    (size_t)(colon - where) >= sizeof host)
		return cause_set(cause, "COLLDB_SHELL='%s': expected HOST:PORT",
		    where != NULL ? where : "");
	snprintf(host, sizeof host, "%.*s", (int)(colon - where), where);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((err = getaddrinfo(host, colon + 1, &hints, &res)) != 0)
		return cause_set(cause, "COLLDB_SHELL='%s': %s", where,
		    gai_strerror(err));
	/* the shell may be a moment behind its launcher: retry a while */
	for (;;) {
		fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0)
			break;
		err = errno;
		if (fd >= 0)
			close(fd);
		fd = -1;
		if (mono_ns() > deadline ||
		    (err != ECONNREFUSED && err != EINTR)) {
			cause_set(cause, "cannot reach the shell at %s: %s",
			    where, strerror(err));
			break;
		}
		usleep(50000);
	}
	freeaddrinfo(res);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

static int
send_msg(int fd, uint32_t type, uint32_t tag, int32_t status, const void *p,
    size_t len)
{
	struct msg_hdr h = { .type = type,
		.tag = tag,
		.status = status,
		.len = (uint32_t)len };

	return proto_send(fd, &h, p);
}

static void
boot_id(char *out, size_t len)
{
	FILE *fp = fopen("/proc/sys/kernel/random/boot_id", "r");

	out[0] = '\0';
	if (fp != NULL) {
		if (fgets(out, (int)len, fp) != NULL)
			out[strcspn(out, "\n")] = '\0';
		fclose(fp);
	}
}

/* The attach and the shell's answer; 0 or -1 + cause. */
static int
attach(struct remote *rm, const char *token, char **cause)
{
	struct remote_attach a;
	struct pollfd p = { rm->tcp, POLLIN, 0 };
	struct msg_hdr h;
	void *payload = NULL;
	int rc = -1;

	memset(&a, 0, sizeof a);
	a.magic = REMOTE_MAGIC;
	a.version = REMOTE_VERSION;
	a.sizes[0] = sizeof(struct seg_rank);
	a.sizes[1] = sizeof(struct seg_window);
	a.sizes[2] = sizeof(struct span_rec);
	a.sizes[3] = sizeof(struct ctl_op);
	a.sizes[4] = sizeof(struct remote_board);
	snprintf(a.token, sizeof a.token, "%s", token != NULL ? token : "");
	a.rank = rm->rank;
	a.nranks = rm->nranks;
	a.pid = (int32_t)getpid();
	a.kind = rm->kind;
	gethostname(a.host, sizeof a.host - 1);
	snprintf(a.mpi, sizeof a.mpi, "%s", rm->mpi);
	boot_id(a.boot_id, sizeof a.boot_id);
	a.rank_ns = mono_ns();
	if (send_msg(rm->tcp, MSG_ATTACH, 0, 0, &a, sizeof a) != 0)
		return cause_set(cause, "cannot talk to the shell: %s",
		    strerror(errno));
	if (poll(&p, 1, WELCOME_MS) != 1 || proto_recv(rm->tcp, &h, &payload) != 1)
		return cause_set(cause, "the shell did not answer");
	if (h.type == MSG_REFUSE)
		cause_set(cause, "the shell refused this rank: %s",
		    (char *)payload);
	else if (h.type != MSG_WELCOME || h.len != sizeof rm->welcome)
		cause_set(cause, "the shell answered message %u", h.type);
	else {
		memcpy(&rm->welcome, payload, sizeof rm->welcome);
		rm->welcome.name[sizeof rm->welcome.name - 1] = '\0';
		rc = rm->welcome.nranks == (uint32_t)rm->nranks ?
		    0 :
		    cause_set(cause, "the shell expects %u ranks, MPI started %d",
			rm->welcome.nranks, rm->nranks);
	}
	free(payload);
	return rc;
}

/* ---- the control thread ----------------------------------------------------- */

/* The board now, into rb. */
static void
read_board(struct remote *rm, struct remote_board *rb)
{
	struct rank_ctx *rc = rm->rc;
	struct seg_rank *b = rc->board;
	uint64_t bit = 1ull << (rm->rank % 64);

	rb->ack = rm->ctl_applied;
	rb->rank_ns = mono_ns();
	memcpy(&rb->slot, b, sizeof rb->slot);
	seg_read_cur(b, &rb->slot.cur, rb->slot.title, sizeof rb->slot.title);
	if (atomic_load(&b->state) == RS_BLOCKED) {
		rb->value_off = atomic_load(&b->wait_off);
		rb->has_value = 1;
	} else if (rb->slot.cur.kind == UOP_WAIT && atomic_load(&b->nops) > 0) {
		rb->value_off = rb->slot.cur.dst;
		rb->has_value = 1;
	}
	if (rb->has_value)
		rb->wait_value = seg_cell_get(&rc->seg, rm->rank, rb->value_off);
	for (int i = 0; i < SEG_MAX_BREAKS; i++) {
		struct seg_break *bp = &rc->seg.h->breaks[i];

		rb->brk[i].id = bp->id;
		rb->brk[i].hits = (uint32_t)atomic_load(&bp->hits);
		rb->brk_ranks[i] = __atomic_load_n(&bp->ranks[rm->rank / 64],
				       __ATOMIC_RELAXED) &
		    bit;
	}
}

/* The board now (id: the sample it answers, 0 none); ahead: it already
 * reflects the message the control thread relays next (a DONE), and the
 * shell merges it only after reading that. */
static void
send_board(struct remote *rm, uint32_t id, int ahead)
{
	struct remote_board *rb = xcalloc(1, sizeof *rb);

	read_board(rm, rb);
	send_msg(rm->tcp, MSG_BOARD, id, ahead, rb, sizeof *rb);
	free(rb);
}

static void relay_from_main(struct remote *rm);
static void ship_spans(struct remote *rm);
static void drain_out(struct remote *rm);

/* The main thread sent something the control thread has not relayed. */
static int
main_pending(struct remote *rm)
{
	struct pollfd p = { rm->pair[1], POLLIN, 0 };

	return (!rm->pair_closed && poll(&p, 1, 0) == 1) ||
	    (rm->outbox != NULL && outbox_pending(rm->outbox) > 0);
}

/*
 * What the user rank queued in its outbox, on to the shell as MSG_QUEUED
 * (as many as PROTO_MAX_MSG needs), after what it printed and its span
 * records, the last one after a board marked to be merged once the shell
 * has read it: as relay_from_main() does for one message.
 */
static void
ship_outbox(struct remote *rm)
{
	struct strbuf sb = STRBUF_INIT;

	if (rm->outbox == NULL || outbox_pending(rm->outbox) == 0)
		return;
	fflush(stdout);
	drain_out(rm);
	ship_spans(rm);
	for (;;) {
		strbuf_reset(&sb);
		if (outbox_batch(rm->outbox, (uint8_t *)rm->outbox + OUTBOX_HDR,
			rm->outbox_len - OUTBOX_HDR, &sb, PROTO_MAX_MSG) <= 0)
			break;
		if (outbox_pending(rm->outbox) == 0)
			send_board(rm, 0, 1);
		send_msg(rm->tcp, MSG_QUEUED, 0, 0, sb.buf, sb.len);
	}
	strbuf_release(&sb);
}

/*
 * The board for sample id.  The main thread sends a message (a call
 * begun, a program done) before its board shows what follows it, so a
 * board read while such a message waits here would run ahead of what the
 * shell knows: relay those first, and read again if more came meanwhile.
 * A board read with nothing waiting after it is one the shell may merge.
 */
static void
answer_sample(struct remote *rm, uint32_t id)
{
	struct remote_board *rb = xcalloc(1, sizeof *rb);

	for (;;) {
		while (main_pending(rm))
			relay_from_main(rm);
		read_board(rm, rb);
		if (!main_pending(rm))
			break;
	}
	send_msg(rm->tcp, MSG_BOARD, id, 0, rb, sizeof *rb);
	free(rb);
}

static void
ship_spans(struct remote *rm)
{
	struct rank_ctx *rc = rm->rc;
	struct span_ring *ring = seg_spans(&rc->seg, rm->rank);
	struct strbuf sb = STRBUF_INIT;

	if (rc->seg.span_bytes == 0)
		return;
	for (;;) {
		uint64_t lost = span_ring_lost(ring);
		struct remote_spans hs = { lost - rm->lost_sent, 0 };
		size_t n;

		if (span_ring_pending(ring) == 0 && hs.lost == 0)
			break;
		strbuf_reset(&sb);
		strbuf_grow(&sb,
		    sizeof hs + SPANS_PER_MSG * sizeof(struct span_rec));
		n = span_ring_read(ring, rc->seg.span_bytes,
		    (struct span_rec *)(sb.buf + sizeof hs), SPANS_PER_MSG);
		hs.n = n;
		memcpy(sb.buf, &hs, sizeof hs);
		rm->lost_sent = lost;
		send_msg(rm->tcp, MSG_SPANS, 0, 0, sb.buf,
		    sizeof hs + n * sizeof(struct span_rec));
		if (n < SPANS_PER_MSG)
			break;
	}
	strbuf_release(&sb);
}

static void
drain_out(struct remote *rm)
{
	char buf[16384];
	ssize_t n;

	while (rm->outp[0] >= 0 && (n = read(rm->outp[0], buf, sizeof buf)) > 0)
		send_msg(rm->tcp, MSG_OUT, 0, 0, buf, (size_t)n);
}

static void
answer_read(struct remote *rm, uint32_t id, const struct remote_range *q)
{
	uint64_t area = rm->rc->seg.area_size, off = q->off, left = q->len;
	size_t chunk = PROTO_MAX_MSG - sizeof(uint64_t);
	char *buf = xmalloc(PROTO_MAX_MSG);

	if (off > area || left > area - off)
		left = 0; /* the shell checked; an empty last chunk says no */
	do {
		size_t n = left < chunk ? (size_t)left : chunk;

		memcpy(buf, &off, sizeof off);
		memcpy(buf + sizeof off, rm->base + off, n);
		left -= n;
		off += n;
		send_msg(rm->tcp, MSG_DATA, id, left == 0, buf, sizeof off + n);
	} while (left > 0);
	free(buf);
}

/* A store the prompt aims at this (user) rank, on its own memory. */
static void
apply_mem(struct remote *rm, const void *payload, size_t len)
{
	struct remote_mem m;
	uint64_t area = rm->rc->seg.area_size, bytes;
	const uint8_t *data = (const uint8_t *)payload + sizeof m;
	size_t dlen = len - sizeof m;

	if (len < sizeof m)
		return;
	memcpy(&m, payload, sizeof m);
	switch (m.kind) {
	case MEM_WRITE:
		if (m.off <= area && m.count <= area - m.off && m.count <= dlen)
			memcpy(rm->base + m.off, data, (size_t)m.count);
		break;
	case MEM_ADD:
		if (m.dtype >= DT__COUNT)
			break;
		bytes = m.count * dtype_size((enum dtype)m.dtype);
		if (m.off <= area && bytes <= area - m.off && bytes <= dlen)
			dtype_atomic_add((enum dtype)m.dtype, rm->base + m.off,
			    data, (size_t)m.count);
		break;
	case MEM_NOTIFY:
		if (m.off % 4 == 0 && m.off <= area - 4) {
			_Atomic int32_t *c =
			    (_Atomic int32_t *)(rm->base + m.off);
			if (m.op == NOTIFY_SET)
				atomic_store(c, m.value);
			else
				atomic_fetch_add(c, m.value);
		}
		break;
	case MEM_FILL: {
		/* the executor's fill on this rank's own area */
		struct transport t;
		struct exec ex;
		char *cause = NULL;
		int32_t seen;

		if (m.fill.kind != UOP_FILL ||
		    exec_check(&m.fill, rm->nranks, area, 0, &cause) != 0) {
			free(cause);
			break;
		}
		mpi_transport_init(&t, rm->p, &rm->rc->seg, rm->base);
		exec_init(&ex, &t);
		exec_uop(&ex, &m.fill, &seen, &cause);
		free(cause);
		exec_release(&ex);
		t.ops->close(&t);
		break;
	}
	}
}

static void
from_shell(struct remote *rm, const struct msg_hdr *h, const void *payload)
{
	struct rank_ctx *rc = rm->rc;
	struct remote_range q;

	switch (h->type) {
	case MSG_PROG:
	case MSG_COLL:
	case MSG_RAW:
	case MSG_ALLOC:
		proto_send(rm->pair[1], h, payload);
		break;
	case MSG_QUIT: {
		struct ctl_op op = { .kind = CTL_CANCEL, .rank = rm->rank };

		proto_send(rm->pair[1], h, payload);
		atomic_store(&rm->stopping, 1);
		ctl_apply(&rc->seg, &op); /* a blocked wait returns */
		break;
	}
	case MSG_CTL:
		if (h->len == sizeof(struct ctl_op)) {
			struct ctl_op op;

			memcpy(&op, payload, sizeof op);
			if (op.rank == rm->rank || op.rank == -1)
				ctl_apply(&rc->seg, &op);
			rm->ctl_applied++;
		}
		break;
	case MSG_WINS:
		if (h->len == sizeof rc->seg.h->windows) {
			memcpy(rc->seg.h->windows, payload, h->len);
			atomic_fetch_add(&rc->seg.h->win_seq, 1);
		}
		break;
	case MSG_ZERO:
		if (h->len == sizeof q) {
			memcpy(&q, payload, sizeof q);
			if (q.off <= rc->seg.area_size &&
			    q.len <= rc->seg.area_size - q.off)
				memset(rm->base + q.off, 0, (size_t)q.len);
		}
		break;
	case MSG_SAMPLE:
		answer_sample(rm, h->tag);
		break;
	case MSG_READ:
		if (h->len == sizeof q) {
			memcpy(&q, payload, sizeof q);
			answer_read(rm, h->tag, &q);
		}
		break;
	case MSG_MEM:
		apply_mem(rm, payload, h->len);
		break;
	case MSG_END:
		atomic_store(&rm->end_go, 1); /* the rank may go */
		break;
	case MSG_SIGNAL:
		if (h->status == CALL_END_SIGNAL) {
			/* interrupt ends a call that does not return: its
			 * handler jumps back in the thread that made it */
			pthread_kill(rm->main_thread, CALL_END_SIGNAL);
			break;
		}
		drain_out(rm);
		ship_spans(rm);
		raise(h->status);
		break;
	}
	rm->handled++;
}

/* Before the shell hears that a program ended or began, it gets what the
 * rank printed, its span records and the board as it is now, marked to
 * be merged only once the shell has read the message (so the board is
 * there when the shell learns of the end, and never runs ahead of what
 * it knows of the rank's programs). */
static int
before_relay(uint32_t type)
{
	return type == MSG_DONE || type == MSG_PROG || type == MSG_COLL ||
	    type == MSG_HELLO || type == MSG_ALLOC;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* The shell is gone, and the session with it: this process ends (MPI
 * then ends the job), and the launcher's files the shell would have
 * removed go first when they are on this host (COLLDB_MPI_TMPDIR). */
static void
orphaned(struct remote *rm)
{
	if (rm->tmpdir[0] != '\0')
		nftw(rm->tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	_exit(1);
}

/* One message of the main thread, on to the shell (pair_closed when the
 * main thread is done). */
static void
relay_from_main(struct remote *rm)
{
	struct msg_hdr h;
	void *payload = NULL;
	struct pollfd p = { rm->pair[1], POLLIN, 0 };

	/* what the outbox holds was written before anything on the pair */
	ship_outbox(rm);
	if (rm->pair_closed || poll(&p, 1, 0) != 1)
		return;
	if (proto_recv(rm->pair[1], &h, &payload) != 1) {
		rm->pair_closed = 1;
	} else if (h.type == MSG_KICK) {
		ship_outbox(rm); /* the bell: nothing to relay */
	} else {
		if (before_relay(h.type)) {
			fflush(stdout);
			drain_out(rm);
			ship_spans(rm);
			send_board(rm, 0, 1);
		}
		proto_send(rm->tcp, &h, payload);
	}
	free(payload);
}

/*
 * The main thread ends the rank (remote_ending()): its last calls, lines
 * and spans, then its board and MSG_END with how it ends.  The thread
 * goes on serving the shell (the others' settling samples nobody here,
 * but a `where` may) until the shell answers or the process goes.
 */
static void
tell_end(struct remote *rm)
{
	char c;
	int st;

	while (read(rm->crash[0], &c, 1) == 1)
		;
	ship_outbox(rm);
	drain_out(rm);
	ship_spans(rm);
	st = atomic_load(&rm->end_status);
	if (st >= 0 && !rm->end_sent) {
		while (main_pending(rm))
			relay_from_main(rm);
		send_board(rm, 0, 1);
		send_msg(rm->tcp, MSG_END, 0, st, NULL, 0);
		rm->end_sent = 1;
	}
	atomic_store(&rm->crash_out, 1);
}

/*
 * A user rank blocked in a wait for a poll tick: its board, once per
 * wait.  The shell asks for boards when it settles, but `colldb run
 * --batch` never settles, and when MPI ends the job after a rank died
 * (SIGKILL, which nobody hears of first) the shell's diagnosis has only
 * the boards it got before.
 */
static void
push_blocked(struct remote *rm)
{
	struct seg_rank *b = rm->rc->board;
	uint64_t ns = atomic_load(&b->state_ns);

	if (seg_rank_state(b) != RS_BLOCKED || ns == rm->pushed_ns ||
	    main_pending(rm))
		return;
	rm->pushed_ns = ns;
	send_board(rm, 0, 0);
}

static void *
control_main(void *arg)
{
	struct remote *rm = arg;

	while (!rm->pair_closed) {
		struct pollfd p[4] = {
			{ rm->tcp, POLLIN, 0 },
			{ rm->pair[1], POLLIN, 0 },
			{ rm->outp[0], POLLIN, 0 },
			{ rm->crash[0], POLLIN, 0 },
		};
		struct msg_hdr h;
		void *payload = NULL;
		/* spans go out every 20 ms while the rank runs; an idle rank
		 * records none, so its thread sleeps longer (a rank that starts
		 * a program heard of it through this thread already) */
		int idle = seg_rank_state(rm->rc->board) == RS_IDLE;
		int n = poll(p, rm->crash[0] >= 0 ? 4 : 3, idle ? 250 : 20);

		if (n < 0 && errno != EINTR)
			break;
		if (rm->crash[0] >= 0 && (p[3].revents & POLLIN))
			tell_end(rm);
		if (p[2].revents & POLLIN)
			drain_out(rm);
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (proto_recv(rm->tcp, &h, &payload) != 1) {
				if (!atomic_load(&rm->stopping))
					orphaned(rm);
				free(payload);
				break;
			}
			from_shell(rm, &h, payload);
			free(payload);
		}
		/* (not by p[1]'s revents: a sample answered since may have
		 * relayed what poll saw) */
		if ((p[1].revents & (POLLIN | POLLHUP)) && main_pending(rm))
			relay_from_main(rm);
		if (n == 0) {
			ship_outbox(rm); /* calls made since, rung or not */
			ship_spans(rm);
			if (rm->kind == REMOTE_USER)
				push_blocked(rm);
		}
	}
	ship_outbox(rm);
	drain_out(rm);
	ship_spans(rm);
	send_board(rm, 0, 0);
	return NULL;
}

/* ---- attach and the end ---------------------------------------------------- */

static int
capture_output(struct remote *rm, char **cause)
{
	if (pipe2(rm->outp, O_CLOEXEC) != 0)
		return cause_set(cause, "pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	dup2(rm->outp[1], 1);
	dup2(rm->outp[1], 2);
	close(rm->outp[1]);
	rm->outp[1] = -1;
	fcntl(rm->outp[0], F_SETFL, O_NONBLOCK);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return 0;
}

/*
 * A rank that initialised MPI but did not join the session (no shell at
 * COLLDB_SHELL, its attach refused, no window) ends the whole job as it
 * exits, after saying why: under MPICH across hosts the ranks that did
 * attach otherwise wait in MPI_Win_allocate, and the shell in its start,
 * until the attach limit (60 s) runs out.
 */
static struct remote *unjoined;

static void
abort_unjoined(void)
{
	if (unjoined != NULL && unjoined->p != NULL) {
		fflush(stdout);
		fflush(stderr);
		unjoined->p->abort(1);
	}
}

int
remote_open(struct remote *rm, struct rank_ctx *rc, enum remote_kind kind,
    char **cause)
{
	static int registered;
	char token[REMOTE_TOKEN_LEN + 1];
	const char *t = getenv("COLLDB_TOKEN");

	memset(rm, 0, sizeof *rm);
	memset(rc, 0, sizeof *rc);
	rm->tcp = rm->pair[0] = rm->pair[1] = rm->outp[0] = rm->outp[1] = -1;
	rm->crash[0] = rm->crash[1] = -1;
	rm->end_status = -1;
	rm->pid = getpid();
	rm->kind = kind;
	rm->rc = rc;
	pthread_mutex_init(&rm->mpi_mu, NULL);
	rm->main_thread = pthread_self();
	snprintf(token, sizeof token, "%s", t != NULL ? t : "");
	unsetenv("COLLDB_TOKEN"); /* not for what the rank starts */
	if (getenv("COLLDB_MPI_TMPDIR") != NULL &&
	    strncmp(getenv("COLLDB_MPI_TMPDIR"), "/dev/shm/colldb-mpi-", 20) == 0)
		snprintf(rm->tmpdir, sizeof rm->tmpdir, "%s",
		    getenv("COLLDB_MPI_TMPDIR"));
	if ((rm->p = load_plugin(getenv("COLLDB_MPI_PLUGIN"), cause)) == NULL)
		return -1;
	if (rm->p->init(kind == REMOTE_USER, &rm->rank, &rm->nranks, rm->mpi,
		sizeof rm->mpi, cause) != 0)
		return -1;
	unjoined = rm;
	if (!registered)
		atexit(abort_unjoined);
	registered = 1;
	if ((rm->tcp = connect_shell(getenv("COLLDB_SHELL"), cause)) < 0)
		return -1;
	if (attach(rm, token, cause) != 0)
		return -1;
	if (rm->p->win(rm->welcome.area_size, &rm->base, cause) != 0)
		return -1;
	if (seg_create_local(&rc->seg, rm->welcome.name, rm->nranks,
		rm->welcome.area_size, rm->welcome.span_bytes, rm->rank,
		rm->base, cause) != 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, rm->pair) != 0)
		return cause_set(cause, "socketpair: %s", strerror(errno));
	mpi_transport_init(&rc->t, rm->p, &rc->seg, rm->base);
	rank_bind(rc, rm->pair[0], rm->rank);
	if (rm->welcome.flags & WELCOME_STEP)
		atomic_store(&rc->board->mode, RUN_STEP);
	if (capture_output(rm, cause) != 0)
		return -1;
	if (kind == REMOTE_USER) {
		rm->outbox_len = outbox_bytes(rm->nranks);
		rm->outbox = xcalloc(1, rm->outbox_len);
		if (pipe2(rm->crash, O_CLOEXEC | O_NONBLOCK) != 0)
			rm->crash[0] = rm->crash[1] = -1;
	}
	send_msg(rm->tcp, MSG_READY, 0, 0, NULL, 0);
	send_board(rm, 0, 0);
	if (pthread_create(&rm->thread, NULL, control_main, rm) != 0)
		return cause_set(cause, "cannot start the control thread");
	rm->thread_on = 1;
	unjoined = NULL;
	return 0;
}

static void *
progress_main(void *arg)
{
	struct remote *rm = arg;
	struct timespec nap = { 0, 200000 };

	while (!atomic_load(&rm->stopping)) {
		/* never while the main thread may be in MPI (SERIALIZED) */
		if (pthread_mutex_trylock(&rm->mpi_mu) == 0) {
			rm->p->poll();
			pthread_mutex_unlock(&rm->mpi_mu);
		}
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int
remote_progress_start(struct remote *rm, char **cause)
{
	if (pthread_create(&rm->progress, NULL, progress_main, rm) != 0)
		return cause_set(cause, "cannot start the progress thread");
	rm->progress_on = 1;
	return 0;
}

void
remote_busy(struct remote *rm, int busy)
{
	if (busy) {
		if (rm->busy_depth++ == 0)
			pthread_mutex_lock(&rm->mpi_mu);
	} else if (rm->busy_depth > 0 && --rm->busy_depth == 0) {
		pthread_mutex_unlock(&rm->mpi_mu);
	}
}

struct seg_window *
remote_alloc(struct remote *rm, const char *name, const uint64_t *shape,
    int ndim, enum dtype dt, unsigned flags, char **cause)
{
	struct remote_alloc a;
	struct msg_hdr h;
	void *payload = NULL;
	struct seg_window *w = NULL;
	int st;

	memset(&a, 0, sizeof a);
	snprintf(a.name, sizeof a.name, "%s", name);
	memcpy(a.shape, shape, (size_t)ndim * sizeof *shape);
	a.ndim = ndim;
	a.dtype = dt;
	a.flags = flags;
	if (send_msg(rm->pair[0], MSG_ALLOC, 0, 0, &a, sizeof a) != 0) {
		cause_set(cause, "the shell is gone");
		return NULL;
	}
	/* the answer is the only thing the shell sends a user rank */
	while ((st = proto_recv(rm->pair[0], &h, &payload)) == 1 &&
	    h.type != MSG_ALLOC) {
		free(payload);
		payload = NULL;
	}
	if (st != 1)
		cause_set(cause, "the shell is gone");
	else if (h.status != 0)
		cause_set(cause, "%s", (char *)payload);
	else if ((w = seg_win_find(&rm->rc->seg, name)) == NULL)
		cause_set(cause,
		    "the shell made '%s' but this rank does not see it", name);
	free(payload);
	return w;
}

void
remote_ending(struct remote *rm, int wstatus, int hold_ms)
{
	struct timespec nap = { 0, 1000000 };

	if (rm->crash[1] < 0 || !rm->thread_on || getpid() != rm->pid ||
	    rank_forked || pthread_equal(pthread_self(), rm->thread))
		return;
	atomic_store(&rm->end_status, wstatus);
	if (write(rm->crash[1], "e", 1) != 1)
		return;
	/* until the shell answers (the other ranks have settled), the
	 * session ends (QUIT), or the time is up */
	for (int i = 0; i < hold_ms && !atomic_load(&rm->end_go) &&
	     !atomic_load(&rm->stopping);
	     i++)
		nanosleep(&nap, NULL);
}

void
remote_leave(struct remote *rm)
{
	atomic_store(&rm->stopping, 1);
	fflush(stdout);
	fflush(stderr);
	if (rm->pair[0] >= 0) {
		close(rm->pair[0]);
		rm->pair[0] = -1;
	}
	if (rm->thread_on)
		pthread_join(rm->thread, NULL);
	rm->thread_on = 0;
}

void
remote_close(struct remote *rm)
{
	atomic_store(&rm->stopping, 1);
	if (rm->progress_on)
		pthread_join(rm->progress, NULL);
	rm->progress_on = 0;
	if (rm->pair[0] >= 0) {
		close(rm->pair[0]); /* the control thread ships what is left */
		rm->pair[0] = -1;
	}
	if (rm->thread_on)
		pthread_join(rm->thread, NULL);
	rm->thread_on = 0;
	/* the rank has left the session (its last board said so) before
	 * MPI_Finalize, which waits for every rank */
	if (rm->tcp >= 0)
		close(rm->tcp);
	if (rm->rc != NULL && rm->rc->seg.h != NULL)
		rank_detach(rm->rc);
	/* MPI_Finalize waits for every rank: one that is gone would hold
	 * this one for ever, so it gets 20 s */
	alarm(20);
	if (rm->p != NULL && rm->base != NULL)
		rm->p->finalize();
	alarm(0);
	rm->base = NULL;
	if (rm->pair[1] >= 0)
		close(rm->pair[1]);
	if (rm->outp[0] >= 0)
		close(rm->outp[0]);
	rm->pair[1] = rm->outp[0] = rm->tcp = -1;
	free(rm->outbox);
	rm->outbox = NULL;
	if (rm->crash[0] >= 0) {
		close(rm->crash[0]);
		close(rm->crash[1]);
	}
	rm->crash[0] = rm->crash[1] = -1;
}

/* MSG_RAW: one raw-MPI benchmark (mpi-plugin.h); the reply is the
 * seconds per iteration. */
static int
agent_other(struct rank_ctx *rc, const struct msg_hdr *h, const void *payload,
    char **text)
{
	struct remote *rm = rc->other_arg;
	struct mpi_raw_args a;
	double secs = 0;

	if (h->type != MSG_RAW || h->len != sizeof a) {
		*text = xasprintf("unexpected message %u", h->type);
		return DONE_ERROR;
	}
	memcpy(&a, payload, sizeof a);
	rc->t.ops->flush(&rc->t);
	if (rm->p->raw_bench(&a, &secs) != 0) {
		*text = xstrdup("the raw MPI benchmark failed");
		return DONE_ERROR;
	}
	*text = xasprintf("%.9e", secs);
	return DONE_OK;
}

int
remote_agent_main(int argc, char **argv)
{
	static struct remote rm;
	static struct rank_ctx rc;
	char *cause = NULL, comm[16];
	int st;

	(void)argc;
	(void)argv;
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	call_end_install(); /* interrupt ends a call that never returns */
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	if (remote_open(&rm, &rc, REMOTE_AGENT, &cause) != 0) {
		fprintf(stderr, "colldb agent: %s\n", cause);
		free(cause);
		return 1;
	}
	rc.other = agent_other;
	rc.other_arg = &rm;
	snprintf(comm, sizeof comm, "colldb-rank%d", rc.rank);
	prctl(PR_SET_NAME, comm);
	st = rank_serve(&rc);
	remote_close(&rm);
	return st;
}
