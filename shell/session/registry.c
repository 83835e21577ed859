/*
 * registry.c - where `colldb watch` finds running sessions: one small file
 * per session, named after it, in $XDG_RUNTIME_DIR/colldb (or
 * /tmp/colldb-UID), mode 0700, holding "PID FD NRANKS".  The segment
 * itself is unlinked as soon as the ranks have mapped it; an observer
 * opens it through /proc/PID/fd/FD of the owning shell (same user only).
 * A file whose PID is gone is stale: listing skips and removes it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "registry.h"
#include "xmalloc.h"

static char *
reg_dir(void)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	char *d = x != NULL && *x != '\0' ? xasprintf("%s/colldb", x) :
	    xasprintf("/tmp/colldb-%u", (unsigned)getuid());
	struct stat st;

	if (mkdir(d, 0700) != 0 && errno != EEXIST)
		goto bad;
	if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077) != 0)
		goto bad;	/* not ours: do not trust it */
	return d;
bad:
	free(d);
	return NULL;
}

static int
read_entry(const char *path, long *pid, int *fd, int *n)
{
	FILE *fp = fopen(path, "r");
	int ok;

	if (fp == NULL)
		return -1;
	ok = fscanf(fp, "%ld %d %d", pid, fd, n) == 3;
	fclose(fp);
	return ok ? 0 : -1;
}

/* This process's entry, for registry_forget() in a signal handler. */
static char entry_path[512];

void
registry_forget(void)
{
	if (entry_path[0] != '\0')
		unlink(entry_path);	/* async-signal-safe */
	entry_path[0] = '\0';
}

int
registry_add(const char *name, int fd, int nranks, char **cause)
{
	char *d = reg_dir(), *path = NULL, *tmp = NULL;
	long pid;
	int ofd, ofd2, on, rc = -1;
	FILE *fp;

	if (d == NULL)
		return cause_set(cause, "no private directory for the session registry");
	path = xasprintf("%s/%s", d, name);
	if (read_entry(path, &pid, &ofd, &on) == 0 && kill((pid_t)pid, 0) == 0 &&
	    pid != getpid()) {
		cause_set(cause, "a session named '%s' is already running (pid %ld)", name, pid);
		goto out;
	}
	tmp = xasprintf("%s/.%s.%ld", d, name, (long)getpid());
	ofd2 = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (ofd2 < 0 || (fp = fdopen(ofd2, "w")) == NULL) {
		cause_set(cause, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	fprintf(fp, "%ld %d %d\n", (long)getpid(), fd, nranks);
	fclose(fp);
	if (rename(tmp, path) != 0) {
		cause_set(cause, "cannot register %s: %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	snprintf(entry_path, sizeof entry_path, "%s", path);
	rc = 0;
out:
	free(tmp);
	free(path);
	free(d);
	return rc;
}

void
registry_remove(const char *name)
{
	char *d = reg_dir(), *path;
	long pid;
	int fd, n;

	if (d == NULL)
		return;
	path = xasprintf("%s/%s", d, name);
	if (read_entry(path, &pid, &fd, &n) == 0 && pid == getpid())
		unlink(path);
	entry_path[0] = '\0';
	free(path);
	free(d);
}

int
registry_list(FILE *fp)
{
	char *d = reg_dir();
	DIR *dir;
	struct dirent *e;
	int count = 0;

	if (d == NULL || (dir = opendir(d)) == NULL) {
		free(d);
		fprintf(fp, "no running colldb sessions\n");
		return 0;
	}
	while ((e = readdir(dir)) != NULL) {
		char *path;
		long pid;
		int fd, n;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", d, e->d_name);
		if (read_entry(path, &pid, &fd, &n) != 0 || kill((pid_t)pid, 0) != 0) {
			unlink(path);	/* stale: its shell is gone */
		} else {
			if (count++ == 0)
				fprintf(fp, "%-24s %8s %6s\n", "SESSION", "PID", "RANKS");
			fprintf(fp, "%-24s %8ld %6d\n", e->d_name, pid, n);
		}
		free(path);
	}
	closedir(dir);
	free(d);
	if (count == 0)
		fprintf(fp, "no running colldb sessions\n");
	return count;
}

int
registry_open(const char *name, pid_t *pid_out, char **cause)
{
	char *d = reg_dir(), *path, *proc;
	long pid;
	int fd, n, sfd = -1;

	if (d == NULL)
		return cause_set(cause, "no session registry");
	path = xasprintf("%s/%s", d, name);
	if (strchr(name, '/') != NULL || read_entry(path, &pid, &fd, &n) != 0 ||
	    kill((pid_t)pid, 0) != 0) {
		cause_set(cause, "no running session named '%s' (colldb watch lists them)", name);
		goto out;
	}
	proc = xasprintf("/proc/%ld/fd/%d", pid, fd);
	sfd = open(proc, O_RDONLY | O_CLOEXEC);
	if (sfd < 0)
		cause_set(cause, "cannot open session '%s': %s", name, strerror(errno));
	free(proc);
	*pid_out = (pid_t)pid;
out:
	free(path);
	free(d);
	return sfd;
}
