/*
 * mpi-attach.c - the control port of an mpi session: where it listens,
 * the session's token, and the ranks' attach (core/remote.h).
 *
 * Where: --listen ADDR[:PORT] as given; else the address of --net's
 * interface; else the address this machine reaches the first other host
 * of --hosts from (or, without --hosts, of the hosts the --mpirun words
 * name: mpi_launch_hosts()); else (every rank on this host) 127.0.0.1.  Only that
 * address is bound, and only until every rank attached.
 *
 * Who: a connection must send MSG_ATTACH with the token within
 * ATTACH_SECS.  The token is compared in constant time; a wrong or
 * missing one, a second attach of a rank, a rank out of range are
 * refused (MSG_REFUSE), logged on stderr with the peer's address, and
 * change nothing.  While ranks attach the launcher is watched: when it
 * ends first (a rank died before attaching) the start fails at once with
 * what it printed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpi-int.h"
#include "out/out.h"
#include "xmalloc.h"

#define ATTACH_SECS 5
#define START_SECS_DEFAULT 60

int
mpi_token_eq(const char *a, const char *b)
{
	unsigned char d = 0;

	for (int i = 0; i < REMOTE_TOKEN_LEN; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

static int
make_token(char *out, char **cause)
{
	unsigned char raw[REMOTE_TOKEN_LEN / 2];
	ssize_t n = getrandom(raw, sizeof raw, 0);

	if (n != (ssize_t)sizeof raw)
		return cause_set(cause, "getrandom: %s", strerror(errno));
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* IPv4 address of interface name. */
static int
iface_addr(const char *name, char *out, size_t len)
{
	struct ifaddrs *ifa, *i;
	int rc = -1;

	if (getifaddrs(&ifa) != 0)
		return -1;
	for (i = ifa; i != NULL && rc != 0; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
		    strcmp(i->ifa_name, name) != 0)
			continue;
		inet_ntop(AF_INET,
		    &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, out,
		    (socklen_t)len);
		rc = 0;
	}
	freeifaddrs(ifa);
	return rc;
}

/* The local address a datagram to host would leave from; 1 when host is
 * this machine itself. */
static int
route_addr(const char *host, char *out, size_t len)
{
	struct addrinfo hints, *res = NULL;
	struct sockaddr_in me;
	socklen_t ml = sizeof me;
	char them[64];
	int fd, rc = -1;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_DGRAM;
	if (getaddrinfo(host, "9", &hints, &res) != 0)
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
	    getsockname(fd, (struct sockaddr *)&me, &ml) == 0) {
		inet_ntop(AF_INET, &me.sin_addr, out, (socklen_t)len);
		inet_ntop(AF_INET,
		    &((struct sockaddr_in *)(void *)res->ai_addr)->sin_addr,
		    them, sizeof them);
		rc = strcmp(them, out) == 0 || strncmp(them, "127.", 4) == 0 ?
		    1 :
		    0;
	}
	if (fd >= 0)
		close(fd);
	freeaddrinfo(res);
	return rc;
}

/* Where the ranks reach the shell (see the top). */
static int
pick_addr(struct mpi_world *w, char *host, size_t hlen, int *port, char **cause)
{
	const char *l = w->opt->listen;
	struct strbuf hosts = STRBUF_INIT;

	*port = 0;
	if (l != NULL) {
		const char *colon = strrchr(l, ':');
		if (colon != NULL) {
			char *end;
			long p = strtol(colon + 1, &end, 10);
			if (*end != '\0' || p < 0 || p > 65535)
				return cause_set(cause,
				    "--listen %s: expected ADDR[:PORT]", l);
			*port = (int)p;
			snprintf(host, hlen, "%.*s", (int)(colon - l), l);
		} else {
			snprintf(host, hlen, "%s", l);
		}
		return 0;
	}
	if (w->opt->net != NULL) {
		if (iface_addr(w->opt->net, host, hlen) != 0)
			return cause_set(cause,
			    "--net %s: no such interface with an IPv4 address",
			    w->opt->net);
		return 0;
	}
	snprintf(host, hlen, "127.0.0.1");
	if (w->opt->hosts != NULL)
		strbuf_addstr(&hosts, w->opt->hosts);
	else /* the hosts the user's launcher words name */
		mpi_launch_hosts(w->opt->mpirun, &hosts);
	if (hosts.len > 0) {
		char *copy = xstrdup(hosts.buf), *save = NULL;

		for (char *t = strtok_r(copy, ",", &save); t != NULL;
		     t = strtok_r(NULL, ",", &save)) {
			char a[64];

			t[strcspn(t, ":")] = '\0';
			if (route_addr(t, a, sizeof a) == 0) {
				snprintf(host, hlen, "%s", a);
				break;
			}
		}
		free(copy);
	}
	strbuf_release(&hosts);
	return 0;
}

