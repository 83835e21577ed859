/* parse.c - words, numbers, rank sets, shapes, regions; see parse.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "strbuf.h"
#include "xmalloc.h"

static void
words_push(struct words *w, struct strbuf *sb, size_t col, size_t len, int quoted)
{
	if (w->n == w->alloc) {
		w->alloc = w->alloc ? w->alloc * 2 : 8;
		w->v = xreallocarray(w->v, w->alloc, sizeof *w->v);
	}
	w->v[w->n].s = strbuf_detach(sb, NULL);
	w->v[w->n].col = col;
	w->v[w->n].len = len;
	w->v[w->n].quoted = quoted;
	w->n++;
}

void
words_free(struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].s);
	free(w->v);
	memset(w, 0, sizeof *w);
}

static int
closer_of(int c)
{
	return c == '[' ? ']' : c == '(' ? ')' : 0;
}

int
parse_line(const char *line, struct words *out, char **cause, size_t *err_col)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0, n = strlen(line);
	int rc = PARSE_OK;

	memset(out, 0, sizeof *out);
	while (i < n) {
		char stack[32];
		size_t opened[32]; /* where each open bracket is */
		size_t depth = 0, start;
		int quoted = 0;

		while (i < n && isspace((unsigned char)line[i]))
			i++;
		if (i >= n || line[i] == '#')
			break;
		start = i;
		strbuf_reset(&sb);
		while (i < n && (depth > 0 || !isspace((unsigned char)line[i]))) {
			char c = line[i];

			if (c == '"' || c == '\'') {
				size_t q = i++;
				quoted = 1;
				while (i < n && line[i] != c) {
					if (c == '"' && line[i] == '\\' &&
					    i + 1 < n) {
						char e = line[++i];
						strbuf_addch(&sb,
						    e == 'n'	 ? '\n' :
							e == 't' ? '\t' :
								   e);
					} else {
						strbuf_addch(&sb, line[i]);
					}
					i++;
				}
				if (i >= n) {
					rc = PARSE_INCOMPLETE;
					if (err_col != NULL)
						*err_col = q;
					cause_set(cause, "unclosed quote (%c)",
					    c);
					goto out;
				}
				i++;
				continue;
			}
			if (c == '[' || c == '(') {
				if (depth == sizeof stack) {
					rc = PARSE_ERROR;
					cause_set(cause,
					    "brackets nested too deeply");
					goto out;
				}
				opened[depth] = i;
				stack[depth++] = (char)closer_of(c);
			} else if (c == ']' || c == ')') {
				if (depth == 0 || stack[depth - 1] != c) {
					rc = PARSE_ERROR;
					if (err_col != NULL)
						*err_col = i;
					cause_set(cause, "unexpected '%c'", c);
					goto out;
				}
				depth--;
			}
			if (!(depth > 0 && isspace((unsigned char)c) && c != ' '))
				strbuf_addch(&sb, c);
			i++;
		}
		if (depth > 0) {
			rc = PARSE_INCOMPLETE;
			if (err_col != NULL)
				*err_col = opened[depth - 1];
			cause_set(cause, "unclosed '%c' (no '%c' after it)",
			    line[opened[depth - 1]], stack[depth - 1]);
			goto out;
		}
		words_push(out, &sb, start, i - start, quoted);
	}
out:
	strbuf_release(&sb);
	if (rc != PARSE_OK)
		words_free(out);
	return rc;
}

char *
words_rest(const struct words *w, const char *line, size_t i)
{
	size_t end;

	if (i >= w->n)
		return xstrdup("");
	end = w->v[w->n - 1].col + w->v[w->n - 1].len;
	return xstrndup(line + w->v[i].col, end - w->v[i].col);
}

void
rankset_clear(struct rankset *s)
{
	memset(s, 0, sizeof *s);
}

void
rankset_add(struct rankset *s, int r)
{
	s->w[r / 64] |= 1ull << (r % 64);
}

void
rankset_del(struct rankset *s, int r)
{
	s->w[r / 64] &= ~(1ull << (r % 64));
}

int
rankset_has(const struct rankset *s, int r)
{
	return r >= 0 && r < 64 * RANKSET_WORDS &&
	    ((s->w[r / 64] >> (r % 64)) & 1);
}

