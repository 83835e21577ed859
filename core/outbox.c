/* outbox.c - a user rank's queued messages to the shell; see outbox.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "futex.h"
#include "outbox.h"
#include "strbuf.h"
#include "xmalloc.h"

#define REC_ALIGN 8u

static uint64_t
rec_bytes(uint32_t len)
{
	return (sizeof(struct msg_hdr) + (uint64_t)len + REC_ALIGN - 1) &
	    ~(uint64_t)(REC_ALIGN - 1);
}

size_t
outbox_bytes(int nranks)
{
	size_t each = nranks <= 16 ? (size_t)1 << 20 :
				     ((size_t)16 << 20) / (size_t)nranks;
	size_t data = (size_t)64 << 10;

	while (data * 2 <= each)
		data *= 2;
	return OUTBOX_HDR + data;
}

/* ---- the writer ----------------------------------------------------------- */

int
outbox_w_init(struct outbox_w *w, void *mem, size_t len, int kick_fd, int fresh)
{
	uint64_t size = len > OUTBOX_HDR ? len - OUTBOX_HDR : 0;

	memset(w, 0, sizeof *w);
	if (size < 4096 || (size & (size - 1)) != 0 ||
	    size < 2 * rec_bytes(PROTO_MAX_MSG))
		return -1;
	w->ring = mem;
	w->data = (uint8_t *)mem + OUTBOX_HDR;
	w->size = size;
	w->kick_fd = kick_fd;
	if (fresh)
		memset(mem, 0, OUTBOX_HDR);
	w->kicked = atomic_load(&w->ring->head);
	w->tail = atomic_load(&w->ring->tail);
	return 0;
}

/* Copy n bytes into the ring at byte position pos (wrapping). */
static void
ring_copy_in(struct outbox_w *w, uint64_t pos, const void *src, size_t n)
{
	uint64_t at = pos & (w->size - 1);
	size_t first = (size_t)(w->size - at) < n ? (size_t)(w->size - at) : n;

	memcpy(w->data + at, src, first);
	if (first < n)
		memcpy(w->data, (const uint8_t *)src + first, n - first);
}

