/*
 * trace-save.c - `trace save`: the session's spans as Chrome trace-event
 * JSON (for Perfetto / chrome://tracing) or as simpler's [STRACE] lines.
 *
 * JSON: one process per rank ("rank N"), one thread, an "X" event per
 * span (args: inv, hid, depth, attrs as simpler's to_chrome_trace writes
 * them, so colldb tree reads the file back, plus the micro-op in words),
 * a "C" counter sample per signal cell change (a notify's cell after it,
 * a wait's value seen), and a flow arrow ("s" at the notify, "f" at the
 * wait) from each notify to the wait it released.
 *
 * Which notify released a wait: inside a collective, the credit barriers
 * count call-local generations (docs/protocols.md), so the wait for >= g
 * on the cell peer p writes is released by p's g-th positive notify to
 * that cell in the same call (the same collective instance and
 * iteration).  Anywhere else: the last notify to the cell (a positive add
 * or a set) that ended before the wait did.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "futex.h"
#include "shell.h"
#include "span.h"
#include "xmalloc.h"

/* A notify or wait span, for the flow arrows. */
struct sig_ev {
	uint64_t coll;		/* collective instance, 0 if none */
	uint64_t iter;
	uint64_t target;	/* rank whose cell it is */
	uint64_t cell;		/* byte offset */
	uint64_t other;		/* notify: its rank; wait: the rank owing it */
	uint64_t seq;		/* record order; waits: expected value */
	uint64_t mid;		/* where the arrow attaches (ns) */
	uint64_t end;
	int positive;		/* notify: a positive add or a set */
};

struct save_ctx {
	FILE *fp;
	enum trace_format fmt;
	uint64_t nspans;
	int first;		/* no JSON event written yet */
	struct strbuf sb;
	struct sig_ev *notes, *waits;
	size_t nnotes, anotes, nwaits, awaits;
};

static void
pct_encode(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')
			strbuf_addch(sb, c);
		else
			strbuf_addf(sb, "%%%c%c", hex[c >> 4], hex[c & 15]);
	}
}

static void
json_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c < 0x20)
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_addch(sb, c);
	}
	strbuf_addch(sb, '"');
}

