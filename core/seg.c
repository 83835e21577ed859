/* seg.c - the session segment; see seg.h. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
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

static void layout_copy(struct seg *s);

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

/* Check the sizes, lay the segment out on fd (areas: with the window
 * areas) and fill in its header; 0 or -1 + cause (fd stays open). */
static int
seg_make(struct seg *s, int fd, const char *session, int nranks,
    uint64_t area_size, uint64_t span_bytes, int areas, char **cause)
{
	struct seg_header *h;
	uint64_t board_off, spans_off, area_off, total;

	area_size = round_up(area_size, PAGE);
	span_bytes = round_up(span_bytes, PAGE);
	board_off = round_up(sizeof *h, PAGE);
	spans_off = board_off +
	    round_up(sizeof(struct seg_rank) * (uint64_t)nranks, PAGE);
	area_off = spans_off + span_bytes * (uint64_t)nranks;
	total = area_off + (areas ? area_size * (uint64_t)nranks : 0);
	if (ftruncate(fd, (off_t)total) != 0)
		return cause_set(cause, "ftruncate %llu bytes: %s",
		    (unsigned long long)total, strerror(errno));
	h = mmap(NULL, total, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (h == MAP_FAILED)
		return cause_set(cause, "mmap %llu bytes: %s",
		    (unsigned long long)total, strerror(errno));
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
		struct seg_rank *b =
		    (struct seg_rank *)((char *)h + board_off) + r;
		atomic_store(&b->state, RS_STARTING);
		atomic_store(&b->state_ns, mono_ns());
	}
	atomic_thread_fence(memory_order_seq_cst);
	h->magic = SEG_MAGIC;
	s->h = h;
	s->size = total;
	s->fd = fd;
	s->writable = 1;
	s->creator = 1;
	layout_copy(s);
	return 0;
}

static int
sizes_ok(int nranks, uint64_t area_size, uint64_t span_bytes, char **cause)
{
	if (nranks < 1 || nranks > SEG_MAX_RANKS)
		return cause_set(cause, "%d ranks out of range (1..%d)", nranks,
		    SEG_MAX_RANKS);
	/* sizes from the user (--window-area): checked before any sum */
	if (area_size == 0 || area_size > SEG_AREA_MAX / (uint64_t)nranks)
		return cause_set(cause,
		    "window area of %llu bytes per rank out of range "
		    "(1..%llu for %d ranks)",
		    (unsigned long long)area_size,
		    (unsigned long long)(SEG_AREA_MAX / (uint64_t)nranks),
		    nranks);
	if (span_bytes > SEG_SPANS_MAX)
		return cause_set(cause,
		    "span ring of %llu bytes out of range (at most %llu)",
		    (unsigned long long)span_bytes,
		    (unsigned long long)SEG_SPANS_MAX);
	return 0;
}

int
seg_create(struct seg *s, const char *session, int nranks, uint64_t area_size,
    uint64_t span_bytes, char **cause)
{
	static unsigned counter;
	int fd = -1;

	memset(s, 0, sizeof *s);
	s->fd = -1;
	if (sizes_ok(nranks, area_size, span_bytes, cause) != 0)
		return -1;
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		snprintf(s->shm_name, sizeof s->shm_name, "/colldb-%u-%d-%u-%x",
		    (unsigned)getuid(), (int)getpid(), counter++,
		    (unsigned)(mono_ns() & 0xfffff));
		fd = shm_open(s->shm_name,
		    O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		s->shm_name[0] = '\0';
		return cause_set(cause, "shm_open: %s", strerror(errno));
	}
	/* nobody opens it by name (ranks inherit the fd, colldb watch goes
	 * through /proc/PID/fd): the name goes at once, so that no end of
	 * the shell, SIGKILL while the ranks start included, leaves it */
	seg_unlink(s);
	if (seg_make(s, fd, session, nranks, area_size, span_bytes, 1, cause) !=
	    0) {
		close(fd);
		s->fd = -1;
		return -1;
	}
	return 0;
}

