/* span.c - per-rank span rings: the writer's phases and the reader; see span.h. */
#include <stdlib.h>
#include <string.h>

#include "span.h"
#include "xmalloc.h"

static const char *const detail_names[SPAN_DETAIL__COUNT] = { "ops", "phases",
	"roots" };

const char *
span_detail_name(enum span_detail d)
{
	return d < SPAN_DETAIL__COUNT ? detail_names[d] : "?";
}

int
span_detail_from_name(const char *s, enum span_detail *out)
{
	for (int i = 0; i < SPAN_DETAIL__COUNT; i++) {
		if (strcmp(s, detail_names[i]) == 0) {
			*out = (enum span_detail)i;
			return 0;
		}
	}
	return -1;
}

uint64_t
span_ring_cap(uint64_t bytes)
{
	uint64_t hdr = offsetof(struct span_ring, recs);

	if (bytes < hdr + 2 * SPAN_ROOT_RESERVE * sizeof(struct span_rec))
		return 0;
	return (bytes - hdr) / sizeof(struct span_rec);
}

uint64_t
span_ring_default_bytes(int nranks)
{
	/*
	 * 128 MiB shared by all ranks, 512 KiB .. 16 MiB each (pages cost
	 * memory only once written).  16 MiB holds 419k records: a rank
	 * stepping through 16 KiB chunks writes about 2M a second, and an
	 * idle prompt drains every 100 ms.  Beyond 256 ranks the total
	 * shrinks to 64 MiB, 64 KiB (1.6k records) each at least: the shell
	 * reads every ring, so their written pages are its memory too.
	 */
	uint64_t n = (uint64_t)(nranks > 0 ? nranks : 1);
	uint64_t per = (n <= 256 ? 128u << 20 : 64u << 20) / n;

	if (per > (16u << 20))
		per = 16u << 20;
	if (per < (n <= 256 ? 512u << 10 : 64u << 10))
		per = n <= 256 ? 512u << 10 : 64u << 10;
	return per;
}

size_t
span_ring_read(struct span_ring *r, uint64_t bytes, struct span_rec *out,
    size_t max)
{
	uint64_t cap = span_ring_cap(bytes), tail, head, n, slot, first;

	if (cap == 0)
		return 0;
	tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	head = atomic_load_explicit(&r->head, memory_order_acquire);
	n = head - tail;
	if (n > max)
		n = max;
	if (n == 0)
		return 0;
	slot = tail % cap;
	first = cap - slot < n ? cap - slot : n;
	memcpy(out, &r->recs[slot], first * sizeof *out);
	memcpy(out + first, &r->recs[0], (n - first) * sizeof *out);
	atomic_store_explicit(&r->tail, tail + n, memory_order_release);
	return (size_t)n;
}

void
span_ring_append(struct span_ring *r, uint64_t bytes,
    const struct span_rec *recs, size_t n, int64_t ts_shift, uint64_t lost)
{
	uint64_t cap = span_ring_cap(bytes), head, tail;

	if (lost > 0)
		atomic_fetch_add_explicit(&r->lost, lost, memory_order_relaxed);
	if (cap == 0)
		return;
	head = atomic_load_explicit(&r->head, memory_order_relaxed);
	for (size_t i = 0; i < n; i++) {
		uint64_t limit =
		    recs[i].level == 1 ? cap : cap - SPAN_ROOT_RESERVE;
		struct span_rec *rec;

		tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		if (head - tail >= limit) {
			atomic_fetch_add_explicit(&r->lost, 1,
			    memory_order_relaxed);
			continue;
		}
		rec = &r->recs[head % cap];
		*rec = recs[i];
		rec->ts = (uint64_t)((int64_t)rec->ts + ts_shift);
		atomic_store_explicit(&r->head, ++head, memory_order_release);
	}
}

uint64_t
span_ring_pending(struct span_ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_acquire) -
	    atomic_load_explicit(&r->tail, memory_order_relaxed);
}

uint64_t
span_ring_lost(struct span_ring *r)
{
	return atomic_load_explicit(&r->lost, memory_order_relaxed);
}

