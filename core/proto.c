/* proto.c - shell/rank messages; see proto.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "proto.h"
#include "xmalloc.h"

static int
is_stream(int fd)
{
	int type = 0;
	socklen_t len = sizeof type;

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
	    type == SOCK_STREAM;
}

int
proto_send(int fd, const struct msg_hdr *h, const void *payload)
{
	struct iovec iov[2] = { { (void *)h, sizeof *h },
		{ (void *)payload, h->len } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = h->len ? 2 : 1 };
	size_t left = sizeof *h + h->len;
	ssize_t n;

	if (h->len > PROTO_MAX_MSG) {
		errno = EMSGSIZE;
		return -1;
	}
	/* a packet goes in one call; a stream may take several */
	for (;;) {
		do {
			n = sendmsg(fd, &m, MSG_NOSIGNAL);
		} while (n < 0 && errno == EINTR);
		if (n <= 0)
			return -1;
		left -= (size_t)n;
		if (left == 0)
			return 0;
		while (m.msg_iovlen > 0 && (size_t)n >= m.msg_iov[0].iov_len) {
			n -= (ssize_t)m.msg_iov[0].iov_len;
			m.msg_iov++;
			m.msg_iovlen--;
		}
		m.msg_iov[0].iov_base = (char *)m.msg_iov[0].iov_base + n;
		m.msg_iov[0].iov_len -= (size_t)n;
	}
}

/* Exactly n bytes of a stream: 1, 0 at its end, -1 on an error. */
static int
read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = recv(fd, (char *)buf + got, n - got, MSG_WAITALL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0 && got > 0)
				errno = EPROTO;
			return k == 0 && got == 0 ? 0 : -1;
		}
		got += (size_t)k;
	}
	return 1;
}

static int
recv_stream(int fd, struct msg_hdr *h, void **payload)
{
	char *buf;
	int st;

	if ((st = read_full(fd, h, sizeof *h)) <= 0)
		return st;
	if (h->len > PROTO_MAX_MSG) {
		errno = EPROTO;
		return -1;
	}
	buf = xmalloc((size_t)h->len + 1);
	if (h->len > 0 && read_full(fd, buf, h->len) != 1) {
		free(buf);
		if (errno == 0)
			errno = EPROTO;
		return -1;
	}
	buf[h->len] = '\0';
	*payload = buf;
	return 1;
}

int
proto_recv(int fd, struct msg_hdr *h, void **payload)
{
	char *buf;
	ssize_t want, n;

	*payload = NULL;
	if (is_stream(fd))
		return recv_stream(fd, h, payload);
	do { /* SEQPACKET: MSG_PEEK|MSG_TRUNC tells the packet's length */
		want = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
	} while (want < 0 && errno == EINTR);
	if (want <= 0)
		return want == 0 ? 0 : -1;
	/* the header into h, the payload into its own buffer: no move of
	 * the payload afterwards (a batch of calls is tens of KB) */
	want = want < (ssize_t)sizeof *h ? 0 : want - (ssize_t)sizeof *h;
	buf = xmalloc((size_t)want + 1);
	{
		struct iovec iov[2] = { { h, sizeof *h }, { buf, (size_t)want } };
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };

		do {
			n = recvmsg(fd, &m, 0);
		} while (n < 0 && errno == EINTR);
	}
	if (n < (ssize_t)sizeof *h) {
		free(buf);
		if (n >= 0)
			errno = EPROTO;
		return n == 0 ? 0 : -1;
	}
	if (h->len != (size_t)n - sizeof *h) {
		free(buf);
		errno = EPROTO;
		return -1;
	}
	buf[h->len] = '\0';
	*payload = buf;
	return 1;
}
