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
coll_synth_sig_shape(int nranks, int core_num, struct win_ref *sig)
{
	uint64_t lanes = core_num > 1 ? (uint64_t)core_num : 1;

	sig->dtype = DT_I32;
	sig->ndim = 2;
	sig->shape[0] = (uint64_t)nranks;
	sig->shape[1] = lanes;
	sig->count = (uint64_t)nranks * lanes;
}

void
coll_title(const struct coll_args *a, char *buf, size_t len)
{
	const char *impl = a->impl != IMPL_BUILTIN ? NULL :
	    a->neighbour ? "builtin-neighbour" : "builtin";

	if (a->kind == COLL_ALLREDUCE && a->core_num > 1)
		snprintf(buf, len, "allreduce(%s%s%s, core_num=%d)",
		    a->mode == MODE_RING ? "ring" : "mesh", impl ? ", " : "",
		    impl ? impl : "", a->core_num);
	else if (a->kind == COLL_ALLREDUCE)
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

/* A domain's program speaks domain ranks; the ranks run on world ones. */
static void
to_world(struct prog *p, const struct coll_args *a)
{
	for (size_t i = 0; i < p->nops; i++) {
		struct uop *u = &p->ops[i];
		if (u->peer >= 0)
			u->peer = coll_world(a, u->peer);
	}
}

struct prog *
coll_build(const struct coll_args *a, int nranks, int rank)
{
	struct prog *p;
	struct emit e;
	char t[64];

	int world = nranks;

	if (rank < 0 || rank >= nranks)
		BUG("rank %d of %d", rank, nranks);
	/* inside a domain the protocol sees its size and the dense rank */
	nranks = coll_size(a, world);
	rank = coll_dense(a, rank);
	if (rank < 0 || rank >= nranks)
		BUG("rank not in the collective's domain");
	/* a synthesized signal must have been placed (has_sig false) */
	if (a->sig.ndim == 0 || a->sig.dtype != DT_I32)
		BUG("%s built without a signal", coll_kind_name(a->kind));
	coll_title(a, t, sizeof t);
	p = prog_new(t);
	emit_init(&e, p, a, nranks, rank);
	switch (a->kind) {
	case COLL_ALLREDUCE:
		if (a->mode == MODE_RING && a->neighbour)
			coll_build_allreduce_ring_neighbour(&e);
		else if (a->mode == MODE_RING)
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
	case COLL_ALL_TO_ALL_V:
		coll_build_all_to_all_v(&e);
		break;
	default:
		BUG("bad collective %d", a->kind);
	}
	if (a->domain != 0)
		to_world(p, a);
	if (p->nops > 0 && p->nops < p->aops) {
		p->ops = xreallocarray(p->ops, p->nops, sizeof *p->ops);
		p->aops = p->nops;
	}
	if (p->nstrs < p->astrs) {
		p->strs = xreallocarray(p->strs, p->nstrs, sizeof *p->strs);
		p->astrs = p->nstrs;
	}
	return p;
}