int
mpi_listen(struct mpi_world *w, char **cause)
{
	struct addrinfo hints, *res = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char host[64], port_s[16], bound[64];
	int port, one = 1, err;

	if (make_token(w->token, cause) != 0 ||
	    pick_addr(w, host, sizeof host, &port, cause) != 0)
		return -1;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port_s, sizeof port_s, "%d", port);
	if ((err = getaddrinfo(host, port_s, &hints, &res)) != 0)
		return cause_set(cause, "control port %s: %s", host,
		    gai_strerror(err));
	w->listen_fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (w->listen_fd >= 0)
		setsockopt(w->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof one);
	if (w->listen_fd < 0 ||
	    bind(w->listen_fd, res->ai_addr, res->ai_addrlen) != 0 ||
	    listen(w->listen_fd, 128) != 0) {
		err = errno;
		freeaddrinfo(res);
		return cause_set(cause, "cannot listen on %s:%d: %s", host,
		    port, strerror(err));
	}
	freeaddrinfo(res);
	getsockname(w->listen_fd, (struct sockaddr *)&ss, &sl);
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		inet_ntop(AF_INET6, &a->sin6_addr, bound, sizeof bound);
		snprintf(w->addr, sizeof w->addr, "[%s]:%d", bound,
		    ntohs(a->sin6_port));
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &a->sin_addr, bound, sizeof bound);
		snprintf(w->addr, sizeof w->addr, "%s:%d", bound,
		    ntohs(a->sin_port));
	}
	return 0;
}

/* ---- the attach ---------------------------------------------------------------- */

struct pending {
	int fd;
	char peer[80];
	uint64_t deadline;
	struct strbuf in;
};

static void
peer_name(int fd, char *out, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char a[64] = "?";
	int port = 0;

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &s4->sin_addr, a, sizeof a);
			port = ntohs(s4->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
			inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof a);
			port = ntohs(s6->sin6_port);
		}
	}
	snprintf(out, len, "%s:%d", a, port);
}

static void
refuse(struct pending *p, const char *why)
{
	struct msg_hdr h = { .type = MSG_REFUSE,
		.len = (uint32_t)strlen(why) + 1 };

	fprintf(stderr, "colldb: refused a connection from %s: %s\n", p->peer,
	    why);
	proto_send(p->fd, &h, why);
	close(p->fd);
	p->fd = -1;
	strbuf_release(&p->in);
}

static int
same_machine(const char *boot_id)
{
	char mine[40] = "";
	FILE *fp = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (fp != NULL) {
		if (fgets(mine, sizeof mine, fp) != NULL)
			mine[strcspn(mine, "\n")] = '\0';
		fclose(fp);
	}
	return mine[0] != '\0' && strcmp(mine, boot_id) == 0;
}