unsigned
span_name_levels(const char *name)
{
	unsigned n = 1;

	for (; *name != '\0'; name++)
		n += *name == '.';
	return n;
}

/* Dots in the longest common prefix of a and b: the phases they share. */
static unsigned
shared_levels(const char *a, const char *b)
{
	unsigned n = 0;

	for (; *a != '\0' && *a == *b; a++, b++)
		n += *a == '.';
	return n;
}

/*
 * Phase tables: per micro-op the depth of its name and the phases it
 * shares with the op before.  A program of up to SPAN_TAB_FULL ops gets
 * one table for all of it, kept for the runs after the first of a
 * repeated program (bench): building it reads every name (2 ms for a
 * 64 MiB ring allreduce), which would otherwise sit between the rounds.
 * A run with iteration 0 always rebuilds, so a program freed and another
 * allocated at the same address is never mistaken for it.  One rank per
 * process, so one entry.  A longer program (a described collective on
 * many ranks) gets a window of SPAN_TAB_WIN ops at a time, refilled as
 * the rank moves on, so the table never grows with the program.
 */
#define SPAN_TAB_FULL (1u << 17)
#define SPAN_TAB_WIN 4096
#define SPAN_NAME_MAX 1024

static struct {
	const struct prog *p;
	uint32_t tag;
	uint64_t len;
	uint8_t *tab;
	uint64_t cap; /* tab's room: [2 * cap] */
	uint8_t *win; /* [2 * SPAN_TAB_WIN] for windows */
	int flat;     /* one root over every micro-op (see span_writer) */
} plan;

static void
clamp_put(uint8_t *depth, uint8_t *keep, uint64_t i, unsigned d, unsigned k)
{
	depth[i] = (uint8_t)(d > SPAN_MAX_LEVEL + 1 ? SPAN_MAX_LEVEL + 1 : d);
	keep[i] = (uint8_t)(k > SPAN_MAX_LEVEL ? SPAN_MAX_LEVEL : k);
}

/* The name of op pc into buf (cut at SPAN_NAME_MAX). */
static void
name_of(struct prog_rd *rd, uint64_t pc, struct strbuf *sb)
{
	strbuf_reset(sb);
	prog_rd_name(rd, pc, sb);
	if (sb->len >= SPAN_NAME_MAX)
		strbuf_setlen(sb, SPAN_NAME_MAX - 1);
}

/* The table of ops [from, from + n) of p into depth[0..n), keep[0..n). */
static void
table_fill(const struct prog *p, uint64_t from, uint64_t n, uint8_t *depth,
    uint8_t *keep)
{
	struct strbuf cur = STRBUF_INIT, prev = STRBUF_INIT;
	struct prog_rd rd;
	uint64_t pc = from, end = from + n;

	prog_rd_init(&rd, p);
	if (pc > 0)
		name_of(&rd, pc - 1, &prev);
	while (pc < end) {
		unsigned d, k;

		name_of(&rd, pc, &cur);
		d = span_name_levels(cur.buf);
		k = pc == 0 ? 0 :
		    (prev.len == cur.len &&
			memcmp(prev.buf, cur.buf, cur.len) == 0) ?
			      d - 1 :
			      shared_levels(cur.buf, prev.buf);
		clamp_put(depth, keep, pc - from, d, k);
		pc++;
		if (pc - 1 < p->ngen) {
			/* the rest of a block shares its name */
			const struct blk *b = prog_rd_block(&rd, pc - 1);
			for (; pc < end && pc - b->start < b->len; pc++)
				clamp_put(depth, keep, pc - from, d, d - 1);
		} else if (pc < end &&
		    p->mops[pc - 1 - p->ngen].name == p->mops[pc - p->ngen].name &&
		    pc > p->ngen) {
			/* the same interned name: no need to read it */
			for (; pc < end &&
			     p->mops[pc - 1 - p->ngen].name ==
				 p->mops[pc - p->ngen].name;
			     pc++)
				clamp_put(depth, keep, pc - from, d, d - 1);
		}
		{
			struct strbuf t = cur;
			cur = prev;
			prev = t;
		}
	}
	strbuf_release(&cur);
	strbuf_release(&prev);
}