int
seg_create_local(struct seg *s, const char *session, int nranks,
    uint64_t area_size, uint64_t span_bytes, int own_rank, uint8_t *own_area,
    char **cause)
{
	int fd;

	memset(s, 0, sizeof *s);
	s->fd = -1;
	if (sizes_ok(nranks, area_size, span_bytes, cause) != 0)
		return -1;
	if (own_rank < 0 || own_rank >= nranks || own_area == NULL)
		return cause_set(cause, "rank %d out of range", own_rank);
	if ((fd = memfd_create("colldb-rank", MFD_CLOEXEC)) < 0)
		return cause_set(cause, "memfd_create: %s", strerror(errno));
	if (seg_make(s, fd, session, nranks, area_size, span_bytes, 0, cause) !=
	    0) {
		close(fd);
		s->fd = -1;
		return -1;
	}
	s->own_area = own_area;
	s->own_rank = own_rank;
	return 0;
}

/* The layout fields as seg_create() would have set them for this size. */
static int
layout_ok(const struct seg_header *h, uint64_t size)
{
	uint64_t n = h->nranks, spans_off, area_off;

	if (n < 1 || n > SEG_MAX_RANKS || h->area_size == 0 ||
	    h->area_size % PAGE != 0 || h->area_size > SEG_AREA_MAX / n ||
	    h->span_bytes % PAGE != 0 || h->span_bytes > SEG_SPANS_MAX ||
	    h->board_off != round_up(sizeof *h, PAGE))
		return 0;
	spans_off = h->board_off + round_up(sizeof(struct seg_rank) * n, PAGE);
	area_off = spans_off + h->span_bytes * n;
	return h->spans_off == spans_off && h->area_off == area_off &&
	    h->total_size == size && area_off + h->area_size * n == size;
}

static void
layout_copy(struct seg *s)
{
	const struct seg_header *h = s->h;

	snprintf(s->name, sizeof s->name, "%.*s", (int)sizeof h->name - 1,
	    h->name);
	s->nranks = (int)h->nranks;
	s->area_size = h->area_size;
	s->board_off = h->board_off;
	s->spans_off = h->spans_off;
	s->span_bytes = h->span_bytes;
	s->area_off = h->area_off;
	s->wins = xcalloc(SEG_MAX_WINDOWS, sizeof *s->wins);
	s->raw = xcalloc(SEG_MAX_WINDOWS, sizeof *s->raw);
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
	if (!layout_ok(h, (uint64_t)st.st_size)) {
		munmap(h, (size_t)st.st_size);
		return cause_set(cause,
		    "segment header corrupted (its layout does not add up)");
	}
	s->h = h;
	s->size = (size_t)st.st_size;
	s->fd = fd;
	s->writable = writable;
	layout_copy(s);
	seg_win_sync(s);
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
	free(s->wins);
	free(s->raw);
	free(s->reports);
	s->wins = s->raw = NULL;
	s->reports = NULL;
	s->reports_len = 0;
	s->h = NULL;
	s->fd = -1;
}

void
seg_cell_wake(const struct seg *s, int r, uint64_t off)
{
	_Atomic int32_t *c = seg_cell(s, r, off);

	if (c != NULL)
		futex_wake((void *)c, 1 << 30);
}

/* ---- what the segment says, checked ---------------------------------- */

printflike(2, 3) static void report(struct seg *s, const char *fmt, ...)
{
	char line[160];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	n = strlen(line);
	if (s->reports_len + n + 2 > SEG_REPORTS_MAX)
		return; /* nobody takes them (a rank): keep the first ones */
	s->reports = xrealloc(s->reports, s->reports_len + n + 2);
	memcpy(s->reports + s->reports_len, line, n);
	s->reports_len += n;
	s->reports[s->reports_len++] = '\n';
	s->reports[s->reports_len] = '\0';
}

char *
seg_take_reports(struct seg *s)
{
	char *r = s->reports;

	s->reports = NULL;
	s->reports_len = 0;
	return r;
}

/* The creator puts the layout back if a rank wrote over it (so observers
 * attaching later still find it), and says so once per bad value. */