void
rankset_all(struct rankset *s, int nranks)
{
	rankset_clear(s);
	for (int r = 0; r < nranks; r++)
		rankset_add(s, r);
}

int
rankset_count(const struct rankset *s)
{
	int n = 0;

	for (int i = 0; i < RANKSET_WORDS; i++)
		n += __builtin_popcountll(s->w[i]);
	return n;
}

int
rankset_first(const struct rankset *s)
{
	for (int r = 0; r < 64 * RANKSET_WORDS; r++) {
		if (rankset_has(s, r))
			return r;
	}
	return -1;
}

char *
rankset_format(const struct rankset *s, int nranks)
{
	struct strbuf sb = STRBUF_INIT;
	int r = 0;

	if (rankset_count(s) == nranks)
		return xstrdup("@all");
	strbuf_addch(&sb, '@');
	while (r < nranks) {
		int e;
		if (!rankset_has(s, r)) {
			r++;
			continue;
		}
		for (e = r; e + 1 < nranks && rankset_has(s, e + 1); e++)
			;
		if (sb.len > 1)
			strbuf_addch(&sb, ',');
		if (e == r)
			strbuf_addf(&sb, "%d", r);
		else
			strbuf_addf(&sb, "%d-%d", r, e);
		r = e + 1;
	}
	return strbuf_detach(&sb, NULL);
}

static int
parse_rank_num(const char *s, size_t len, int nranks, int *out, char **cause)
{
	char buf[32];
	int64_t v;
	char *c2 = NULL;

	if (len == 0)
		return cause_set(cause, "missing rank number in a range or list");
	if (len >= sizeof buf)
		return cause_set(cause, "bad rank '%.*s' (expected a number)",
		    (int)len, s);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (parse_int(buf, &v, 0, &c2) != 0) {
		free(c2);
		return cause_set(cause, "bad rank '%s' (expected a number)", buf);
	}
	if (v < 0 || v >= nranks)
		return cause_set(cause,
		    "rank %lld out of range (world has %d ranks)", (long long)v,
		    nranks);
	*out = (int)v;
	return 0;
}

int
parse_ranks(const char *s, int nranks, struct rankset *out, char **cause)
{
	struct rankset set;
	const char *p;
	int negate = 0;

	if (s[0] != '@')
		return cause_set(cause,
		    "bad rank target '%s' (expected @R, @R,S, @R-S, @all or @!R)",
		    s);
	p = s + 1;
	if (strcmp(p, "all") == 0) {
		rankset_all(out, nranks);
		return 0;
	}
	if (*p == '!') {
		negate = 1;
		p++;
	}
	if (*p == '\0')
		return cause_set(cause,
		    "bad rank target '%s' (expected @R, @R,S, @R-S, @all or @!R)",
		    s);
	rankset_clear(&set);
	while (*p != '\0') {
		size_t len = strcspn(p, ",");
		const char *dash = memchr(p, '-', len);
		int lo, hi;

		if (dash != NULL && dash != p) {
			if (parse_rank_num(p, (size_t)(dash - p), nranks, &lo,
				cause) != 0 ||
			    parse_rank_num(dash + 1, len - (size_t)(dash - p) - 1,
				nranks, &hi, cause) != 0)
				return -1;
			if (hi < lo)
				return cause_set(cause,
				    "bad rank range '%.*s' (%d > %d)", (int)len,
				    p, lo, hi);
		} else {
			if (parse_rank_num(p, len, nranks, &lo, cause) != 0)
				return -1;
			hi = lo;
		}
		for (int r = lo; r <= hi; r++)
			rankset_add(&set, r);
		p += len;
		if (*p == ',') {
			p++;
			if (*p == '\0')
				return cause_set(cause,
				    "bad rank target '%s' (trailing comma)", s);
		}
	}
	if (negate) {
		struct rankset all;
		rankset_all(&all, nranks);
		for (int i = 0; i < RANKSET_WORDS; i++)
			all.w[i] &= ~set.w[i];
		set = all;
		if (rankset_count(&set) == 0)
			return cause_set(cause,
			    "rank target '%s' selects no rank", s);
	}
	*out = set;
	return 0;
}

