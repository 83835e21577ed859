/*
 * outfile.h - files colldb writes for the user (trace save, record), and
 * never a file another user chose for it.
 *
 * colldb is often run as root, on machines where fs.protected_symlinks is
 * 0.  So it applies that rule itself, to every symlink on the way to the
 * file: a symlink is followed only if the user owns it, or the directory
 * holding it is not sticky and world-writable, or that directory's owner
 * owns the link.  Temporary files come from mkstemp() next to the target
 * (never a predictable name) and are renamed onto it.  A file with several
 * hard links in such a directory (anyone may have linked it there) is
 * replaced, never written in place or appended to.
 *
 * Cause strings are the caller's to free; they name the path and say why.
 */
#ifndef COLLDB_OUTFILE_H
#define COLLDB_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *fp;   /* where to write; NULL when closed */
	char *path; /* the name the user gave */
	char *tmp;  /* the mkstemp() file renamed onto path, or NULL
			 * when path is written in place (a device, a pipe,
			 * a symlink or hard link of the user's) */
};

/* 0, or -1 + cause if reaching path would follow a symlink the rule above
 * refuses. */
int outfile_check(const char *path, char **cause);

/* Open path to replace its contents; 0, or -1 + cause (nothing created).
 * An existing file keeps its mode; a new one gets 0666 less the umask. */
int outfile_open(struct outfile *of, const char *path, char **cause);

/* Close and put the new contents in place; 0, or -1 + cause (path left as
 * it was when it was replaced atomically).  Releases of either way. */
int outfile_commit(struct outfile *of, char **cause);

/* Close and throw away what was written (a temporary is removed). */
void outfile_abort(struct outfile *of);

/* Create path as a new file with mode (less the umask), never through a
 * symlink and never over anything already there (O_EXCL): a file
 * descriptor (O_CLOEXEC), or -1 + cause with errno kept (EEXIST: the name
 * is taken). */
int outfile_create(const char *path, int mode, char **cause);

/* Open path for appending, creating it with mode (less the umask) if it
 * does not exist; a file descriptor (O_CLOEXEC), or -1 + cause. */
int outfile_append(const char *path, int mode, char **cause);

#endif
