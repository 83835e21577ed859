/*
 * trace.c - the session's trace: drain the ranks' span rings (core/span.h)
 * while they run, keep the programs that name the records, and hand the
 * records out resolved (trace_visit) to bench, tree and trace save.
 *
 * A record names its program by tag.  The program is the job's until the
 * job is done; trace_job_done() then takes it over if records need it.
 * Tags are unique across ranks, so one map from tag to program serves all.
 * A user rank (`colldb run`) announces its programs itself, so its records
 * can come out of the ring before the shell has read the announcement:
 * those are held, in order, and resolved at the rank's next drain.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "out/out.h"
#include "trace/trace.h"
#include "span.h"
#include "xmalloc.h"

#define DRAIN_BATCH 4096
#define HID_CACHE 4 /* titles' hashes kept (trace.hids) */

struct trace_prog {
	uint32_t tag;
	int rank;
	int coll;
	int owned;  /* prog is ours to free (a reference of ours) */
	int has_op; /* op is the op of this program of one op: a user
		     * call read whole, whose prog names its spans but is
		     * an equal call's (struct user_call) */
	struct prog *prog;
	struct uop op;
	size_t wins; /* index into trace.wins */
	uint64_t hid;
};

struct trace {
	struct span_rec *recs;
	size_t n, alloc;
	uint64_t not_kept;
	uint64_t dropped; /* records of programs trim() let go */
	uint32_t *pins;	  /* tags trim() keeps (trace_pin) */
	size_t npins;
	uint64_t unnamed;
	uint32_t gen;
	uint64_t *lost_base; /* per rank: ring lost counter at the clear */
	struct trace_prog *progs;
	size_t nprogs, aprogs;
	uint32_t *map; /* open addressing: tag -> progs index + 1 */
	size_t mapcap;
	struct seg *wins; /* window-table snapshots (seg_win_snapshot) */
	size_t nwins;
	uint32_t wins_seq; /* win_seq of the last snapshot */
	struct span_rec *scratch;
	struct job *finishing; /* a job done but unlinked (trace_job_done) */
	struct held *held;     /* per rank: its records of programs not yet
			    * announced, oldest first */
	int nranks;
	size_t nheld; /* over all ranks */
	/* the program found last (records come in runs of one program):
	 * progs[last_idx] has tag last_tag when last_ok */
	uint32_t last_tag;
	size_t last_idx;
	int last_ok;
	/* the hashes of the last user calls' titles, by program (a
	 * reference of ours, so its address is not reused): a call of
	 * one kind from one site comes with the same program and title,
	 * and hashing the title at each call was a sixth of trace_call */
	struct {
		struct prog *p;
		const char *title;
		uint64_t hid;
	} hids[HID_CACHE];
	unsigned hids_next;
};

#define TRACE_HOLD_MAX 65536 /* held records beyond are unnamed */

/* One rank's held records: recs[head..n).  A queue per rank, so a drain
 * walks only its rank's records, and only those it resolves (one list for
 * all ranks was copied whole at every drain: two thirds of the shell's
 * time when it fell behind the ranks, perf record). */
struct held {
	struct span_rec *recs;
	size_t head, n, alloc;
};

