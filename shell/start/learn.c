/*
 * learn.c - `colldb learn [LESSON]`: list the narrated lessons, or run
 * one.  A lesson is a script in the lessons directory whose first lines
 * are "#! args: ..." (the world it needs) and "# one-line description".
 * Running one starts a session on it: interactive at a terminal (pause
 * waits for Enter, commands may be typed at a pause, the prompt stays
 * after the lesson), batch otherwise.  It execs colldb on the lesson with
 * COLLDB_LESSON set, which echoes the commands the lesson runs but not its
 * comments, narration, pauses or checks.
 *
 * A lesson runs in a new directory of its own (mkdtemp, said as it
 * starts): what it writes, such as explore's counterexamples, never lands
 * in the directory colldb learn was run from, where a file of the user's
 * may have the same name.  The session removes it at the end if the
 * lesson left nothing there (COLLDB_LESSON_DIR, start.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "start/start.h"
#include "xmalloc.h"

#ifndef COLLDB_DATADIR
#define COLLDB_DATADIR "/usr/local/share/colldb"
#endif

/* The lessons directory: $COLLDB_LESSONS, the source tree next to the
 * binary, or the installed data directory. */
static char *
lessons_dir(void)
{
	const char *env = getenv("COLLDB_LESSONS");
	char exe[PATH_MAX], *slash, *d;
	ssize_t n;

	if (env != NULL && *env != '\0')
		return xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			d = xasprintf("%s/scripts/lessons", exe);
			if (access(d, R_OK) == 0)
				return d;
			free(d);
		}
	}
	return xstrdup(COLLDB_DATADIR "/lessons");
}

/* A new private directory for a lesson to run in, or NULL (said). */
static char *
lesson_workdir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *d;

	if (tmp == NULL || tmp[0] != '/')
		tmp = "/tmp";
	d = xasprintf("%s/colldb-learn-XXXXXX", tmp);
	if (mkdtemp(d) != NULL)
		return d;
	fprintf(stderr,
	    "error: cannot make a directory for the lesson in %s: %s\n", tmp,
	    strerror(errno));
	free(d);
	return NULL;
}

static int
by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int
is_lesson(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && strcmp(e->d_name + n - 5, ".coll") == 0;
}

/* The "# description" line (second line) and the "#! args:" line. */
static void
lesson_head(const char *path, char *desc, size_t dlen, char *args, size_t alen)
{
	FILE *fp = fopen(path, "r");
	char line[256];

	desc[0] = args[0] = '\0';
	if (fp == NULL)
		return;
	for (int i = 0; i < 4 && fgets(line, sizeof line, fp) != NULL; i++) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "#! args:", 8) == 0)
			snprintf(args, alen, "%.*s", (int)(alen - 1),
			    line + 8 + strspn(line + 8, " "));
		else if (line[0] == '#' && desc[0] == '\0' && line[1] == ' ')
			snprintf(desc, dlen, "%.*s", (int)(dlen - 1), line + 2);
	}
	fclose(fp);
}

int
learn_main(int argc, char **argv)
{
	struct dirent **list = NULL;
	char *dir = lessons_dir(), desc[128], args[128], names[512] = "";
	int n, match = -1, nmatch = 0, rc = 0, numbered;

	n = scandir(dir, &list, is_lesson, by_name);
	if (n <= 0) {
		fprintf(stderr, "error: no lessons in %s\n", dir);
		rc = 1;
		goto out;
	}
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		printf("usage: colldb learn [LESSON]\n");
		goto out;
	}
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		if (argc == 2)
			fprintf(stderr,
			    "error: unknown option '%s' (usage: colldb learn [LESSON])\n",
			    argv[1]);
		else
			fprintf(stderr,
			    "error: too many arguments (usage: colldb learn [LESSON])\n");
		rc = 2;
		goto out;
	}
	/* a number names the lesson of that number: 'learn 1' is
	 * 01-handshake, not every lesson with a 1 in its name */
	numbered = argc == 2 && argv[1][0] != '\0' &&
	    strspn(argv[1], "0123456789") == strlen(argv[1]);
	for (int i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, list[i]->d_name);
		char name[NAME_MAX];

		snprintf(name, sizeof name, "%.*s",
		    (int)strlen(list[i]->d_name) - 5, list[i]->d_name);
		lesson_head(path, desc, sizeof desc, args, sizeof args);
		free(path);
		if (argc == 1) {
			printf("%-24s %s\n", name, desc);
		} else if (numbered ? atol(name) == atol(argv[1]) &&
			    isdigit((unsigned char)name[0]) :
				      strstr(name, argv[1]) != NULL) {
			if (nmatch++ == 0)
				match = i;
			if (strlen(names) + strlen(name) + 3 < sizeof names)
				snprintf(names + strlen(names),
				    sizeof names - strlen(names), "%s%s",
				    names[0] ? ", " : "", name);
		}
	}
	if (argc == 1) {
		printf(
		    "\nrun one with: colldb learn NAME (its number or a word of its name is enough)\n");
		goto out;
	}
	/* a usage error, worded as the others: one error: line */
	if (nmatch == 0) {
		fprintf(stderr,
		    "error: no lesson matches '%s' (expected a lesson's number or a word of its name; 'colldb learn' lists them)\n",
		    argv[1]);
		rc = 2;
		goto out;
	}
	if (nmatch > 1) {
		fprintf(stderr, "error: '%s' matches %d lessons (%s): name one\n",
		    argv[1], nmatch, names);
		rc = 2;
		goto out;
	}
	{
		char *abs = realpath(dir, NULL), *work;
		char *path = xasprintf("%s/%s", abs != NULL ? abs : dir,
		    list[match]->d_name);
		char *av[16];
		int ac = 0;
		char *save = NULL, *tok;

		free(abs);
		if ((work = lesson_workdir()) == NULL || chdir(work) != 0) {
			if (work != NULL)
				fprintf(stderr,
				    "error: cannot run the lesson in %s: %s\n",
				    work, strerror(errno));
			free(work);
			free(path);
			rc = 1;
			goto out;
		}
		printf("colldb learn: %.*s runs in %s (the files it writes go there)\n",
		    (int)strlen(list[match]->d_name) - 5, list[match]->d_name,
		    work);
		setenv("COLLDB_LESSON_DIR", work, 1);

		lesson_head(path, desc, sizeof desc, args, sizeof args);
		av[ac++] = (char *)"colldb";
		for (tok = strtok_r(args, " ", &save); tok != NULL && ac < 12;
		     tok = strtok_r(NULL, " ", &save))
			av[ac++] = tok;
		/* a lesson shows the commands it types (not its narration) */
		setenv("COLLDB_LESSON", "1", 1);
		if (!isatty(STDIN_FILENO))
			av[ac++] = (char *)"--batch";
		av[ac++] = path;
		av[ac] = NULL;
		fflush(stdout);
		execv("/proc/self/exe", av);
		fprintf(stderr, "error: cannot run the lesson: %s\n",
		    strerror(errno));
		rmdir(work);
		free(work);
		free(path);
		rc = 1;
	}
out:
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	free(dir);
	return rc;
}
