/*
 * registry.h - running sessions, by name, for `colldb watch` (see
 * registry.c for where and how).  Cause strings are the caller's to free.
 */
#ifndef COLLDB_REGISTRY_H
#define COLLDB_REGISTRY_H

#include <stdio.h>
#include <sys/types.h>

/* Register this process's session (its segment is fd); 0 or -1 + cause
 * (e.g. the name is taken by a live session).  *note is set (the caller's
 * to free and to show) when the usual directory could not be used and why,
 * also on success: the entry then went to a private directory beside it. */
int registry_add(const char *name, int fd, int nranks, char **note, char **cause);
/* Remove this process's entry for name (no-op if another owns it). */
void registry_remove(const char *name);
/* Remove this process's entry; async-signal-safe (for fatal signals). */
void registry_forget(void);
/* Print the live sessions to fp (a note on the directory to stderr);
 * returns how many.  Entries whose shell is gone are removed. */
int registry_list(FILE *fp);
/* Open a running session's segment read-only: fd, or -1 + cause. */
int registry_open(const char *name, pid_t *pid, char **cause);

#endif