static uint64_t
fnv64(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The high bits of the product: a user rank's tags are its call count
 * times 256 plus the rank, and the low bits of tag * K would leave each
 * rank 1/256 of the slots (long probe chains: a tenth of the shell's time
 * per call under `colldb run`, callgrind). */
static size_t
map_slot(const struct trace *t, uint32_t tag)
{
	return (size_t)(((uint64_t)tag * 0x9e3779b97f4a7c15ull) >> 32) &
	    (t->mapcap - 1);
}

static struct trace_prog *
tprog_find(struct trace *t, uint32_t tag)
{
	if (t->mapcap == 0)
		return NULL;
	for (size_t i = map_slot(t, tag); t->map[i] != 0;
	     i = (i + 1) & (t->mapcap - 1)) {
		if (t->progs[t->map[i] - 1].tag == tag)
			return &t->progs[t->map[i] - 1];
	}
	return NULL;
}

static void
map_insert(struct trace *t, size_t idx)
{
	size_t i = map_slot(t, t->progs[idx].tag);

	while (t->map[i] != 0)
		i = (i + 1) & (t->mapcap - 1);
	t->map[i] = (uint32_t)idx + 1;
}

/* Make room for progs[0..nprogs) and index them; returns 0 if the table
 * did not need to grow (the caller inserts the new entry itself). */
static int
map_grow(struct trace *t)
{
	if (t->mapcap >= 2 * t->nprogs)
		return 0;
	free(t->map);
	t->mapcap = t->mapcap ? 2 * t->mapcap : 64;
	t->map = xcalloc(t->mapcap, sizeof *t->map);
	for (size_t i = 0; i < t->nprogs; i++)
		map_insert(t, i);
	return 1;
}

/* The window table as it is now, shared by programs sent under it. */
static size_t
wins_now(struct session *s, struct trace *t)
{
	uint32_t seq = atomic_load(&s->seg.h->win_seq);

	if (t->nwins > 0 && seq == t->wins_seq)
		return t->nwins - 1;
	t->wins = xreallocarray(t->wins, t->nwins + 1, sizeof *t->wins);
	seg_win_snapshot(&s->seg, &t->wins[t->nwins]);
	t->wins_seq = seq;
	return t->nwins++;
}

static struct job *
job_by_tag(struct job *j, uint32_t tag)
{
	for (; j != NULL; j = j->next) {
		if (j->tag == tag)
			return j;
	}
	return NULL;
}

/* Is tag one of the programs trace_pin() named (the last bench's)? */
static int
pinned(struct trace *t, uint32_t tag)
{
	for (size_t i = 0; i < t->npins; i++) {
		if (t->pins[i] == tag)
			return 1;
	}
	return 0;
}

void
trace_pin(struct session *s, const uint32_t *tags, size_t n)
{
	struct trace *t = s->trace;

	if (t == NULL)
		return;
	free(t->pins);
	t->pins = n > 0 ? xreallocarray(NULL, n, sizeof *t->pins) : NULL;
	if (n > 0)
		memcpy(t->pins, tags, n * sizeof *t->pins);
	t->npins = n;
}

/* Over TRACE_PROGS_MAX programs (a long interactive session: one per
 * command): let the oldest quarter go, with their records, but never the
 * last bench's.  What is let go is counted as dropped. */
static void
trim(struct session *s, struct trace *t)
{
	size_t go = t->nprogs - TRACE_PROGS_MAX * 3 / 4, k = 0, n = 0;

	t->last_ok = 0;

	for (size_t i = 0; i < t->nprogs; i++) {
		struct trace_prog *tp = &t->progs[i];

		if (i < go && !pinned(t, tp->tag)) {
			if (tp->owned)
				prog_free(tp->prog);
			continue;
		}
		t->progs[k++] = *tp;
	}
	t->nprogs = k;
	memset(t->map, 0, t->mapcap * sizeof *t->map);
	for (size_t i = 0; i < t->nprogs; i++)
		map_insert(t, i);
	/* records come in runs of one program: one look-up a run */
	for (size_t i = 0, j; i < t->n; i = j) {
		uint32_t tag = t->recs[i].tag;
		int kept = tprog_find(t, tag) != NULL;

		for (j = i + 1; j < t->n && t->recs[j].tag == tag; j++)
			;
		if (!kept) {
			t->dropped += j - i;
			continue;
		}
		if (n != i)
			memmove(&t->recs[n], &t->recs[i],
			    (j - i) * sizeof *t->recs);
		n += j - i;
	}
	t->n = n;
	/* window tables no kept program was sent under (the newest stays:
	 * wins_now() hands it out again) */
	if (t->nwins > 0) {
		size_t *to = xcalloc(t->nwins, sizeof *to), w = 0;

		for (size_t i = 0; i < t->nprogs; i++)
			to[t->progs[i].wins] = 1;
		to[t->nwins - 1] = 1;
		for (size_t i = 0; i < t->nwins; i++) {
			if (!to[i]) {
				seg_close(&t->wins[i]);
				continue;
			}
			t->wins[w] = t->wins[i];
			to[i] = w++;
		}
		for (size_t i = 0; i < t->nprogs; i++)
			t->progs[i].wins = to[t->progs[i].wins];
		t->nwins = w;
		free(to);
	}
	if (t->alloc > 4096 && t->n < t->alloc / 4) {
		t->alloc /= 2;
		t->recs = xreallocarray(t->recs, t->alloc, sizeof *t->recs);
	}
}

/* Register program p (owned: a reference of ours) as tag's on rank r,
 * its description hashed to hid; its entry. */
static struct trace_prog *
tprog_add(struct session *s, struct trace *t, int r, uint32_t tag,
    struct prog *p, int owned, uint64_t hid, int coll)
{
	struct trace_prog *tp;

	if (t->nprogs == t->aprogs) {
		t->aprogs = t->aprogs ? 2 * t->aprogs : 16;
		t->progs = xreallocarray(t->progs, t->aprogs, sizeof *t->progs);
	}
	tp = &t->progs[t->nprogs];
	memset(tp, 0, sizeof *tp);
	tp->tag = tag;
	tp->rank = r;
	tp->coll = coll;
	tp->prog = p;
	tp->owned = owned;
	tp->hid = hid;
	tp->wins = wins_now(s, t);
	t->nprogs++;
	if (!map_grow(t))
		map_insert(t, t->nprogs - 1);
	if (t->nprogs > TRACE_PROGS_MAX) {
		trim(s, t);
		tp = tprog_find(t, tag); /* the newest: always kept */
	}
	return tp;
}

/* The program of tag on rank r, registered on first sight. */
static struct trace_prog *
prog_for(struct session *s, struct trace *t, int r, uint32_t tag)
{
	struct trace_prog *tp;
	struct job *j;

	if (t->last_ok && t->last_tag == tag)
		return &t->progs[t->last_idx];
	if ((tp = tprog_find(t, tag)) != NULL)
		goto found;
	j = t->finishing != NULL && t->finishing->tag == tag ?
	    t->finishing :
	    job_by_tag(s->rp[r].jobs, tag);
	if (j == NULL)
		j = job_by_tag(s->rp[r].orphans, tag);
	if (j == NULL || j->prog == NULL)
		return NULL;
	tp = tprog_add(s, t, r, tag, j->prog, 0, fnv64(j->desc), j->coll);
found:
	t->last_tag = tag;
	t->last_idx = (size_t)(tp - t->progs);
	t->last_ok = 1;
	return tp;
}

void
trace_init(struct session *s)
{
	struct trace *t = xcalloc(1, sizeof *t);

	t->lost_base = xcalloc((size_t)s->nranks, sizeof *t->lost_base);
	t->held = xcalloc((size_t)s->nranks, sizeof *t->held);
	t->nranks = s->nranks;
	t->scratch = xreallocarray(NULL, DRAIN_BATCH, sizeof *t->scratch);
	s->trace = t;
}

static void
forget(struct trace *t)
{
	for (size_t i = 0; i < t->nprogs; i++) {
		if (t->progs[i].owned)
			prog_free(t->progs[i].prog);
	}
	for (size_t i = 0; i < t->nwins; i++)
		seg_close(&t->wins[i]);
	free(t->wins);
	free(t->progs);
	free(t->map);
	free(t->recs);
	for (int r = 0; r < t->nranks; r++) {
		free(t->held[r].recs);
		memset(&t->held[r], 0, sizeof t->held[r]);
	}
	t->nheld = 0;
	t->wins = NULL;
	t->progs = NULL;
	t->map = NULL;
	t->recs = NULL;
	t->nwins = t->nprogs = t->aprogs = t->mapcap = t->n = t->alloc = 0;
	t->not_kept = t->unnamed = t->dropped = 0;
	t->last_ok = 0;
}

void
trace_free(struct session *s)
{
	struct trace *t = s->trace;

	if (t == NULL)
		return;
	forget(t);
	free(t->pins);
	for (int i = 0; i < HID_CACHE; i++)
		prog_free(t->hids[i].p);
	free(t->held);
	free(t->lost_base);
	free(t->scratch);
	free(t);
	s->trace = NULL;
}

unsigned long
trace_keep(void)
{
	static unsigned long keep_n;
	const char *e;
	char *end;

	if (keep_n != 0)
		return keep_n;
	keep_n = TRACE_KEEP;
	if ((e = getenv("COLLDB_TRACE_KEEP")) != NULL) {
		unsigned long long v;

		errno = 0;
		v = strtoull(e, &end, 10);
		if (errno == 0 && end != e && *end == '\0' && v >= 1000 &&
		    v <= 1000000000)
			keep_n = (unsigned long)v;
		else
			out_warning("COLLDB_TRACE_KEEP='%s': expected 1000..1000000000 span records; the trace keeps %d",
			    e, TRACE_KEEP);
	}
	return keep_n;
}

/* Keep rec if its program is known; returns 0 when it is not (yet). */
static int
keep(struct session *s, struct trace *t, int r, const struct span_rec *rec)
{
	if (prog_for(s, t, r, rec->tag) == NULL)
		return 0;
	if (t->n >= trace_keep() && rec->level != 1) {
		t->not_kept++;
		return 1;
	}
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 4096;
		t->recs = xreallocarray(t->recs, t->alloc, sizeof *t->recs);
	}
	t->recs[t->n++] = *rec;
	return 1;
}

