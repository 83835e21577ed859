/*
 * explore-min.c - counterexamples: the steps a finding needs (the
 * closure of the steps involved under the search's happens-before), laid
 * out again with few context switches, and the choice of which finding of
 * a kind to keep.
 *
 * Any order of a closed set of steps that respects happens-before is an
 * execution of the same class (explore.h), so it shows the same failure.
 * The layout is greedy: keep running the current rank; when it cannot go
 * on, switch to the rank that can run longest; try every first rank.
 * Calls marked XEV_F_EXCLUSIVE are not overlapped: a step of such a call
 * waits until every step of the earlier ones is laid out (the live shell
 * starts a collective only when the last one is done everywhere).
 */
#include <stdlib.h>
#include <string.h>

#include "explore-int.h"
#include "xmalloc.h"

#define MIN_TRIES 128 /* candidates weighed per kind, after the first */

void
finding_release(struct explore_finding *f)
{
	free(f->steps);
	free(f->text);
	memset(f, 0, sizeof *f);
}

/* Steps < nsteps that i or j need (all when i is NO_EVENT); with
 * e->upto_call set, what the steps of calls up to it need. */
static void
closure(const struct xeng *e, uint32_t nsteps, uint32_t i, uint32_t j, uint8_t *in)
{
	size_t np = (size_t)e->np;

	if (i == NO_EVENT && e->upto_call != NO_EVENT) {
		memset(in, 0, nsteps);
		for (uint32_t m = nsteps; m-- > 0;) {
			const struct tev *t = &e->t[m];

			if (t->ev.call > e->upto_call && !in[m])
				continue;
			in[m] = 1;
			for (uint32_t k = 0; k < m; k++)
				in[k] |= e->t[k].own <=
				    e->vcd[(size_t)m * np + (size_t)e->t[k].proc];
		}
		return;
	}
	for (uint32_t m = 0; m < nsteps; m++) {
		const struct tev *t = &e->t[m];

		in[m] = i == NO_EVENT || m == i || m == j ||
		    t->own <= e->vcd[(size_t)i * np + (size_t)t->proc] ||
		    (j != NO_EVENT &&
			t->own <= e->vcd[(size_t)j * np + (size_t)t->proc]);
	}
}

/* Add the steps of exclusive calls before the last one present (and
 * what they need). */
static void
extend(const struct xeng *e, uint32_t nsteps, uint8_t *in)
{
	size_t np = (size_t)e->np;
	uint32_t cmax = 0;
	int any = 0, grew = 1;

	for (uint32_t m = 0; m < nsteps; m++) {
		if (in[m] && (e->t[m].ev.flags & XEV_F_EXCLUSIVE)) {
			cmax = MAX(cmax, e->t[m].ev.call);
			any = 1;
		}
	}
	while (any && grew) {
		grew = 0;
		for (uint32_t m = 0; m < nsteps; m++) {
			const struct tev *t = &e->t[m];

			if (in[m] || !(t->ev.flags & XEV_F_EXCLUSIVE) ||
			    t->ev.call >= cmax)
				continue;
			for (uint32_t k = 0; k <= m; k++) {
				const struct tev *u = &e->t[k];

				if (!in[k] &&
				    (k == m ||
					u->own <= e->vcd[(size_t)m * np +
						      (size_t)u->proc])) {
					in[k] = 1;
					grew = 1;
				}
			}
		}
	}
}

struct lin {
	const struct xeng *e;
	uint32_t **list; /* per proc: its steps in the set */
	size_t *len;
	size_t *pos;	/* per proc: laid out so far */
	uint32_t *left; /* per call: exclusive steps not laid out */
	uint32_t ncalls;
	int excl;
};

static int
ready(const struct lin *l, int r)
{
	size_t np = (size_t)l->e->np;
	uint32_t m;
	const struct tev *t;

	if (l->pos[r] >= l->len[r])
		return 0;
	m = l->list[r][l->pos[r]];
	t = &l->e->t[m];
	for (size_t q = 0; q < np; q++) {
		if ((int)q != r && l->pos[q] < l->e->vcd[(size_t)m * np + q])
			return 0;
	}
	if (l->excl && (t->ev.flags & XEV_F_EXCLUSIVE)) {
		for (uint32_t c = 0; c < t->ev.call && c < l->ncalls; c++) {
			if (l->left[c])
				return 0;
		}
	}
	return 1;
}

static void
emit(struct lin *l, int r)
{
	const struct tev *t = &l->e->t[l->list[r][l->pos[r]]];

	if (l->excl && (t->ev.flags & XEV_F_EXCLUSIVE) && t->ev.call < l->ncalls)
		l->left[t->ev.call]--;
	l->pos[r]++;
}

static void
unemit(struct lin *l, int r)
{
	const struct tev *t;

	l->pos[r]--;
	t = &l->e->t[l->list[r][l->pos[r]]];
	if (l->excl && (t->ev.flags & XEV_F_EXCLUSIVE) && t->ev.call < l->ncalls)
		l->left[t->ev.call]++;
}

/* Lay out the set from first rank `start`; the order in out (size total),
 * switches in *sw.  0, or -1 when stuck. */