/* A whole MSG_ATTACH in p->in: check it; the rank's number, or -1 (said). */
static int
check_attach(struct mpi_world *w, struct pending *p, uint64_t now)
{
	struct msg_hdr h;
	struct remote_attach a;
	struct mpi_link *l;
	char why[128];

	memcpy(&h, p->in.buf, sizeof h);
	if (h.type != MSG_ATTACH || h.len != sizeof a) {
		refuse(p, "not a colldb rank (no attach message)");
		return -1;
	}
	memcpy(&a, p->in.buf + sizeof h, sizeof a);
	a.token[REMOTE_TOKEN_LEN] = '\0';
	a.host[sizeof a.host - 1] = a.mpi[sizeof a.mpi - 1] = '\0';
	a.boot_id[sizeof a.boot_id - 1] = '\0';
	if (a.magic != REMOTE_MAGIC) {
		refuse(p, "not a colldb rank (no attach message)");
		return -1;
	}
	/* the token first: nothing else is told to a stranger */
	if (strlen(a.token) != REMOTE_TOKEN_LEN ||
	    !mpi_token_eq(a.token, w->token)) {
		refuse(p, a.token[0] == '\0' ? "no token" : "wrong token");
		return -1;
	}
	if (a.version != REMOTE_VERSION || a.sizes[0] != sizeof(struct seg_rank) ||
	    a.sizes[1] != sizeof(struct seg_window) ||
	    a.sizes[2] != sizeof(struct span_rec) ||
	    a.sizes[3] != sizeof(struct ctl_op) ||
	    a.sizes[4] != sizeof(struct remote_board)) {
		refuse(p,
		    "another version of colldb (the same build must run everywhere)");
		return -1;
	}
	if (a.nranks != w->s->nranks || a.rank < 0 || a.rank >= w->s->nranks) {
		snprintf(why, sizeof why,
		    "rank %d of %d, but the session has %d ranks", a.rank,
		    a.nranks, w->s->nranks);
		refuse(p, why);
		return -1;
	}
	l = &w->links[a.rank];
	if (l->tcp >= 0) {
		snprintf(why, sizeof why, "rank %d attached already", a.rank);
		refuse(p, why);
		return -1;
	}
	l->tcp = p->fd;
	l->pid = a.pid;
	snprintf(l->host, sizeof l->host, "%s", a.host);
	l->clock =
	    same_machine(a.boot_id) ? 0 : (int64_t)now - (int64_t)a.rank_ns;
	if (w->mpi[0] == '\0')
		snprintf(w->mpi, sizeof w->mpi, "%s", a.mpi);
	p->fd = -1;
	strbuf_release(&p->in);
	return a.rank;
}

static void
welcome(struct mpi_world *w, int r)
{
	struct remote_welcome wm;
	struct msg_hdr h = { .type = MSG_WELCOME, .len = sizeof wm };

	memset(&wm, 0, sizeof wm);
	wm.area_size = w->s->seg.area_size;
	wm.span_bytes = w->s->seg.span_bytes;
	wm.nranks = (uint32_t)w->s->nranks;
	if (w->user && !w->opt->user.batch)
		wm.flags |= WELCOME_STEP;
	snprintf(wm.name, sizeof wm.name, "%s", w->s->name);
	proto_send(w->links[r].tcp, &h, &wm);
}

/* Bytes of p's attach so far; 1 once whole (checked then), -1 gone. */
static int
read_pending(struct mpi_world *w, struct pending *p, uint64_t now)
{
	char buf[512];
	size_t want = sizeof(struct msg_hdr) + sizeof(struct remote_attach);
	ssize_t n =
	    recv(p->fd, buf, MIN(sizeof buf, want - p->in.len), MSG_DONTWAIT);
	int r;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		refuse(p, "it closed before attaching");
		return -1;
	}
	if (n > 0)
		strbuf_add(&p->in, buf, (size_t)n);
	if (p->in.len >= sizeof(struct msg_hdr)) {
		struct msg_hdr h;

		memcpy(&h, p->in.buf, sizeof h);
		if (h.type != MSG_ATTACH ||
		    h.len != sizeof(struct remote_attach)) {
			refuse(p, "not a colldb rank (no attach message)");
			return -1;
		}
	}
	if (p->in.len < want)
		return 0;
	if ((r = check_attach(w, p, now)) < 0)
		return -1;
	welcome(w, r);
	return 1;
}

