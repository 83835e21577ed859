/*
 * outfile.c - writing the user's files safely (see outfile.h for the
 * rules).  Cause strings are reasons only: callers say which command could
 * not write which file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "strbuf.h"
#include "xmalloc.h"

#define MAX_LINKS 40 /* as the kernel's ELOOP limit */

static void
sb_swap(struct strbuf *a, struct strbuf *b)
{
	struct strbuf t = *a;

	*a = *b;
	*b = t;
}

/* The protected_symlinks rule for a link found in directory dir. */
static int
link_allowed(const char *dir, const char *link, const struct stat *lst,
    char **cause)
{
	struct stat d;

	if (lst->st_uid == geteuid() || stat(dir, &d) != 0)
		return 0; /* ours; or nothing to protect: open says why */
	if ((d.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH) ||
	    d.st_uid == lst->st_uid)
		return 0;
	return cause_set(cause,
	    "%s is a symlink owned by uid %u in the sticky "
	    "world-writable directory %s (not followed)",
	    link, (unsigned)lst->st_uid, dir);
}

/* Walk path the way open() would, checking each symlink on the way.  What
 * does not exist ends the walk (open will create it or say why). */
static int
check_links(const char *path, char **cause)
{
	struct strbuf cur = STRBUF_INIT, todo = STRBUF_INIT, cand = STRBUF_INIT;
	char target[PATH_MAX];
	int links = 0, rc = 0;
	size_t i = 0;

	strbuf_addstr(&cur, path[0] == '/' ? "/" : ".");
	strbuf_addstr(&todo, path);
	while (rc == 0) {
		struct stat st;
		size_t n;
		ssize_t tn;

		while (todo.buf[i] == '/')
			i++;
		if (todo.buf[i] == '\0')
			break;
		n = strcspn(todo.buf + i, "/");
		if (n == 1 && todo.buf[i] == '.') {
			i += n;
			continue;
		}
		strbuf_reset(&cand);
		strbuf_addstr(&cand, cur.buf);
		if (strcmp(cur.buf, "/") != 0)
			strbuf_addch(&cand, '/');
		strbuf_add(&cand, todo.buf + i, n);
		i += n;
		if (lstat(cand.buf, &st) != 0)
			break;
		if (!S_ISLNK(st.st_mode)) {
			sb_swap(&cur, &cand);
			continue;
		}
		rc = link_allowed(cur.buf, cand.buf, &st, cause);
		if (rc != 0 || ++links > MAX_LINKS)
			break; /* a loop: open says so */
		tn = readlink(cand.buf, target, sizeof target - 1);
		if (tn <= 0)
			break;
		target[tn] = '\0';
		/* the rest of the walk: the link's target, then what followed */
		strbuf_reset(&cand);
		strbuf_addstr(&cand, target);
		strbuf_addch(&cand, '/');
		strbuf_addstr(&cand, todo.buf + i);
		sb_swap(&todo, &cand);
		i = 0;
		if (target[0] == '/') {
			strbuf_reset(&cur);
			strbuf_addch(&cur, '/');
		}
	}
	strbuf_release(&cur);
	strbuf_release(&todo);
	strbuf_release(&cand);
	return rc;
}

int
outfile_check(const char *path, char **cause)
{
	return check_links(path, cause);
}

/* Is path's directory sticky and world-writable (like /tmp), where anyone
 * may have made a hard link to a file they do not own? */
static int
in_shared_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash == NULL ? xstrdup(".") :
	    slash == path	  ? xstrdup("/") :
				    xstrndup(path, (size_t)(slash - path));
	struct stat d;
	int shared = stat(dir, &d) == 0 &&
	    (d.st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH);

	free(dir);
	return shared;
}

static mode_t
new_file_mode(void)
{
	mode_t m = umask(0);

	umask(m);
	return 0666 & ~m;
}