static int
suffix_shift(const char *p, int *shift)
{
	char c = (char)tolower((unsigned char)*p);

	*shift = 0;
	if (c == '\0')
		return 0;
	if (c == 'k')
		*shift = 10;
	else if (c == 'm')
		*shift = 20;
	else if (c == 'g')
		*shift = 30;
	else if (c == 'b' && p[1] == '\0')
		return 0;
	else
		return -1;
	p++;
	if (*p == '\0' || strcmp(p, "B") == 0 || strcmp(p, "b") == 0 ||
	    strcmp(p, "iB") == 0 || strcmp(p, "ib") == 0)
		return 0;
	return -1;
}

int
parse_int(const char *s, int64_t *out, int with_suffix, char **cause)
{
	char *end;
	long long v;
	int shift = 0;

	if (*s == '\0' || isspace((unsigned char)*s))
		goto bad;
	errno = 0;
	{
		/* decimal, or hex with 0x: a leading 0 is not octal here */
		const char *d = s + (*s == '-' || *s == '+');
		int base = d[0] == '0' && (d[1] == 'x' || d[1] == 'X') ? 16 : 10;
		v = strtoll(s, &end, base);
	}
	if (end == s || errno == ERANGE)
		goto bad;
	if (*end != '\0') {
		if (!with_suffix || suffix_shift(end, &shift) != 0)
			goto bad;
		if (shift != 0 &&
		    (v > (INT64_MAX >> shift) || v < (INT64_MIN >> shift)))
			goto bad;
		v = (long long)((uint64_t)v << shift);
	}
	*out = v;
	return 0;
bad:
	return cause_set(cause,
	    with_suffix ?
		"bad number '%s' (expected an integer, optionally with k/M/G)" :
		"bad number '%s' (expected an integer)",
	    s);
}

int
parse_uint(const char *s, uint64_t *out, int with_suffix, char **cause)
{
	int64_t v;

	if (parse_int(s, &v, with_suffix, cause) != 0)
		return -1;
	if (v < 0)
		return cause_set(cause,
		    "bad number '%s' (expected a non-negative integer)", s);
	*out = (uint64_t)v;
	return 0;
}

int
parse_number(const char *s, double *out, char **cause)
{
	char *end;
	int64_t iv;

	if (parse_int(s, &iv, 0, NULL) == 0) {
		*out = (double)iv;
		return 0;
	}
	errno = 0;
	*out = strtod(s, &end);
	if (end == s || *end != '\0' || isspace((unsigned char)*s))
		return cause_set(cause, "bad number '%s' (expected a number)", s);
	if (errno == ERANGE && isinf(*out))
		return cause_set(cause,
		    "number '%s' out of range (beyond a double's 1.8e308)", s);
	return 0;
}

/* p without leading and trailing white space (the tail cut in place) */
static char *
trim(char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	for (char *e = p + strlen(p); e > p && isspace((unsigned char)e[-1]);)
		*--e = '\0';
	return p;
}

int
parse_shape(const char *s, uint64_t *dims, int max, int *ndim, char **cause)
{
	size_t n = strlen(s);
	char *body, *p, *comma;
	int rc = 0;

	*ndim = 0;
	if (n < 3 || s[0] != '[' || s[n - 1] != ']')
		return cause_set(cause, "bad shape '%s' (expected [d0,d1,...])",
		    s);
	body = xstrndup(s + 1, n - 2);
	/* every dimension written out: [4,] is a slip, not [4] */
	for (p = body; p != NULL; p = comma != NULL ? comma + 1 : NULL) {
		char *c2 = NULL;

		if ((comma = strchr(p, ',')) != NULL)
			*comma = '\0';
		p = trim(p);
		if (*ndim == max) {
			rc = cause_set(cause,
			    "shape '%s' has more than %d dimensions", s, max);
			break;
		}
		if (*p == '\0') {
			rc = cause_set(cause,
			    "empty dimension in shape %s (expected a positive integer between the commas)",
			    s);
			break;
		}
		if (parse_uint(p, &dims[*ndim], 0, &c2) != 0 || dims[*ndim] == 0) {
			free(c2);
			rc = cause_set(cause,
			    "bad dimension '%s' in shape %s (expected a positive integer)",
			    p, s);
			break;
		}
		(*ndim)++;
	}
	if (rc == 0 && *ndim == 0)
		rc = cause_set(cause, "bad shape '%s' (expected [d0,d1,...])", s);
	free(body);
	return rc;
}