static void
layout_repair(struct seg *s)
{
	struct seg_header *h = s->h;
	static const struct {
		const char *name;
		size_t off;
	} f[] = {
		{ "total_size", offsetof(struct seg_header, total_size) },
		{ "area_size", offsetof(struct seg_header, area_size) },
		{ "board_off", offsetof(struct seg_header, board_off) },
		{ "spans_off", offsetof(struct seg_header, spans_off) },
		{ "span_bytes", offsetof(struct seg_header, span_bytes) },
		{ "area_off", offsetof(struct seg_header, area_off) },
	};
	uint64_t want[6] = { s->size, s->area_size, s->board_off, s->spans_off,
		s->span_bytes, s->area_off };

	if (!s->writable)
		return;
	if (h->magic != SEG_MAGIC || h->nranks != (uint32_t)s->nranks) {
		report(s, "segment header corrupted (%s 0x%llx)",
		    h->magic != SEG_MAGIC ? "magic" : "nranks",
		    h->magic != SEG_MAGIC ? (unsigned long long)h->magic :
					    (unsigned long long)h->nranks);
		h->magic = SEG_MAGIC;
		h->nranks = (uint32_t)s->nranks;
	}
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		uint64_t *v = (uint64_t *)((char *)h + f[i].off);

		if (*v != want[i]) {
			report(s, "segment header corrupted (%s 0x%llx)",
			    f[i].name, (unsigned long long)*v);
			*v = want[i];
		}
	}
}

/* 0 if w (a copy) is a window this segment can hold; else -1 and what is
 * wrong in why. */
static int
win_check(const struct seg *s, const struct seg_window *w, char *why, size_t n)
{
	uint64_t count = 1, bytes, esz;

	if (w->used != 1)
		return snprintf(why, n, "used 0x%02x", w->used), -1;
	if (memchr(w->name, '\0', sizeof w->name) == NULL || w->name[0] == '\0')
		return snprintf(why, n, "name not a string"), -1;
	if (w->dtype >= DT__COUNT)
		return snprintf(why, n, "dtype 0x%02x", w->dtype), -1;
	if (w->ndim < 1 || w->ndim > COLLDB_MAX_DIMS)
		return snprintf(why, n, "ndim %u", w->ndim), -1;
	if ((w->flags & ~(WIN_BYTES | WIN_SYNTH)) != 0)
		return snprintf(why, n, "flags 0x%02x", w->flags), -1;
	for (int d = 0; d < w->ndim; d++) {
		if (w->shape[d] == 0 || count > UINT64_MAX / w->shape[d])
			return snprintf(why, n, "shape[%d] %llu", d,
				   (unsigned long long)w->shape[d]),
			       -1;
		count *= w->shape[d];
	}
	esz = dtype_size((enum dtype)w->dtype);
	if (w->count != count || count > s->area_size / esz)
		return snprintf(why, n, "count %llu",
			   (unsigned long long)w->count),
		       -1;
	bytes = count * esz;
	if (w->bytes != bytes)
		return snprintf(why, n, "bytes %llu",
			   (unsigned long long)w->bytes),
		       -1;
	if (w->off % SEG_ALIGN != 0 || w->off > s->area_size ||
	    round_up(bytes, SEG_ALIGN) > s->area_size - w->off)
		return snprintf(why, n, "offset %llu",
			   (unsigned long long)w->off),
		       -1;
	if (w->domain > SEG_MAX_DOMAINS ||
	    (w->domain != 0 && seg_domain_get((struct seg *)s, w->domain) == NULL))
		return snprintf(why, n, "domain %u", w->domain), -1;
	if (w->doff % SEG_ALIGN != 0 || w->doff > s->area_size ||
	    (w->domain == 0 && w->doff != w->off))
		return snprintf(why, n, "domain offset %llu",
			   (unsigned long long)w->doff),
		       -1;
	return 0;
}