int
outfile_open(struct outfile *of, const char *path, char **cause)
{
	struct stat st;
	const char *slash;
	int fd, exists;

	memset(of, 0, sizeof *of);
	if (outfile_check(path, cause) != 0)
		return -1;
	exists = lstat(path, &st) == 0;
	if (!exists ||
	    (S_ISREG(st.st_mode) && (st.st_nlink == 1 || in_shared_dir(path)))) {
		/* a new name next to the target, renamed onto it */
		slash = strrchr(path, '/');
		if (slash == NULL)
			of->tmp = xasprintf(".%s.XXXXXX", path);
		else
			of->tmp = xasprintf("%.*s/.%s.XXXXXX",
			    (int)(slash - path), path, slash + 1);
		fd = mkostemp(of->tmp, O_CLOEXEC);
		if (fd >= 0 &&
		    fchmod(fd, exists ? st.st_mode & 07777 : new_file_mode()) !=
			0) {
			close(fd);
			unlink(of->tmp);
			fd = -1;
		}
	} else {
		/* a device, a pipe, or a link the rules above allow */
		fd = open(path,
		    O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
	}
	if (fd < 0 || (of->fp = fdopen(fd, "w")) == NULL) {
		cause_set(cause, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		if (fd >= 0 && of->tmp != NULL)
			unlink(of->tmp);
		free(of->tmp);
		of->tmp = NULL;
		return -1;
	}
	of->path = xstrdup(path);
	return 0;
}

static void
outfile_release(struct outfile *of)
{
	free(of->path);
	free(of->tmp);
	memset(of, 0, sizeof *of);
}

int
outfile_commit(struct outfile *of, char **cause)
{
	int rc = 0;

	if ((ferror(of->fp) | (fclose(of->fp) != 0)) != 0)
		rc = cause_set(cause, "%s", strerror(errno ? errno : EIO));
	else if (of->tmp != NULL && rename(of->tmp, of->path) != 0)
		rc = cause_set(cause, "%s", strerror(errno));
	if (rc != 0 && of->tmp != NULL)
		unlink(of->tmp);
	outfile_release(of);
	return rc;
}

void
outfile_abort(struct outfile *of)
{
	if (of->fp != NULL)
		fclose(of->fp);
	if (of->tmp != NULL)
		unlink(of->tmp);
	outfile_release(of);
}

int
outfile_create(const char *path, int mode, char **cause)
{
	int fd, err;

	if (outfile_check(path, cause) != 0) {
		errno = EPERM;
		return -1;
	}
	fd = open(path,
	    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
	    mode);
	if (fd < 0) {
		err = errno;
		cause_set(cause, "%s", strerror(err));
		errno = err;
	}
	return fd;
}

int
outfile_append(const char *path, int mode, char **cause)
{
	struct stat st;
	int fd = -1;

	for (int tries = 0; fd < 0 && tries < 2; tries++) {
		if (outfile_check(path, cause) != 0)
			return -1;
		if (lstat(path, &st) != 0) /* new: never through a link */
			fd = open(path,
			    O_WRONLY | O_APPEND | O_CREAT | O_EXCL |
				O_NOFOLLOW | O_CLOEXEC,
			    mode);
		else if (S_ISLNK(st.st_mode)) /* one the rules allow */
			fd = open(path,
			    O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC,
			    mode);
		else if (S_ISREG(st.st_mode) && st.st_nlink > 1 &&
		    in_shared_dir(path))
			return cause_set(cause,
			    "it has %ju links in a sticky "
			    "world-writable directory (not appended to)",
			    (uintmax_t)st.st_nlink);
		else
			fd = open(path,
			    O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY |
				O_CLOEXEC);
		if (fd < 0 && errno != EEXIST && errno != ELOOP)
			break; /* EEXIST, ELOOP: it changed under us; look again */
	}
	if (fd < 0)
		return cause_set(cause, "%s", strerror(errno));
	return fd;
}
