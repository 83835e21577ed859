/*
 * explore.c - the micro-op world the explorer runs on: the simulator of
 * core/sim.c as a struct explore_sys, the end-of-execution checks
 * (reference results, the caller's predicate), replaying a
 * counterexample, and counting every interleaving.
 */
#include <stdlib.h>
#include <string.h>

#include "explore-int.h"
#include "xmalloc.h"

struct explore *
explore_new(int nranks, uint64_t area_size)
{
	struct explore *x = xcalloc(1, sizeof *x);

	x->n = nranks;
	x->area_size = area_size;
	x->sim = sim_new(nranks, area_size);
	return x;
}

void
explore_free(struct explore *x)
{
	if (x == NULL)
		return;
	for (size_t i = 0; i < x->nchecks; i++) {
		for (int r = 0; x->checks[i].want != NULL && r < x->n; r++)
			free(x->checks[i].want[r]);
		free(x->checks[i].want);
	}
	free(x->checks);
	for (int k = 0; k < XK__COUNT; k++)
		finding_release(&x->found[k]);
	free(x->ends);
	u64map_release(&x->endmap);
	free(x->flags);
	free(x->sigs);
	sim_free(x->sim);
	free(x);
}

uint8_t *
explore_area(struct explore *x, int rank)
{
	return sim_area(x->sim, rank);
}

struct sim *
explore_sim(struct explore *x)
{
	return x->sim;
}

uint32_t
explore_call(struct explore *x, unsigned flags)
{
	x->flags = xrealloc(x->flags, x->ncalls + 1);
	x->flags[x->ncalls] = (uint8_t)flags;
	x->sigs = xreallocarray(x->sigs, x->ncalls + 1, sizeof *x->sigs);
	x->sigs[x->ncalls][0] = x->sigs[x->ncalls][1] = 0;
	return x->ncalls++;
}

void
explore_call_signal(struct explore *x, uint32_t call, uint64_t off, uint64_t len)
{
	if (call < x->ncalls) {
		x->sigs[call][0] = off;
		x->sigs[call][1] = off + len;
	}
}

void
explore_push(struct explore *x, int rank, uint32_t call, struct prog *p)
{
	sim_push_tag(x->sim, rank, p, call);
}

void
explore_check_coll(struct explore *x, const struct coll_args *a, uint32_t times)
{
	struct explore_check *c;

	x->checks = xreallocarray(x->checks, x->nchecks + 1, sizeof *x->checks);
	c = &x->checks[x->nchecks++];
	memset(c, 0, sizeof *c);
	c->a = *a;
	c->a.buf.name = c->a.src.name = c->a.sig.name = NULL;
	c->times = times;
}

void
explore_predicate(struct explore *x, explore_pred_fn fn, void *arg)
{
	x->pred = fn;
	x->pred_arg = arg;
}

const struct explore_stats *
explore_stats(const struct explore *x)
{
	return &x->st;
}

const struct explore_finding *
explore_finding(const struct explore *x, enum explore_kind k)
{
	return x->have[k] ? &x->found[k] : NULL;
}

const uint64_t *
explore_end_states(const struct explore *x, size_t *n)
{
	*n = x->nends;
	return x->ends;
}

/* ---- the system ------------------------------------------------------------ */

static enum xnext
w_next(void *arg, int p, struct xev *ev)
{
	struct explore *x = arg;
	const struct uop *u;
	enum sim_state st = sim_state(x->sim, p, &u);
	size_t seq, pc, esz, n = 0;
	uint64_t bytes;

	if (st == SIM_DONE)
		return XN_DONE;
	sim_pos(x->sim, p, &seq, &pc);
	memset(ev, 0, sizeof *ev);
	ev->seq = (uint32_t)seq;
	ev->pc = (uint32_t)pc;
	ev->call = sim_tag(x->sim, p, seq);
	ev->flags = ev->call < x->ncalls ? x->flags[ev->call] : 0;
	ev->op = u->op;
	ev->value = u->value;
	esz = dtype_size(u->dtype);
	bytes = u->count * esz;
#define ACC(ar, o, l, w, at) \
	do { \
		if ((l) > 0) \
			ev->acc[n++] = (struct xacc){ .area = (ar), \
				.off = (o), \
				.len = (l), \
				.write = (w), \
				.atomic = (at) }; \
	} while (0)
	switch (u->kind) {
	case UOP_NOTIFY:
		ev->kind = XEV_NOTIFY;
		ev->cell_area = u->peer;
		ev->cell_off = u->dst;
		break;
	case UOP_WAIT:
		ev->kind = XEV_WAIT;
		ev->cell_area = p;
		ev->cell_off = u->dst;
		break;
	case UOP_PUT:
		ACC(p, u->src, bytes, 0, 0);
		ACC(u->peer, u->dst, bytes, 1, u->op == ATOMIC_ADD);
		break;
	case UOP_GET:
		ACC(u->peer, u->src, bytes, 0, 0);
		ACC(p, u->dst, bytes, 1, 0);
		break;
	case UOP_FILL:
		ACC(p, u->dst, bytes, 1, 0);
		break;
	case UOP_COPY:
	case UOP_REDUCE:
		if (u->ssp != SP_ACC)
			ACC(u->ssp == SP_PEER ? u->peer : p, u->src, bytes, 0, 0);
		if (u->dsp != SP_ACC)
			ACC(u->dsp == SP_PEER ? u->peer : p, u->dst, bytes, 1, 0);
		break;
	default:
		break;
	}
#undef ACC
	ev->nacc = (uint8_t)n;
	return st == SIM_READY ? XN_READY : XN_BLOCKED;
}