static uint8_t *
plan_for(const struct prog *p, uint32_t tag, uint32_t iter)
{
	uint64_t len = prog_len(p);

	if (iter > 0 && plan.p == p && plan.tag == tag && plan.len == len)
		return plan.tab;
	/* the room is kept for the next program (a user program's calls
	 * are one op each: a malloc and a free a call were a tenth of
	 * one), unless it is much more than that one needs */
	if (len > plan.cap || (plan.cap > SPAN_TAB_WIN && len < plan.cap / 4)) {
		free(plan.tab);
		plan.cap = len > 16 ? len : 16;
		plan.tab = xmalloc(2 * plan.cap);
	}
	if (len == 1 && p->gen == NULL &&
	    strnlen(prog_str_at(p, p->mops[0].name), SPAN_NAME_MAX) <
		SPAN_NAME_MAX) {
		/* one op: its name's depth, nothing shared */
		clamp_put(plan.tab, plan.tab + len, 0,
		    span_name_levels(prog_str_at(p, p->mops[0].name)), 0);
	} else {
		table_fill(p, 0, len, plan.tab, plan.tab + len);
	}
	plan.flat = len > 0 && plan.tab[0] >= 2;
	for (uint64_t i = 1; i < len && plan.flat; i++)
		plan.flat = plan.tab[i] >= 2 && plan.tab[len + i] >= 1;
	plan.p = p;
	plan.tag = tag;
	plan.len = len;
	return plan.tab;
}

void
span_table_window(struct span_writer *w, uint32_t pc)
{
	uint64_t len = prog_len(w->p), n = MIN(SPAN_TAB_WIN, len - pc);

	if (plan.win == NULL)
		plan.win = xmalloc(2 * SPAN_TAB_WIN);
	table_fill(w->p, pc, n, plan.win, plan.win + SPAN_TAB_WIN);
	w->depth = plan.win;
	w->keep = plan.win + SPAN_TAB_WIN;
	w->tab_base = pc;
	w->tab_n = (uint32_t)n;
}

/*
 * Ask for the next record's lines now, for writing: the ring moves
 * through megabytes, so the slot is cold (a miss to memory, about 100 ns,
 * which at roots, one record a call, is a tenth of a 1 us allreduce);
 * fetched while the micro-ops run, the store hits.
 */
static inline void
prefetch_slot(const struct span_writer *w)
{
	const char *rec = (const char *)&w->ring->recs[w->slot];

	__builtin_prefetch(rec, 1, 3);
	__builtin_prefetch(rec + sizeof(struct span_rec) - 1, 1, 3);
}

void
span_writer_begin(struct span_writer *w, struct span_ring *ring, uint64_t bytes,
    const struct prog *p, int rank, uint32_t tag, uint32_t iter,
    enum span_detail detail)
{
	uint64_t len = prog_len(p);

	/*
	 * Field by field, not the phase arrays: a level's slots are written
	 * as it opens (a memset of the 400 bytes, once a call, was a tenth
	 * of a short call).
	 */
	w->ring = NULL;
	w->head = w->tail = w->slot = 0;
	w->p = NULL;
	w->depth = w->keep = NULL;
	w->tab_base = 0;
	w->tab_n = 0;
	w->open = 0;
	w->last_end = 0;
	w->flat = 0;
	w->quiet = 1;
	w->started = UINT32_MAX;
	w->ops = detail == SPAN_DETAIL_OPS;
	w->max_level = detail == SPAN_DETAIL_ROOTS ? 1 : SPAN_MAX_LEVEL;
	w->cap = ring != NULL ? span_ring_cap(bytes) : 0;
	if (w->cap == 0 || len == 0)
		return;
	w->ring = ring;
	w->p = p;
	w->tag = tag;
	w->iter = iter;
	w->rank = (uint16_t)rank;
	w->head = atomic_load_explicit(&ring->head, memory_order_relaxed);
	w->tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
	/* the writer keeps head % cap beside head (a division is 40 cycles) */
	w->slot = ring->slot;
	if (w->slot >= w->cap)
		w->slot = w->head % w->cap;
	if (len <= SPAN_TAB_FULL) {
		w->depth = plan_for(p, tag, iter);
		w->keep = w->depth + len;
		w->tab_base = 0;
		w->tab_n = (uint32_t)len;
		w->flat = w->max_level == 1 && plan.flat;
	} else {
		w->tab_n = 0; /* span_phases() fills windows */
	}
	w->quiet = 0;
	prefetch_slot(w);
}

