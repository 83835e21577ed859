/*
 * viz-dump.c - drive the watch pane from a script and print the screen
 * model as text (the pane-snapshot tier, tests/viz/ *.snap).
 *
 * usage: viz-dump [-p] FILE        -p: plain text, no style overlay
 *
 * FILE holds directives, one per line ('#' comments):
 *	size C R		screen size (default 80 24); a later size
 *				acts as a terminal resize
 *	hold N			snapshots a change stays highlighted (before
 *				the first snapshot; default 10)
 *	snapshot ... end	a snapshot in snap.h's text format; the pane
 *				takes it at once (one refresh)
 *	same			one more refresh with the last snapshot
 *	ended			a refresh in which the session has ended
 *	key NAME		a key (viz_key_parse() names)
 *	diagnosis TEXT		a line of the text 'd' shows
 *	dump			print the screen ("-- dump N (CxR)" first)
 * Without any dump directive, the screen is dumped once at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snap.h"
#include "strbuf.h"
#include "viz.h"
#include "watch.h"
#include "xmalloc.h"

struct driver {
	struct snap snap; /* what the next refresh returns */
	int end;	  /* the next refresh reports the end */
	struct strbuf diag;
	int steps, conts;
};

static int
drv_snapshot(void *arg, struct snap *out)
{
	struct driver *d = arg;

	if (d->end)
		return -1;
	snap_copy(out, &d->snap);
	return 0;
}

static int
drv_action(struct driver *d, const char *what, int *count, char **msg)
{
	(*count)++;
	*msg = xasprintf("%s #%d sent (fixture)", what, *count);
	return 0;
}

static int
drv_step(void *arg, char **msg)
{
	struct driver *d = arg;

	return drv_action(d, "step", &d->steps, msg);
}

static int
drv_cont(void *arg, char **msg)
{
	struct driver *d = arg;

	return drv_action(d, "continue", &d->conts, msg);
}

static char *
drv_diagnose(void *arg)
{
	struct driver *d = arg;

	return d->diag.len > 0 ? xstrdup(d->diag.buf) : NULL;
}

static const struct watch_source drv_source = {
	.snapshot = drv_snapshot,
	.step = drv_step,
	.cont = drv_cont,
	.diagnose = drv_diagnose,
};

static int
drv_usage(void)
{
	fprintf(stderr, "usage: viz-dump [-p] FILE\n");
	return 2;
}

static int
drv_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "viz-dump: %s:%d: %s\n", file, line, what);
	return 2;
}

int
main(int argc, char **argv)
{
	struct watch_opts opts = WATCH_OPTS_INIT;
	struct driver d = { .diag = STRBUF_INIT };
	struct strbuf in = STRBUF_INIT, block = STRBUF_INIT, out = STRBUF_INIT;
	struct screen scr;
	struct watch *w = NULL;
	char buf[4096], *line, *next, *cause = NULL;
	const char *cmd;
	int flags = DUMP_STYLES, dumps = 0, lineno = 0, start = 0, rc = 2;
	int cols = 80, rows = 24, key, c;
	size_t n;
	FILE *f;

	while ((c = getopt(argc, argv, "p")) != -1) {
		if (c != 'p')
			return drv_usage();
		flags = 0;
	}
	if (optind + 1 != argc)
		return drv_usage();
	if ((f = fopen(argv[optind], "r")) == NULL) {
		perror(argv[optind]);
		return 2;
	}
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&in, buf, n);
	fclose(f);

	snap_init(&d.snap);
	screen_init(&scr, cols, rows);
	for (line = in.buf; line != NULL && *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		if (block.len > 0 || strcmp(line, "snapshot") == 0) {
			if (strcmp(line, "snapshot") == 0 && block.len == 0) {
				strbuf_addstr(&block, "#\n");
				start = lineno;
				continue;
			}
			if (strcmp(line, "end") != 0) {
				strbuf_addf(&block, "%s\n", line);
				continue;
			}
			if (snap_parse(&d.snap, block.buf, &cause) != 0) {
				fprintf(stderr,
				    "viz-dump: %s: snapshot at line "
				    "%d: %s\n",
				    argv[optind], start, cause);
				goto out;
			}
			strbuf_reset(&block);
			cmd = "same";
		} else
			cmd = line + strspn(line, " \t");
		if (*cmd == '\0' || *cmd == '#')
			continue;
		if (sscanf(cmd, "size %d %d", &cols, &rows) == 2) {
			screen_resize(&scr, cols, rows);
			if (w != NULL) {
				watch_key(w, VIZ_KEY_RESIZE);
				watch_draw(w, &scr);
			}
			continue;
		}
		if (sscanf(cmd, "hold %d", &opts.hold) == 1)
			continue;
		if (strncmp(cmd, "diagnosis", 9) == 0) {
			strbuf_addf(&d.diag, "%s\n", cmd + 9 + (cmd[9] == ' '));
			continue;
		}
		if (w == NULL)
			w = watch_new(&drv_source, &d, &opts);
		/* Draw after each event, as watch_run() does. */
		if (strcmp(cmd, "same") == 0 || strcmp(cmd, "ended") == 0) {
			d.end = cmd[0] == 'e';
			watch_refresh(w);
			watch_draw(w, &scr);
		} else if (strncmp(cmd, "key ", 4) == 0) {
			if ((key = viz_key_parse(cmd + 4)) == VIZ_KEY_NONE) {
				rc = drv_fail(argv[optind], lineno, "bad key");
				goto out;
			}
			watch_key(w, key);
			watch_draw(w, &scr);
		} else if (strcmp(cmd, "dump") == 0) {
			strbuf_addf(&out, "-- dump %d (%dx%d)\n", ++dumps, cols,
			    rows);
			dump_screen(&scr, &out, flags);
		} else {
			rc = drv_fail(argv[optind], lineno, "bad directive");
			goto out;
		}
	}
	if (block.len > 0) {
		rc = drv_fail(argv[optind], start, "snapshot without end");
		goto out;
	}
	if (dumps == 0) {
		if (w == NULL)
			w = watch_new(&drv_source, &d, &opts);
		watch_draw(w, &scr);
		dump_screen(&scr, &out, flags);
	}
	fwrite(out.buf, 1, out.len, stdout);
	rc = 0;
out:
	free(cause);
	watch_free(w);
	screen_release(&scr);
	snap_release(&d.snap);
	strbuf_release(&d.diag);
	strbuf_release(&in);
	strbuf_release(&block);
	strbuf_release(&out);
	return rc;
}
