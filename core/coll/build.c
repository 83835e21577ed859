/*
 * build.c - titles, the synthesized signal's shape, and coll_build(): one
 * rank's program (described: see gen.c).
 */
#include <stdio.h>

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
	    a->neighbour			   ? "builtin-neighbour" :
						     "builtin";

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

struct prog *
coll_build(const struct coll_args *a, int nranks, int rank)
{
	struct prog_gen *g = coll_describe(a, nranks);
	struct prog *p = coll_prog(g, rank);

	prog_gen_put(g);
	return p;
}
