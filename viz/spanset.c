/* spanset.c - span sets: spans, their string pool, diagnostics; see strace.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"
#include "../core/xmalloc.h"
#include "strace.h"

#define POOL_CHUNK (256 * 1024)

struct pool_ent {
	const char *s;
	uint32_t len;
	uint32_t hash;
};

struct span_set {
	struct span *spans;
	size_t nspans;
	size_t cap;

	struct pool_ent *ents; /* id -> string */
	uint32_t nents;
	uint32_t capents;
	uint32_t *slots; /* open addressing: id + 1, 0 = empty */
	uint32_t nslots; /* power of two */
	char **chunks;	 /* arena; strings never move */
	size_t nchunks;
	char *cur;
	size_t curleft;

	uint32_t lines;
	enum strace_timing timing;
	long blocks;
	int pass_marker;

	struct strace_diag diags[STRACE_DIAG_KEEP];
	size_t ndiag;
	size_t ndiag_total;
};

static uint32_t pool_hash(const char *, size_t);
static void pool_rehash(struct span_set *);

struct span_set *
span_set_new(void)
{
	struct span_set *set = xcalloc(1, sizeof *set);

	set->nslots = 1024;
	set->slots = xcalloc(set->nslots, sizeof *set->slots);
	return set;
}

void
span_set_free(struct span_set *set)
{
	size_t i;

	if (set == NULL)
		return;
	for (i = 0; i < set->nchunks; i++)
		free(set->chunks[i]);
	for (i = 0; i < set->ndiag; i++)
		free(set->diags[i].msg);
	free(set->chunks);
	free(set->ents);
	free(set->slots);
	free(set->spans);
	free(set);
}

static uint32_t
pool_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static void
pool_rehash(struct span_set *set)
{
	uint32_t n = set->nslots * 2, mask = n - 1, i, j;
	uint32_t *slots = xcalloc(n, sizeof *slots);

	for (i = 0; i < set->nents; i++) {
		for (j = set->ents[i].hash & mask; slots[j] != 0;
		     j = (j + 1) & mask)
			;
		slots[j] = i + 1;
	}
	free(set->slots);
	set->slots = slots;
	set->nslots = n;
}

uint32_t
span_set_lookup(const struct span_set *set, const char *s, size_t len)
{
	uint32_t h = pool_hash(s, len), mask = set->nslots - 1, j, id;
	const struct pool_ent *e;

	for (j = h & mask; (id = set->slots[j]) != 0; j = (j + 1) & mask) {
		e = &set->ents[id - 1];
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
			return id - 1;
	}
	return SPAN_NOSTR;
}

