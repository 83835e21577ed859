/*
 * build-cost.c - `make bench`, programs part: what building a collective's
 * program costs (coll_build, the shell's part of every collective before
 * a rank runs a micro-op).
 *
 * A 64 MiB f32 allreduce on 4 ranks, ring (composite: 6 rows x 1024
 * sub-chunks, about 90k micro-ops per rank, described: not stored) and
 * mesh: each rank's program built BUILDS times; the figure is the median
 * build, with the program's micro-ops and the heap it holds.  Nothing is allocated in shared memory: the
 * windows are offsets in a window area of the layout's size.
 * Figures, not tests (tests/unit/check_coll.c checks the program itself).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "common.h"
#include "median.h"
#include "prog.h"

#define NRANKS 4
#define BUILDS 11
#define COUNT ((uint64_t)16 << 20) /* f32: 64 MiB */

static struct win_ref
win(uint64_t *next, const char *name, enum dtype dt, uint64_t rows, uint64_t cols)
{
	struct win_ref w;

	memset(&w, 0, sizeof w);
	w.name = name;
	w.dtype = dt;
	w.ndim = cols > 0 ? 2 : 1;
	w.shape[0] = rows;
	w.shape[1] = cols;
	w.count = rows * (cols > 0 ? cols : 1);
	w.off = *next;
	*next += (w.count * dtype_size(dt) + 31) / 32 * 32;
	return w;
}

static void
build_cost(enum coll_mode mode)
{
	struct coll_args a;
	uint64_t next = 0, n = NRANKS;
	double t[BUILDS];
	size_t nops = 0, bytes = 0;
	char *cause = NULL;

	memset(&a, 0, sizeof a);
	a.kind = COLL_ALLREDUCE;
	a.mode = mode;
	a.impl = IMPL_COMPOSITE;
	a.op = RED_SUM;
	a.strict = true;
	a.has_sig = true;
	a.buf = win(&next, "buf", DT_F32, COUNT, 0);
	a.sig = mode == MODE_RING ? win(&next, "sig", DT_I32, 2 * n - 2, n) :
				    win(&next, "sig", DT_I32, n, 1);
	if (coll_validate(&a, NRANKS, &cause, NULL) != 0) {
		fprintf(stderr, "build-cost: %s\n", cause);
		exit(1);
	}
	for (int r = 0; r < NRANKS; r++) {
		for (int i = 0; i < BUILDS; i++) {
			uint64_t t0 = mono_ns();
			struct prog *p = coll_build(&a, NRANKS, r);

			t[i] = (double)(mono_ns() - t0) / 1e3;
			nops = (size_t)prog_len(p);
			bytes = prog_mem(p);
			prog_free(p);
		}
		printf("  %s rank %d: %8.1f us per build (median of %d), "
		       "%zu micro-ops, %zu bytes held\n",
		    mode == MODE_RING ? "ring" : "mesh", r,
		    median_double(t, BUILDS), BUILDS, nops, bytes);
	}
}

int
main(void)
{
	printf("  64 MiB f32 allreduce, composite, %d ranks\n", NRANKS);
	build_cost(MODE_RING);
	build_cost(MODE_MESH);
	return 0;
}
