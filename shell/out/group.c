/* group.c - many ranks' lines, grouped; see group.h. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "out/group.h"
#include "strbuf.h"
#include "xmalloc.h"

static enum group_setting setting = GROUP_AUTO;

void
group_set(enum group_setting how)
{
	setting = how;
}

enum group_setting
group_setting(void)
{
	return setting;
}

int
group_wanted(int nranks)
{
	if (setting == GROUP_AUTO)
		return nranks >= GROUP_MIN_RANKS;
	return setting == GROUP_ON;
}

/* One number of a line: its value and how it was written. */
struct slot {
	double lo, hi;
	char *lo_text, *hi_text;
};

/* Lines alike are merged into one with ranges only when there are more
 * than this many different ones among them: 1023 ranks on one cell and
 * one on another say more as two lines than as one with ranges, 1024
 * ranks each on its own cell more as one. */
#define GROUP_EXACT_MAX 3

struct grp {
	char *key; /* template ('\1' for each number), then "\2k" */
	struct slot *slots;
	int nslots;
	int *ranks;
	char **texts; /* each rank's own line */
	int nranks, aranks;
	char *distinct[GROUP_EXACT_MAX]; /* the first few kinds of text */
	int ndistinct; /* how many kinds, GROUP_EXACT_MAX + 1: more */
};

struct group {
	enum group_how how;
	struct grp *v;
	size_t n, alloc;
	uint32_t *hash; /* open addressing: group index + 1 */
	size_t hcap;
	int cur_rank; /* the rank adding now, and what it added */
	char **seen;
	size_t nseen, aseen;
};