static void
hold(struct trace *t, int r, const struct span_rec *rec)
{
	struct held *q = &t->held[r];

	if (t->nheld == TRACE_HOLD_MAX) {
		t->unnamed++;
		return;
	}
	if (q->n == q->alloc && q->head > 0) {
		memmove(q->recs, q->recs + q->head,
		    (q->n - q->head) * sizeof *q->recs);
		q->n -= q->head;
		q->head = 0;
	}
	if (q->n == q->alloc) {
		q->alloc = q->alloc ? 2 * q->alloc : 256;
		q->recs = xreallocarray(q->recs, q->alloc, sizeof *q->recs);
	}
	q->recs[q->n++] = *rec;
	t->nheld++;
}

static void
drain_rank(struct session *s, struct trace *t, int r)
{
	struct span_ring *ring = seg_spans(&s->seg, r);
	uint64_t bytes = s->seg.span_bytes;
	struct held *q = &t->held[r];
	size_t got;
	int stuck; /* a record of r waits: the later ones wait too */

	while (q->head < q->n && keep(s, t, r, &q->recs[q->head])) {
		q->head++;
		t->nheld--;
	}
	if (q->head == q->n)
		q->head = q->n = 0;
	stuck = q->n > 0;
	while ((got = span_ring_read(ring, bytes, t->scratch, DRAIN_BATCH)) > 0) {
		for (size_t i = 0; i < got; i++) {
			const struct span_rec *rec = &t->scratch[i];

			if (!stuck && keep(s, t, r, rec))
				continue;
			if (s->kind->own_code) {
				hold(t, r, rec);
				stuck = 1;
			} else {
				t->unnamed++;
			}
		}
		if (got < DRAIN_BATCH)
			break;
	}
}

