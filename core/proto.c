/* proto.c - shell/rank messages; see proto.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "proto.h"
#include "xmalloc.h"

int
proto_send(int fd, const struct msg_hdr *h, const void *payload)
{
	struct iovec iov[2] = { { (void *)h, sizeof *h },
		{ (void *)payload, h->len } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = h->len ? 2 : 1 };
	ssize_t n;

	if (h->len > PROTO_MAX_MSG) {
		errno = EMSGSIZE;
		return -1;
	}
	do {
		n = sendmsg(fd, &m, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)(sizeof *h + h->len) ? 0 : -1;
}

int
proto_recv(int fd, struct msg_hdr *h, void **payload)
{
	char *buf;
	ssize_t want, n;

	*payload = NULL;
	do { /* SEQPACKET: MSG_PEEK|MSG_TRUNC tells the packet's length */
		want = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
	} while (want < 0 && errno == EINTR);
	if (want <= 0)
		return want == 0 ? 0 : -1;
	buf = xmalloc((size_t)want + 1);
	do {
		n = recv(fd, buf, (size_t)want, 0);
	} while (n < 0 && errno == EINTR);
	if (n < (ssize_t)sizeof *h) {
		free(buf);
		if (n >= 0)
			errno = EPROTO;
		return n == 0 ? 0 : -1;
	}
	memcpy(h, buf, sizeof *h);
	if (h->len != (size_t)n - sizeof *h) {
		free(buf);
		errno = EPROTO;
		return -1;
	}
	memmove(buf, buf + sizeof *h, h->len);
	buf[h->len] = '\0';
	*payload = buf;
	return 1;
}
