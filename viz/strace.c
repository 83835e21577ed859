/* strace.c - the [STRACE] log parser; see strace.h. */
#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"
#include "../core/xmalloc.h"
#include "strace.h"

/* Region state of the sentinel scanner (bench.py _extract_l3_swimlane_timing). */
enum region {
	REGION_BEFORE, /* no timing begin seen yet */
	REGION_IN,     /* inside begin .. end */
	REGION_AFTER,  /* after an end, before the next begin */
};

struct strace_parser {
	struct span_set *set;
	struct strbuf carry; /* partial physical line */
	struct strbuf fixed; /* line with invalid UTF-8 replaced */
	struct strbuf name;  /* scratch: decoded name */
	struct strbuf hid;   /* scratch: lower-cased hid */
	enum region region;
	int bad;
	int seen_begin;
	long blocks;
	int finished;
};

static const char strace_tag[] = "[STRACE]";
static const char pass_prefix[] = "[pypto] l3_swimlane_pass=";
static const char timing_begin[] = "[pypto] l3_swimlane_pass=timing event=begin";
static const char timing_end[] = "[pypto] l3_swimlane_pass=timing event=end";
#define LIT_LEN(s) (sizeof(s) - 1)

static void strace_line(struct strace_parser *, const char *, size_t);
static void parse_text(struct strace_parser *, const char *, const char *,
    uint32_t);
static void parse_logical(struct strace_parser *, const char *, const char *,
    uint32_t);
static void parse_record(struct strace_parser *, const char *, const char *,
    uint32_t);

struct strace_parser *
strace_parser_new(struct span_set *set)
{
	struct strace_parser *p = xcalloc(1, sizeof *p);

	p->set = set;
	strbuf_init(&p->carry, 0);
	strbuf_init(&p->fixed, 0);
	strbuf_init(&p->name, 0);
	strbuf_init(&p->hid, 0);
	p->region = REGION_BEFORE;
	return p;
}

void
strace_parser_free(struct strace_parser *p)
{
	if (p == NULL)
		return;
	strbuf_release(&p->carry);
	strbuf_release(&p->fixed);
	strbuf_release(&p->name);
	strbuf_release(&p->hid);
	free(p);
}

void
strace_parser_feed(struct strace_parser *p, const char *buf, size_t len)
{
	const char *s = buf, *e = buf + len, *nl;

	if (p->finished)
		BUG("strace_parser_feed after finish");
	while (s < e && (nl = memchr(s, '\n', (size_t)(e - s))) != NULL) {
		if (p->carry.len != 0) {
			strbuf_add(&p->carry, s, (size_t)(nl - s));
			strace_line(p, p->carry.buf, p->carry.len);
			strbuf_reset(&p->carry);
		} else
			strace_line(p, s, (size_t)(nl - s));
		s = nl + 1;
	}
	if (s < e)
		strbuf_add(&p->carry, s, (size_t)(e - s));
}

void
strace_parser_finish(struct strace_parser *p)
{
	struct span_set *set = p->set;

	if (p->finished)
		return;
	p->finished = 1;
	if (p->carry.len != 0) {
		strace_line(p, p->carry.buf, p->carry.len);
		strbuf_reset(&p->carry);
	}
	if (p->region == REGION_IN)
		p->bad = 1; /* a begin without its end */
	if (!p->seen_begin && span_set_has_pass_marker(set))
		p->bad = 1; /* sentinels, but never a timing begin */
	if (p->bad)
		span_set_settle_timing(set, STRACE_TIMING_BAD, 0);
	else if (p->seen_begin)
		span_set_settle_timing(set, STRACE_TIMING_OK, p->blocks);
	else
		span_set_settle_timing(set, STRACE_TIMING_NONE, 0);
}

void
strace_parse_buf(struct span_set *set, const char *buf, size_t len)
{
	struct strace_parser *p = strace_parser_new(set);

	strace_parser_feed(p, buf, len);
	strace_parser_finish(p);
	strace_parser_free(p);
}

