/*
 * site.h - call sites of a user program's operations: which public
 * function (cdb_wait, cdb_allreduce ...) was called from which source
 * line.  The cdb_* macros record __FILE__ and __LINE__ (cdb_at()); the
 * runtime keeps the file's last path component.  A rank publishes the
 * site of the call it runs on its board slot (struct seg_rank.site), and
 * breakpoints match on it (`break ring.c:51`, `break cdb_wait`).
 */
#ifndef COLLDB_SITE_H
#define COLLDB_SITE_H

#include <stddef.h>
#include <stdint.h>

#define SITE_FILE_MAX 32 /* the file's last component, NUL included */

/* The operations a call site can name; FN_NONE: no call (an agent's
 * command, cdb_init). */
enum api_fn {
	FN_NONE,
	FN_NOTIFY,
	FN_WAIT,
	FN_PUT,
	FN_GET,
	FN_ALLREDUCE,
	FN_BARRIER,
	FN_BROADCAST,
	FN_ALLGATHER,
	FN_REDUCE_SCATTER,
	FN_ALL_TO_ALL,
	FN__COUNT
};

struct site {
	char file[SITE_FILE_MAX]; /* "" when unknown (CDB_NO_LOCATION) */
	int32_t line;		  /* 0 when unknown */
	uint8_t fn;		  /* enum api_fn */
	uint8_t reserved[3];
};

/* "cdb_wait" ...; NULL for FN_NONE or out of range. */
const char *api_fn_name(enum api_fn fn);
/* The function named s ("cdb_wait"); 0, or -1 if s names none. */
int api_fn_from_name(const char *s, enum api_fn *out);
/* Fill a site from a recorded location (file may be NULL). */
void site_set(struct site *st, const char *file, int line, enum api_fn fn);
/* "ring.c:51" into buf (returned), or "" when the file is unknown. */
const char *site_text(const struct site *st, char *buf, size_t len);

#endif
