/*
 * record-expect.c - what `record FILE expect` adds after each command: the
 * state it observed, as `expect` lines, so a debugging session replays as
 * a regression test.  Before a command the cells of every window are
 * copied; after it (settled) each window's changed elements, on any rank,
 * become `expect @RANKS REGION == V[,V...]` lines, ranks with the same
 * values grouped (one value when all are equal), and when the ranks'
 * states changed, `expect @RANKS state S` lines.  Values are written so
 * they read back exactly in the window's dtype.  Windows larger than
 * REC_MAX_BYTES per rank are not copied (a comment says so once).
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

#define REC_MAX_BYTES (1u << 20)
#define REC_MAX_VALUES 256

struct snap_win {
	char name[SEG_NAME_MAX];
	uint64_t off, bytes, count;
	enum dtype dtype;
	uint8_t *data; /* nranks * bytes */
};

static struct {
	struct snap_win *w;
	int nw;
	enum rank_state *states; /* after the last command written */
	int have_states;
	char told[SEG_MAX_WINDOWS][SEG_NAME_MAX]; /* "too large" said */
	int ntold;
} snap;

static void
snap_free(void)
{
	for (int i = 0; i < snap.nw; i++)
		free(snap.w[i].data);
	free(snap.w);
	snap.w = NULL;
	snap.nw = 0;
}

void
record_expect_reset(void)
{
	snap_free();
	free(snap.states);
	snap.states = NULL;
	snap.have_states = 0;
	snap.ntold = 0;
}

static int
too_large(const struct seg_window *w, struct strbuf *out)
{
	if (w->bytes <= REC_MAX_BYTES)
		return 0;
	for (int i = 0; i < snap.ntold; i++) {
		if (strcmp(snap.told[i], w->name) == 0)
			return 1;
	}
	if (snap.ntold < SEG_MAX_WINDOWS && out != NULL) {
		snprintf(snap.told[snap.ntold++], SEG_NAME_MAX, "%s", w->name);
		strbuf_addf(out,
		    "# record: %s (%llu bytes a rank) is too large for expect lines\n",
		    w->name, (unsigned long long)w->bytes);
	}
	return 1;
}

void
record_expect_snap(struct session *s)
{
	struct seg_window *list[SEG_MAX_WINDOWS];
	int n;

	snap_free();
	view_sample(&s->view);
	n = view_win_list(&s->view, list, SEG_MAX_WINDOWS);
	snap.w = xcalloc((size_t)n + 1, sizeof *snap.w);
	for (int i = 0; i < n; i++) {
		struct snap_win *sw = &snap.w[snap.nw];

		if (too_large(list[i], NULL))
			continue;
		snprintf(sw->name, sizeof sw->name, "%s", list[i]->name);
		sw->off = list[i]->off;
		sw->bytes = list[i]->bytes;
		sw->count = list[i]->count;
		sw->dtype = (enum dtype)list[i]->dtype;
		sw->data = xmalloc((size_t)s->nranks * sw->bytes + 1);
		for (int r = 0; r < s->nranks; r++)
			view_read(&s->view, r, sw->off,
			    sw->data + (size_t)r * sw->bytes, sw->bytes);
		snap.nw++;
	}
}

/* The window as it was before the command (NULL: it did not exist). */
static const struct snap_win *
before(const struct seg_window *w)
{
	for (int i = 0; i < snap.nw; i++) {
		if (strcmp(snap.w[i].name, w->name) == 0 &&
		    snap.w[i].off == w->off && snap.w[i].bytes == w->bytes)
			return &snap.w[i];
	}
	return NULL;
}

static void
value_text(enum dtype dt, const uint8_t *base, uint64_t i, struct strbuf *sb)
{
	if (dt == DT_F64)
		strbuf_addf(sb, "%.17g", dtype_get(dt, base, i));
	else if (dtype_is_float(dt))
		strbuf_addf(sb, "%.9g", dtype_get(dt, base, i));
	else
		strbuf_addf(sb, "%lld", (long long)dtype_get_int(dt, base, i));
}

#define REC_MAX_RUNS 16

static void
region_name(const struct seg_window *w, uint64_t lo, uint64_t hi,
    struct strbuf *sb)
{
	if (lo == 0 && hi == w->count)
		strbuf_addstr(sb, w->name);
	else if (hi - lo == 1)
		strbuf_addf(sb, "%s[%llu]", w->name, (unsigned long long)lo);
	else
		strbuf_addf(sb, "%s[%llu:%llu]", w->name,
		    (unsigned long long)lo, (unsigned long long)hi);
}

/* One group's values of [lo, hi): one value when all are equal, a line
 * per run of equal values when a long region has few runs, else one line
 * listing every value. */
