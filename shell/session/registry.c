/*
 * registry.c - where `colldb watch` finds running sessions: one small file
 * per session, named after it, holding "PID FD NRANKS START" (START: the
 * shell's start time in clock ticks, /proc/PID/stat field 22, so a reused
 * pid is not taken for the shell).  The segment itself is unlinked as soon
 * as the ranks have mapped it; an observer opens it through
 * /proc/PID/fd/FD of the owning shell (same user only).
 *
 * The directory is $XDG_RUNTIME_DIR/colldb, or /tmp/colldb-UID.  colldb
 * often runs as root, and anyone can create that name in /tmp first: it is
 * used only if it is a directory (not a symlink) the user owns with mode
 * 0700, opened with O_NOFOLLOW and worked in through its descriptor.
 * Otherwise colldb says so and uses a private DIR-XXXXXX (mkdtemp) beside
 * it instead; readers look in both.  An entry is removed only if it is a
 * regular file that reads as an entry and its shell is gone.
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

#define REG_MAX 8 /* directories looked at: the usual one, fallbacks */

struct regdir {
	int fd; /* O_DIRECTORY | O_NOFOLLOW */
	char *path;
};

static char *
reg_parent(void)
{
	const char *x = getenv("XDG_RUNTIME_DIR");

	return xstrdup(x != NULL && *x == '/' ? x : "/tmp");
}

static char *
reg_base(void)
{
	const char *x = getenv("XDG_RUNTIME_DIR");

	return x != NULL && *x == '/' ?
	    xstrdup("colldb") :
	    xasprintf("colldb-%u", (unsigned)geteuid());
}

/* Open parent/name if it is a private directory of ours: its fd, or -1
 * with why set to what is wrong with it (NULL if it does not exist). */
static int
dir_open_ours(int pfd, const char *path, const char *name, char **why)
{
	struct stat st;
	int fd;

	*why = NULL;
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	if (S_ISLNK(st.st_mode))
		cause_set(why, "%s is a symlink owned by uid %u", path,
		    (unsigned)st.st_uid);
	else if (!S_ISDIR(st.st_mode))
		cause_set(why, "%s is not a directory", path);
	else if (st.st_uid != geteuid())
		cause_set(why, "%s belongs to uid %u", path, (unsigned)st.st_uid);
	else if ((st.st_mode & 07777) != 0700)
		cause_set(why, "%s has mode %04o", path,
		    (unsigned)(st.st_mode & 07777));
	if (*why != NULL)
		return -1;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 &&
	    (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) ||
		st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)) {
		close(fd); /* changed between the looks */
		cause_set(why, "%s changed while colldb looked at it", path);
		fd = -1;
	}
	return fd;
}

