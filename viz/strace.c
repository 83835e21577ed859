/* strace.c - span sets and the [STRACE] log parser; see strace.h. */
#include <stdarg.h>
#include <stdio.h>
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

	struct pool_ent *ents;		/* id -> string */
	uint32_t nents;
	uint32_t capents;
	uint32_t *slots;		/* open addressing: id + 1, 0 = empty */
	uint32_t nslots;		/* power of two */
	char **chunks;			/* arena; strings never move */
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

/* Region state of the sentinel scanner (bench.py _extract_l3_swimlane_timing). */
enum region {
	REGION_BEFORE,		/* no timing begin seen yet */
	REGION_IN,		/* inside begin .. end */
	REGION_AFTER,		/* after an end, before the next begin */
};

struct strace_parser {
	struct span_set *set;
	struct strbuf carry;		/* partial physical line */
	struct strbuf fixed;		/* line with invalid UTF-8 replaced */
	struct strbuf name;		/* scratch: decoded name */
	struct strbuf hid;		/* scratch: lower-cased hid */
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

static uint32_t	pool_hash(const char *, size_t);
static void	pool_rehash(struct span_set *);
static size_t	ws_len(const char *, const char *);
static size_t	break_len(const char *, const char *);
static int	utf8_repair(const char *, size_t, struct strbuf *);
static void	parse_line(struct strace_parser *, const char *, size_t);
static void	parse_text(struct strace_parser *, const char *, const char *,
		    uint32_t);
static void	parse_logical(struct strace_parser *, const char *,
		    const char *, uint32_t);
static void	parse_record(struct strace_parser *, const char *,
		    const char *, uint32_t);
static uint32_t	span_flags_for(const struct span_set *, uint32_t, uint32_t);

/* ---- the set and its string pool ---------------------------------------- */

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
		set->ents = xreallocarray(set->ents, set->capents,
		    sizeof *set->ents);
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

static struct span *
span_set_push(struct span_set *set)
{
	if (set->nspans == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 4096;
		set->spans = xreallocarray(set->spans, set->cap,
		    sizeof *set->spans);
	}
	return &set->spans[set->nspans++];
}

/* Flags that follow from the name and attrs alone. */
static uint32_t
span_flags_for(const struct span_set *set, uint32_t name, uint32_t attrs)
{
	static const char *const heads[] = {
		"node", "network1", "network2", "network3", "ext"
	};
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
    size_t name_len, int64_t ts, int64_t dur, const char *attrs,
    size_t attrs_len)
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
	sp->flags = span_flags_for(set, sp->name, sp->attrs) |
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
	return span_set_add_n(set, pid, tid, inv, hid, strlen(hid), depth,
	    name, strlen(name), ts, dur, attrs, strlen(attrs));
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

/* ---- text classes (Python str semantics over UTF-8) --------------------- */

/* Bytes in the whitespace code point at S (str.isspace), or 0. */
static size_t
ws_len(const char *s, const char *e)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = (size_t)(e - s);

	if (n == 0)
		return 0;
	if ((u[0] >= 0x09 && u[0] <= 0x0d) || (u[0] >= 0x1c && u[0] <= 0x20))
		return 1;
	if (u[0] < 0xc2)
		return 0;
	if (u[0] == 0xc2 && n >= 2 && (u[1] == 0x85 || u[1] == 0xa0))
		return 2;
	if (n < 3)
		return 0;
	if (u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80)
		return 3;	/* U+1680 */
	if (u[0] == 0xe2 && u[1] == 0x80 &&
	    (u[2] <= 0x8a || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
		return 3;	/* U+2000-200A, 2028, 2029, 202F */
	if (u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f)
		return 3;	/* U+205F */
	if (u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80)
		return 3;	/* U+3000 */
	return 0;
}

/* Bytes in the str.splitlines() break at S (other than '\n'), or 0. */
static size_t
break_len(const char *s, const char *e)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = (size_t)(e - s);

	if (u[0] == '\r' || u[0] == 0x0b || u[0] == 0x0c ||
	    (u[0] >= 0x1c && u[0] <= 0x1e))
		return 1;
	if (u[0] == 0xc2 && n >= 2 && u[1] == 0x85)
		return 2;
	if (u[0] == 0xe2 && n >= 3 && u[1] == 0x80 &&
	    (u[2] == 0xa8 || u[2] == 0xa9))
		return 3;
	return 0;
}

size_t
strace_utf8_len(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	}
	return n;
}

/*
 * Python's UTF-8 decoder with errors="replace": each maximal ill-formed
 * subpart becomes one U+FFFD.  Returns 0 if S is valid (OUT untouched),
 * else 1 with the repaired text in OUT.
 */