void
trace_drain(struct session *s)
{
	if (s->trace == NULL || s->seg.h == NULL || s->seg.span_bytes == 0)
		return;
	for (int r = 0; r < s->nranks; r++)
		drain_rank(s, s->trace, r);
}

void
trace_job_done(struct session *s, int r, struct job *j)
{
	struct trace_prog *tp;

	if (s->trace == NULL || s->seg.span_bytes == 0)
		return;
	tp = tprog_find(s->trace, j->tag);
	if (tp == NULL || tp->prog != j->prog) {
		/* records may name it: read them while the job is whole */
		s->trace->finishing = j;
		drain_rank(s, s->trace, r);
		s->trace->finishing = NULL;
		tp = tprog_find(s->trace, j->tag);
	}
	if (tp != NULL && !tp->owned && tp->prog == j->prog) {
		tp->owned = 1;
		prog_shrink(tp->prog); /* kept for long: no spare room */
		j->prog = NULL;
	}
}

void
trace_clear(struct session *s)
{
	struct trace *t = s->trace;

	trace_drain(s);
	/* Programs still running keep producing records: their jobs own
	 * the programs, so forgetting our borrowed pointers is enough. */
	forget(t);
	for (int r = 0; r < s->nranks; r++)
		t->lost_base[r] = span_ring_lost(seg_spans(&s->seg, r));
	t->gen++;
}

uint64_t
trace_lost(struct session *s, int r)
{
	if (s->seg.span_bytes == 0)
		return 0;
	return span_ring_lost(seg_spans(&s->seg, r)) - s->trace->lost_base[r];
}

void
trace_summary(struct session *s, struct trace_counts *c)
{
	struct trace *t = s->trace;

	trace_drain(s);
	memset(c, 0, sizeof *c);
	c->kept = t->n;
	c->not_kept = t->not_kept;
	c->dropped = t->dropped;
	c->unnamed = t->unnamed;
	c->gen = t->gen;
	for (int r = 0; r < s->nranks; r++)
		c->lost += trace_lost(s, r);
}

static int
tag_wanted(const uint32_t *tags, size_t ntags, uint32_t tag)
{
	for (size_t i = 0; i < ntags; i++) {
		if (tags[i] == tag)
			return 1;
	}
	return 0;
}

