/* seg.c - the session segment; see seg.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "futex.h"
#include "seg.h"
#include "xmalloc.h"

#define PAGE 4096u

static uint64_t
round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

uint64_t
seg_default_area(int nranks)
{
	/* Sparse: only touched pages cost memory.  Keep the total virtual
	 * size bounded so 256 ranks still fit comfortably. */
	uint64_t total = 16ull << 30, per = 1ull << 30;

	if (nranks > 0 && per * (uint64_t)nranks > total)
		per = round_up(total / (uint64_t)nranks, PAGE);
	return per;
}

int
seg_create(struct seg *s, const char *session, int nranks, uint64_t area_size,
    uint64_t span_bytes, char **cause)
{
	static unsigned counter;
	struct seg_header *h;
	uint64_t board_off, spans_off, area_off, total;
	int fd = -1;

	memset(s, 0, sizeof *s);
	s->fd = -1;
	if (nranks < 1 || nranks > SEG_MAX_RANKS)
		return cause_set(cause, "%d ranks out of range (1..%d)", nranks,
		    SEG_MAX_RANKS);
	area_size = round_up(area_size, PAGE);
	span_bytes = round_up(span_bytes, PAGE);
	board_off = round_up(sizeof *h, PAGE);
	spans_off = board_off + round_up(sizeof(struct seg_rank) * (uint64_t)nranks, PAGE);
	area_off = spans_off + span_bytes * (uint64_t)nranks;
	total = area_off + area_size * (uint64_t)nranks;

	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		snprintf(s->shm_name, sizeof s->shm_name, "/colldb-%u-%d-%u-%x",
		    (unsigned)getuid(), (int)getpid(), counter++,
		    (unsigned)(mono_ns() & 0xfffff));
		fd = shm_open(s->shm_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		s->shm_name[0] = '\0';
		return cause_set(cause, "shm_open: %s", strerror(errno));
	}
	if (ftruncate(fd, (off_t)total) != 0) {
		cause_set(cause, "ftruncate %llu bytes: %s",
		    (unsigned long long)total, strerror(errno));
		goto fail;
	}
	h = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
	    fd, 0);
	if (h == MAP_FAILED) {
		cause_set(cause, "mmap %llu bytes: %s", (unsigned long long)total,
		    strerror(errno));
		goto fail;
	}
	h->version = 1;
	h->nranks = (uint32_t)nranks;
	h->total_size = total;
	h->area_size = area_size;
	h->board_off = board_off;
	h->spans_off = spans_off;
	h->span_bytes = span_bytes;
	h->area_off = area_off;
	h->shell_pid = (int32_t)getpid();
	snprintf(h->name, sizeof h->name, "%s", session);
	atomic_store(&h->next_win_seq, 1);
	for (int r = 0; r < nranks; r++) {
		struct seg_rank *b = (struct seg_rank *)((char *)h + board_off) + r;
		atomic_store(&b->state, RS_STARTING);
		atomic_store(&b->state_ns, mono_ns());
	}
	atomic_thread_fence(memory_order_seq_cst);
	h->magic = SEG_MAGIC;
	s->h = h;
	s->size = total;
	s->fd = fd;
	s->writable = 1;
	return 0;
fail:
	close(fd);
	shm_unlink(s->shm_name);
	s->shm_name[0] = '\0';
	return -1;
}