/* One physical line (no '\n'). */
static void
strace_line(struct strace_parser *p, const char *s, size_t len)
{
	struct span_set *set = p->set;
	const char *e, *o, *seg;
	size_t i;
	int ascii = 1;

	span_set_next_line(set);
	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] >= 0x80) {
			ascii = 0;
			break;
		}
	}
	if (!ascii && strace_utf8_repair(s, len, &p->fixed)) {
		s = p->fixed.buf;
		len = p->fixed.len;
	}
	e = s + len;

	o = memmem(s, len, pass_prefix, LIT_LEN(pass_prefix));
	if (o == NULL) {
		parse_text(p, s, e,
		    SPAN_VIEW_FULL |
			(p->region == REGION_IN ? SPAN_VIEW_TIMING : 0));
		return;
	}

	/*
	 * A sentinel on this line: the whole-log view sees the line as it is;
	 * the timing view sees only the text inside regions, each region
	 * boundary acting as a line boundary (bench.py joins regions by "\n").
	 */
	span_set_mark_pass(set);
	parse_text(p, s, e, SPAN_VIEW_FULL);
	seg = p->region == REGION_IN ? s : NULL;
	while (o != NULL) {
		size_t left = (size_t)(e - o), skip = LIT_LEN(pass_prefix);

		if (left >= LIT_LEN(timing_begin) &&
		    memcmp(o, timing_begin, LIT_LEN(timing_begin)) == 0) {
			if (p->region == REGION_IN)
				p->bad = 1;
			p->region = REGION_IN;
			p->seen_begin = 1;
			skip = LIT_LEN(timing_begin);
			seg = o + skip;
		} else if (left >= LIT_LEN(timing_end) &&
		    memcmp(o, timing_end, LIT_LEN(timing_end)) == 0) {
			if (p->region == REGION_IN) {
				parse_text(p, seg, o, SPAN_VIEW_TIMING);
				p->blocks++;
				p->region = REGION_AFTER;
				seg = NULL;
			} else
				p->bad = 1;
			skip = LIT_LEN(timing_end);
		}
		o += skip;
		o = memmem(o, (size_t)(e - o), pass_prefix, LIT_LEN(pass_prefix));
	}
	if (p->region == REGION_IN && seg != NULL)
		parse_text(p, seg, e, SPAN_VIEW_TIMING);
}

/* Text between line boundaries: split it as str.splitlines() does. */
static void
parse_text(struct strace_parser *p, const char *s, const char *e, uint32_t view)
{
	const char *start = s;
	size_t b;

	while (s < e) {
		unsigned char c = (unsigned char)*s;

		if ((c < 0x20 || c == 0xc2 || c == 0xe2) &&
		    (b = strace_break_len(s, e)) != 0) {
			parse_logical(p, start, s, view);
			s += b;
			start = s;
		} else
			s++;
	}
	parse_logical(p, start, e, view);
}

/* One logical line: every "[STRACE]" starts a record. */
static void
parse_logical(struct strace_parser *p, const char *s, const char *e, uint32_t view)
{
	const char *r, *next;

	r = memmem(s, (size_t)(e - s), strace_tag, LIT_LEN(strace_tag));
	while (r != NULL) {
		next = memmem(r + LIT_LEN(strace_tag),
		    (size_t)(e - r) - LIT_LEN(strace_tag), strace_tag,
		    LIT_LEN(strace_tag));
		parse_record(p, r, next != NULL ? next : e, view);
		r = next;
	}
}

static const char *
skip_ws(const char *s, const char *e)
{
	size_t n;

	while ((n = strace_ws_len(s, e)) != 0)
		s += n;
	return s;
}

/* "key=" then ASCII digits; *v gets the value (0 on overflow, *ovf set). */
static const char *
field_num(const char *s, const char *e, const char *key, uint64_t max,
    uint64_t *v, int *ovf)
{
	size_t kl = strlen(key);
	uint64_t x = 0;
	const char *d;

	if ((size_t)(e - s) <= kl || memcmp(s, key, kl) != 0)
		return NULL;
	s += kl;
	for (d = s; d < e && *d >= '0' && *d <= '9'; d++) {
		unsigned dig = (unsigned)(*d - '0');

		if (x > (max - dig) / 10)
			*ovf = 1;
		else
			x = x * 10 + dig;
	}
	if (d == s)
		return NULL;
	*v = x;
	return d;
}