static int
layout(struct lin *l, int start, size_t total, uint32_t *out, unsigned *sw)
{
	int np = l->e->np, cur = start;
	size_t n = 0;

	*sw = 0;
	while (n < total) {
		int best = -1;
		size_t bestrun = 0;

		if (cur >= 0 && ready(l, cur)) {
			out[n++] = l->list[cur][l->pos[cur]];
			emit(l, cur);
			continue;
		}
		for (int r = 0; r < np; r++) {
			size_t run = 0;

			while (ready(l, r)) {
				emit(l, r);
				run++;
			}
			for (size_t k = 0; k < run; k++)
				unemit(l, r);
			if (run > bestrun) {
				best = r;
				bestrun = run;
			}
		}
		if (best < 0)
			return -1;
		if (n > 0)
			(*sw)++;
		cur = best;
	}
	return 0;
}

/* Best layout of the set in; steps in *out.  0 or -1 (stuck). */
static int
linearize(const struct xeng *e, const uint8_t *in, uint32_t nsteps, int excl,
    struct xstep **out, size_t *nout, unsigned *switches)
{
	size_t np = (size_t)e->np, total = 0;
	struct lin l;
	uint32_t *order, *best = NULL;
	unsigned bestsw = 0;
	int rc = -1;

	memset(&l, 0, sizeof l);
	l.e = e;
	l.excl = excl;
	l.ncalls = e->x->ncalls;
	l.list = xcalloc(np, sizeof *l.list);
	l.len = xcalloc(np, sizeof *l.len);
	l.pos = xcalloc(np, sizeof *l.pos);
	l.left = xcalloc(l.ncalls + 1, sizeof *l.left);
	for (uint32_t m = 0; m < nsteps; m++) {
		if (!in[m])
			continue;
		total++;
		l.len[e->t[m].proc]++;
	}
	for (size_t r = 0; r < np; r++)
		l.list[r] = xcalloc(l.len[r] + 1, sizeof **l.list), l.len[r] = 0;
	for (uint32_t m = 0; m < nsteps; m++) {
		const struct tev *t = &e->t[m];

		if (!in[m])
			continue;
		l.list[t->proc][l.len[t->proc]++] = m;
	}
	order = xcalloc(total + 1, sizeof *order);
	best = xcalloc(total + 1, sizeof *best);
	for (size_t start = 0; start < np; start++) {
		unsigned sw;

		if (l.len[start] == 0 && total > 0)
			continue;
		memset(l.pos, 0, np * sizeof *l.pos);
		memset(l.left, 0, (l.ncalls + 1) * sizeof *l.left);
		for (uint32_t m = 0; m < nsteps; m++) {
			const struct tev *t = &e->t[m];

			if (in[m] && (t->ev.flags & XEV_F_EXCLUSIVE) &&
			    t->ev.call < l.ncalls)
				l.left[t->ev.call]++;
		}
		if (layout(&l, (int)start, total, order, &sw) != 0)
			continue;
		if (rc != 0 || sw < bestsw) {
			memcpy(best, order, total * sizeof *best);
			bestsw = sw;
			rc = 0;
		}
		if (total == 0)
			break;
	}
	if (rc == 0) {
		*out = xcalloc(total + 1, sizeof **out);
		for (size_t i = 0; i < total; i++) {
			const struct tev *t = &e->t[best[i]];

			(*out)[i].proc = t->proc;
			(*out)[i].seq = t->ev.seq;
			(*out)[i].pc = t->ev.pc;
			(*out)[i].call = t->ev.call;
		}
		*nout = total;
		*switches = bestsw;
	}
	for (size_t r = 0; r < np; r++)
		free(l.list[r]);
	free(l.list);
	free(l.len);
	free(l.pos);
	free(l.left);
	free(order);
	free(best);
	return rc;
}

struct explore_finding *
min_found(struct xeng *e, enum explore_kind k, uint32_t nsteps, uint32_t i,
    uint32_t j, int unusual)
{
	struct explore *x = e->x;
	struct explore_finding *f = &x->found[k];
	struct xstep *steps = NULL;
	size_t n = 0;
	unsigned sw = 0;
	uint8_t *in;
	int rep = 1, better;

	if (x->have[k] &&
	    (x->tried[k] >= MIN_TRIES || unusual < x->found_unusual[k]))
		return NULL;
	x->tried[k]++;
	in = xcalloc(nsteps + 1, 1);
	closure(e, nsteps, i, j, in);
	extend(e, nsteps, in);
	if (linearize(e, in, nsteps, 1, &steps, &n, &sw) != 0) {
		rep = 0;
		closure(e, nsteps, i, j, in);
		if (linearize(e, in, nsteps, 0, &steps, &n, &sw) != 0)
			BUG("no layout of a closed set of steps");
	}
	free(in);
	better = !x->have[k] || unusual > x->found_unusual[k] ||
	    (unusual == x->found_unusual[k] && rep > f->replayable) ||
	    (unusual == x->found_unusual[k] && rep == f->replayable &&
		(sw < f->switches || (sw == f->switches && n < f->nsteps)));
	if (!better) {
		free(steps);
		return NULL;
	}
	finding_release(f);
	f->kind = k;
	f->steps = steps;
	f->nsteps = n;
	f->switches = sw;
	f->replayable = rep;
	f->a.at.proc = f->b.at.proc = -1;
	f->rank = -1;
	x->have[k] = 1;
	x->found_unusual[k] = unusual;
	return f;
}