static int
utf8_repair(const char *s, size_t n, struct strbuf *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, start = 0, need, k;
	unsigned lo, hi;
	int bad = 0;

	while (i < n) {
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		lo = 0x80;
		hi = 0xbf;
		if (u[i] >= 0xc2 && u[i] <= 0xdf)
			need = 1;
		else if (u[i] >= 0xe0 && u[i] <= 0xef) {
			need = 2;
			if (u[i] == 0xe0)
				lo = 0xa0;
			else if (u[i] == 0xed)
				hi = 0x9f;
		} else if (u[i] >= 0xf0 && u[i] <= 0xf4) {
			need = 3;
			if (u[i] == 0xf0)
				lo = 0x90;
			else if (u[i] == 0xf4)
				hi = 0x8f;
		} else
			need = 0;
		for (k = 1; need != 0 && k <= need; k++) {
			if (i + k >= n)
				break;
			if (u[i + k] < (k == 1 ? lo : 0x80) ||
			    u[i + k] > (k == 1 ? hi : 0xbf))
				break;
		}
		if (need != 0 && k == need + 1) {
			i += need + 1;
			continue;
		}
		/* Ill-formed: bytes i .. i+k-1 (at least the lead). */
		if (!bad) {
			strbuf_reset(out);
			bad = 1;
		}
		strbuf_add(out, s + start, i - start);
		strbuf_add(out, "\xef\xbf\xbd", 3);
		i += need == 0 ? 1 : k;
		start = i;
	}
	if (bad)
		strbuf_add(out, s + start, n - start);
	return bad;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void
strace_decode_field(struct strbuf *out, const char *s, size_t len)
{
	size_t i;
	int hi, lo, v;

	for (i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len &&
		    (hi = hexval(s[i + 1])) >= 0 &&
		    (lo = hexval(s[i + 2])) >= 0) {
			/* chr(v) in Python: a code point, not a byte */
			v = hi * 16 + lo;
			if (v < 0x80)
				strbuf_addch(out, v);
			else {
				strbuf_addch(out, 0xc0 | (v >> 6));
				strbuf_addch(out, 0x80 | (v & 0x3f));
			}
			i += 2;
			continue;
		}
		strbuf_addch(out, s[i]);
	}
}

/* ---- the parser ----------------------------------------------------------- */

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
			parse_line(p, p->carry.buf, p->carry.len);
			strbuf_reset(&p->carry);
		} else
			parse_line(p, s, (size_t)(nl - s));
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
		parse_line(p, p->carry.buf, p->carry.len);
		strbuf_reset(&p->carry);
	}
	if (p->region == REGION_IN)
		p->bad = 1;	/* a begin without its end */
	if (!p->seen_begin && set->pass_marker)
		p->bad = 1;	/* sentinels, but never a timing begin */
	if (p->bad)
		set->timing = STRACE_TIMING_BAD;
	else if (p->seen_begin) {
		set->timing = STRACE_TIMING_OK;
		set->blocks = p->blocks;
	} else
		set->timing = STRACE_TIMING_NONE;
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
parse_line(struct strace_parser *p, const char *s, size_t len)
{
	struct span_set *set = p->set;
	const char *e, *o, *seg;
	size_t i;
	int ascii = 1;

	set->lines++;
	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] >= 0x80) {
			ascii = 0;
			break;
		}
	}
	if (!ascii && utf8_repair(s, len, &p->fixed)) {
		s = p->fixed.buf;
		len = p->fixed.len;
	}
	e = s + len;

	o = memmem(s, len, pass_prefix, LIT_LEN(pass_prefix));
	if (o == NULL) {
		parse_text(p, s, e, SPAN_VIEW_FULL |
		    (p->region == REGION_IN ? SPAN_VIEW_TIMING : 0));
		return;
	}

	/*
	 * A sentinel on this line: the whole-log view sees the line as it is;
	 * the timing view sees only the text inside regions, each region
	 * boundary acting as a line boundary (bench.py joins regions by "\n").
	 */
	set->pass_marker = 1;
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
		o = memmem(o, (size_t)(e - o), pass_prefix,
		    LIT_LEN(pass_prefix));
	}
	if (p->region == REGION_IN && seg != NULL)
		parse_text(p, seg, e, SPAN_VIEW_TIMING);
}