void
outbox_kick(struct outbox_w *w)
{
	uint64_t head =
	    atomic_load_explicit(&w->ring->head, memory_order_relaxed);
	struct msg_hdr h = { .type = MSG_KICK };
	ssize_t n;

	if (head == w->kicked)
		return;
	w->kicked = head;
	w->since_ns = 0;
	if (w->kick_fd < 0)
		return;
	/* Never blocks: a full socket holds kicks the reader has not read,
	 * and it drains the ring when it reads one. */
	do {
		n = send(w->kick_fd, &h, sizeof h, MSG_DONTWAIT | MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
}

void
outbox_maybe_kick(struct outbox_w *w)
{
	uint64_t head =
	    atomic_load_explicit(&w->ring->head, memory_order_relaxed);

	/* by what was written since the last bell, not by what the reader
	 * has not taken yet: a reader behind hears once a quarter ring */
	if (head == w->kicked)
		return;
	if (head - w->kicked >= w->size / 4 ||
	    (w->since_ns != 0 && mono_ns() - w->since_ns >= OUTBOX_KICK_NS))
		outbox_kick(w);
}

int
outbox_put(struct outbox_w *w, const struct msg_hdr *h, const void *payload)
{
	uint64_t need = rec_bytes(h->len), head, tail;

	if (need > w->size / 2)
		return -1;
	head = atomic_load_explicit(&w->ring->head, memory_order_relaxed);
	/* The reader's tail only grows: while the tail read last leaves
	 * room, the reader's cache line is neither read nor written (both
	 * at every message made the line cross between the rank's CPU and
	 * the shell's twice a message). */
	if (head - w->tail > w->size - need) {
		for (;;) {
			uint32_t seen;

			tail = atomic_load_explicit(&w->ring->tail,
			    memory_order_acquire);
			if (head - tail <= w->size - need)
				break;
			/* full: make sure the reader knows, then sleep on
			 * its tail */
			outbox_kick(w);
			seen = atomic_load(&w->ring->tail_lo);
			atomic_store(&w->ring->waiting, 1);
			tail = atomic_load(&w->ring->tail);
			if (head - tail <= w->size - need)
				break;
			futex_wait((void *)&w->ring->tail_lo, seen, 1000000);
		}
		atomic_store_explicit(&w->ring->waiting, 0, memory_order_relaxed);
		w->tail = tail;
	}
	ring_copy_in(w, head, h, sizeof *h);
	if (h->len > 0)
		ring_copy_in(w, head + sizeof *h, payload, h->len);
	/* the record is whole before the reader can see it */
	atomic_store_explicit(&w->ring->head, head + need, memory_order_release);
	if (w->since_ns == 0)
		w->since_ns = mono_ns();
	return 0;
}

/* ---- the reader ------------------------------------------------------------- */

static void
ring_copy_out(const uint8_t *data, uint64_t size, uint64_t pos, void *dst,
    size_t n)
{
	uint64_t at = pos & (size - 1);
	size_t first = (size_t)(size - at) < n ? (size_t)(size - at) : n;

	memcpy(dst, data + at, first);
	if (first < n)
		memcpy((uint8_t *)dst + first, data, n - first);
}

static void
set_tail(struct outbox_ring *ring, uint64_t tail)
{
	atomic_store_explicit(&ring->tail, tail, memory_order_release);
	atomic_store(&ring->tail_lo, (uint32_t)tail);
	/* one wake for a sleep: the flag is the reader's to clear (left to
	 * the writer, it stayed set until the writer ran again, and every
	 * record read until then was a futex_wake) */
	if (atomic_load(&ring->waiting) && atomic_exchange(&ring->waiting, 0))
		futex_wake((void *)&ring->tail_lo, 1);
}

uint64_t
outbox_pending(const struct outbox_ring *ring)
{
	return atomic_load_explicit(&ring->head, memory_order_acquire) -
	    atomic_load_explicit(&ring->tail, memory_order_relaxed);
}

long
outbox_read(struct outbox_ring *ring, uint8_t *data, uint64_t size,
    outbox_fn fn, void *arg)
{
	uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
	char *buf = NULL; /* one copy buffer for all (a malloc a record was a
			   * tenth of the shell's work per call) */
	size_t cap = 0;
	long n = 0;

	if (head - tail > size || (tail & (REC_ALIGN - 1)) != 0) {
		set_tail(ring, head); /* not a ring any more: skip it */
		return -1;
	}
	while (head - tail >= sizeof(struct msg_hdr)) {
		struct msg_hdr h;
		uint64_t need;

		ring_copy_out(data, size, tail, &h, sizeof h);
		need = rec_bytes(h.len);
		if (h.len > PROTO_MAX_MSG || need > head - tail) {
			set_tail(ring, head);
			n = -1;
			break;
		}
		if (h.len >= cap) {
			cap = h.len + 1 > 4096 ? (size_t)h.len + 1 : 4096;
			buf = xrealloc(buf, cap);
		}
		if (h.len > 0)
			ring_copy_out(data, size, tail + sizeof h, buf, h.len);
		if (buf != NULL)
			buf[h.len] = '\0';
		tail += need;
		/* room for the writer before fn runs (fn may take long) */
		set_tail(ring, tail);
		fn(arg, &h, h.len > 0 ? buf : NULL);
		n++;
	}
	free(buf);
	return n;
}

long
outbox_unbatch(const void *buf, size_t len, outbox_fn fn, void *arg)
{
	const uint8_t *b = buf;
	size_t at = 0, cap = 0;
	char *copy = NULL;
	long n = 0;

	while (len - at >= sizeof(struct msg_hdr)) {
		struct msg_hdr h;
		uint64_t need;

		memcpy(&h, b + at, sizeof h);
		need = rec_bytes(h.len);
		if (h.len > PROTO_MAX_MSG || need > len - at)
			break;
		if (h.len >= cap) {
			cap = h.len + 1 > 4096 ? (size_t)h.len + 1 : 4096;
			copy = xrealloc(copy, cap);
		}
		if (h.len > 0)
			memcpy(copy, b + at + sizeof h, h.len);
		if (copy != NULL)
			copy[h.len] = '\0';
		at += need;
		fn(arg, &h, h.len > 0 ? copy : NULL);
		n++;
	}
	free(copy);
	return at == len ? n : -1;
}

long
outbox_batch(struct outbox_ring *ring, uint8_t *data, uint64_t size,
    struct strbuf *sb, size_t max)
{
	uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
	long n = 0;

	while (head - tail >= sizeof(struct msg_hdr)) {
		struct msg_hdr h;
		uint64_t need;
		size_t at = sb->len;

		ring_copy_out(data, size, tail, &h, sizeof h);
		need = rec_bytes(h.len);
		if (h.len > PROTO_MAX_MSG || need > head - tail)
			break; /* our own memory: cannot happen */
		if (sb->len + need > max)
			break;
		strbuf_grow(sb, (size_t)need);
		ring_copy_out(data, size, tail, sb->buf + at, (size_t)need);
		strbuf_setlen(sb, at + (size_t)need);
		tail += need;
		n++;
	}
	set_tail(ring, tail);
	return n;
}