static int
w_step(void *arg, int p, char **cause)
{
	struct explore *x = arg;

	return sim_step(x->sim, p, cause) == 1 ?
	    0 :
	    cause_set(cause, "rank %d cannot take its step", p);
}

static void
w_undo(void *arg)
{
	sim_undo(((struct explore *)arg)->sim);
}

static int32_t
w_cell(void *arg, int area, uint64_t off)
{
	int32_t v;

	memcpy(&v, sim_area(((struct explore *)arg)->sim, area) + off, 4);
	return v;
}

static int32_t
w_cell_before(void *arg, size_t step, int area, uint64_t off)
{
	return sim_cell_before(((struct explore *)arg)->sim, step, area, off);
}

static uint8_t *
dup_area(const uint8_t *a, uint64_t n)
{
	uint8_t *p = xmalloc(n ? n : 1);

	memcpy(p, a, n);
	return p;
}

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

uint64_t
world_hash_bytes(uint64_t h, const uint8_t *b, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, b + i, 8);
		h = mix(h, v);
	}
	for (; i < n; i++)
		h = mix(h, b[i]);
	return h;
}

uint64_t
world_hash(struct explore *x)
{
	uint64_t h = 0x243f6a8885a308d3ull;

	for (int r = 0; r < x->n; r++) {
		size_t seq = 0, pc = 0;

		h = world_hash_bytes(h, sim_area(x->sim, r), x->area_size);
		if (sim_pos(x->sim, r, &seq, &pc) != 0)
			seq = pc = SIZE_MAX;
		h = mix(mix(h, seq), pc);
	}
	return h;
}

static uint64_t
w_hash(void *arg)
{
	return world_hash(arg);
}

static void
w_final(void *arg, struct explore *x)
{
	uint8_t **areas = xcalloc((size_t)x->n, sizeof *areas);
	char *why = NULL;

	(void)arg;
	for (int r = 0; r < x->n; r++)
		areas[r] = sim_area(x->sim, r);
	for (size_t i = 0; i < x->nchecks; i++) {
		const struct explore_check *c = &x->checks[i];
		uint64_t total = 0;
		int first = -1;

		for (int r = 0; r < x->n; r++) {
			struct coll_output o;
			uint8_t *want, *got;
			uint64_t w;

			if (coll_dense(&c->a, r) < 0)
				continue;
			coll_output(&c->a, x->n, r, &o);
			want = xmalloc(coll_output_bytes(&o) + 1);
			got = xmalloc(coll_output_bytes(&o) + 1);
			coll_output_copy(&o, c->want[r], want);
			coll_output_copy(&o, areas[r], got);
			w = coll_wrong(&c->a, x->n, &o, want, got);
			free(want);
			free(got);
			if (w != 0 && first < 0)
				first = r;
			total += w;
		}
		if (total != 0)
			explore_report(x, XK_WRONG, first, total, NULL);
	}
	if (x->pred != NULL && x->pred(x->pred_arg, x->n, areas, &why) != 0)
		explore_report(x, XK_EXPECT, -1, 0,
		    why ? why : "a predicate failed");
	free(why);
	free(areas);
}

void
explore_report(struct explore *x, enum explore_kind kind, int rank,
    uint64_t wrong, const char *text)
{
	struct explore_finding *f;

	if (x->eng == NULL)
		return;
	f = min_found(x->eng, kind, (uint32_t)x->eng->d, NO_EVENT, NO_EVENT, 0);
	if (f == NULL)
		return;
	f->rank = rank;
	f->wrong = wrong;
	f->text = text != NULL ? xstrdup(text) : NULL;
}