/* Text between line boundaries: split it as str.splitlines() does. */
static void
parse_text(struct strace_parser *p, const char *s, const char *e,
    uint32_t view)
{
	const char *start = s;
	size_t b;

	while (s < e) {
		unsigned char c = (unsigned char)*s;

		if ((c < 0x20 || c == 0xc2 || c == 0xe2) &&
		    (b = break_len(s, e)) != 0) {
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
parse_logical(struct strace_parser *p, const char *s, const char *e,
    uint32_t view)
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

	while ((n = ws_len(s, e)) != 0)
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
host_prefix_at(const char *s, const char *e)
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
	for (c = s; c < e && ((*c >= '0' && *c <= '9') ||
	    (*c >= 'a' && *c <= 'f') || (*c >= 'A' && *c <= 'F')); c++)
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
	if ((n = ws_len(s, e)) == 0)
		return 0;
	s += n;
	if (s >= e || *s == ':')
		return 0;
	c = memchr(s, ':', (size_t)(e - s));
	return c != NULL && ws_len(c + 1, e) != 0;
}

static void
parse_record(struct strace_parser *p, const char *s, const char *e,
    uint32_t view)
{
	static const char *const keys[] = { "pid=", "tid=", "inv=" };
	struct span_set *set = p->set;
	uint32_t line = set->lines;
	uint64_t v[3], depth, ts, dur, ver;
	const char *q, *name, *name_e, *hid, *hid_e, *a, *ae, *m;
	int ovf = 0, report = (view & SPAN_VIEW_FULL) != 0;
	const char *why = NULL;
	struct span *sp;
	size_t i, n;

	/* Head: "[STRACE]" \s+ "v=" \d+ ; anything less is not a record. */
	q = s + LIT_LEN(strace_tag);
	if ((n = ws_len(q, e)) == 0)
		return;
	q = skip_ws(q, e);
	if ((q = field_num(q, e, "v=", UINT64_MAX, &ver, &ovf)) == NULL)
		return;
	ovf = 0;

	for (i = 0; i < 3; i++) {
		a = skip_ws(q, e);
		if (a == q || (q = field_num(a, e, keys[i],
		    i == 2 ? UINT64_MAX : INT64_MAX, &v[i], &ovf)) == NULL) {
			why = keys[i];
			goto out;
		}
	}
	a = skip_ws(q, e);
	if (a == q || (size_t)(e - a) < 4 || memcmp(a, "hid=", 4) != 0) {
		why = "hid=";
		goto out;
	}
	hid = a + 4;
	for (hid_e = hid; hid_e < e && ((*hid_e >= '0' && *hid_e <= '9') ||
	    (*hid_e >= 'a' && *hid_e <= 'f') || (*hid_e >= 'A' &&
	    *hid_e <= 'F')); hid_e++)
		;
	if (hid_e == hid) {
		why = "hid=";
		goto out;
	}
	a = skip_ws(hid_e, e);
	if (a == hid_e || (q = field_num(a, e, "depth=", INT32_MAX, &depth,
	    &ovf)) == NULL) {
		why = "depth=";
		goto out;
	}
	a = skip_ws(q, e);
	if (a == q || (size_t)(e - a) < 5 || memcmp(a, "name=", 5) != 0) {
		why = "name=";
		goto out;
	}
	name = a + 5;
	for (name_e = name; name_e < e && ws_len(name_e, e) == 0; name_e++)
		;
	if (name_e == name) {
		why = "name=";
		goto out;
	}
	a = skip_ws(name_e, e);
	if (a == name_e || (q = field_num(a, e, "ts=", INT64_MAX, &ts,
	    &ovf)) == NULL) {
		why = "ts=";
		goto out;
	}
	a = skip_ws(q, e);
	if (a == q || (q = field_num(a, e, "dur=", INT64_MAX, &dur,
	    &ovf)) == NULL) {
		why = "dur=";
		goto out;
	}
	if (ovf) {
		if (report)
			span_set_diag(set, line, "[STRACE] record with a number "
			    "too large for colldb (over 63 bits), skipped");
		goto out;
	}

	/* attrs: up to the first host-log prefix, else the end; stripped. */
	ae = e;
	for (m = q; (m = memmem(m, (size_t)(e - m), "[mono_ns=", 9)) != NULL;
	    m++) {
		if (host_prefix_at(m, e)) {
			ae = m;
			break;
		}
	}
	a = skip_ws(q, ae);
	while (ae > a) {
		/* strip trailing whitespace: find the last code point */
		const char *lc = ae - 1;

		while (lc > a && ((unsigned char)*lc & 0xc0) == 0x80)
			lc--;
		if (ws_len(lc, ae) != (size_t)(ae - lc))
			break;
		ae = lc;
	}

	strbuf_reset(&p->name);
	if (memchr(name, '%', (size_t)(name_e - name)) != NULL)
		strace_decode_field(&p->name, name, (size_t)(name_e - name));
	else
		strbuf_add(&p->name, name, (size_t)(name_e - name));
	strbuf_reset(&p->hid);
	strbuf_add(&p->hid, hid, (size_t)(hid_e - hid));
	for (i = 0; i < p->hid.len; i++) {
		if (p->hid.buf[i] >= 'A' && p->hid.buf[i] <= 'F')
			p->hid.buf[i] += 'a' - 'A';
	}

	sp = span_set_push(set);
	sp->pid = (int64_t)v[0];
	sp->tid = (int64_t)v[1];
	sp->inv = v[2];
	sp->hid = span_set_intern(set, p->hid.buf, p->hid.len);
	sp->depth = (int32_t)depth;
	sp->name = span_set_intern(set, p->name.buf, p->name.len);
	sp->ts = (int64_t)ts;
	sp->dur = (int64_t)dur;
	sp->attrs = span_set_intern(set, a, (size_t)(ae - a));
	sp->line = line;
	sp->flags = view | span_flags_for(set, sp->name, sp->attrs);
out:
	if (why != NULL && report)
		span_set_diag(set, line, "malformed [STRACE] record (bad or missing "
		    "\"%s\" field), skipped", why);
}
