/*
 * trace-save.c - `trace save`: the session's spans as Chrome trace-event
 * JSON (for Perfetto / chrome://tracing) or as simpler's [STRACE] lines.
 *
 * JSON: one process per rank ("rank N"), one thread, an "X" event per
 * span (args: inv, hid, depth, attrs as simpler's to_chrome_trace writes
 * them, so colldb tree reads the file back, plus the micro-op in words),
 * a "C" counter sample per signal cell change (a notify's cell after it,
 * a wait's value seen), and a flow arrow from each notify to the wait it
 * released (trace-flow.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "out/outfile.h"
#include "trace/trace.h"
#include "span.h"
#include "xmalloc.h"

struct save_ctx {
	FILE *fp;
	enum trace_format fmt;
	uint64_t nspans;
	int first; /* no JSON event written yet */
	struct strbuf sb;
	struct trace_flows *flows;
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

/* The window table the span's program was sent with, as a view. */
static struct view *
wins_view(const struct trace_span *sp, struct view *v)
{
	view_seg_init(v, sp->wins);
	return v;
}

static void
cell_text(const struct trace_span *sp, uint64_t off, struct strbuf *sb)
{
	struct view v;

	describe_cell(wins_view(sp, &v), off, 1, sb);
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
		strbuf_addf(sb, " %s=%d",
		    u->kind == UOP_WAIT ? "seen" : "value", rec->value);
	if (rec->flags & SPAN_R_GAVEUP)
		strbuf_addstr(sb, " gaveup=1");
	strbuf_release(&cell);
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
	strbuf_add_json(&c->sb, cell.buf);
	strbuf_addf(&c->sb,
	    ", \"cat\": \"cell\", \"ph\": \"C\", \"pid\": %d, "
	    "\"ts\": ",
	    rank);
	trace_json_us(&c->sb, ts);
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
	strbuf_add_json(&c->sb, sp->name);
	strbuf_addf(&c->sb, ", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": ",
	    sp->op != NULL ? "op" : "phase");
	trace_json_us(&c->sb, rec->ts);
	strbuf_addstr(&c->sb, ", \"dur\": ");
	trace_json_us(&c->sb, rec->dur);
	strbuf_addf(&c->sb,
	    ", \"pid\": %u, \"tid\": 0, \"args\": {\"inv\": %" PRIu64
	    ", \"hid\": \"%016" PRIx64 "\", \"depth\": %d, "
	    "\"attrs\": ",
	    (unsigned)rec->rank, sp->inv, sp->hid, sp->depth);
	strbuf_add_json(&c->sb, attrs.buf);
	if (sp->op != NULL) {
		struct view v;

		describe_uop(wins_view(sp, &v), sp->op, rec->rank, &op);
		strbuf_addstr(&c->sb, ", \"op\": ");
		strbuf_add_json(&c->sb, op.buf);
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

	strbuf_addf(&c->sb,
	    "[STRACE] v=1 pid=%u tid=%u inv=%" PRIu64 " hid=%016" PRIx64
	    " depth=%d name=",
	    (unsigned)rec->rank, (unsigned)rec->rank, sp->inv, sp->hid,
	    sp->depth);
	pct_encode(&c->sb, sp->name);
	strbuf_addf(&c->sb, " ts=%" PRIu64 " dur=%" PRIu64, rec->ts, rec->dur);
	if (sp->op != NULL) {
		strbuf_addch(&c->sb, ' ');
		trace_attrs(sp, &c->sb);
	}
	strbuf_addch(&c->sb, '\n');
}

static int
visit(void *arg, const struct trace_span *sp)
{
	struct save_ctx *c = arg;

	if (c->fmt == TRACE_JSON)
		json_span(c, sp);
	else
		strace_span(c, sp);
	trace_flows_note(c->flows, sp);
	c->nspans++;
	if (c->sb.len > 1 << 16)
		flush_sb(c);
	return 0;
}

static void
json_header(struct save_ctx *c, struct session *s, const struct trace_meta *meta)
{
	strbuf_addstr(&c->sb, "{\"colldb\": ");
	trace_meta_json(meta, &c->sb);
	strbuf_addstr(&c->sb,
	    ", \"displayTimeUnit\": \"ms\", \"traceEvents\": [");
	for (int r = 0; r < s->nranks; r++) {
		json_event(c);
		strbuf_addf(&c->sb,
		    "{\"name\": \"process_name\", \"ph\": \"M\", "
		    "\"pid\": %d, \"args\": {\"name\": \"rank %d\"}},\n"
		    "{\"name\": \"process_sort_index\", \"ph\": \"M\", "
		    "\"pid\": %d, \"args\": {\"sort_index\": %d}},\n"
		    "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, "
		    "\"tid\": 0, \"args\": {\"name\": \"spans\"}}",
		    r, r, r, r, r);
	}
}

static void
strace_header(struct save_ctx *c, struct session *s, const struct trace_meta *meta)
{
	struct timespec wall;
	uint64_t mono = mono_ns(), wall_ns;

	clock_gettime(CLOCK_REALTIME, &wall);
	wall_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec;
	trace_meta_strace(meta, &c->sb);
	strbuf_addch(&c->sb, '\n');
	/* simpler's anchor: host ts -> wall time (one clock for all ranks) */
	for (int r = 0; r < s->nranks; r++)
		strbuf_addf(&c->sb,
		    "[mono_ns=%" PRIu64 "][T0x%x][TIMING] "
		    "clock_anchor: [CLOCK_ANCHOR] v=1 pid=%d mono_ns=%" PRIu64
		    " wall_ns=%" PRIu64 "\n",
		    mono, (unsigned)r, r, mono, wall_ns);
}

int
trace_save(struct session *s, const char *path, enum trace_format fmt,
    const struct trace_meta *meta, uint64_t *nspans, char **cause)
{
	struct save_ctx c;
	struct outfile of;
	char *why = NULL;
	int rc = -1;

	memset(&c, 0, sizeof c);
	c.fmt = fmt;
	c.first = 1;
	c.flows = trace_flows_new();
	strbuf_init(&c.sb, 1 << 17);
	/* A plain file is replaced atomically (its mode kept); a device, a
	 * pipe or a link of the user's is written in place (outfile.h). */
	if (outfile_open(&of, path, &why) != 0)
		goto out;
	c.fp = of.fp;
	if (fmt == TRACE_JSON)
		json_header(&c, s, meta);
	else
		strace_header(&c, s, meta);
	trace_visit(s, NULL, 0, 0, visit, &c);
	if (fmt == TRACE_JSON) {
		flush_sb(&c);
		trace_flows_json(c.flows, &c.sb, c.fp);
		strbuf_addstr(&c.sb, "\n]}\n");
	}
	flush_sb(&c);
	if (outfile_commit(&of, &why) != 0)
		goto out;
	*nspans = c.nspans;
	rc = 0;
out:
	if (why != NULL)
		cause_set(cause, "cannot write '%s': %s", path, why);
	free(why);
	strbuf_release(&c.sb);
	trace_flows_free(c.flows);
	return rc;
}