void
seg_win_snapshot(struct seg *s, struct seg *out)
{
	seg_win_sync(s);
	memset(out, 0, sizeof *out);
	out->fd = -1;
	out->nranks = s->nranks;
	out->area_size = s->area_size;
	out->board_off = s->board_off;
	out->spans_off = s->spans_off;
	out->span_bytes = s->span_bytes;
	out->area_off = s->area_off;
	out->wins = xmalloc(SEG_MAX_WINDOWS * sizeof *out->wins);
	memcpy(out->wins, s->wins, SEG_MAX_WINDOWS * sizeof *out->wins);
}

void
seg_win_sync(struct seg *s)
{
	struct seg_window cur, again;
	char why[64];

	if (s->h == NULL || s->wins == NULL || s->raw == NULL)
		return; /* closed, or a snapshot */
	if (s->creator)
		layout_repair(s);
	for (int i = 0; i < SEG_MAX_WINDOWS; i++) {
		struct seg_window *w = &s->h->windows[i];
		uint8_t used = atomic_load_explicit((_Atomic uint8_t *)&w->used,
		    memory_order_acquire);

		if (used == 0 && s->raw[i].used == 0) {
			s->wins[i].used = 0;
			continue; /* free, and was: nothing to look at */
		}
		memcpy(&cur, w, sizeof cur);
		if (memcmp(&cur, &s->raw[i], sizeof cur) == 0)
			continue;
		if (cur.used == 0) {
			s->raw[i] = cur;
			s->wins[i].used = 0;
			continue;
		}
		if (win_check(s, &cur, why, sizeof why) == 0) {
			s->raw[i] = cur;
			s->wins[i] = cur;
			continue;
		}
		memcpy(&again, w, sizeof again);
		if (memcmp(&cur, &again, sizeof cur) != 0)
			continue; /* a writer at work: look next time */
		s->raw[i] = cur;  /* the last good copy stays in wins[i] */
		report(s, "segment header corrupted at window %d (%s)", i, why);
	}
}

static int
ref_ok(const struct seg *s, const struct win_ref *r)
{
	uint64_t count = 1;

	if (r->ndim == 0)
		return r->count == 0; /* not used by this collective */
	if ((unsigned)r->dtype >= DT__COUNT || r->ndim < 0 ||
	    r->ndim > COLLDB_MAX_DIMS)
		return 0;
	for (int d = 0; d < r->ndim; d++) {
		if (r->shape[d] == 0 || count > UINT64_MAX / r->shape[d])
			return 0;
		count *= r->shape[d];
	}
	return r->count == count &&
	    count <= s->area_size / dtype_size(r->dtype) &&
	    r->off <= s->area_size - count * dtype_size(r->dtype);
}

uint32_t
seg_cur_coll(struct seg *s, struct coll_args *out)
{
	uint32_t id = atomic_load(&s->h->cur_coll_id);
	char *cause = NULL;

	if (id == 0)
		return 0;
	memcpy(out, &s->h->cur_coll, sizeof *out);
	if (atomic_load(&s->h->cur_coll_id) != id)
		return 0; /* changing: look next time */
	coll_args_unname(out);
	if ((unsigned)out->kind >= COLL__COUNT ||
	    (unsigned)out->mode > MODE_RING ||
	    (unsigned)out->impl > IMPL_BUILTIN ||
	    (unsigned)out->op >= RED__COUNT || !ref_ok(s, &out->buf) ||
	    !ref_ok(s, &out->src) || !ref_ok(s, &out->sig) ||
	    !ref_ok(s, &out->scount) || !ref_ok(s, &out->rcount) ||
	    coll_validate(out, s->nranks, &cause, NULL) != 0) {
		free(cause);
		if (s->bad_coll != id)
			report(s,
			    "segment header corrupted (the collective in progress, id %u)",
			    id);
		s->bad_coll = id;
		return 0;
	}
	return id;
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
			    atomic_compare_exchange_strong(&s->h->lock_owner,
				&o, (int32_t)getpid())) {
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
	seg_win_sync(s);
	for (int i = 0; i < SEG_MAX_WINDOWS; i++) {
		struct seg_window *w = &s->wins[i];
		if (w->used && strcmp(w->name, name) == 0)
			return w;
	}
	return NULL;
}

