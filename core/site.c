/* site.c - call sites of user programs; see site.h. */
#include <stdio.h>
#include <string.h>

#include "site.h"

static const char *const fn_names[FN__COUNT] = {
	[FN_NOTIFY] = "cdb_notify",
	[FN_WAIT] = "cdb_wait",
	[FN_PUT] = "cdb_put",
	[FN_GET] = "cdb_get",
	[FN_ALLREDUCE] = "cdb_allreduce",
	[FN_BARRIER] = "cdb_barrier",
	[FN_BROADCAST] = "cdb_broadcast",
	[FN_ALLGATHER] = "cdb_allgather",
	[FN_REDUCE_SCATTER] = "cdb_reduce_scatter",
	[FN_ALL_TO_ALL] = "cdb_all_to_all",
};

const char *
api_fn_name(enum api_fn fn)
{
	return (unsigned)fn < FN__COUNT ? fn_names[fn] : NULL;
}

int
api_fn_from_name(const char *s, enum api_fn *out)
{
	for (int i = 1; i < FN__COUNT; i++) {
		if (strcmp(fn_names[i], s) == 0) {
			*out = (enum api_fn)i;
			return 0;
		}
	}
	return -1;
}

void
site_set(struct site *st, const char *file, int line, enum api_fn fn)
{
	const char *base = file != NULL ? strrchr(file, '/') : NULL;

	memset(st, 0, sizeof *st);
	if (file != NULL)
		snprintf(st->file, sizeof st->file, "%s",
		    base != NULL ? base + 1 : file);
	st->line = file != NULL ? line : 0;
	st->fn = (uint8_t)fn;
}

const char *
site_text(const struct site *st, char *buf, size_t len)
{
	if (st->file[0] == '\0')
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "%s:%d", st->file, (int)st->line);
	return buf;
}