uint32_t
span_set_intern(struct span_set *set, const char *s, size_t len)
{
	uint32_t h = pool_hash(s, len), mask = set->nslots - 1, j, id;
	struct pool_ent *e;
	char *copy;

	if (len >= UINT32_MAX)
		BUG("string too long for the span pool");
	for (j = h & mask; (id = set->slots[j]) != 0; j = (j + 1) & mask) {
		e = &set->ents[id - 1];
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
			return id - 1;
	}
	if (len + 1 > set->curleft) {
		size_t sz = len + 1 > POOL_CHUNK / 4 ? len + 1 : POOL_CHUNK;

		set->chunks = xreallocarray(set->chunks, set->nchunks + 1,
		    sizeof *set->chunks);
		copy = xmalloc(sz);
		set->chunks[set->nchunks++] = copy;
		if (sz == POOL_CHUNK) {
			set->cur = copy;
			set->curleft = sz;
		}
	} else
		copy = set->cur;
	if (copy == set->cur) {
		set->cur += len + 1;
		set->curleft -= len + 1;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	if (set->nents == set->capents) {
		set->capents = set->capents ? set->capents * 2 : 256;
		set->ents =
		    xreallocarray(set->ents, set->capents, sizeof *set->ents);
	}
	id = set->nents++;
	set->ents[id].s = copy;
	set->ents[id].len = (uint32_t)len;
	set->ents[id].hash = h;
	set->slots[j] = id + 1;
	if ((uint64_t)set->nents * 2 > set->nslots)
		pool_rehash(set);
	return id;
}

const char *
span_set_str(const struct span_set *set, uint32_t id)
{
	if (id >= set->nents)
		BUG("bad string id %u", id);
	return set->ents[id].s;
}

size_t
span_set_strlen(const struct span_set *set, uint32_t id)
{
	if (id >= set->nents)
		BUG("bad string id %u", id);
	return set->ents[id].len;
}

uint32_t
span_set_nstr(const struct span_set *set)
{
	return set->nents;
}

struct span *
span_set_push(struct span_set *set)
{
	if (set->nspans == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 4096;
		set->spans =
		    xreallocarray(set->spans, set->cap, sizeof *set->spans);
	}
	return &set->spans[set->nspans++];
}

/* Flags that follow from the name and attrs alone. */
uint32_t
span_set_flags_for(const struct span_set *set, uint32_t name, uint32_t attrs)
{
	static const char *const heads[] = { "node", "network1", "network2",
		"network3", "ext" };
	const char *n = span_set_str(set, name), *dot;
	size_t len = span_set_strlen(set, name), hl, i;
	uint32_t flags = 0;

	if (memmem(span_set_str(set, attrs), span_set_strlen(set, attrs),
		"clk=dev", 7) != NULL)
		flags |= SPAN_DEVICE;
	/* bench.py's prefix list, then simpler's span_family(). */
	if (len >= 3 && memcmp(n, "l3.", 3) == 0)
		flags |= SPAN_FOREIGN;
	dot = memchr(n, '.', len);
	hl = dot != NULL ? (size_t)(dot - n) : len;
	for (i = 0; i < ARRAY_SIZE(heads); i++) {
		if (hl == strlen(heads[i]) && memcmp(n, heads[i], hl) == 0)
			flags |= SPAN_FOREIGN;
	}
	return flags;
}

size_t
span_set_add_n(struct span_set *set, int64_t pid, int64_t tid, uint64_t inv,
    const char *hid, size_t hid_len, int depth, const char *name,
    size_t name_len, int64_t ts, int64_t dur, const char *attrs, size_t attrs_len)
{
	struct strbuf low = STRBUF_INIT;
	struct span *sp;
	size_t i;

	strbuf_add(&low, hid, hid_len);
	for (i = 0; i < low.len; i++) {
		if (low.buf[i] >= 'A' && low.buf[i] <= 'Z')
			low.buf[i] += 'a' - 'A';
	}
	sp = span_set_push(set);
	memset(sp, 0, sizeof *sp);
	sp->pid = pid;
	sp->tid = tid;
	sp->inv = inv;
	sp->ts = ts;
	sp->dur = dur;
	sp->depth = depth;
	sp->hid = span_set_intern(set, low.buf, low.len);
	sp->name = span_set_intern(set, name, name_len);
	sp->attrs = span_set_intern(set, attrs, attrs_len);
	sp->flags = span_set_flags_for(set, sp->name, sp->attrs) |
	    SPAN_VIEW_FULL | SPAN_VIEW_TIMING;
	strbuf_release(&low);
	return set->nspans - 1;
}

size_t
span_set_add(struct span_set *set, int64_t pid, int64_t tid, uint64_t inv,
    const char *hid, int depth, const char *name, int64_t ts, int64_t dur,
    const char *attrs)
{
	if (attrs == NULL)
		attrs = "";
	return span_set_add_n(set, pid, tid, inv, hid, strlen(hid), depth, name,
	    strlen(name), ts, dur, attrs, strlen(attrs));
}

const struct span *
span_set_spans(const struct span_set *set, size_t *n)
{
	*n = set->nspans;
	return set->spans;
}

uint32_t
span_set_lines(const struct span_set *set)
{
	return set->lines;
}

enum strace_timing
span_set_timing(const struct span_set *set, long *blocks)
{
	if (blocks != NULL)
		*blocks = set->timing == STRACE_TIMING_OK ? set->blocks : -1;
	return set->timing;
}

int
span_set_has_pass_marker(const struct span_set *set)
{
	return set->pass_marker;
}

const struct strace_diag *
span_set_diags(const struct span_set *set, size_t *n, size_t *total)
{
	*n = set->ndiag;
	if (total != NULL)
		*total = set->ndiag_total;
	return set->diags;
}

void
span_set_diag(struct span_set *set, uint32_t line, const char *fmt, ...)
{
	va_list ap;

	set->ndiag_total++;
	if (set->ndiag == STRACE_DIAG_KEEP)
		return;
	va_start(ap, fmt);
	set->diags[set->ndiag].line = line;
	set->diags[set->ndiag].msg = xvasprintf(fmt, ap);
	set->ndiag++;
	va_end(ap);
}

uint32_t
span_set_next_line(struct span_set *set)
{
	return ++set->lines;
}

void
span_set_mark_pass(struct span_set *set)
{
	set->pass_marker = 1;
}

void
span_set_settle_timing(struct span_set *set, enum strace_timing timing,
    long blocks)
{
	set->timing = timing;
	set->blocks = timing == STRACE_TIMING_OK ? blocks : 0;
}