static void
group_lines(const struct seg_window *w, const char *ranks, const uint8_t *mine,
    uint64_t lo, uint64_t hi, struct strbuf *out)
{
	size_t esz = dtype_size((enum dtype)w->dtype);
	uint64_t n = hi - lo, runs = 1;

	for (uint64_t k = 1; k < n; k++)
		runs += memcmp(mine + (k - 1) * esz, mine + k * esz, esz) != 0;
	if (runs == 1 || (n > REC_MAX_RUNS * 2 && runs <= REC_MAX_RUNS)) {
		for (uint64_t k = 0; k < n;) {
			uint64_t e = k + 1;
			while (e < n &&
			    memcmp(mine + k * esz, mine + e * esz, esz) == 0)
				e++;
			strbuf_addf(out, "expect %s ", ranks);
			region_name(w, lo + k, lo + e, out);
			strbuf_addstr(out, " == ");
			value_text((enum dtype)w->dtype, mine, k, out);
			strbuf_addch(out, '\n');
			k = e;
		}
		return;
	}
	if (n > REC_MAX_VALUES) {
		strbuf_addf(out, "# record: %s ", ranks);
		region_name(w, lo, hi, out);
		strbuf_addf(out,
		    " changed in %llu runs of values; too many for expect lines\n",
		    (unsigned long long)runs);
		return;
	}
	strbuf_addf(out, "expect %s ", ranks);
	region_name(w, lo, hi, out);
	strbuf_addstr(out, " == ");
	for (uint64_t k = 0; k < n; k++) {
		if (k > 0)
			strbuf_addch(out, ',');
		value_text((enum dtype)w->dtype, mine, k, out);
	}
	strbuf_addch(out, '\n');
}

/* Whether rank r has window w: a domain's window is on its members only
 * (an expect on another rank would be an error). */
static int
has_window(struct session *s, const struct seg_window *w, int r)
{
	return w->domain == 0 || seg_domain_rank(&s->seg, w->domain, r) >= 0;
}

/* Expect lines for window w's elements [lo, hi) now held in cur, ranks
 * with the same values together (ranks that ended, or are not in w's
 * domain, cannot be read). */
static void
region_lines(struct session *s, const struct seg_window *w, const uint8_t *cur,
    uint64_t lo, uint64_t hi, struct strbuf *out)
{
	size_t esz = dtype_size((enum dtype)w->dtype);
	uint8_t *done = xcalloc((size_t)s->nranks, 1);

	for (int r = 0; r < s->nranks; r++) {
		const uint8_t *mine = cur + (size_t)r * w->bytes + lo * esz;
		struct rankset set;
		char *t;

		if (done[r] || !rank_alive(s, r) || !has_window(s, w, r))
			continue;
		rankset_clear(&set);
		for (int q = r; q < s->nranks; q++) {
			if (!done[q] && rank_alive(s, q) && has_window(s, w, q) &&
			    memcmp(mine, cur + (size_t)q * w->bytes + lo * esz,
				(hi - lo) * esz) == 0) {
				rankset_add(&set, q);
				done[q] = 1;
			}
		}
		t = rankset_format(&set, s->nranks);
		group_lines(w, t, mine, lo, hi, out);
		free(t);
	}
	free(done);
}

static void
state_lines(struct session *s, struct strbuf *out)
{
	enum rank_state *now = xcalloc((size_t)s->nranks, sizeof *now);
	int changed = !snap.have_states;
	uint8_t *done = xcalloc((size_t)s->nranks, 1);

	for (int r = 0; r < s->nranks; r++) {
		now[r] = view_state(&s->view, r);
		changed |= snap.have_states && snap.states[r] != now[r];
	}
	for (int r = 0; r < s->nranks && changed; r++) {
		struct rankset set;
		char *t;

		if (done[r])
			continue;
		rankset_clear(&set);
		for (int q = r; q < s->nranks; q++) {
			if (!done[q] && now[q] == now[r]) {
				rankset_add(&set, q);
				done[q] = 1;
			}
		}
		t = rankset_format(&set, s->nranks);
		strbuf_addf(out, "expect %s state %s\n", t,
		    rank_state_name(now[r]));
		free(t);
	}
	free(done);
	free(snap.states);
	snap.states = now;
	snap.have_states = 1;
}

void
record_expect_diff(struct session *s, struct strbuf *out)
{
	struct seg_window *list[SEG_MAX_WINDOWS];
	int n;

	view_sample(&s->view);
	n = view_win_list(&s->view, list, SEG_MAX_WINDOWS);
	for (int i = 0; i < n; i++) {
		const struct seg_window *w = list[i];
		const struct snap_win *old;
		size_t esz = dtype_size((enum dtype)w->dtype);
		uint64_t lo = UINT64_MAX, hi = 0;
		uint8_t *cur;

		if (too_large(w, out))
			continue;
		old = before(w);
		cur = xmalloc((size_t)s->nranks * w->bytes + 1);
		for (int r = 0; r < s->nranks; r++) {
			uint8_t *c = cur + (size_t)r * w->bytes;

			if (!has_window(s, w, r))
				continue;
			view_read(&s->view, r, w->off, c, w->bytes);
			for (uint64_t k = 0; k < w->count; k++) {
				int diff;

				if (old != NULL)
					diff = memcmp(c + k * esz,
						   old->data +
						       (size_t)r * old->bytes +
						       k * esz,
						   esz) != 0;
				else {
					diff = 0; /* new: changed where not zero */
					for (size_t b = 0; b < esz && !diff; b++)
						diff = c[k * esz + b] != 0;
				}
				if (diff) {
					lo = MIN(lo, k);
					hi = MAX(hi, k + 1);
				}
			}
		}
		if (hi > 0)
			region_lines(s, w, cur, lo, hi, out);
		free(cur);
	}
	state_lines(s, out);
}
