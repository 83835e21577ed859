/* sim.c - a simulated world in one process; see sim.h. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "strbuf.h"
#include "xmalloc.h"

#include "sim.h"

struct sim_prog {
	struct prog *p;
	uint32_t tag;
};

struct sim_rank {
	struct transport t;
	struct exec ex;
	struct sim_prog *q; /* queued programs */
	size_t nq, aq;
	size_t cur; /* the running program; nq when done */
	size_t pc;  /* its next micro-op (always < its length) */
};

/* What one kept step overwrote. */
struct undo {
	int rank;
	size_t cur, pc; /* the rank's position before the step */
	int area;	/* rank whose area was written, or -1 - rank
				 * for an accumulator; INT32_MIN for none */
	uint64_t off, len;
	size_t saved; /* where the old bytes are in s->bytes */
};

struct sim {
	int n;
	uint64_t area_size;
	uint8_t **areas;
	struct sim_rank *r;
	uint64_t ops;
	int checked; /* sim_check() passed: skip per-op checks */
	int recording;
	struct undo *log;
	size_t nlog, alog;
	uint8_t *bytes;
	size_t nbytes, abytes;
};

#define NO_AREA INT32_MIN

static struct sim *
sim_of(struct transport *t)
{
	return t->priv;
}

static uint8_t *
sim_t_area(struct transport *t, int r)
{
	return sim_of(t)->areas[r];
}

static int
sim_t_notify(struct transport *t, int peer, uint64_t off, int32_t v,
    enum notify_op op)
{
	_Atomic int32_t *cell = (_Atomic int32_t *)(sim_of(t)->areas[peer] + off);