/* Does the host-log prefix of strace_timing._HOST_LOG_PREFIX start at S? */
static int
host_prefix_at(const char *s, const char *e, const char **colon)
{
	const char *c;
	size_t n;

	if ((size_t)(e - s) < 9 || memcmp(s, "[mono_ns=", 9) != 0)
		return 0;
	s += 9;
	for (c = s; c < e && *c >= '0' && *c <= '9'; c++)
		;
	if (c == s || (size_t)(e - c) < 5 || memcmp(c, "][T0x", 5) != 0)
		return 0;
	s = c + 5;
	for (c = s; c < e &&
	     ((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') ||
		 (*c >= 'A' && *c <= 'F'));
	     c++)
		;
	if (c == s || (size_t)(e - c) < 2 || memcmp(c, "][", 2) != 0)
		return 0;
	s = c + 2;
	for (c = s; c < e && *c >= 'A' && *c <= 'Z'; c++)
		;
	if (c == s || c >= e || *c != ']')
		return 0;
	/* \s+ [^:\r\n]+ : \s+ */
	s = c + 1;
	if ((n = strace_ws_len(s, e)) == 0)
		return 0;
	s += n;
	if (s >= e || *s == ':')
		return 0;
	/*
	 * Candidates come in increasing order, so the first colon after one
	 * is cached in *colon (NULL = none left): linear, not quadratic, on a
	 * line full of near-prefixes.
	 */
	if (*colon != NULL && *colon < s)
		*colon = memchr(s, ':', (size_t)(e - s));
	c = *colon;
	return c != NULL && strace_ws_len(c + 1, e) != 0;
}

/* The fields of one record, as they stand in the line. */
struct rec_fields {
	uint64_t v[3]; /* pid, tid, inv */
	uint64_t depth, ts, dur;
	const char *hid, *hid_e, *name, *name_e;
	const char *rest; /* after dur= */
};

/*
 * Scan the fields after the head: pid= tid= inv= hid= depth= name= ts=
 * dur=, each after whitespace.  NULL when they are all there (*ovf set if
 * a number is too large), else the field that is bad or missing.
 */
static const char *
rec_fields(const char *q, const char *e, struct rec_fields *f, int *ovf)
{
	static const char *const keys[] = { "pid=", "tid=", "inv=" };
	const char *a;

	for (size_t i = 0; i < 3; i++) {
		a = skip_ws(q, e);
		if (a == q ||
		    (q = field_num(a, e, keys[i],
			 i == 2 ? UINT64_MAX : INT64_MAX, &f->v[i], ovf)) == NULL)
			return keys[i];
	}
	a = skip_ws(q, e);
	if (a == q || (size_t)(e - a) < 4 || memcmp(a, "hid=", 4) != 0)
		return "hid=";
	f->hid = a + 4;
	for (f->hid_e = f->hid; f->hid_e < e &&
	     ((*f->hid_e >= '0' && *f->hid_e <= '9') ||
		 (*f->hid_e >= 'a' && *f->hid_e <= 'f') ||
		 (*f->hid_e >= 'A' && *f->hid_e <= 'F'));
	     f->hid_e++)
		;
	if (f->hid_e == f->hid)
		return "hid=";
	a = skip_ws(f->hid_e, e);
	if (a == f->hid_e ||
	    (q = field_num(a, e, "depth=", INT32_MAX, &f->depth, ovf)) == NULL)
		return "depth=";
	a = skip_ws(q, e);
	if (a == q || (size_t)(e - a) < 5 || memcmp(a, "name=", 5) != 0)
		return "name=";
	f->name = a + 5;
	for (f->name_e = f->name;
	     f->name_e < e && strace_ws_len(f->name_e, e) == 0; f->name_e++)
		;
	if (f->name_e == f->name)
		return "name=";
	a = skip_ws(f->name_e, e);
	if (a == f->name_e ||
	    (q = field_num(a, e, "ts=", INT64_MAX, &f->ts, ovf)) == NULL)
		return "ts=";
	a = skip_ws(q, e);
	if (a == q ||
	    (q = field_num(a, e, "dur=", INT64_MAX, &f->dur, ovf)) == NULL)
		return "dur=";
	f->rest = q;
	return NULL;
}

/* attrs: from q up to the first host-log prefix, else the end, with the
 * whitespace around them stripped: [*a, *ae). */
static void
rec_attrs(const char *q, const char *e, const char **a, const char **ae)
{
	const char *m, *colon = q;

	*ae = e;
	for (m = q; (m = memmem(m, (size_t)(e - m), "[mono_ns=", 9)) != NULL;
	     m++) {
		if (host_prefix_at(m, e, &colon)) {
			*ae = m;
			break;
		}
	}
	*a = skip_ws(q, *ae);
	while (*ae > *a) {
		/* strip trailing whitespace: find the last code point */
		const char *lc = *ae - 1;

		while (lc > *a && ((unsigned char)*lc & 0xc0) == 0x80)
			lc--;
		if (strace_ws_len(lc, *ae) != (size_t)(*ae - lc))
			break;
		*ae = lc;
	}
}

/* A span from the fields and attrs of a good record. */
static void
rec_push(struct strace_parser *p, const struct rec_fields *f, const char *a,
    const char *ae, uint32_t line, uint32_t view)
{
	struct span_set *set = p->set;
	struct span *sp;

	strbuf_reset(&p->name);
	if (memchr(f->name, '%', (size_t)(f->name_e - f->name)) != NULL)
		strace_decode_field(&p->name, f->name,
		    (size_t)(f->name_e - f->name));
	else
		strbuf_add(&p->name, f->name, (size_t)(f->name_e - f->name));
	strbuf_reset(&p->hid);
	strbuf_add(&p->hid, f->hid, (size_t)(f->hid_e - f->hid));
	for (size_t i = 0; i < p->hid.len; i++) {
		if (p->hid.buf[i] >= 'A' && p->hid.buf[i] <= 'F')
			p->hid.buf[i] += 'a' - 'A';
	}
	sp = span_set_push(set);
	sp->pid = (int64_t)f->v[0];
	sp->tid = (int64_t)f->v[1];
	sp->inv = f->v[2];
	sp->hid = span_set_intern(set, p->hid.buf, p->hid.len);
	sp->depth = (int32_t)f->depth;
	sp->name = span_set_intern(set, p->name.buf, p->name.len);
	sp->ts = (int64_t)f->ts;
	sp->dur = (int64_t)f->dur;
	sp->attrs = span_set_intern(set, a, (size_t)(ae - a));
	sp->line = line;
	sp->flags = view | span_set_flags_for(set, sp->name, sp->attrs);
}

static void
parse_record(struct strace_parser *p, const char *s, const char *e, uint32_t view)
{
	struct span_set *set = p->set;
	uint32_t line = span_set_lines(set);
	uint64_t ver;
	struct rec_fields f;
	const char *q, *a, *ae, *why;
	int ovf = 0, report = (view & SPAN_VIEW_FULL) != 0;

	/* Head: "[STRACE]" \s+ "v=" \d+ ; anything less is not a record. */
	q = s + LIT_LEN(strace_tag);
	if (strace_ws_len(q, e) == 0)
		return;
	q = skip_ws(q, e);
	if ((q = field_num(q, e, "v=", UINT64_MAX, &ver, &ovf)) == NULL)
		return;
	ovf = 0;
	if ((why = rec_fields(q, e, &f, &ovf)) != NULL) {
		if (report)
			span_set_diag(set, line,
			    "malformed [STRACE] record (bad or missing "
			    "\"%s\" field), skipped",
			    why);
		return;
	}
	if (ovf) {
		if (report)
			span_set_diag(set, line,
			    "[STRACE] record with a number "
			    "too large for colldb (over 63 bits), skipped");
		return;
	}
	rec_attrs(f.rest, e, &a, &ae);
	rec_push(p, &f, a, ae, line, view);
}