int
parse_int_list(const char *s, int64_t *out, int max, int *n, char **cause)
{
	size_t len = strlen(s);
	char *body, *p, *comma;
	int rc = 0;

	*n = 0;
	if (len < 2 || s[0] != '[' || s[len - 1] != ']')
		return cause_set(cause, "bad list '%s' (expected [i0,i1,...])",
		    s);
	body = xstrndup(s + 1, len - 2);
	if (*trim(body) == '\0') {
		free(body);
		return cause_set(cause,
		    "empty list '%s' (expected [i0,i1,...])", s);
	}
	for (p = body; p != NULL; p = comma != NULL ? comma + 1 : NULL) {
		char *c2 = NULL;

		if ((comma = strchr(p, ',')) != NULL)
			*comma = '\0';
		p = trim(p);
		if (*n == max) {
			rc = cause_set(cause,
			    "list '%s' has more than %d entries", s, max);
			break;
		}
		if (*p == '\0') {
			rc = cause_set(cause,
			    "empty entry in %s (expected an integer between the commas)",
			    s);
			break;
		}
		if (parse_int(p, &out[*n], 0, &c2) != 0) {
			free(c2);
			rc = cause_set(cause,
			    "bad entry '%s' in %s (expected an integer)", p, s);
			break;
		}
		(*n)++;
	}
	free(body);
	return rc;
}

int
parse_region_syntax(const char *s, struct region_syntax *out, char **cause)
{
	const char *br = strchr(s, '[');
	size_t nlen = br != NULL ? (size_t)(br - s) : strlen(s);
	char *body, *p, *next;
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (nlen == 0 || nlen >= sizeof out->name)
		return cause_set(cause,
		    "bad region '%s' (expected NAME, NAME[i], NAME[i,j] or NAME[a:b])",
		    s);
	for (size_t i = 0; i < nlen; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '.' && s[i] != '-')
			return cause_set(cause, "bad window name '%.*s'",
			    (int)nlen, s);
	}
	memcpy(out->name, s, nlen);
	if (br == NULL)
		return 0;
	if (s[strlen(s) - 1] != ']')
		return cause_set(cause, "bad region '%s' (missing ']')", s);
	out->has_index = 1;
	out->bracket_col = nlen;
	body = xstrndup(br + 1, strlen(br) - 2);
	p = body;
	for (;;) {
		char *colon, *hi, *c2 = NULL;
		next = strchr(p, ',');
		if (next != NULL)
			*next = '\0';
		p = trim(p);
		if (out->nidx == 8) {
			rc = cause_set(cause, "too many indices in '%s'", s);
			break;
		}
		colon = strchr(p, ':');
		if (colon != NULL) {
			out->idx[out->nidx].slice = 1;
			*colon = '\0';
			p = trim(p);
			hi = trim(colon + 1);
			if (*p != '\0') {
				out->idx[out->nidx].has_lo = 1;
				if (parse_int(p, &out->idx[out->nidx].lo, 0,
					&c2) != 0)
					goto badnum;
			}
			if (*hi != '\0') {
				out->idx[out->nidx].has_hi = 1;
				if (parse_int(hi, &out->idx[out->nidx].hi, 0,
					&c2) != 0) {
					p = hi;
					goto badnum;
				}
			}
		} else {
			if (*p == '\0' ||
			    parse_int(p, &out->idx[out->nidx].lo, 0, &c2) != 0)
				goto badnum;
		}
		out->nidx++;
		if (next == NULL)
			break;
		p = next + 1;
		continue;
badnum:
		free(c2);
		rc = cause_set(cause,
		    "bad index '%s' in '%s' (expected an integer or a:b)", p, s);
		break;
	}
	free(body);
	return rc;
}

