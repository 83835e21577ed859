/*
 * explore-count.c - every interleaving of the world, counted: a walk over
 * the states with the count of each memoised (paths from a state depend
 * only on the state), the yardstick `make bench` measures the reduction
 * against.
 */
#include <stdlib.h>
#include <string.h>

#include "explore-int.h"
#include "xmalloc.h"

/* ---- counting every interleaving -------------------------------------------- */

struct memo {
	struct u64map map; /* state -> paths from it (a double's bits) */
	size_t max;
	int full;
};

static uint64_t
state_hash(struct explore *x)
{
	uint64_t h = world_hash(x);

	for (int r = 0; r < x->n; r++) {
		const uint8_t *acc = sim_acc(x->sim, r);
		size_t bytes = 0;

		for (size_t seq = 0; seq < sim_nseq(x->sim, r); seq++)
			bytes = MAX(bytes, sim_prog(x->sim, r, seq)->acc_bytes);
		if (acc != NULL)
			h = world_hash_bytes(h, acc, bytes);
	}
	return h ? h : 1;
}

static double
count(struct explore *x, struct memo *m)
{
	uint64_t key = state_hash(x), *slot, bits;
	double total = 0;
	int fresh, any = 0;

	slot = u64map_slot(&m->map, key, &fresh);
	if (!fresh) {
		memcpy(&total, slot, sizeof total);
		return total;
	}
	if (m->map.n > m->max) {
		m->full = 1;
		return 0;
	}
	for (int p = 0; p < x->n && !m->full; p++) {
		const struct uop *u;

		if (sim_state(x->sim, p, &u) != SIM_READY)
			continue;
		any = 1;
		if (sim_step(x->sim, p, NULL) != 1)
			continue;
		total += count(x, m);
		sim_undo(x->sim);
	}
	total = any ? total : 1;
	/* states are acyclic: nothing reached from here is this one, but
	 * the table may have moved */
	slot = u64map_slot(&m->map, key, &fresh);
	memcpy(&bits, &total, sizeof bits);
	*slot = bits;
	return total;
}

double
explore_count_all(struct explore *x, uint64_t max_states, char **cause)
{
	struct memo m;
	double n;

	if (sim_check(x->sim, cause) != 0)
		return -1;
	memset(&m, 0, sizeof m);
	m.max = max_states;
	sim_record(x->sim, 1);
	n = count(x, &m);
	explore_rewind(x);
	u64map_release(&m.map);
	if (m.full) {
		cause_set(cause, "more than %llu states",
		    (unsigned long long)max_states);
		return -1;
	}
	return n;
}