/* The fallback directories base-XXXXXX of ours in parent, up to max. */
static int
fallbacks(int pfd, const char *parent, const char *base, struct regdir *out,
    int max)
{
	size_t bl = strlen(base);
	struct dirent *e;
	DIR *d;
	int n = 0, dfd = dup(pfd);

	if (dfd < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while (n < max && (e = readdir(d)) != NULL) {
		char *why, *path;
		int fd;

		if (strncmp(e->d_name, base, bl) != 0 || e->d_name[bl] != '-' ||
		    strlen(e->d_name + bl + 1) != 6)
			continue;
		path = xasprintf("%s/%s", parent, e->d_name);
		fd = dir_open_ours(pfd, path, e->d_name, &why);
		free(why);
		if (fd < 0) {
			free(path);
			continue;
		}
		out[n].fd = fd;
		out[n++].path = path;
	}
	closedir(d);
	return n;
}

/* The registry directories to read (create = 0), or the one to write in
 * (create = 1: made if missing).  note: why the usual one is not used. */
static int
reg_dirs(int create, struct regdir *out, int max, char **note)
{
	char *parent = reg_parent(), *base = reg_base(), *path, *why = NULL;
	int pfd, fd, n = 0;

	*note = NULL;
	path = xasprintf("%s/%s", parent, base);
	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		goto out;
	if (create && mkdirat(pfd, base, 0700) == 0)
		fchmodat(pfd, base, 0700, 0); /* whatever the umask */
	fd = dir_open_ours(pfd, path, base, &why);
	if (fd >= 0) {
		out[n].fd = fd;
		out[n++].path = xstrdup(path);
		if (create)
			goto out;
	}
	n += fallbacks(pfd, parent, base, out + n, max - n);
	if (create && n == 0) {
		char *tmpl = xasprintf("%s-XXXXXX", path);

		if (mkdtemp(tmpl) != NULL &&
		    (fd = open(tmpl,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			out[n].fd = fd;
			out[n++].path = tmpl;
		} else {
			free(tmpl);
		}
	}
	if (why != NULL && n == 0)
		cause_set(note,
		    "not using %s for the session registry (%s, expected "
		    "a directory of uid %u with mode 0700); no private directory "
		    "either",
		    path, why, (unsigned)geteuid());
	else if (why != NULL)
		cause_set(note,
		    "not using %s for the session registry (%s, expected "
		    "a directory of uid %u with mode 0700); %s %s instead",
		    path, why, (unsigned)geteuid(),
		    create ? "registering in" : "looking in", out[0].path);
out:
	if (pfd >= 0)
		close(pfd);
	free(why);
	free(path);
	free(base);
	free(parent);
	return n;
}

static void
reg_dirs_free(struct regdir *d, int n)
{
	for (int i = 0; i < n; i++) {
		close(d[i].fd);
		free(d[i].path);
	}
}

/* The start time of process pid (field 22 of /proc/PID/stat), 0 if none. */
static unsigned long long
proc_start(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* after the command name, which may hold spaces and parentheses */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1,
		" %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
		"%*d %*d %*d %*d %*d %*d %llu",
		&t) != 1)
		return 0;
	return t;
}

struct entry {
	long pid;
	int fd, nranks;
	unsigned long long start;
};

/* Read an entry colldb wrote: 0, or -1 if name is not one (left alone). */
static int
read_entry(int dfd, const char *name, struct entry *e)
{
	char buf[128], extra;
	struct stat st;
	ssize_t n;
	int fd, nf;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (n = read(fd, buf, sizeof buf - 1)) <= 0) {
		close(fd);
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	e->start = 0;
	nf = sscanf(buf, "%ld %d %d %llu %c", &e->pid, &e->fd, &e->nranks,
	    &e->start, &extra);
	if ((nf != 3 && nf != 4) || e->pid <= 0 || e->fd < 0 ||
	    e->nranks <= 0 || buf[n - 1] != '\n')
		return -1;
	return 0;
}

/* Is the entry's shell still running? */
static int
entry_live(const struct entry *e)
{
	if (kill((pid_t)e->pid, 0) != 0 && errno == ESRCH)
		return 0;
	return e->start == 0 || proc_start(e->pid) == e->start;
}

/* This process's entry, for registry_forget() in a signal handler. */
static char entry_path[512];

void
registry_forget(void)
{
	if (entry_path[0] != '\0')
		unlink(entry_path); /* async-signal-safe */
	entry_path[0] = '\0';
}

int
registry_add(const char *name, int fd, int nranks, char **note, char **cause)
{
	struct regdir d;
	struct entry e;
	char *tmp = NULL;
	int ofd = -1, rc = -1;
	FILE *fp;

	if (reg_dirs(1, &d, 1, note) == 0)
		return cause_set(cause,
		    "no private directory for the session registry");
	if (strchr(name, '/') != NULL || name[0] == '.') {
		cause_set(cause, "'%s' cannot name a registry entry", name);
		goto out;
	}
	if (read_entry(d.fd, name, &e) == 0 && entry_live(&e) &&
	    e.pid != getpid()) {
		cause_set(cause,
		    "a session named '%s' is already running (pid %ld)", name,
		    e.pid);
		goto out;
	}
	tmp = xasprintf(".%s.%ld", name, (long)getpid());
	unlinkat(d.fd, tmp, 0); /* ours, from an earlier run with this pid */
	ofd = openat(d.fd, tmp,
	    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (ofd < 0 || (fp = fdopen(ofd, "w")) == NULL) {
		cause_set(cause, "cannot write %s/%s: %s", d.path, tmp,
		    strerror(errno));
		if (ofd >= 0)
			close(ofd);
		goto out;
	}
	fprintf(fp, "%ld %d %d %llu\n", (long)getpid(), fd, nranks,
	    proc_start(getpid()));
	if ((ferror(fp) | (fclose(fp) != 0)) != 0 ||
	    renameat(d.fd, tmp, d.fd, name) != 0) {
		cause_set(cause, "cannot register %s/%s: %s", d.path, name,
		    strerror(errno));
		unlinkat(d.fd, tmp, 0);
		goto out;
	}
	snprintf(entry_path, sizeof entry_path, "%s/%s", d.path, name);
	rc = 0;
out:
	free(tmp);
	reg_dirs_free(&d, 1);
	return rc;
}

void
registry_remove(const char *name)
{
	struct regdir d[REG_MAX];
	struct entry e;
	char *note;
	int n = reg_dirs(0, d, REG_MAX, &note);

	for (int i = 0; i < n; i++)
		if (read_entry(d[i].fd, name, &e) == 0 && e.pid == getpid())
			unlinkat(d[i].fd, name, 0);
	entry_path[0] = '\0';
	reg_dirs_free(d, n);
	free(note);
}

int
registry_list(FILE *fp)
{
	struct regdir d[REG_MAX];
	char *note;
	int n = reg_dirs(0, d, REG_MAX, &note), count = 0;

	if (note != NULL)
		fprintf(stderr, "colldb: %s\n", note);
	for (int i = 0; i < n; i++) {
		int dfd = dup(d[i].fd);
		struct dirent *de;
		DIR *dir;

		if (dfd < 0 || (dir = fdopendir(dfd)) == NULL) {
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		while ((de = readdir(dir)) != NULL) {
			struct entry e;

			if (de->d_name[0] == '.' ||
			    read_entry(d[i].fd, de->d_name, &e) != 0)
				continue; /* not an entry: not ours to remove */
			if (!entry_live(&e)) {
				unlinkat(d[i].fd, de->d_name,
				    0); /* its shell is gone */
				continue;
			}
			if (count++ == 0)
				fprintf(fp, "%-24s %8s %6s\n", "SESSION", "PID",
				    "RANKS");
			fprintf(fp, "%-24s %8ld %6d\n", de->d_name, e.pid,
			    e.nranks);
		}
		closedir(dir);
	}
	reg_dirs_free(d, n);
	free(note);
	if (count == 0)
		fprintf(fp, "no running colldb sessions\n");
	return count;
}

int
registry_open(const char *name, pid_t *pid_out, char **cause)
{
	struct regdir d[REG_MAX];
	struct entry e;
	char *note, *proc;
	int n = reg_dirs(0, d, REG_MAX, &note), i, sfd = -1;

	for (i = 0; i < n; i++)
		if (strchr(name, '/') == NULL && name[0] != '.' &&
		    read_entry(d[i].fd, name, &e) == 0 && entry_live(&e))
			break;
	if (i == n) {
		cause_set(cause,
		    "no running session named '%s' (colldb watch lists them)%s%s",
		    name, note != NULL ? "; " : "", note != NULL ? note : "");
		goto out;
	}
	proc = xasprintf("/proc/%ld/fd/%d", e.pid, e.fd);
	sfd = open(proc, O_RDONLY | O_CLOEXEC);
	if (sfd < 0)
		cause_set(cause, "cannot open session '%s': %s", name,
		    strerror(errno));
	free(proc);
	*pid_out = (pid_t)e.pid;
out:
	reg_dirs_free(d, n);
	free(note);
	return sfd;
}
