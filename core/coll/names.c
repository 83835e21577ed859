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
	[COLL_ALL_TO_ALL_V] = "all_to_all_v",
};

const char *
coll_kind_name(enum coll_kind k)
{
	return (unsigned)k < COLL__COUNT ? kind_names[k] : "?";
}

void
coll_args_unname(struct coll_args *a)
{
	a->buf.name = a->src.name = a->sig.name = NULL;
	a->scount.name = a->rcount.name = NULL;
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
	case COLL_ALL_TO_ALL_V:
		return (n - 1) / n;
	default:
		return 1;
	}
}

int
coll_size(const struct coll_args *a, int nranks)
{
	int n = 0;

	if (a->domain == 0)
		return nranks;
	for (size_t i = 0; i < ARRAY_SIZE(a->members); i++)
		n += __builtin_popcountll(a->members[i]);
	return n;
}

int
coll_dense(const struct coll_args *a, int r)
{
	int d = 0;

	if (r < 0 || r >= COLL_MAX_RANKS)
		return -1;
	if (a->domain == 0)
		return r;
	if (!((a->members[r / 64] >> (r % 64)) & 1))
		return -1;
	for (int q = 0; q < r; q++)
		d += (int)((a->members[q / 64] >> (q % 64)) & 1);
	return d;
}

int
coll_world(const struct coll_args *a, int d)
{
	if (a->domain == 0)
		return d >= 0 && d < COLL_MAX_RANKS ? d : -1;
	for (int q = 0; q < COLL_MAX_RANKS && d >= 0; q++) {
		if ((a->members[q / 64] >> (q % 64)) & 1) {
			if (d-- == 0)
				return q;
		}
	}
	return -1;
}
