/*
 * build.c - coll_build(): pick the builder, title the program.
 *
 * Every program is built by exactly one of the family files; this file
 * only dispatches and trims the arrays to size (a 64 MiB ring allreduce
 * has ~10^5 micro-ops, so the doubling slack matters).
 */
#include <stdio.h>

#include "../xmalloc.h"
#include "coll-int.h"

void
coll_synth_sig_shape(int nranks, struct win_ref *sig)
{
	sig->dtype = DT_I32;
	sig->ndim = 2;
	sig->shape[0] = (uint64_t)nranks;
	sig->shape[1] = 1;
	sig->count = (uint64_t)nranks;
}

void
coll_title(const struct coll_args *a, char *buf, size_t len)
{
	const char *impl = a->impl == IMPL_BUILTIN ? "builtin" : NULL;

	if (a->kind == COLL_ALLREDUCE)
		snprintf(buf, len, "allreduce(%s%s%s)",
		    a->mode == MODE_RING ? "ring" : "mesh", impl ? ", " : "",
		    impl ? impl : "");
	else if (a->kind == COLL_BROADCAST)
		snprintf(buf, len, "broadcast(root=%d%s%s)", a->root,
		    impl ? ", " : "", impl ? impl : "");
	else
		snprintf(buf, len, "%s%s%s%s", coll_kind_name(a->kind),
		    impl ? "(" : "", impl ? impl : "", impl ? ")" : "");
}

struct prog *
coll_build(const struct coll_args *a, int nranks, int rank)
{
	struct prog *p;
	struct emit e;
	char t[64];

	if (rank < 0 || rank >= nranks)
		BUG("rank %d of %d", rank, nranks);
	/* a synthesized signal must have been placed (has_sig false) */
	if (a->sig.ndim == 0 || a->sig.dtype != DT_I32)
		BUG("%s built without a signal", coll_kind_name(a->kind));
	coll_title(a, t, sizeof t);
	p = prog_new(t);
	emit_init(&e, p, a, nranks, rank);
	switch (a->kind) {
	case COLL_ALLREDUCE:
		if (a->mode == MODE_RING)
			coll_build_allreduce_ring(&e);
		else
			coll_build_allreduce_mesh(&e);
		break;
	case COLL_BARRIER:
		coll_build_barrier(&e);
		break;
	case COLL_BROADCAST:
		coll_build_broadcast(&e);
		break;
	case COLL_ALLGATHER:
		coll_build_allgather(&e);
		break;
	case COLL_REDUCE_SCATTER:
		coll_build_reduce_scatter(&e);
		break;
	case COLL_ALL_TO_ALL:
		coll_build_all_to_all(&e);
		break;
	default:
		BUG("bad collective %d", a->kind);
	}
	if (p->nmops > 0 && p->nmops < p->amops) {
		p->mops = xreallocarray(p->mops, p->nmops, sizeof *p->mops);
		p->amops = p->nmops;
	}
	if (p->nstrs < p->astrs) {
		p->strs = xreallocarray(p->strs, p->nstrs, sizeof *p->strs);
		p->astrs = p->nstrs;
	}
	return p;
}
