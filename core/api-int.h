/*
 * api-int.h - libcolldb's internals, shared by core/api.c (the world,
 * windows, errors, spans), core/api-ops.c (the operations) and core/call.c
 * (which binds the API to an agent rank during a CALL).  Not installed.
 *
 * Every public operation starts with API_BEGIN (api_begin() takes the source
 * location recorded by cdb_at() and clears the last error), checks its
 * arguments (api_fail() on the first bad one), builds a program and hands
 * it to api_run(), which titles it, announces it to the shell under
 * `colldb run`, runs it through rank_run() and reports DONE.
 */
#ifndef COLLDB_API_INT_H
#define COLLDB_API_INT_H

#include <stdint.h>

#include "coll.h"
#include "common.h"
#include "prog.h"
#include "rank.h"
#include "seg.h"

/* A CALL micro-op is running on rc: until api_nest_end(), the API acts
 * for rc, and its operations run nested inside the call (the board shows
 * them; the call's own position is restored afterwards). */
void api_nest_begin(struct rank_ctx *rc);
void api_nest_end(void);

/* Start public function fn: the rank the API acts for, or NULL after
 * recording CDB_ERR_INIT.  Called through API_BEGIN. */
struct rank_ctx *api_begin(const char *fn);

/*
 * API_BEGIN(rc, fn); at the top of a public function: from there to every
 * return (the variable's cleanup) the rank is inside libcolldb, so a fork
 * there (a signal handler's) ends its child at once (core/rank.h), also
 * while the arguments are checked and the program built, before api_run.
 */
void api_leave(const char **was);
#define API_BEGIN(rc, fn) \
	const char *api_was_ __attribute__((cleanup(api_leave), unused)) = \
	    rank_lib_enter(fn); \
	struct rank_ctx *rc = api_begin(fn)
/* Record error err with a message (and print it on stderr when a shell
 * is listening); returns err. */
printflike(2, 3) int api_fail(int err, const char *fmt, ...);

/* Resolve ptr, the first of count elements of a window of this rank:
 * the window and the byte offset of ptr in the window area.  `what`
 * names the argument in messages.  0 or a cdb_error (recorded). */
int api_region(struct rank_ctx *rc, const char *what, const void *ptr,
    uint64_t count, struct seg_window **w, uint64_t *off);

/* Run p (taken) as the current operation; coll, if not NULL, are the
 * collective's arguments (what the shell is told instead of the program).
 * Returns CDB_OK or a cdb_error. */
int api_run(struct rank_ctx *rc, struct prog *p, const struct coll_args *coll);
/* Run the one op u (not kept) as the current operation, as api_run() runs
 * a program of it.  Returns CDB_OK or a cdb_error. */
int api_run_op(struct rank_ctx *rc, const struct uop *u);

#endif