static void
launcher_output(struct mpi_world *w)
{
	char buf[4096];
	ssize_t n;

	while (w->launcher_out >= 0 &&
	    (n = read(w->launcher_out, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			break;
		}
		pthread_mutex_lock(&w->mu);
		strbuf_add(&w->lines, buf, (size_t)n);
		pthread_mutex_unlock(&w->mu);
	}
	close(w->launcher_out);
	w->launcher_out = -1;
}

/* "; WHO said:\n" and what the launcher said: all of it up to 12 lines,
 * else its first 6 lines (the cause, as "ssh: Could not resolve hostname
 * ..." before Open MPI's page of advice), a line saying how many were
 * left out, and its last 6. */
static void
launcher_said(struct mpi_world *w, const char *who, struct strbuf *sb)
{
	const char *b = w->lines.buf, *e = w->lines.buf + w->lines.len;
	const char *head = e, *tail = b;
	int lines = 0, nl = 0;

	while (e > b && e[-1] == '\n')
		e--;
	for (const char *p = b; p < e; p++)
		nl += *p == '\n';
	if (w->lines.len > 0)
		strbuf_addf(sb, "; %s said:\n", who);
	if (nl + 1 <= 12) {
		strbuf_add(sb, b, (size_t)(e - b));
	} else {
		for (const char *p = b; p < e; p++) {
			if (*p == '\n' && ++lines == 6) {
				head = p + 1;
				break;
			}
		}
		lines = 0;
		for (const char *p = e; p > b; p--) {
			if (p[-1] == '\n' && ++lines == 6) {
				tail = p;
				break;
			}
		}
		strbuf_add(sb, b, (size_t)(head - b));
		strbuf_addf(sb, "[... %d lines left out ...]\n", nl + 1 - 12);
		strbuf_add(sb, tail, (size_t)(e - tail));
	}
	while (sb->len > 0 && sb->buf[sb->len - 1] == '\n')
		strbuf_setlen(sb, sb->len - 1);
	strbuf_reset(&w->lines);
}

/* The start failed while the launcher ran: its end and its last lines. */
static int
launcher_failed(struct mpi_world *w, int attached, int st, char **cause)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb,
	    "the MPI job ended before every rank attached (%d of %d did): the launcher ",
	    attached, w->s->nranks);
	mpi_launch_describe(st, &sb);
	launcher_said(w, "it", &sb);
	*cause = strbuf_detach(&sb, NULL);
	return -1;
}

/* Rank r went before its window was made: what it (and MPI) said. */
static void
window_failed(struct mpi_world *w, int r, char **cause)
{
	uint64_t until = mono_ns() + 2000000000ull;
	int st;

	while (mono_ns() < until && !mpi_launch_reap(w, &st)) {
		launcher_output(w);
		poll(NULL, 0, 20);
	}
	launcher_output(w);
	while (w->lines.len > 0 && w->lines.buf[w->lines.len - 1] == '\n')
		strbuf_setlen(&w->lines, w->lines.len - 1);
	cause_set(cause,
	    "rank %d (pid %d on %s) could not make its window of %llu bytes%s%s",
	    r, w->links[r].pid, w->links[r].host,
	    (unsigned long long)w->s->seg.area_size,
	    w->lines.len > 0 ? "; the job said:\n" : "", w->lines.buf);
	strbuf_reset(&w->lines);
}

