/*
 * sim-run.c - whole runs of the simulator: one rank until it blocks,
 * every rank in a chosen order (the collective tests' schedulers), and
 * the world as diagnose wants it; see sim.h.
 */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xmalloc.h"

#include "sim.h"

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
	for (int i = 0; i < sim_nranks(s); i++) {
		const struct uop *u;
		size_t seq, pc;
		int32_t now;

		if (sim_state(s, i, &u) == SIM_DONE)
			continue;
		sim_pos(s, i, &seq, &pc);
		strbuf_addf(&sb, " rank %d at op %zu/%zu %s", i, pc,
		    sim_len(s, i, seq),
		    prog_str_at(sim_prog(s, i, seq), u->name));
		if (u->kind != UOP_WAIT)
			continue;
		memcpy(&now, sim_area(s, i) + u->dst, 4);
		strbuf_addf(&sb, " (cell @%llu %s %d, now %d);",
		    (unsigned long long)u->dst, wait_cmp_name(u->op), u->value,
		    now);
	}
	if (cause != NULL)
		*cause = strbuf_detach(&sb, NULL);
	else
		strbuf_release(&sb);
	return -1;
}

uint64_t
sim_rng(uint64_t *x)
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
	int *stuck = xcalloc((size_t)sim_nranks(s), sizeof *stuck);
	int rc = 0;

	for (;;) {
		int progress = 0, live = 0;

		for (int k = 0; k < sim_nranks(s); k++)
			live += !sim_done(s, k);
		if (live == 0)
			break;
		if (order == SIM_RANDOM) {
			/* random rank, random burst; stuck[] counts a sweep */
			int i = (int)(sim_rng(&rng) % (uint64_t)sim_nranks(s));
			uint64_t burst = 1 + sim_rng(&rng) % 8;
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
				memset(stuck, 0,
				    (size_t)sim_nranks(s) * sizeof *stuck);
				continue;
			}
			stuck[i] = 1;
			for (int k = 0; k < sim_nranks(s); k++)
				nstuck += stuck[k] || sim_done(s, k);
			if (nstuck == sim_nranks(s)) {
				rc = deadlock(s, cause);
				break;
			}
			continue;
		}
		for (int k = 0; k < sim_nranks(s) && rc == 0; k++) {
			int i = order == SIM_REVERSE ? sim_nranks(s) - 1 - k : k;
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

/* ---- diagnosis ----------------------------------------------------------- */

void
sim_diag(const struct sim *s, const struct diag_event *hist, size_t nhist,
    struct diag_in *in)
{
	int n = sim_nranks(s);
	struct diag_rank *dr = xcalloc((size_t)n, sizeof *dr);

	memset(in, 0, sizeof *in);
	in->nranks = n;
	in->r = dr;
	in->hist = hist;
	in->nhist = nhist;
	for (int q = 0; q < n; q++) {
		const struct uop *u;
		enum sim_state st = sim_state(s, q, &u);
		struct diag_prog *v;
		size_t cur, pc, nq = sim_nseq(s, q);

		dr[q].state = st == SIM_DONE ? RS_IDLE :
		    st == SIM_BLOCKED	     ? RS_BLOCKED :
					       RS_STOPPED;
		if (st == SIM_DONE)
			continue;
		if (u->kind == UOP_WAIT) {
			dr[q].waiting = 1;
			dr[q].wait_off = u->dst;
			dr[q].cmp = u->op;
			dr[q].expected = u->value;
			memcpy(&dr[q].now,
			    sim_area((struct sim *)s, q) + u->dst, 4);
		}
		sim_pos(s, q, &cur, &pc);
		v = xcalloc(nq - cur, sizeof *v);
		for (size_t k = cur; k < nq; k++) {
			const struct prog *p = sim_prog(s, q, k);

			v[k - cur].p = p;
			v[k - cur].nops = sim_len(s, q, k);
			v[k - cur].pc = k == cur ? pc : 0;
			v[k - cur].title = p->title;
		}
		dr[q].progs = v;
		dr[q].nprogs = nq - cur;
	}
}

void
sim_diag_release(struct diag_in *in)
{
	for (int q = 0; q < in->nranks; q++)
		free((void *)in->r[q].progs);
	free((void *)in->r);
	memset(in, 0, sizeof *in);
}