struct seg_window *
seg_win_alloc(struct seg *s, const char *name, const uint64_t *shape, int ndim,
    enum dtype dt, unsigned flags, char **cause)
{
	return seg_win_alloc_in(s, name, shape, ndim, dt, flags, 0, cause);
}

static uint64_t
bits_count(const uint64_t *w, size_t n)
{
	uint64_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += (uint64_t)__builtin_popcountll(w[i]);
	return c;
}

const struct seg_domain *
seg_domain_get(struct seg *s, int k)
{
	const struct seg_domain *d;

	if (k < 1 || k > SEG_MAX_DOMAINS)
		return NULL;
	d = &s->h->domains[k - 1];
	/* the shell writes the table, but a rank could scribble on it */
	if (d->used != 1 || memchr(d->name, '\0', sizeof d->name) == NULL ||
	    d->nranks == 0 || d->nranks > (uint32_t)s->nranks ||
	    bits_count(d->ranks, ARRAY_SIZE(d->ranks)) != d->nranks)
		return NULL;
	for (uint32_t r = (uint32_t)s->nranks; r < SEG_MAX_RANKS; r++) {
		if (d->ranks[r / 64] & (1ull << (r % 64)))
			return NULL;
	}
	return d;
}

int
seg_domain_find(struct seg *s, const char *name)
{
	for (int k = 1; k <= SEG_MAX_DOMAINS; k++) {
		const struct seg_domain *d = seg_domain_get(s, k);
		if (d != NULL && strcmp(d->name, name) == 0)
			return k;
	}
	return 0;
}

int
seg_domain_add(struct seg *s, const char *name, const uint64_t *ranks,
    char **cause)
{
	uint64_t n = bits_count(ranks, SEG_MAX_RANKS / 64);

	if (name[0] == '\0' || strlen(name) >= SEG_NAME_MAX)
		return cause_set(cause,
		    "domain name '%s' must be 1..%d characters", name,
		    SEG_NAME_MAX - 1);
	if (seg_domain_find(s, name) != 0)
		return cause_set(cause, "domain '%s' already exists", name);
	if (n == 0)
		return cause_set(cause, "a domain needs at least one rank");
	for (uint32_t r = (uint32_t)s->nranks; r < SEG_MAX_RANKS; r++) {
		if (ranks[r / 64] & (1ull << (r % 64)))
			return cause_set(cause,
			    "rank %u out of range (world has %d ranks)", r,
			    s->nranks);
	}
	for (int k = 1; k <= SEG_MAX_DOMAINS; k++) {
		struct seg_domain *d = &s->h->domains[k - 1];
		if (d->used)
			continue;
		memset(d, 0, sizeof *d);
		snprintf(d->name, sizeof d->name, "%s", name);
		memcpy(d->ranks, ranks, sizeof d->ranks);
		d->nranks = (uint32_t)n;
		atomic_store_explicit((_Atomic uint32_t *)&d->used, 1,
		    memory_order_release);
		atomic_fetch_add(&s->h->win_seq, 1);
		return k;
	}
	return cause_set(cause, "too many domains (at most %d)", SEG_MAX_DOMAINS);
}

void
seg_domain_free(struct seg *s, int k)
{
	struct seg_domain *d;

	if (k < 1 || k > SEG_MAX_DOMAINS)
		return;
	d = &s->h->domains[k - 1];
	/* unused first: a reader that looks now sees no domain, not a
	 * half-cleared one */
	atomic_store_explicit((_Atomic uint32_t *)&d->used, 0,
	    memory_order_release);
	memset(d->name, 0, sizeof d->name);
	d->nranks = 0;
	memset(d->ranks, 0, sizeof d->ranks);
	atomic_fetch_add(&s->h->win_seq, 1);
}