void
trace_visit(struct session *s, const uint32_t *tags, size_t ntags,
    int roots_only, trace_visit_fn fn, void *arg)
{
	struct trace *t = s->trace;
	struct strbuf name = STRBUF_INIT;
	uint64_t *inv = xcalloc((size_t)s->nranks, sizeof *inv);
	const struct trace_prog *rd_of = NULL; /* what rd reads */
	struct prog_rd rd;
	struct {
		uint32_t tag, iter;
		int any;
	} * last;

	trace_drain(s);
	last = xcalloc((size_t)s->nranks, sizeof *last);
	for (size_t i = 0; i < t->n; i++) {
		const struct span_rec *rec = &t->recs[i];
		struct trace_prog *tp = tprog_find(t, rec->tag);
		struct trace_span sp;
		struct uop opv;
		int r = rec->rank;

		if (tp == NULL || r >= s->nranks)
			continue;
		if (!last[r].any || last[r].tag != rec->tag ||
		    last[r].iter != rec->iter) {
			last[r].any = 1;
			last[r].tag = rec->tag;
			last[r].iter = rec->iter;
			inv[r]++;
		}
		if ((roots_only && rec->level != 1) ||
		    (tags != NULL && !tag_wanted(tags, ntags, rec->tag)))
			continue;
		if (tp != rd_of) {
			prog_rd_init(&rd, tp->prog); /* records come in pc order */
			rd_of = tp;
		}
		strbuf_reset(&name);
		if (span_name_rd(&rd, rec->pc, rec->level, &name) != 0)
			continue;
		sp.rec = rec;
		sp.prog = tp->prog;
		sp.op = NULL;
		if (rec->level == SPAN_LEVEL_OP) {
			if (tp->has_op && rec->pc == 0)
				opv = tp->op;
			else
				prog_rd_op(&rd, rec->pc, &opv);
			sp.op = &opv;
		}
		sp.wins = &t->wins[tp->wins];
		sp.name = name.buf;
		sp.depth = (int)span_name_levels(name.buf) - 1;
		sp.inv = inv[r];
		sp.hid = tp->hid;
		sp.coll = tp->coll;
		if (fn(arg, &sp) != 0)
			break;
	}
	free(last);
	free(inv);
	strbuf_release(&name);
}

/*
 * A user rank's call, announced: its program is known from now on.  The
 * rank queues its announcements (core/outbox.h), so when the shell reads
 * a batch of them its span ring already holds the records of calls later
 * in the batch; draining the ring at each call's end would hold those
 * records and walk them again at every call (most of the shell's time,
 * measured with callgrind).  Named at the start, a call's records are
 * read at the next drain, and its end takes the program over at once.
 */
static void
trace_job_begin(struct session *s, int r, struct job *j,
    const struct coll_args *coll)
{
	(void)coll;
	if (s->trace != NULL && s->seg.span_bytes != 0 && j->prog != NULL)
		(void)prog_for(s, s->trace, r, j->tag);
}

static void
trace_job_end(struct session *s, int r, struct job *j, const struct job_end *e)
{
	(void)e;
	trace_job_done(s, r, j);
}

/* The hash of a user call's title (see trace.hids). */
static uint64_t
call_hid(struct trace *t, struct prog *p, const char *title)
{
	unsigned i;

	for (i = 0; i < HID_CACHE; i++) {
		if (t->hids[i].p == p && t->hids[i].title == title)
			return t->hids[i].hid;
	}
	i = t->hids_next++ % HID_CACHE;
	prog_free(t->hids[i].p);
	t->hids[i].p = prog_ref(p);
	t->hids[i].title = title;
	t->hids[i].hid = fnv64(title);
	return t->hids[i].hid;
}

/* A user call read whole: its records are named by an equal call's
 * program (kept with a reference) and, for one op, its own op. */
static void
trace_call(struct session *s, int r, const struct user_call *c,
    const struct job_end *e)
{
	struct trace_prog *tp;

	if (e != NULL || s->trace == NULL || s->seg.span_bytes == 0 ||
	    tprog_find(s->trace, c->tag) != NULL)
		return;
	tp = tprog_add(s, s->trace, r, c->tag, prog_ref(c->prog), 1,
	    call_hid(s->trace, c->prog, c->title), 0);
	if (c->op != NULL) {
		tp->op = *c->op;
		tp->has_op = 1;
	}
}

const struct session_hook trace_session_hook = {
	.name = "trace",
	.open = trace_init,
	.pump = trace_drain,
	.job_begin = trace_job_begin,
	.job_end = trace_job_end,
	.call = trace_call,
	.close = trace_free,
};
