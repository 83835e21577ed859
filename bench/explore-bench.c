/*
 * explore-bench.c - what the schedule explorer costs and saves
 * (core/explore.h): executions and micro-ops per second on proofs of the
 * built-in collectives, and for three small cases the executions explored
 * against every interleaving (counted exactly, memoised over states).
 * Not a test: nothing here asserts a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "explore.h"
#include "prog.h"

static struct win_ref
win(uint64_t *next, enum dtype dt, uint64_t a, uint64_t b)
{
	struct win_ref w;

	memset(&w, 0, sizeof w);
	w.dtype = dt;
	w.ndim = b ? 2 : 1;
	w.shape[0] = a;
	w.shape[1] = b;
	w.count = a * (b ? b : 1);
	w.off = *next;
	*next += (w.count * dtype_size(dt) + 31) / 32 * 32;
	return w;
}

/* Collective a on n ranks, called `calls` times, checked; extra: root
 * refills its buffer after the first call (lesson 12). */
static struct explore *
world(const struct coll_args *a, int n, int calls, uint64_t area, int refill)
{
	struct explore *x = explore_new(n, area);

	for (int r = 0; r < n; r++) {
		float *b = (float *)(explore_area(x, r) + a->buf.off);

		for (uint64_t i = 0;
		     a->kind != COLL_BARRIER && i < a->buf.count; i++)
			b[i] = (float)(r + 1);
	}
	for (int k = 0; k < calls; k++) {
		uint32_t c = explore_call(x, XEV_F_SELFCLEAR | XEV_F_EXCLUSIVE);

		explore_call_signal(x, c, a->sig.off, a->sig.count * 4);
		for (int r = 0; r < n; r++)
			explore_push(x, r, c, coll_build(a, n, r));
	}
	if (refill) {
		struct prog *p = prog_new("fill");
		struct uop u;

		memset(&u, 0, sizeof u);
		u.kind = UOP_FILL;
		u.dtype = DT_F32;
		u.dst = a->buf.off;
		u.count = a->buf.count;
		u.fval = 9;
		prog_add(p, &u);
		explore_push(x, 0, explore_call(x, 0), p);
	} else if (a->kind != COLL_BARRIER) {
		explore_check_coll(x, a, (uint32_t)calls);
	}
	return x;
}

static void
args(struct coll_args *a, enum coll_kind k, enum coll_mode m, int n,
    uint64_t count, uint64_t *area)
{
	uint64_t next = 0, nn = (uint64_t)n;

	memset(a, 0, sizeof *a);
	a->kind = k;
	a->mode = m;
	a->has_sig = true;
	a->strict = true;
	if (k != COLL_BARRIER)
		a->buf = win(&next, DT_F32, count, 0);
	a->sig = m == MODE_RING ? win(&next, DT_I32, 2 * nn - 2, nn) :
				  win(&next, DT_I32, nn, 1);
	*area = next;
}

static int
explore_once(struct explore *x, const struct explore_stats **st)
{
	struct explore_opts o = { .preempt = -1 };
	char *cause = NULL;

	if (explore_run(x, &o, &cause) != 0) {
		fprintf(stderr, "explore-bench: %s\n", cause);
		free(cause);
		return -1;
	}
	*st = explore_stats(x);
	return 0;
}

int
main(void)
{
	static const struct {
		const char *name;
		enum coll_kind k;
		enum coll_mode m;
		int n;
		uint64_t count;
	} speed[] = {
		{ "allreduce ring, 4 ranks, 2 calls", COLL_ALLREDUCE, MODE_RING,
		    4, 64 },
		{ "allreduce mesh, 4 ranks, 2 calls", COLL_ALLREDUCE, MODE_MESH,
		    4, 64 },
		{ "barrier, 4 ranks, 2 calls", COLL_BARRIER, MODE_MESH, 4, 0 },
	};
	static const struct {
		const char *name;
		enum coll_kind k;
		int n, calls, refill;
	} cut[] = {
		{ "barrier, 3 ranks, 2 calls", COLL_BARRIER, 3, 2, 0 },
		{ "allreduce mesh, 2 ranks, 2 calls", COLL_ALLREDUCE, 2, 2, 0 },
		{ "broadcast + refill (lesson 12), 3 ranks", COLL_BROADCAST, 3,
		    1, 1 },
	};
	int rc = 0;

	printf("%-38s %10s %12s %14s\n", "exhaustive proof", "executions",
	    "executions/s", "micro-ops/s");
	for (size_t i = 0; i < sizeof speed / sizeof speed[0]; i++) {
		const struct explore_stats *st;
		struct coll_args a;
		struct explore *x;
		uint64_t area, execs = 0, steps = 0, one = 0;
		double secs = 0;

		args(&a, speed[i].k, speed[i].m, speed[i].n, speed[i].count,
		    &area);
		/* repeat until a second has gone by, for a steady figure */
		while (secs < 1.0 && rc == 0) {
			x = world(&a, speed[i].n, 2, area, 0);
			if (explore_once(x, &st) != 0)
				rc = 1;
			else {
				one = st->executions;
				execs += st->executions;
				steps += st->steps;
				secs += st->seconds;
			}
			explore_free(x);
		}
		printf("%-38s %10llu %12.0f %14.0f\n", speed[i].name,
		    (unsigned long long)one, (double)execs / secs,
		    (double)steps / secs);
	}
	printf("\n%-42s %10s %18s %12s\n", "reduction", "explored",
	    "all interleavings", "factor");
	for (size_t i = 0; i < sizeof cut / sizeof cut[0] && rc == 0; i++) {
		const struct explore_stats *st;
		struct coll_args a;
		struct explore *x;
		uint64_t area;
		double all;
		char *cause = NULL;

		args(&a, cut[i].k, MODE_MESH, cut[i].n, 4, &area);
		a.root = 0;
		x = world(&a, cut[i].n, cut[i].calls, area, cut[i].refill);
		all = explore_count_all(x, 50000000, &cause);
		explore_free(x);
		x = world(&a, cut[i].n, cut[i].calls, area, cut[i].refill);
		if (all < 0 || explore_once(x, &st) != 0) {
			fprintf(stderr, "explore-bench: %s\n",
			    cause ? cause : "failed");
			rc = 1;
		} else {
			printf("%-42s %10llu %18.0f %12.3g\n", cut[i].name,
			    (unsigned long long)st->executions, all,
			    all / (double)st->executions);
		}
		free(cause);
		explore_free(x);
	}
	return rc;
}