static uint32_t
fnv(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

struct group *
group_new(int nranks, enum group_how how)
{
	struct group *g = xcalloc(1, sizeof *g);

	(void)nranks;
	g->how = how;
	g->cur_rank = -1;
	return g;
}

/* The length of the number at s (digits, maybe one fraction), or 0. */
static size_t
number_at(const char *s)
{
	size_t n = 0;

	while (isdigit((unsigned char)s[n]))
		n++;
	if (n > 0 && s[n] == '.' && isdigit((unsigned char)s[n + 1])) {
		n++;
		while (isdigit((unsigned char)s[n]))
			n++;
	}
	return n;
}

/* text's template into key; its numbers into nums (values, starts, lens). */
static int
split(const struct group *g, const char *text, struct strbuf *key,
    double **vals, const char ***starts, size_t **lens)
{
	int n = 0, a = 0;

	*vals = NULL;
	*starts = NULL;
	*lens = NULL;
	for (const char *s = text; *s != '\0';) {
		size_t k = g->how == GROUP_ALIKE ? number_at(s) : 0;

		/* a number glued to a word ("row3") is still a number */
		if (k == 0) {
			strbuf_addch(key, *s++);
			continue;
		}
		if (n == a) {
			a = a ? 2 * a : 8;
			*vals = xreallocarray(*vals, (size_t)a, sizeof **vals);
			*starts =
			    xreallocarray(*starts, (size_t)a, sizeof **starts);
			*lens = xreallocarray(*lens, (size_t)a, sizeof **lens);
		}
		(*vals)[n] = strtod(s, NULL);
		(*starts)[n] = s;
		(*lens)[n] = k;
		n++;
		strbuf_addch(key, '\1');
		s += k;
	}
	return n;
}

static size_t
find(struct group *g, const char *key)
{
	size_t mask, i;

	if (g->hcap < 2 * (g->n + 1)) {
		size_t cap = g->hcap ? 2 * g->hcap : 64;

		free(g->hash);
		g->hash = xcalloc(cap, sizeof *g->hash);
		g->hcap = cap;
		for (size_t k = 0; k < g->n; k++) {
			for (i = fnv(g->v[k].key) & (cap - 1); g->hash[i] != 0;
			     i = (i + 1) & (cap - 1))
				;
			g->hash[i] = (uint32_t)k + 1;
		}
	}
	mask = g->hcap - 1;
	for (i = fnv(key) & mask; g->hash[i] != 0; i = (i + 1) & mask) {
		if (strcmp(g->v[g->hash[i] - 1].key, key) == 0)
			return g->hash[i] - 1;
	}
	return SIZE_MAX;
}

static size_t
insert(struct group *g, const char *key, int nslots)
{
	size_t mask, i;
	struct grp *p;

	if (g->n == g->alloc) {
		g->alloc = g->alloc ? 2 * g->alloc : 16;
		g->v = xreallocarray(g->v, g->alloc, sizeof *g->v);
	}
	find(g, key); /* grows the table */
	p = &g->v[g->n];
	memset(p, 0, sizeof *p);
	p->key = xstrdup(key);
	p->nslots = nslots;
	p->slots = xcalloc(nslots > 0 ? (size_t)nslots : 1, sizeof *p->slots);
	mask = g->hcap - 1;
	for (i = fnv(key) & mask; g->hash[i] != 0; i = (i + 1) & mask)
		;
	g->hash[i] = (uint32_t)g->n + 1;
	return g->n++;
}

/* How often rank has added template t before (its own sequence). */
static int
occurrence(struct group *g, int rank, const char *t)
{
	int k = 0;

	if (rank != g->cur_rank) {
		for (size_t i = 0; i < g->nseen; i++)
			free(g->seen[i]);
		g->nseen = 0;
		g->cur_rank = rank;
	}
	for (size_t i = 0; i < g->nseen; i++)
		k += strcmp(g->seen[i], t) == 0;
	if (g->nseen == g->aseen) {
		g->aseen = g->aseen ? 2 * g->aseen : 8;
		g->seen = xreallocarray(g->seen, g->aseen, sizeof *g->seen);
	}
	g->seen[g->nseen++] = xstrdup(t);
	return k;
}

void
group_add(struct group *g, int rank, const char *text)
{
	struct strbuf key = STRBUF_INIT;
	double *vals;
	const char **starts;
	size_t *lens, at;
	int n = split(g, text, &key, &vals, &starts, &lens);
	struct grp *p;

	strbuf_addf(&key, "\2%d", occurrence(g, rank, key.buf));
	at = find(g, key.buf);
	if (at == SIZE_MAX)
		at = insert(g, key.buf, n);
	p = &g->v[at];
	for (int i = 0; i < n && i < p->nslots; i++) {
		struct slot *sl = &p->slots[i];

		if (sl->lo_text == NULL || vals[i] < sl->lo) {
			free(sl->lo_text);
			sl->lo_text = xstrndup(starts[i], lens[i]);
			sl->lo = vals[i];
		}
		if (sl->hi_text == NULL || vals[i] > sl->hi) {
			free(sl->hi_text);
			sl->hi_text = xstrndup(starts[i], lens[i]);
			sl->hi = vals[i];
		}
	}
	if (p->nranks == p->aranks) {
		p->aranks = p->aranks ? 2 * p->aranks : 4;
		p->ranks =
		    xreallocarray(p->ranks, (size_t)p->aranks, sizeof *p->ranks);
		p->texts =
		    xreallocarray(p->texts, (size_t)p->aranks, sizeof *p->texts);
	}
	p->ranks[p->nranks] = rank;
	p->texts[p->nranks++] = xstrdup(text);
	if (p->ndistinct <= GROUP_EXACT_MAX) {
		int seen = 0;

		for (int i = 0; i < p->ndistinct && i < GROUP_EXACT_MAX; i++)
			seen |= strcmp(p->distinct[i], text) == 0;
		if (!seen && p->ndistinct < GROUP_EXACT_MAX)
			p->distinct[p->ndistinct] = p->texts[p->nranks - 1];
		p->ndistinct += !seen;
	}
	free(vals);
	free(starts);
	free(lens);
	strbuf_release(&key);
}

static int
by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* "1-3,5" */
static void
ranks_text(int *r, int n, struct strbuf *sb)
{
	qsort(r, (size_t)n, sizeof *r, by_int); /* (ranks come in order) */
	for (int i = 0; i < n;) {
		int e = i;

		while (e + 1 < n && r[e + 1] == r[e] + 1)
			e++;
		if (sb->len > 0)
			strbuf_addch(sb, ',');
		if (e == i)
			strbuf_addf(sb, "%d", r[i]);
		else
			strbuf_addf(sb, "%d-%d", r[i], r[e]);
		i = e + 1;
	}
}

void
group_each(struct group *g, group_fn fn, void *arg)
{
	struct strbuf rk = STRBUF_INIT, text = STRBUF_INIT;

	for (size_t k = 0; k < g->n; k++) {
		struct grp *p = &g->v[k];
		int slot = 0;

		if (p->ndistinct > 1 && p->ndistinct <= GROUP_EXACT_MAX) {
			/* a few kinds of line: each kind on its own */
			char *done = xcalloc((size_t)p->nranks, 1);
			int *sub =
			    xreallocarray(NULL, (size_t)p->nranks, sizeof *sub);

			for (int i = 0; i < p->nranks; i++) {
				int n = 0;

				if (done[i])
					continue;
				for (int j = i; j < p->nranks; j++) {
					if (!done[j] &&
					    strcmp(p->texts[i], p->texts[j]) ==
						0) {
						done[j] = 1;
						sub[n++] = p->ranks[j];
					}
				}
				strbuf_reset(&rk);
				ranks_text(sub, n, &rk);
				fn(arg, rk.buf, n, p->texts[i]);
			}
			free(done);
			free(sub);
			continue;
		}
		strbuf_reset(&rk);
		strbuf_reset(&text);
		ranks_text(p->ranks, p->nranks, &rk);
		for (const char *s = p->key; *s != '\0' && *s != '\2'; s++) {
			const struct slot *sl = &p->slots[slot];

			if (*s != '\1') {
				strbuf_addch(&text, *s);
				continue;
			}
			strbuf_addstr(&text, sl->lo_text);
			if (sl->hi > sl->lo)
				strbuf_addf(&text, "..%s", sl->hi_text);
			slot++;
		}
		fn(arg, rk.buf, p->nranks, text.buf);
	}
	strbuf_release(&rk);
	strbuf_release(&text);
}

void
group_free(struct group *g)
{
	if (g == NULL)
		return;
	for (size_t k = 0; k < g->n; k++) {
		struct grp *p = &g->v[k];

		for (int i = 0; i < p->nslots; i++) {
			free(p->slots[i].lo_text);
			free(p->slots[i].hi_text);
		}
		for (int i = 0; i < p->nranks; i++)
			free(p->texts[i]);
		free(p->texts);
		free(p->slots);
		free(p->ranks);
		free(p->key);
	}
	for (size_t i = 0; i < g->nseen; i++)
		free(g->seen[i]);
	free(g->seen);
	free(g->v);
	free(g->hash);
	free(g);
}

const char *
group_after_rank(const char *line)
{
	const char *p = line;

	if (strncmp(p, "rank ", 5) != 0 || !isdigit((unsigned char)p[5]))
		return line;
	for (p += 5; isdigit((unsigned char)*p); p++)
		;
	return p;
}

const char *
group_ranks_word(int count)
{
	return count == 1 ? "rank" : "ranks";
}

void
rank_lines_begin(struct rank_lines *rl, int nranks, enum group_how how,
    const char *indent, struct strbuf *out)
{
	rl->g = group_wanted(nranks) ? group_new(nranks, how) : NULL;
	rl->indent = indent;
	rl->out = out;
}

void
rank_lines_add(struct rank_lines *rl, int rank, const char *text)
{
	if (rl->g != NULL)
		group_add(rl->g, rank, text);
	else
		strbuf_addf(rl->out, "%srank %d%s\n", rl->indent, rank, text);
}

static void
line_out(void *arg, const char *ranks, int count, const char *text)
{
	struct rank_lines *rl = arg;

	strbuf_addf(rl->out, "%s%s %s%s\n", rl->indent, group_ranks_word(count),
	    ranks, text);
}

void
rank_lines_end(struct rank_lines *rl)
{
	if (rl->g == NULL)
		return;
	group_each(rl->g, line_out, rl);
	group_free(rl->g);
	rl->g = NULL;
}