/* The reference: a's output, `times` calls after the start state. */
static void
references(struct explore *x)
{
	for (size_t i = 0; i < x->nchecks; i++) {
		struct explore_check *c = &x->checks[i];
		uint8_t **cur = xcalloc((size_t)x->n, sizeof *cur);

		for (int r = 0; r < x->n; r++)
			cur[r] = dup_area(sim_area(x->sim, r), x->area_size);
		for (uint32_t k = 0; k < c->times; k++) {
			uint8_t **next = xcalloc((size_t)x->n, sizeof *next);

			for (int r = 0; r < x->n; r++) {
				struct coll_output o;
				uint8_t *tmp;
				uint64_t n1;

				next[r] = dup_area(cur[r], x->area_size);
				if (coll_dense(&c->a, r) < 0)
					continue; /* not in its domain */
				coll_output(&c->a, x->n, r, &o);
				tmp = xmalloc(coll_output_bytes(&o) + 1);
				coll_expect(&c->a, x->n, r,
				    (const void *const *)cur, tmp);
				/* back into place: the output and RECV_COUNTS */
				n1 = o.count * dtype_size(o.dtype);
				memcpy(next[r] + o.off, tmp, n1);
				memcpy(next[r] + o.off2, tmp + n1, o.count2 * 4);
				free(tmp);
			}
			for (int r = 0; r < x->n; r++)
				free(cur[r]);
			free(cur);
			cur = next;
		}
		if (c->want != NULL) {
			for (int r = 0; r < x->n; r++)
				free(c->want[r]);
			free(c->want);
		}
		c->want = cur;
	}
}

/* A counterexample replays in the live shell only if no exclusive call
 * starts before the one before it is complete on every rank. */
static void
check_replayable(struct explore *x, struct explore_finding *f)
{
	uint32_t cmax = 0;
	int any = 0;

	for (size_t i = 0; i < f->nsteps; i++) {
		if (f->steps[i].call < x->ncalls &&
		    (x->flags[f->steps[i].call] & XEV_F_EXCLUSIVE)) {
			cmax = MAX(cmax, f->steps[i].call);
			any = 1;
		}
	}
	for (int r = 0; any && f->replayable && r < x->n; r++) {
		for (size_t seq = 0; seq < sim_nseq(x->sim, r); seq++) {
			uint32_t c = sim_tag(x->sim, r, seq);
			size_t have = 0;

			if (c >= cmax || c >= x->ncalls ||
			    !(x->flags[c] & XEV_F_EXCLUSIVE))
				continue;
			for (size_t i = 0; i < f->nsteps; i++)
				have += f->steps[i].proc == r &&
				    f->steps[i].seq == seq;
			if (have != sim_len(x->sim, r, seq))
				f->replayable = 0;
		}
	}
}

static const struct explore_sys *
world_sys(struct explore *x, struct explore_sys *sys)
{
	memset(sys, 0, sizeof *sys);
	sys->arg = x;
	sys->nprocs = x->n;
	sys->next = w_next;
	sys->step = w_step;
	sys->undo = w_undo;
	sys->cell = w_cell;
	sys->cell_before = w_cell_before;
	sys->final = w_final;
	sys->hash = w_hash;
	return sys;
}

int
explore_run(struct explore *x, const struct explore_opts *o, char **cause)
{
	struct explore_sys sys;
	int rc;

	if (sim_check(x->sim, cause) != 0)
		return -1;
	references(x);
	sim_record(x->sim, 1);
	rc = explore_sys_run(x, world_sys(x, &sys), o, cause);
	for (int k = 0; k < XK__COUNT; k++) {
		if (x->have[k])
			check_replayable(x, &x->found[k]);
	}
	return rc;
}

/* ---- replay -------------------------------------------------------------------- */

int
explore_replay(struct explore *x, const struct explore_finding *f, char **cause)
{
	sim_record(x->sim, 1);
	for (size_t i = 0; i < f->nsteps; i++) {
		const struct xstep *st = &f->steps[i];
		size_t seq, pc;

		if (sim_pos(x->sim, st->proc, &seq, &pc) != 0 || seq != st->seq ||
		    pc != st->pc || sim_step(x->sim, st->proc, cause) != 1) {
			explore_rewind(x);
			if (cause != NULL && *cause == NULL)
				cause_set(cause,
				    "step %zu of the counterexample does not replay",
				    i + 1);
			return -1;
		}
	}
	return 0;
}

void
explore_rewind(struct explore *x)
{
	while (sim_depth(x->sim) > 0)
		sim_undo(x->sim);
}

void
explore_diag(struct explore *x, const struct explore_finding *f,
    struct diag_in *in)
{
	struct diag_event *h = xcalloc(f->nsteps + 1, sizeof *h);
	size_t n = 0;

	for (size_t i = 0; i < f->nsteps; i++) {
		const struct xstep *st = &f->steps[i];
		const struct uop *u = sim_uop(x->sim, st->proc, st->seq, st->pc);
		struct diag_event *ev = &h[n];

		if (u->kind != UOP_NOTIFY && u->kind != UOP_PUT &&
		    u->kind != UOP_WAIT)
			continue;
		ev->kind = u->kind;
		ev->op = u->op;
		ev->writer = st->proc;
		ev->target = u->kind == UOP_WAIT ? st->proc : u->peer;
		ev->value = u->kind == UOP_PUT ? 0 : u->value;
		ev->off = u->dst;
		ev->bytes =
		    u->kind == UOP_PUT ? u->count * dtype_size(u->dtype) : 4;
		n++;
	}
	sim_diag(x->sim, h, n, in);
}

void
explore_diag_release(struct diag_in *in)
{
	const struct diag_event *h = in->hist;

	sim_diag_release(in);
	free((void *)h);
}
