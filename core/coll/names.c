/* names.c - collective names and nccl-tests bus-bandwidth factors. */
#include <string.h>

#include "coll-int.h"

static const char *const kind_names[COLL__COUNT] = {
	[COLL_ALLREDUCE] = "allreduce",
	[COLL_BARRIER] = "barrier",
	[COLL_BROADCAST] = "broadcast",
	[COLL_ALLGATHER] = "allgather",
	[COLL_REDUCE_SCATTER] = "reduce_scatter",
	[COLL_ALL_TO_ALL] = "all_to_all",
};

const char *
coll_kind_name(enum coll_kind k)
{
	return (unsigned)k < COLL__COUNT ? kind_names[k] : "?";
}

int
coll_kind_from_name(const char *s, enum coll_kind *out)
{
	for (int i = 0; i < COLL__COUNT; i++) {
		if (strcmp(kind_names[i], s) == 0) {
			*out = (enum coll_kind)i;
			return 0;
		}
	}
	return -1;
}

/*
 * nccl-tests (doc/PERFORMANCE.md), docs/protocols.md: busbw = algbw *
 * factor, with the per-rank buffer size as the data size.
 */
double
coll_busbw_factor(enum coll_kind k, int nranks)
{
	double n = nranks;

	if (nranks < 1)
		return 0;
	switch (k) {
	case COLL_ALLREDUCE:
		return 2 * (n - 1) / n;
	case COLL_ALLGATHER:
	case COLL_REDUCE_SCATTER:
	case COLL_ALL_TO_ALL:
		return (n - 1) / n;
	default:
		return 1;
	}
}