int
mpi_attach_all(struct mpi_world *w, char **cause)
{
	struct session *s = w->s;
	struct pending *pend = NULL;
	size_t npend = 0;
	int attached = 0, ready = 0, n = s->nranks, st;
	char *ready_seen = xcalloc((size_t)n, 1);
	const char *env = getenv("COLLDB_MPI_START_SECS");
	double secs = env != NULL ? atof(env) : START_SECS_DEFAULT;
	uint64_t deadline = mono_ns() + (uint64_t)(secs * 1e9);
	int rc = -1;

	while (ready < n) {
		size_t nfd = 0, cap = npend + (size_t)n + 2;
		struct pollfd *fds = xcalloc(cap, sizeof *fds);
		int *who = xcalloc(cap, sizeof *who); /* >= 0 rank, -1 - pending */
		uint64_t now;

		fds[nfd].fd = w->listen_fd;
		fds[nfd].events = POLLIN;
		who[nfd++] = INT32_MIN;
		if (w->launcher_out >= 0) {
			fds[nfd].fd = w->launcher_out;
			fds[nfd].events = POLLIN;
			who[nfd++] = INT32_MIN + 1;
		}
		for (size_t i = 0; i < npend; i++) {
			if (pend[i].fd < 0)
				continue;
			fds[nfd].fd = pend[i].fd;
			fds[nfd].events = POLLIN;
			who[nfd++] = -1 - (int)i;
		}
		for (int r = 0; r < n; r++) {
			if (w->links[r].tcp >= 0 && !ready_seen[r]) {
				fds[nfd].fd = w->links[r].tcp;
				fds[nfd].events = POLLIN;
				who[nfd++] = r;
			}
		}
		poll(fds, (nfds_t)nfd, 50);
		now = mono_ns();
		for (size_t i = 0; i < nfd; i++) {
			if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (who[i] == INT32_MIN) {
				int fd = accept4(w->listen_fd, NULL, NULL,
				    SOCK_CLOEXEC);
				int one = 1;

				if (fd < 0)
					continue;
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				    sizeof one);
				pend =
				    xreallocarray(pend, npend + 1, sizeof *pend);
				pend[npend].fd = fd;
				peer_name(fd, pend[npend].peer,
				    sizeof pend[npend].peer);
				pend[npend].deadline =
				    now + ATTACH_SECS * 1000000000ull;
				strbuf_init(&pend[npend].in, 0);
				npend++;
			} else if (who[i] == INT32_MIN + 1) {
				launcher_output(w);
			} else if (who[i] < 0) {
				if (read_pending(w, &pend[-1 - who[i]], now) == 1)
					attached++;
			} else {
				struct msg_hdr h;
				void *payload = NULL;
				int r = who[i];

				if (proto_recv(w->links[r].tcp, &h, &payload) !=
					1 ||
				    h.type != MSG_READY) {
					free(payload);
					free(fds);
					free(who);
					window_failed(w, r, cause);
					goto out;
				}
				free(payload);
				ready_seen[r] = 1;
				ready++;
			}
		}
		free(fds);
		free(who);
		for (size_t i = 0; i < npend; i++) {
			if (pend[i].fd >= 0 && now > pend[i].deadline)
				refuse(&pend[i], "no attach within 5 s");
		}
		if (mpi_launch_reap(w, &st)) {
			launcher_output(w);
			launcher_failed(w, attached, st, cause);
			goto out;
		}
		if (shell_interrupted) {
			cause_set(cause,
			    "interrupted while the ranks attached (%d of %d did)",
			    attached, n);
			goto out;
		}
		if (now > deadline) {
			/* what the launcher said may be why (a host it
			 * cannot reach: "ssh: Could not resolve ...") */
			struct strbuf sb = STRBUF_INIT;

			launcher_output(w);
			if (attached < n) {
				strbuf_addf(&sb,
				    "the ranks did not attach within %g s (%d of %d did; COLLDB_MPI_START_SECS sets the limit)",
				    secs, attached, n);
			} else {
				/* every rank attached; some did not make
				 * their window (MPI_Win_allocate is
				 * collective: one rank that never reaches it
				 * holds up the others) */
				struct rankset late;
				char *t;

				rankset_clear(&late);
				for (int r = 0; r < n; r++) {
					if (!ready_seen[r])
						rankset_add(&late, r);
				}
				t = rankset_format(&late, n);
				if (ready == 0)
					strbuf_addf(&sb,
					    "every rank attached, but none made its window within %g s",
					    secs);
				else
					strbuf_addf(&sb,
					    "every rank attached, but ranks %s did not make their window within %g s (%d of %d did)",
					    t, secs, ready, n);
				strbuf_addf(&sb,
				    " (MPI_Win_allocate of %llu bytes a rank, which waits for every rank; COLLDB_MPI_START_SECS sets the limit)",
				    (unsigned long long)s->seg.area_size);
				free(t);
			}
			launcher_said(w, "the launcher", &sb);
			*cause = strbuf_detach(&sb, NULL);
			goto out;
		}
	}
	rc = 0;
out:
	for (size_t i = 0; i < npend; i++) {
		if (pend[i].fd >= 0)
			close(pend[i].fd);
		strbuf_release(&pend[i].in);
	}
	free(pend);
	free(ready_seen);
	close(w->listen_fd); /* nobody else may attach */
	w->listen_fd = -1;
	return rc;
}