/* ns as microseconds with exactly three decimals (exact, invertible). */
static void
json_us(struct strbuf *sb, uint64_t ns)
{
	strbuf_addf(sb, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static void
cell_text(const struct trace_span *sp, uint64_t off, struct strbuf *sb)
{
	describe_cell(sp->wins, off, 1, sb);
}

void
trace_attrs(const struct trace_span *sp, struct strbuf *sb)
{
	const struct uop *u = sp->op;
	const struct span_rec *rec = sp->rec;
	struct strbuf cell = STRBUF_INIT;

	if (u == NULL)
		return;
	strbuf_addf(sb, "op=%s", uop_kind_name((enum uop_kind)u->kind));
	switch (u->kind) {
	case UOP_NOTIFY:
		cell_text(sp, u->dst, &cell);
		strbuf_addf(sb, " peer=%d cell=", u->peer);
		pct_encode(sb, cell.buf);
		strbuf_addf(sb, " %s=%d", u->op == NOTIFY_SET ? "set" : "add",
		    u->value);
		break;
	case UOP_WAIT:
		cell_text(sp, u->dst, &cell);
		strbuf_addstr(sb, " cell=");
		pct_encode(sb, cell.buf);
		strbuf_addstr(sb, " cmp=");
		pct_encode(sb, wait_cmp_name((enum wait_cmp)u->op));
		strbuf_addf(sb, " expected=%d", u->value);
		break;
	case UOP_PUT:
	case UOP_GET:
		strbuf_addf(sb, " peer=%d bytes=%" PRIu64, u->peer,
		    u->count * dtype_size((enum dtype)u->dtype));
		break;
	case UOP_COPY:
	case UOP_REDUCE:
		if (u->dsp == SP_PEER || u->ssp == SP_PEER)
			strbuf_addf(sb, " peer=%d", u->peer);
		strbuf_addf(sb, " count=%" PRIu64 " dtype=%s", u->count,
		    dtype_name((enum dtype)u->dtype));
		if (u->kind == UOP_REDUCE)
			strbuf_addf(sb, " reduce=%s",
			    reduce_op_name((enum reduce_op)u->op));
		break;
	case UOP_FILL:
		strbuf_addf(sb, " count=%" PRIu64, u->count);
		break;
	default:
		break;
	}
	if (rec->flags & SPAN_R_VALUE)
		strbuf_addf(sb, " %s=%d", u->kind == UOP_WAIT ? "seen" : "value",
		    rec->value);
	if (rec->flags & SPAN_R_GAVEUP)
		strbuf_addstr(sb, " gaveup=1");
	strbuf_release(&cell);
}

static struct sig_ev *
push_ev(struct sig_ev **v, size_t *n, size_t *alloc)
{
	if (*n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 1024;
		*v = xreallocarray(*v, *alloc, sizeof **v);
	}
	memset(&(*v)[*n], 0, sizeof **v);
	return &(*v)[(*n)++];
}

static void
flush_sb(struct save_ctx *c)
{
	fwrite(c->sb.buf, 1, c->sb.len, c->fp);
	strbuf_reset(&c->sb);
}

static void
json_event(struct save_ctx *c)
{
	strbuf_addstr(&c->sb, c->first ? "\n" : ",\n");
	c->first = 0;
}

static void
json_counter(struct save_ctx *c, const struct trace_span *sp, int rank,
    uint64_t off, uint64_t ts, int32_t v)
{
	struct strbuf cell = STRBUF_INIT;

	cell_text(sp, off, &cell);
	json_event(c);
	strbuf_addstr(&c->sb, "{\"name\": ");
	json_str(&c->sb, cell.buf);
	strbuf_addf(&c->sb, ", \"cat\": \"cell\", \"ph\": \"C\", \"pid\": %d, "
	    "\"ts\": ", rank);
	json_us(&c->sb, ts);
	strbuf_addf(&c->sb, ", \"args\": {\"value\": %d}}", v);
	strbuf_release(&cell);
}

static void
json_span(struct save_ctx *c, const struct trace_span *sp)
{
	const struct span_rec *rec = sp->rec;
	struct strbuf attrs = STRBUF_INIT, op = STRBUF_INIT;

	trace_attrs(sp, &attrs);
	json_event(c);
	strbuf_addstr(&c->sb, "{\"name\": ");
	json_str(&c->sb, sp->name);
	strbuf_addf(&c->sb, ", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": ",
	    sp->op != NULL ? "op" : "phase");
	json_us(&c->sb, rec->ts);
	strbuf_addstr(&c->sb, ", \"dur\": ");
	json_us(&c->sb, rec->dur);
	strbuf_addf(&c->sb, ", \"pid\": %u, \"tid\": 0, \"args\": {\"inv\": %"
	    PRIu64 ", \"hid\": \"%016" PRIx64 "\", \"depth\": %d, "
	    "\"attrs\": ", (unsigned)rec->rank, sp->inv, sp->hid, sp->depth);
	json_str(&c->sb, attrs.buf);
	if (sp->op != NULL) {
		describe_uop(sp->wins, sp->op, rec->rank, &op);
		strbuf_addstr(&c->sb, ", \"op\": ");
		json_str(&c->sb, op.buf);
	}
	strbuf_addstr(&c->sb, "}}");
	if (sp->op != NULL && (rec->flags & SPAN_R_VALUE)) {
		if (sp->op->kind == UOP_NOTIFY)
			json_counter(c, sp, sp->op->peer, sp->op->dst,
			    rec->ts + rec->dur, rec->value);
		else if (sp->op->kind == UOP_WAIT)
			json_counter(c, sp, rec->rank, sp->op->dst,
			    rec->ts + rec->dur, rec->value);
	}
	strbuf_release(&attrs);
	strbuf_release(&op);
}

static void
strace_span(struct save_ctx *c, const struct trace_span *sp)
{
	const struct span_rec *rec = sp->rec;

	strbuf_addf(&c->sb, "[STRACE] v=1 pid=%u tid=%u inv=%" PRIu64
	    " hid=%016" PRIx64 " depth=%d name=", (unsigned)rec->rank,
	    (unsigned)rec->rank, sp->inv, sp->hid, sp->depth);
	pct_encode(&c->sb, sp->name);
	strbuf_addf(&c->sb, " ts=%" PRIu64 " dur=%" PRIu64, rec->ts, rec->dur);
	if (sp->op != NULL) {
		strbuf_addch(&c->sb, ' ');
		trace_attrs(sp, &c->sb);
	}
	strbuf_addch(&c->sb, '\n');
}

/* Remember notifies and waits for the arrows. */
static void
note_signal(struct save_ctx *c, const struct trace_span *sp)
{
	const struct uop *u = sp->op;
	const struct span_rec *rec = sp->rec;
	struct sig_ev *e;

	if (u == NULL || (u->kind != UOP_NOTIFY && u->kind != UOP_WAIT))
		return;
	if (u->kind == UOP_NOTIFY)
		e = push_ev(&c->notes, &c->nnotes, &c->anotes);
	else
		e = push_ev(&c->waits, &c->nwaits, &c->awaits);
	e->coll = (uint64_t)sp->coll;
	e->iter = rec->iter;
	e->cell = u->dst;
	e->mid = rec->ts + rec->dur / 2;
	e->end = rec->ts + rec->dur;
	if (u->kind == UOP_NOTIFY) {
		e->target = (uint64_t)u->peer;
		e->other = rec->rank;
		e->seq = c->nnotes;
		e->positive = u->op == NOTIFY_SET || u->value > 0;
		if (u->op == NOTIFY_SET || u->value <= 0)
			e->coll = 0;	/* not a credit: no generation */
	} else {
		e->target = rec->rank;
		e->other = (uint64_t)u->peer;
		e->seq = (uint64_t)(int64_t)u->value;
	}
}

static int
visit(void *arg, const struct trace_span *sp)
{
	struct save_ctx *c = arg;

	if (c->fmt == TRACE_JSON)
		json_span(c, sp);
	else
		strace_span(c, sp);
	note_signal(c, sp);
	c->nspans++;
	if (c->sb.len > 1 << 16)
		flush_sb(c);
	return 0;
}

/* Credits: by (coll, iter, target, cell, from) and then record order. */
static int
cmp_credit(const void *a, const void *b)
{
	const struct sig_ev *x = a, *y = b;
	const uint64_t kx[] = { x->coll, x->iter, x->target, x->cell, x->other,
	    x->seq };
	const uint64_t ky[] = { y->coll, y->iter, y->target, y->cell, y->other,
	    y->seq };

	for (size_t i = 0; i < ARRAY_SIZE(kx); i++) {
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	}
	return 0;
}

/* Any notify: by (target, cell, end). */
static int
cmp_cell_end(const void *a, const void *b)
{
	const struct sig_ev *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The g-th credit of the group (coll, iter, target, cell, from), or NULL. */
static const struct sig_ev *
find_credit(const struct sig_ev *v, size_t n, const struct sig_ev *w)
{
	struct sig_ev key = *w;
	size_t lo = 0, hi = n;

	if (w->coll == 0 || (int64_t)w->seq < 1)
		return NULL;
	key.seq = 0;	/* first of the group */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_credit(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	lo += w->seq - 1;
	if (lo >= n || v[lo].coll != w->coll || v[lo].iter != w->iter ||
	    v[lo].target != w->target || v[lo].cell != w->cell ||
	    v[lo].other != w->other)
		return NULL;
	return &v[lo];
}

/* The last positive notify to the wait's cell that ended before it. */
static const struct sig_ev *
find_last(const struct sig_ev *v, size_t n, const struct sig_ev *w)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sig_ev *e = &v[mid];
		int before = e->target < w->target ||
		    (e->target == w->target && (e->cell < w->cell ||
		    (e->cell == w->cell && e->end <= w->end)));

		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0) {
		const struct sig_ev *e = &v[--lo];

		if (e->target != w->target || e->cell != w->cell)
			return NULL;
		if (e->positive)
			return e;
	}
	return NULL;
}

static void
json_flow(struct save_ctx *c, uint64_t id, const struct sig_ev *from,
    const struct sig_ev *to)
{
	json_event(c);
	strbuf_addf(&c->sb, "{\"name\": \"signal\", \"cat\": \"signal\", "
	    "\"ph\": \"s\", \"id\": %" PRIu64 ", \"pid\": %" PRIu64
	    ", \"tid\": 0, \"ts\": ", id, from->other);
	json_us(&c->sb, from->mid);
	strbuf_addch(&c->sb, '}');
	json_event(c);
	strbuf_addf(&c->sb, "{\"name\": \"signal\", \"cat\": \"signal\", "
	    "\"ph\": \"f\", \"bp\": \"e\", \"id\": %" PRIu64 ", \"pid\": %"
	    PRIu64 ", \"tid\": 0, \"ts\": ", id, to->target);
	json_us(&c->sb, to->mid);
	strbuf_addch(&c->sb, '}');
}

static void
json_flows(struct save_ctx *c)
{
	struct sig_ev *credits = xreallocarray(NULL, c->nnotes + 1,
	    sizeof *credits);
	struct sig_ev *bycell = xreallocarray(NULL, c->nnotes + 1,
	    sizeof *bycell);
	size_t ncred = 0;
	uint64_t id = 0;

	for (size_t i = 0; i < c->nnotes; i++) {
		if (c->notes[i].coll != 0)
			credits[ncred++] = c->notes[i];
	}
	memcpy(bycell, c->notes, c->nnotes * sizeof *bycell);
	qsort(credits, ncred, sizeof *credits, cmp_credit);
	qsort(bycell, c->nnotes, sizeof *bycell, cmp_cell_end);
	for (size_t i = 0; i < c->nwaits; i++) {
		const struct sig_ev *w = &c->waits[i];
		const struct sig_ev *n = find_credit(credits, ncred, w);

		if (n == NULL)
			n = find_last(bycell, c->nnotes, w);
		if (n == NULL)
			continue;
		json_flow(c, ++id, n, w);
		if (c->sb.len > 1 << 16)
			flush_sb(c);
	}
	free(credits);
	free(bycell);
}

static void
json_header(struct save_ctx *c, struct session *s,
    const struct trace_meta *meta)
{
	strbuf_addstr(&c->sb, "{\"colldb\": ");
	trace_meta_json(meta, &c->sb);
	strbuf_addstr(&c->sb, ", \"displayTimeUnit\": \"ms\", \"traceEvents\": [");
	for (int r = 0; r < s->nranks; r++) {
		json_event(c);
		strbuf_addf(&c->sb, "{\"name\": \"process_name\", \"ph\": \"M\", "
		    "\"pid\": %d, \"args\": {\"name\": \"rank %d\"}},\n"
		    "{\"name\": \"process_sort_index\", \"ph\": \"M\", "
		    "\"pid\": %d, \"args\": {\"sort_index\": %d}},\n"
		    "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, "
		    "\"tid\": 0, \"args\": {\"name\": \"spans\"}}", r, r, r, r, r);
	}
}

static void
strace_header(struct save_ctx *c, struct session *s,
    const struct trace_meta *meta)
{
	struct timespec wall;
	uint64_t mono = mono_ns(), wall_ns;

	clock_gettime(CLOCK_REALTIME, &wall);
	wall_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec;
	trace_meta_strace(meta, &c->sb);
	strbuf_addch(&c->sb, '\n');
	/* simpler's anchor: host ts -> wall time (one clock for all ranks) */
	for (int r = 0; r < s->nranks; r++)
		strbuf_addf(&c->sb, "[mono_ns=%" PRIu64 "][T0x%x][TIMING] "
		    "clock_anchor: [CLOCK_ANCHOR] v=1 pid=%d mono_ns=%" PRIu64
		    " wall_ns=%" PRIu64 "\n", mono, (unsigned)r, r, mono,
		    wall_ns);
}

int
trace_save(struct session *s, const char *path, enum trace_format fmt,
    const struct trace_meta *meta, uint64_t *nspans, char **cause)
{
	struct save_ctx c;
	char *tmp = xasprintf("%s.tmp%d", path, (int)getpid());
	int rc = -1;

	memset(&c, 0, sizeof c);
	c.fmt = fmt;
	c.first = 1;
	strbuf_init(&c.sb, 1 << 17);
	c.fp = fopen(tmp, "w");
	if (c.fp == NULL) {
		cause_set(cause, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	if (fmt == TRACE_JSON)
		json_header(&c, s, meta);
	else
		strace_header(&c, s, meta);
	trace_visit(s, NULL, 0, 0, visit, &c);
	if (fmt == TRACE_JSON) {
		json_flows(&c);
		strbuf_addstr(&c.sb, "\n]}\n");
	}
	flush_sb(&c);
	if (ferror(c.fp) | (fclose(c.fp) != 0)) {
		cause_set(cause, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) != 0) {
		cause_set(cause, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	*nspans = c.nspans;
	rc = 0;
out:
	strbuf_release(&c.sb);
	free(c.notes);
	free(c.waits);
	free(tmp);
	return rc;
}