int
seg_domain_rank(struct seg *s, int k, int r)
{
	const struct seg_domain *d;
	int dense = 0;

	if (r < 0 || (uint32_t)r >= (uint32_t)s->nranks)
		return -1;
	if (k == 0)
		return r;
	if ((d = seg_domain_get(s, k)) == NULL ||
	    !(d->ranks[r / 64] & (1ull << (r % 64))))
		return -1;
	for (int q = 0; q < r; q++)
		dense += (d->ranks[q / 64] >> (q % 64)) & 1;
	return dense;
}

int
seg_domain_member(struct seg *s, int k, int dense)
{
	const struct seg_domain *d;

	if (k == 0)
		return dense >= 0 && (uint32_t)dense < (uint32_t)s->nranks ?
		    dense :
		    -1;
	if ((d = seg_domain_get(s, k)) == NULL || dense < 0)
		return -1;
	for (uint32_t q = 0; q < (uint32_t)s->nranks; q++) {
		if ((d->ranks[q / 64] >> (q % 64)) & 1) {
			if (dense-- == 0)
				return (int)q;
		}
	}
	return -1;
}

struct seg_window *
seg_win_alloc_in(struct seg *s, const char *name, const uint64_t *shape,
    int ndim, enum dtype dt, unsigned flags, int domain, char **cause)
{
	struct seg_window *slot = NULL;
	uint64_t count = 1, bytes, top = 0, dtop = 0;
	int idx = -1;

	if (domain != 0 && seg_domain_get(s, domain) == NULL) {
		cause_set(cause, "no domain %d", domain);
		return NULL;
	}

	if (name[0] == '\0' || strlen(name) >= SEG_NAME_MAX) {
		cause_set(cause, "window name '%s' must be 1..%d characters",
		    name, SEG_NAME_MAX - 1);
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
	if (count > s->area_size / dtype_size(dt)) {
		cause_set(cause,
		    "window of %llu bytes does not fit the window area (%llu bytes per rank)",
		    (unsigned long long)count * dtype_size(dt),
		    (unsigned long long)s->area_size);
		return NULL;
	}
	bytes = count * dtype_size(dt);
	for (int i = 0; i < SEG_MAX_WINDOWS; i++) {
		const struct seg_window *w = &s->wins[i];
		if (w->used) {
			uint64_t end = w->off + round_up(w->bytes, SEG_ALIGN);
			if (end > top)
				top = end;
			/* the domain's own layout: its windows only */
			end = w->doff + round_up(w->bytes, SEG_ALIGN);
			if (w->domain == domain && end > dtop)
				dtop = end;
		} else if (idx < 0 && s->raw[i].used == 0) {
			idx = i;
		}
	}
	if (idx < 0) {
		cause_set(cause, "too many windows (at most %d)",
		    SEG_MAX_WINDOWS);
		return NULL;
	}
	if (round_up(bytes, SEG_ALIGN) > s->area_size - top) {
		cause_set(cause,
		    "window area full: %llu bytes free of %llu, need %llu",
		    (unsigned long long)(s->area_size - top),
		    (unsigned long long)s->area_size,
		    (unsigned long long)round_up(bytes, SEG_ALIGN));
		return NULL;
	}
	slot = &s->h->windows[idx];
	memset(slot, 0, sizeof *slot);
	snprintf(slot->name, sizeof slot->name, "%s", name);
	slot->dtype = (uint8_t)dt;
	slot->ndim = (uint8_t)ndim;
	slot->flags = (uint8_t)flags;
	memcpy(slot->shape, shape, (size_t)ndim * sizeof *shape);
	slot->count = count;
	slot->bytes = bytes;
	slot->off = top;
	slot->domain = (uint8_t)domain;
	slot->doff = domain == 0 ? top : dtop;
	slot->seq = atomic_fetch_add(&s->h->next_win_seq, 1);
	atomic_store_explicit((_Atomic uint8_t *)&slot->used, 1,
	    memory_order_release);
	s->raw[idx] = s->wins[idx] = *slot;
	s->wins[idx].used = s->raw[idx].used = 1;
	atomic_fetch_add(&s->h->win_seq, 1);
	if (s->sync != NULL)
		s->sync->wins(s->sync_arg);
	return &s->wins[idx];
}

void
seg_win_zero(struct seg *s, struct seg_window *w, int rank)
{
	uint64_t len = round_up(w->bytes, SEG_ALIGN);
	ptrdiff_t i = w - s->wins;

	if (i < 0 || i >= SEG_MAX_WINDOWS)
		BUG("seg_win_zero: not a window of this handle");
	for (int r = 0; r < s->nranks; r++) {
		uint8_t *p = seg_area(s, r), *lo, *hi;

		if ((rank >= 0 && rank != r) || p == NULL)
			continue;
		p += w->off;
		lo = (uint8_t *)round_up((uintptr_t)p, PAGE);
		hi = (uint8_t *)((uintptr_t)(p + len) / PAGE * PAGE);
		/* Give whole pages back to tmpfs (not the transport's own
		 * memory); zero the edges by hand. */
		if (s->own_area == NULL && lo < hi &&
		    madvise(lo, (size_t)(hi - lo), MADV_REMOVE) == 0) {
			memset(p, 0, (size_t)(lo - p));
			memset(hi, 0, (size_t)(p + len - hi));
		} else {
			memset(p, 0, len);
		}
	}
	if (s->sync != NULL)
		s->sync->zero(s->sync_arg, rank, w->off, len);
}

void
seg_win_free(struct seg *s, struct seg_window *w)
{
	ptrdiff_t i = w - s->wins;

	seg_win_zero(s, w, -1);
	atomic_store_explicit((_Atomic uint8_t *)&s->h->windows[i].used, 0,
	    memory_order_release);
	memcpy(&s->raw[i], &s->h->windows[i], sizeof s->raw[i]);
	s->raw[i].used = 0;
	w->used = 0;
	atomic_fetch_add(&s->h->win_seq, 1);
	if (s->sync != NULL)
		s->sync->wins(s->sync_arg);
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

	seg_win_sync(s);
	for (int i = 0; i < SEG_MAX_WINDOWS && n < max; i++) {
		if (s->wins[i].used)
			out[n++] = &s->wins[i];
	}
	qsort(out, (size_t)n, sizeof *out, by_seq);
	return n;
}

struct seg_window *
seg_win_at(struct seg *s, uint64_t off)
{
	seg_win_sync(s);
	for (int i = 0; i < SEG_MAX_WINDOWS; i++) {
		struct seg_window *w = &s->wins[i];
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

static const char *const state_names[RS__COUNT] = { "starting", "idle",
	"running", "stopped", "blocked", "exited", "dead" };

const char *
rank_state_name(enum rank_state st)
{
	return (unsigned)st < RS__COUNT ? state_names[st] : "?";
}

void
seg_set_state(struct seg_rank *b, enum rank_state st)
{
	seg_set_state_at(b, st, mono_ns());
}

void
seg_set_state_at(struct seg_rank *b, enum rank_state st, uint64_t now)
{
	/* the state's seq_cst store orders the time (and a caller's release
	 * stores before it) */
	atomic_store_explicit(&b->state_ns, now, memory_order_release);
	atomic_store(&b->state, (uint32_t)st);
}

void
seg_read_cur(struct seg_rank *b, struct uop *cur, char *title, size_t title_size)
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
	/* the rank wrote it: what the shell indexes with must be in range */
	if (cur->kind >= UOP__COUNT || cur->dtype >= DT__COUNT ||
	    cur->dsp > SP_ACC || cur->ssp > SP_ACC ||
	    (cur->kind == UOP_REDUCE && cur->op >= RED__COUNT)) {
		memset(cur, 0, sizeof *cur);
		cur->kind = UOP__COUNT; /* described as "?" */
	}
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
	if (title != NULL) {
		/* not snprintf: this runs once a call, and formatting cost
		 * more than a 4-micro-op program's own work */
		size_t n = strnlen(title, sizeof b->title - 1);

		memcpy(b->title, title, n);
		b->title[n] = '\0';
	}
	atomic_store_explicit(&b->cur_seq, seq + 2, memory_order_release);
}