int
seg_attach_fd(struct seg *s, int fd, int writable, char **cause)
{
	struct stat st;
	struct seg_header *h;

	memset(s, 0, sizeof *s);
	s->fd = -1;
	if (fstat(fd, &st) != 0)
		return cause_set(cause, "fstat: %s", strerror(errno));
	if ((size_t)st.st_size < sizeof *h)
		return cause_set(cause, "not a colldb session segment");
	h = mmap(NULL, (size_t)st.st_size,
	    writable ? PROT_READ | PROT_WRITE : PROT_READ,
	    MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (h == MAP_FAILED)
		return cause_set(cause, "mmap: %s", strerror(errno));
	if (h->magic != SEG_MAGIC || h->total_size != (uint64_t)st.st_size) {
		munmap(h, (size_t)st.st_size);
		return cause_set(cause, "not a colldb session segment");
	}
	s->h = h;
	s->size = (size_t)st.st_size;
	s->fd = fd;
	s->writable = writable;
	return 0;
}

void
seg_unlink(struct seg *s)
{
	if (s->shm_name[0] != '\0') {
		shm_unlink(s->shm_name);
		s->shm_name[0] = '\0';
	}
}

void
seg_close(struct seg *s)
{
	seg_unlink(s);
	if (s->h != NULL)
		munmap(s->h, s->size);
	if (s->fd >= 0)
		close(s->fd);
	s->h = NULL;
	s->fd = -1;
}

void
seg_lock(struct seg *s)
{
	_Atomic uint32_t *l = &s->h->lock;
	uint32_t c = 0;

	/* Drepper's three-state mutex: 0 free, 1 locked, 2 contended.  A
	 * waiter looks every 50 ms whether the holder still lives, and takes
	 * the lock over from a dead one. */
	if (atomic_compare_exchange_strong(l, &c, 1))
		goto out;
	if (c != 2)
		c = atomic_exchange(l, 2);
	while (c != 0) {
		if (futex_wait((void *)l, 2, 50000000u) != 0) {
			int32_t o = atomic_load(&s->h->lock_owner);
			if (o > 0 && kill((pid_t)o, 0) != 0 && errno == ESRCH &&
			    atomic_compare_exchange_strong(&s->h->lock_owner, &o,
				(int32_t)getpid())) {
				atomic_store(l, 2);
				return;
			}
		}
		c = atomic_exchange(l, 2);
	}
out:
	atomic_store(&s->h->lock_owner, (int32_t)getpid());
}

void
seg_unlock(struct seg *s)
{
	_Atomic uint32_t *l = &s->h->lock;

	atomic_store(&s->h->lock_owner, 0);
	if (atomic_fetch_sub(l, 1) != 1) {
		atomic_store(l, 0);
		futex_wake((void *)l, 1);
	}
}

struct seg_window *
seg_win_find(struct seg *s, const char *name)
{
	for (int i = 0; i < SEG_MAX_WINDOWS; i++) {
		struct seg_window *w = &s->h->windows[i];
		if (w->used && strcmp(w->name, name) == 0)
			return w;
	}
	return NULL;
}

struct seg_window *
seg_win_alloc(struct seg *s, const char *name, const uint64_t *shape,
    int ndim, enum dtype dt, unsigned flags, char **cause)
{
	struct seg_header *h = s->h;
	struct seg_window *slot = NULL;
	uint64_t count = 1, bytes, top = 0;

	if (name[0] == '\0' || strlen(name) >= SEG_NAME_MAX) {
		cause_set(cause, "window name '%s' must be 1..%d characters", name,
		    SEG_NAME_MAX - 1);
		return NULL;
	}
	if (seg_win_find(s, name) != NULL) {
		cause_set(cause, "window '%s' already exists", name);
		return NULL;
	}
	if (ndim < 1 || ndim > COLLDB_MAX_DIMS) {
		cause_set(cause, "shape needs 1..%d dimensions", COLLDB_MAX_DIMS);
		return NULL;
	}
	for (int d = 0; d < ndim; d++) {
		if (shape[d] == 0 || count > UINT64_MAX / shape[d]) {
			cause_set(cause, "bad dimension %llu",
			    (unsigned long long)shape[d]);
			return NULL;
		}
		count *= shape[d];
	}
	if (count > h->area_size / dtype_size(dt)) {
		cause_set(cause, "window of %llu bytes does not fit the window area (%llu bytes per rank)",
		    (unsigned long long)count * dtype_size(dt),
		    (unsigned long long)h->area_size);
		return NULL;
	}
	bytes = count * dtype_size(dt);
	for (int i = 0; i < SEG_MAX_WINDOWS; i++) {
		struct seg_window *w = &h->windows[i];
		if (w->used) {
			uint64_t end = w->off + round_up(w->bytes, SEG_ALIGN);
			if (end > top)
				top = end;
		} else if (slot == NULL) {
			slot = w;
		}
	}
	if (slot == NULL) {
		cause_set(cause, "too many windows (at most %d)", SEG_MAX_WINDOWS);
		return NULL;
	}
	if (round_up(bytes, SEG_ALIGN) > h->area_size - top) {
		cause_set(cause, "window area full: %llu bytes free of %llu, need %llu",
		    (unsigned long long)(h->area_size - top),
		    (unsigned long long)h->area_size,
		    (unsigned long long)round_up(bytes, SEG_ALIGN));
		return NULL;
	}
	memset(slot, 0, sizeof *slot);
	snprintf(slot->name, sizeof slot->name, "%s", name);
	slot->dtype = (uint8_t)dt;
	slot->ndim = (uint8_t)ndim;
	slot->flags = (uint8_t)flags;
	memcpy(slot->shape, shape, (size_t)ndim * sizeof *shape);
	slot->count = count;
	slot->bytes = bytes;
	slot->off = top;
	slot->seq = atomic_fetch_add(&h->next_win_seq, 1);
	atomic_thread_fence(memory_order_release);
	slot->used = 1;
	atomic_fetch_add(&h->win_seq, 1);
	return slot;
}

void
seg_win_free(struct seg *s, struct seg_window *w)
{
	uint64_t len = round_up(w->bytes, SEG_ALIGN);

	for (uint32_t r = 0; r < s->h->nranks; r++) {
		uint8_t *p = seg_area(s, (int)r) + w->off;
		uint8_t *lo = (uint8_t *)round_up((uintptr_t)p, PAGE);
		uint8_t *hi = (uint8_t *)((uintptr_t)(p + len) / PAGE * PAGE);

		/* Give whole pages back to tmpfs; zero the edges by hand. */
		if (lo < hi && madvise(lo, (size_t)(hi - lo), MADV_REMOVE) == 0) {
			memset(p, 0, (size_t)(lo - p));
			memset(hi, 0, (size_t)(p + len - hi));
		} else {
			memset(p, 0, len);
		}
	}
	w->used = 0;
	atomic_fetch_add(&s->h->win_seq, 1);
}

static int
by_seq(const void *a, const void *b)
{
	const struct seg_window *x = *(struct seg_window *const *)a;
	const struct seg_window *y = *(struct seg_window *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int
seg_win_list(struct seg *s, struct seg_window **out, int max)
{
	int n = 0;

	for (int i = 0; i < SEG_MAX_WINDOWS && n < max; i++) {
		if (s->h->windows[i].used)
			out[n++] = &s->h->windows[i];
	}
	qsort(out, (size_t)n, sizeof *out, by_seq);
	return n;
}

struct seg_window *
seg_win_at(struct seg *s, uint64_t off)
{
	for (int i = 0; i < SEG_MAX_WINDOWS; i++) {
		struct seg_window *w = &s->h->windows[i];
		if (w->used && off >= w->off && off < w->off + w->bytes)
			return w;
	}
	return NULL;
}

void
seg_win_ref(const struct seg_window *w, struct win_ref *ref)
{
	memset(ref, 0, sizeof *ref);
	ref->name = w->name;
	ref->off = w->off;
	ref->dtype = (enum dtype)w->dtype;
	ref->ndim = w->ndim;
	memcpy(ref->shape, w->shape, sizeof ref->shape);
	ref->count = w->count;
}

static const char *const state_names[RS__COUNT] = {
	"starting", "idle", "running", "stopped", "blocked", "exited", "dead"
};

const char *
rank_state_name(enum rank_state st)
{
	return (unsigned)st < RS__COUNT ? state_names[st] : "?";
}

void
seg_set_state(struct seg_rank *b, enum rank_state st)
{
	atomic_store(&b->state_ns, mono_ns());
	atomic_store(&b->state, (uint32_t)st);
}

void
seg_ctl_kick(struct seg_rank *b)
{
	atomic_fetch_add(&b->ctl, 1);
	futex_wake((void *)&b->ctl, 1);
}

void
seg_read_cur(struct seg_rank *b, struct uop *cur, char *title,
    size_t title_size)
{
	uint32_t s1, s2;
	int tries = 0;

	do {
		s1 = atomic_load(&b->cur_seq);
		atomic_thread_fence(memory_order_acquire);
		memcpy(cur, &b->cur, sizeof *cur);
		if (title != NULL)
			snprintf(title, title_size, "%.*s", SEG_TITLE_MAX - 1,
			    b->title);
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load(&b->cur_seq);
	} while ((s1 != s2 || (s1 & 1)) && ++tries < 1000);
}

/* The rank is the only writer of its slot: plain stores, no RMW (this
 * runs before every micro-op). */
void
seg_write_cur(struct seg_rank *b, const struct uop *cur, const char *title)
{
	uint32_t seq = atomic_load_explicit(&b->cur_seq, memory_order_relaxed);

	atomic_store_explicit(&b->cur_seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	memcpy(&b->cur, cur, sizeof *cur);
	if (title != NULL)
		snprintf(b->title, sizeof b->title, "%s", title);
	atomic_store_explicit(&b->cur_seq, seq + 2, memory_order_release);
}