int
region_resolve(const struct region_syntax *rs, const uint64_t *shape, int ndim,
    uint64_t *first, uint64_t *count, int *is_cell, char **cause)
{
	uint64_t total = 1;

	for (int d = 0; d < ndim; d++)
		total *= shape[d];
	*is_cell = 0;
	if (!rs->has_index) {
		*first = 0;
		*count = total;
		return 0;
	}
	if (rs->nidx == 1) {
		int64_t lo = rs->idx[0].lo, hi;
		if (!rs->idx[0].slice) {
			if (lo < 0 || (uint64_t)lo >= total)
				return cause_set(cause,
				    "index %lld out of range for %s (%llu elements)",
				    (long long)lo, rs->name,
				    (unsigned long long)total);
			*first = (uint64_t)lo;
			*count = 1;
			*is_cell = 1;
			return 0;
		}
		lo = rs->idx[0].has_lo ? rs->idx[0].lo : 0;
		hi = rs->idx[0].has_hi ? rs->idx[0].hi : (int64_t)total;
		if (hi == lo && lo >= 0 && (uint64_t)hi <= total)
			return cause_set(cause,
			    "empty slice %lld:%lld of %s (a:b takes b > a)",
			    (long long)lo, (long long)hi, rs->name);
		if (lo < 0 || hi < lo || (uint64_t)hi > total)
			return cause_set(cause,
			    "slice %lld:%lld out of range for %s (%llu elements)",
			    (long long)lo, (long long)hi, rs->name,
			    (unsigned long long)total);
		*first = (uint64_t)lo;
		*count = (uint64_t)(hi - lo);
		return 0;
	}
	if (rs->nidx != ndim)
		return cause_set(cause, "%s has %d dimension%s, got %d indices",
		    rs->name, ndim, ndim == 1 ? "" : "s", rs->nidx);
	{
		uint64_t off = 0, stride = total;
		for (int d = 0; d < ndim; d++) {
			stride /= shape[d];
			if (rs->idx[d].slice) {
				int64_t lo =
				    rs->idx[d].has_lo ? rs->idx[d].lo : 0;
				int64_t hi = rs->idx[d].has_hi ?
				    rs->idx[d].hi :
				    (int64_t)shape[d];
				if (d != ndim - 1)
					return cause_set(cause,
					    "only the last index of %s may be a slice",
					    rs->name);
				if (lo < 0 || hi <= lo || (uint64_t)hi > shape[d])
					return cause_set(cause,
					    "slice %lld:%lld out of range for dimension %d of %s (size %llu)",
					    (long long)lo, (long long)hi, d,
					    rs->name,
					    (unsigned long long)shape[d]);
				*first = off + (uint64_t)lo;
				*count = (uint64_t)(hi - lo);
				return 0;
			}
			if (rs->idx[d].lo < 0 ||
			    (uint64_t)rs->idx[d].lo >= shape[d])
				return cause_set(cause,
				    "index %lld out of range for dimension %d of %s (size %llu)",
				    (long long)rs->idx[d].lo, d, rs->name,
				    (unsigned long long)shape[d]);
			off += (uint64_t)rs->idx[d].lo * stride;
		}
		*first = off;
		*count = 1;
		*is_cell = 1;
	}
	return 0;
}

void
nearest_try(struct nearest *n, const char *typed, const char *cand)
{
	size_t lt = strlen(typed), lc = strlen(cand);
	size_t whole = edit_distance(typed, cand), d = whole;

	/* a longer form (two letters more at least, of a name of three at
	 * least): the typed word's start, give or take a letter, is within
	 * one edit of the candidate */
	for (size_t k = lc - 1; lc >= 3 && lt >= lc + 2 && k <= lc + 1; k++) {
		char *head = xstrndup(typed, k);
		size_t p = edit_distance(head, cand);

		free(head);
		if (p <= 1)
			d = MIN(d, p);
	}
	if (d <= 2 && d < MAX(lt, lc) &&
	    (d < n->d || (d == n->d && whole < n->whole))) {
		n->best = cand;
		n->d = d;
		n->whole = whole;
	}
}

size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), w = lb + 1, d;
	size_t *m = xcalloc((la + 1) * w, sizeof *m);

	/* optimal string alignment: insert, delete, substitute, or swap two
	 * neighbours ("bfu" is one edit from "buf"), each 1 */
	for (size_t i = 0; i <= la; i++)
		m[i * w] = i;
	for (size_t j = 0; j <= lb; j++)
		m[j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t c =
			    m[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]);

			c = MIN(c, m[(i - 1) * w + j] + 1);
			c = MIN(c, m[i * w + j - 1] + 1);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1])
				c = MIN(c, m[(i - 2) * w + j - 2] + 1);
			m[i * w + j] = c;
		}
	}
	d = m[la * w + lb];
	free(m);
	return d;
}