	if (op == NOTIFY_SET)
		atomic_store_explicit(cell, v, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(cell, v, memory_order_relaxed);
	return 0;
}

static int
sim_t_wait(struct transport *t, uint64_t off, enum wait_cmp cmp,
    int32_t expected, int32_t *seen)
{
	_Atomic int32_t *cell =
	    (_Atomic int32_t *)(sim_of(t)->areas[t->rank] + off);
	int32_t now = atomic_load_explicit(cell, memory_order_relaxed);

	if (seen != NULL)
		*seen = now;
	return wait_cmp_holds(cmp, now, expected) ? WAIT_OK : WAIT_PENDING;
}

static int
sim_t_put(struct transport *t, int peer, uint64_t dst, const void *src,
    size_t bytes)
{
	memmove(sim_of(t)->areas[peer] + dst, src, bytes);
	return 0;
}

static int
sim_t_put_add(struct transport *t, int peer, uint64_t dst, const void *src,
    size_t count, enum dtype dt)
{
	dtype_atomic_add(dt, sim_of(t)->areas[peer] + dst, src, count);
	return 0;
}

static int
sim_t_get(struct transport *t, int peer, uint64_t src, void *dst, size_t bytes)
{
	memmove(dst, sim_of(t)->areas[peer] + src, bytes);
	return 0;
}

static void
sim_t_close(struct transport *t)
{
	(void)t;
}

static const struct transport_ops sim_ops_table = {
	.name = "sim",
	.area = sim_t_area,
	.notify = sim_t_notify,
	.wait = sim_t_wait,
	.put = sim_t_put,
	.put_add = sim_t_put_add,
	.get = sim_t_get,
	.close = sim_t_close,
};

struct sim *
sim_new(int nranks, uint64_t area_size)
{
	struct sim *s = xcalloc(1, sizeof *s);

	s->n = nranks;
	s->area_size = area_size;
	s->areas = xcalloc((size_t)nranks, sizeof *s->areas);
	s->r = xcalloc((size_t)nranks, sizeof *s->r);
	for (int i = 0; i < nranks; i++) {
		struct sim_rank *r = &s->r[i];

		s->areas[i] = xcalloc(1, area_size ? area_size : 1);
		r->t.ops = &sim_ops_table;
		r->t.rank = i;
		r->t.nranks = nranks;
		r->t.area_size = area_size;
		r->t.nonblock = 1;
		r->t.priv = s;
		exec_init(&r->ex, &r->t);
	}
	return s;
}

void
sim_free(struct sim *s)
{
	if (s == NULL)
		return;
	for (int i = 0; i < s->n; i++) {
		struct sim_rank *r = &s->r[i];

		for (size_t k = 0; k < r->nq; k++)
			prog_free(r->q[k].p);
		free(r->q);
		exec_release(&r->ex);
		free(s->areas[i]);
	}
	free(s->areas);
	free(s->r);
	free(s->log);
	free(s->bytes);
	free(s);
}

int
sim_nranks(const struct sim *s)
{
	return s->n;
}

uint64_t
sim_area_size(const struct sim *s)
{
	return s->area_size;
}

uint8_t *
sim_area(struct sim *s, int rank)
{
	return s->areas[rank];
}

uint8_t *
sim_acc(struct sim *s, int rank)
{
	return s->r[rank].ex.acc;
}

uint64_t
sim_ops(const struct sim *s)
{
	return s->ops;
}

/* ---- the queue and the accessor (the one place that reads prog->mops) ---- */

size_t
sim_nseq(const struct sim *s, int rank)
{
	return s->r[rank].nq;
}

const struct prog *
sim_prog(const struct sim *s, int rank, size_t seq)
{
	return s->r[rank].q[seq].p;
}

uint32_t
sim_tag(const struct sim *s, int rank, size_t seq)
{
	return s->r[rank].q[seq].tag;
}

size_t
sim_len(const struct sim *s, int rank, size_t seq)
{
	return s->r[rank].q[seq].p->nmops;
}

const struct uop *
sim_uop(const struct sim *s, int rank, size_t seq, size_t pc)
{
	return &s->r[rank].q[seq].p->mops[pc];
}

/* Move past finished (and empty) programs. */
static void
settle_pos(struct sim *s, int rank)
{
	struct sim_rank *r = &s->r[rank];

	while (r->cur < r->nq && r->pc >= sim_len(s, rank, r->cur)) {
		r->cur++;
		r->pc = 0;
	}
}

void
sim_push_tag(struct sim *s, int rank, struct prog *p, uint32_t tag)
{
	struct sim_rank *r = &s->r[rank];

	if (p->gen != NULL) {
		/* a described program (a collective): the simulation steps
		 * through its micro-ops and undoes them, so it keeps them
		 * (its worlds are small) */
		struct prog *m = prog_materialise(p);
		prog_free(p);
		p = m;
	}
	if (r->nq == r->aq) {
		r->aq = r->aq ? 2 * r->aq : 4;
		r->q = xreallocarray(r->q, r->aq, sizeof *r->q);
	}
	r->q[r->nq].p = p;
	r->q[r->nq].tag = tag;
	r->nq++;
	s->checked = 0;
	settle_pos(s, rank);
}

void
sim_push(struct sim *s, int rank, struct prog *p)
{
	sim_push_tag(s, rank, p, 0);
}

int
sim_check(struct sim *s, char **cause)
{
	for (int i = 0; i < s->n; i++) {
		size_t acc = 0;

		for (size_t k = 0; k < s->r[i].nq; k++) {
			const struct prog *p = sim_prog(s, i, k);
			char *why = NULL;

			for (size_t pc = 0; pc < sim_len(s, i, k); pc++) {
				const struct uop *u = sim_uop(s, i, k, pc);

				if (u->kind == UOP_CALL || u->kind == UOP_LOAD)
					why = xasprintf("%s cannot be simulated",
					    uop_kind_name(u->kind));
				else if (exec_check(u, s->n, s->area_size,
					     p->acc_bytes, &why) == 0)
					continue;
				cause_set(cause, "rank %d %s op %zu (%s): %s",
				    i, p->title, pc + 1,
				    prog_str_at(p, u->name), why);
				free(why);
				return -1;
			}
			acc = MAX(acc, p->acc_bytes);
		}
		/* one reservation up front: a later, larger program must not
		 * reallocate what an undo may still need */
		exec_reserve(&s->r[i].ex, acc ? acc : 1);
	}
	s->checked = 1;
	return 0;
}

int
sim_pos(const struct sim *s, int rank, size_t *seq, size_t *pc)
{
	const struct sim_rank *r = &s->r[rank];

	if (r->cur >= r->nq)
		return -1;
	*seq = r->cur;
	*pc = r->pc;
	return 0;
}

enum sim_state
sim_state(const struct sim *s, int rank, const struct uop **out)
{
	const struct sim_rank *r = &s->r[rank];
	const struct uop *u;
	int32_t now;

	*out = NULL;
	if (r->cur >= r->nq)
		return SIM_DONE;
	*out = u = sim_uop(s, rank, r->cur, r->pc);
	if (u->kind != UOP_WAIT)
		return SIM_READY;
	now = *(const int32_t *)(s->areas[rank] + u->dst);
	return wait_cmp_holds(u->op, now, u->value) ? SIM_READY : SIM_BLOCKED;
}

int
sim_done(const struct sim *s, int rank)
{
	return s->r[rank].cur >= s->r[rank].nq;
}

/* ---- undo ------------------------------------------------------------- */

void
sim_record(struct sim *s, int on)
{
	s->recording = on;
	s->nlog = 0;
	s->nbytes = 0;
}

size_t
sim_depth(const struct sim *s)
{
	return s->nlog;
}

/* The bytes u will overwrite on rank: area (see struct undo), off, len. */
static void
dest_of(const struct uop *u, int rank, int *area, uint64_t *off, uint64_t *len)
{
	size_t esz = dtype_size(u->dtype);
	size_t asz = dtype_size(dtype_acc(u->dtype));

	*area = NO_AREA;
	*off = u->dst;
	*len = u->count * esz;
	switch (u->kind) {
	case UOP_NOTIFY:
		*area = u->peer;
		*len = 4;
		break;
	case UOP_PUT:
		*area = u->peer;
		break;
	case UOP_GET:
	case UOP_FILL:
		*area = rank;
		break;
	case UOP_COPY:
	case UOP_REDUCE:
		if (u->dsp == SP_ACC) {
			*area = -1 - rank;
			*len = u->count * asz;
		} else {
			*area = u->dsp == SP_PEER ? u->peer : rank;
		}
		break;
	default:
		break;
	}
}

static uint8_t *
area_ptr(const struct sim *s, int area)
{
	return area >= 0 ? s->areas[area] : s->r[-1 - area].ex.acc;
}

static void
keep(struct sim *s, int rank, const struct uop *u)
{
	struct sim_rank *r = &s->r[rank];
	struct undo *l;

	if (s->nlog == s->alog) {
		s->alog = s->alog ? 2 * s->alog : 256;
		s->log = xreallocarray(s->log, s->alog, sizeof *s->log);
	}
	l = &s->log[s->nlog++];
	l->rank = rank;
	l->cur = r->cur;
	l->pc = r->pc;
	dest_of(u, rank, &l->area, &l->off, &l->len);
	l->saved = s->nbytes;
	if (l->area == NO_AREA || l->len == 0)
		return;
	if (s->nbytes + l->len > s->abytes) {
		s->abytes = MAX(2 * s->abytes, s->nbytes + l->len + 4096);
		s->bytes = xrealloc(s->bytes, s->abytes);
	}
	memcpy(s->bytes + s->nbytes, area_ptr(s, l->area) + l->off, l->len);
	s->nbytes += l->len;
}

void
sim_undo(struct sim *s)
{
	struct undo *l;

	if (s->nlog == 0)
		return;
	l = &s->log[--s->nlog];
	if (l->area != NO_AREA && l->len != 0)
		memcpy(area_ptr(s, l->area) + l->off, s->bytes + l->saved,
		    l->len);
	s->nbytes = l->saved;
	s->r[l->rank].cur = l->cur;
	s->r[l->rank].pc = l->pc;
}

int32_t
sim_cell_before(const struct sim *s, size_t step, int area, uint64_t off)
{
	int32_t v;

	memcpy(&v, s->areas[area] + off, 4);
	for (size_t i = s->nlog; i-- > step;) {
		const struct undo *l = &s->log[i];

		if (l->area == area && off >= l->off && off + 4 <= l->off + l->len)
			memcpy(&v, s->bytes + l->saved + (off - l->off), 4);
	}
	return v;
}

/* ---- running ------------------------------------------------------------ */

int
sim_step(struct sim *s, int rank, char **cause)
{
	struct sim_rank *r = &s->r[rank];
	const struct prog *p;
	const struct uop *u;
	char *why = NULL;
	int32_t seen;
	int rc;

	if (sim_state(s, rank, &u) != SIM_READY)
		return 0;
	p = sim_prog(s, rank, r->cur);
	if (!s->checked &&
	    exec_check(u, s->n, s->area_size, p->acc_bytes, &why) != 0) {
		cause_set(cause, "rank %d op %zu (%s): %s", rank, r->pc,
		    prog_str_at(p, u->name), why);
		free(why);
		return -1;
	}
	if (r->pc == 0)
		exec_prepare(&r->ex, p); /* the accumulator: reserved above */
	if (s->recording)
		keep(s, rank, u);
	rc = exec_uop(&r->ex, u, &seen, &why);
	if (rc != EXEC_OK) {
		if (s->recording)
			s->nlog--;
		cause_set(cause, "rank %d op %zu (%s): %s", rank, r->pc,
		    prog_str_at(p, u->name), why ? why : "failed");
		free(why);
		return -1;
	}
	r->pc++;
	settle_pos(s, rank);
	s->ops++;
	return 1;
}
