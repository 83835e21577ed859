/*
 * watch-src.h - the watch pane's data source: a view of the world
 * (view/view.h), seen by the shell that owns the session (sess set) or by
 * an observer attached from another terminal (sess NULL, readonly, pid of
 * the owning shell).
 */
#ifndef COLLDB_WATCH_SRC_H
#define COLLDB_WATCH_SRC_H

#include <signal.h>
#include <sys/types.h>

#include "snap.h"
#include "view/view.h"

struct session;

struct watch_src {
	struct view *view;    /* borrowed */
	struct session *sess; /* NULL for an outside observer */
	pid_t pid;	      /* observer: the owning shell (liveness) */
	int readonly;
	char status[160];
	/* observer cache: the collective in progress, rebuilt per id */
	uint32_t coll_id;
	struct prog **progs;
	int nprogs;
};

/* Fill out from the segment; -1 when the session has ended. */
int watch_src_fill(struct watch_src *ws, struct snap *out);
void watch_src_release(struct watch_src *ws);

#endif
