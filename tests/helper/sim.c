/* sim.c - in-process world simulator for unit tests; see sim.h. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "strbuf.h"
#include "xmalloc.h"

#include "sim.h"

struct sim_rank {
	struct transport t;
	struct exec ex;
	struct prog **q;	/* queued programs */
	size_t nq, aq;
	size_t cur;		/* index of the running program in q */
	size_t pc;		/* next micro-op of q[cur] */
	int started;		/* exec_reserve() done for q[cur] */
};

struct sim {
	int n;
	uint64_t area_size;
	uint8_t **areas;
	struct sim_rank *r;
	uint64_t ops;
};

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
		atomic_store(cell, v);
	else
		atomic_fetch_add(cell, v);
	return 0;
}

static int
sim_t_wait(struct transport *t, uint64_t off, enum wait_cmp cmp,
    int32_t expected, int32_t *seen)
{
	_Atomic int32_t *cell =
	    (_Atomic int32_t *)(sim_of(t)->areas[t->rank] + off);
	int32_t now = atomic_load(cell);

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
sim_t_get(struct transport *t, int peer, uint64_t src, void *dst,
    size_t bytes)
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
			prog_free(r->q[k]);
		free(r->q);
		exec_release(&r->ex);
		free(s->areas[i]);
	}
	free(s->areas);
	free(s->r);
	free(s);
}

int
sim_nranks(const struct sim *s)
{
	return s->n;
}

uint8_t *
sim_area(struct sim *s, int rank)
{
	return s->areas[rank];
}

uint64_t
sim_ops(const struct sim *s)
{
	return s->ops;
}

void
sim_push(struct sim *s, int rank, struct prog *p)
{
	struct sim_rank *r = &s->r[rank];

	if (p->gen != NULL) {
		/* a described program: the simulation steps through its ops,
		 * so it keeps them (small worlds only) */
		struct prog *m = prog_materialise(p);
		prog_free(p);
		p = m;
	}
	if (r->nq == r->aq) {
		r->aq = r->aq ? 2 * r->aq : 4;
		r->q = xreallocarray(r->q, r->aq, sizeof *r->q);
	}
	r->q[r->nq++] = p;
}

/* Skip finished (and empty) programs; the current op, or NULL. */
static const struct uop *
current(struct sim *s, int rank)
{
	struct sim_rank *r = &s->r[rank];

	while (r->cur < r->nq && r->pc >= r->q[r->cur]->nmops) {
		r->cur++;
		r->pc = 0;
		r->started = 0;
	}
	if (r->cur == r->nq)
		return NULL;
	if (!r->started) {
		exec_reserve(&r->ex, r->q[r->cur]->acc_bytes);
		r->started = 1;
	}
	return &r->q[r->cur]->mops[r->pc];
}

int
sim_done(const struct sim *s, int rank)
{
	return current((struct sim *)s, rank) == NULL;
}

int
sim_step(struct sim *s, int rank, char **cause)
{
	struct sim_rank *r = &s->r[rank];
	const struct uop *u = current(s, rank);
	char *why = NULL;
	int32_t seen;
	int rc;

	if (u == NULL)
		return 0;
	if (exec_check(u, s->n, s->area_size, r->q[r->cur]->acc_bytes,
		&why) != 0) {
		cause_set(cause, "rank %d op %zu (%s): %s", rank, r->pc,
		    prog_str_at(r->q[r->cur], u->name), why);
		free(why);
		return -1;
	}
	rc = exec_uop(&r->ex, u, &seen, &why);
	if (rc == EXEC_PENDING)
		return 0;
	if (rc != EXEC_OK) {
		cause_set(cause, "rank %d op %zu (%s): %s", rank, r->pc,
		    prog_str_at(r->q[r->cur], u->name), why ? why : "failed");
		free(why);
		return -1;
	}
	r->pc++;
	s->ops++;
	return 1;
}

long
sim_run_rank(struct sim *s, int rank, char **cause)
{
	long n = 0;
	int rc;

	while ((rc = sim_step(s, rank, cause)) == 1)
		n++;
	return rc < 0 ? -1 : n;
}

static int
deadlock(struct sim *s, char **cause)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "deadlock:");
	for (int i = 0; i < s->n; i++) {
		const struct uop *u = current(s, i);
		struct sim_rank *r = &s->r[i];

		if (u == NULL)
			continue;
		strbuf_addf(&sb, " rank %d at op %zu/%zu %s", i, r->pc,
		    r->q[r->cur]->nmops, prog_str_at(r->q[r->cur], u->name));
		if (u->kind == UOP_WAIT)
			strbuf_addf(&sb, " (cell @%llu %s %d, now %d);",
			    (unsigned long long)u->dst, wait_cmp_name(u->op),
			    u->value, *(int32_t *)(s->areas[i] + u->dst));
	}
	if (cause != NULL)
		*cause = strbuf_detach(&sb, NULL);
	else
		strbuf_release(&sb);
	return -1;
}

static uint64_t
rng_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int
sim_run(struct sim *s, enum sim_order order, uint64_t seed, char **cause)
{
	uint64_t rng = seed;
	int *stuck = xcalloc((size_t)s->n, sizeof *stuck);
	int rc = 0;

	for (;;) {
		int progress = 0, live = 0;

		for (int k = 0; k < s->n; k++)
			live += !sim_done(s, k);
		if (live == 0)
			break;
		if (order == SIM_RANDOM) {
			/* random rank, random burst; stuck[] counts a sweep */
			int i = (int)(rng_next(&rng) % (uint64_t)s->n);
			uint64_t burst = 1 + rng_next(&rng) % 8;
			int nstuck = 0, step = 0;

			for (uint64_t b = 0; b < burst; b++) {
				if ((step = sim_step(s, i, cause)) != 1)
					break;
				progress = 1;
			}
			if (step < 0) {
				rc = -1;
				break;
			}
			if (progress) {
				memset(stuck, 0, (size_t)s->n * sizeof *stuck);
				continue;
			}
			stuck[i] = 1;
			for (int k = 0; k < s->n; k++)
				nstuck += stuck[k] || sim_done(s, k);
			if (nstuck == s->n) {
				rc = deadlock(s, cause);
				break;
			}
			continue;
		}
		for (int k = 0; k < s->n && rc == 0; k++) {
			int i = order == SIM_REVERSE ? s->n - 1 - k : k;
			long did;

			if (order == SIM_ROUND_ROBIN) {
				did = sim_step(s, i, cause);
			} else {
				did = sim_run_rank(s, i, cause);
			}
			if (did < 0)
				rc = -1;
			else if (did > 0)
				progress = 1;
		}
		if (rc != 0)
			break;
		if (!progress) {
			rc = deadlock(s, cause);
			break;
		}
	}
	free(stuck);
	return rc;
}