void
span_put(struct span_writer *w, uint64_t ts, uint64_t end, uint32_t pc,
    unsigned level, int32_t value, unsigned flags)
{
	struct span_ring *r = w->ring;
	uint64_t limit = level == 1 ? w->cap : w->cap - SPAN_ROOT_RESERVE;
	struct span_rec *rec;

	if (w->head - w->tail >= limit) {
		w->tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		if (w->head - w->tail >= limit) {
			atomic_fetch_add_explicit(&r->lost, 1,
			    memory_order_relaxed);
			return;
		}
	}
	rec = &r->recs[w->slot];
	rec->ts = ts;
	rec->dur = end - ts;
	rec->tag = w->tag;
	rec->iter = w->iter;
	rec->pc = pc;
	rec->value = value;
	rec->rank = w->rank;
	rec->level = (uint8_t)level;
	rec->flags = (uint8_t)flags;
	rec->reserved = 0;
	if (++w->slot == w->cap)
		w->slot = 0;
	r->slot = w->slot;
	atomic_store_explicit(&r->head, ++w->head, memory_order_release);
	prefetch_slot(w);
}

void
span_phases(struct span_writer *w, uint32_t pc, uint64_t start)
{
	int keep, want;

	if (pc - w->tab_base >= w->tab_n)
		span_table_window(w, pc);
	keep = w->started == UINT32_MAX ?
	    0 :
	    MIN(w->keep[pc - w->tab_base], w->max_level);
	want = MIN(w->depth[pc - w->tab_base] - 1, w->max_level);

	/* innermost first: a phase ends after the phases inside it */
	for (; w->open > keep; w->open--)
		span_put(w, w->phase_ts[w->open], w->last_end,
		    w->phase_pc[w->open], (unsigned)w->open, 0, 0);
	for (; w->open < want; w->open++) {
		w->phase_ts[w->open + 1] = start;
		w->phase_pc[w->open + 1] = pc;
	}
	w->started = pc;
	w->quiet = w->flat; /* the root is open; nothing else will be */
}

void
span_writer_end(struct span_writer *w, uint64_t end)
{
	if (w->ring != NULL) {
		if (end < w->last_end)
			end = w->last_end;
		w->last_end = end;
		for (; w->open > 0; w->open--)
			span_put(w, w->phase_ts[w->open], end,
			    w->phase_pc[w->open], (unsigned)w->open, 0, 0);
	}
	w->depth = w->keep = NULL; /* the table stays for the next run */
	w->ring = NULL;
}

int
span_name_rd(struct prog_rd *rd, uint32_t pc, unsigned level, struct strbuf *sb)
{
	struct uop u;
	size_t at = sb->len;
	const char *name, *e;

	if (prog_rd_op(rd, pc, &u) != 0)
		return -1;
	prog_rd_name(rd, pc, sb);
	if (sb->len == at)
		strbuf_addstr(sb, uop_kind_name((enum uop_kind)u.kind));
	if (level == SPAN_LEVEL_OP)
		return 0;
	name = sb->buf + at;
	for (e = name; *e != '\0'; e++) {
		if (*e == '.' && --level == 0)
			break;
	}
	strbuf_setlen(sb, (size_t)(e - sb->buf));
	return 0;
}

int
span_name(const struct prog *p, uint32_t pc, unsigned level, struct strbuf *sb)
{
	struct prog_rd rd;

	prog_rd_init(&rd, p);
	return span_name_rd(&rd, pc, level, sb);
}
