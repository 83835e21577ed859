/*
 * out.c - everything the shell prints goes through here (out.h).
 */
#include <sys/ioctl.h>
#include <sys/wait.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/group.h"
#include "out.h"
#include "strbuf.h"
#include "xmalloc.h"

struct event {
	int rank;
	unsigned long seq;
	char *text;
};

static struct {
	struct event *ev;
	size_t n, alloc;
	unsigned long seq;
	const char *line;
	const char *origin;    /* "FILE:LINE" for errors, or NULL */
	struct strbuf capture; /* the command running now */
	struct strbuf prev;    /* the previous command, for expect output */
	const struct out_prompt *prompt; /* being edited, or NULL */
	const int *colour;
	void (*tap)(const char *text);
	int world; /* ranks, for grouping events (group.h) */
} out = { .capture = STRBUF_INIT, .prev = STRBUF_INIT };

void
out_set_world(int nranks)
{
	out.world = nranks;
}

void
out_set_line(const char *line)
{
	out.line = line;
}

void
out_set_prompt(const struct out_prompt *p)
{
	out.prompt = p;
}

void
out_use_colour(const int *on)
{
	out.colour = on;
}

void
out_set_event_tap(void (*tap)(const char *text))
{
	out.tap = tap;
}

void
out_capture_begin(void)
{
	struct strbuf t = out.prev;

	out.prev = out.capture;
	out.capture = t;
	strbuf_reset(&out.capture);
}

void
out_capture_restore(void)
{
	struct strbuf t = out.capture;

	out.capture = out.prev;
	out.prev = t;
	strbuf_reset(&out.prev);
}

const char *
out_captured(void)
{
	return out.prev.buf;
}

/* Colour only on a terminal with `set color on` (never in batch). */
static int
colour(FILE *fp)
{
	return out.colour != NULL && *out.colour && isatty(fileno(fp));
}

static void emit_str(FILE *fp, const char *prefix, const char *sgr,
    const char *text);

static void
emit_str(FILE *fp, const char *prefix, const char *sgr, const char *text)
{
	struct strbuf sb = STRBUF_INIT, msg = STRBUF_INIT;

	/* one line, whatever the words quoted in it hold */
	for (const char *p = text; *p != '\0'; p++) {
		if (*p == '\n')
			strbuf_addstr(&msg, "\\n");
		else if ((unsigned char)*p < 0x20 && *p != '\t')
			strbuf_addf(&msg, "\\x%02x", (unsigned char)*p);
		else
			strbuf_addch(&msg, *p);
	}
	if (fp == stderr)
		fflush(stdout);
	if (colour(fp))
		fprintf(fp, "\033[%sm%s\033[0m%s\n", sgr, prefix, msg.buf);
	else
		fprintf(fp, "%s%s\n", prefix, msg.buf);
	if (fp == stderr)
		fflush(stderr);
	strbuf_addf(&sb, "%s%s\n", prefix, msg.buf);
	strbuf_add(&out.capture, sb.buf, sb.len);
	strbuf_release(&sb);
	strbuf_release(&msg);
}

void
out_printf(const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	fputs(sb.buf, stdout);
	strbuf_add(&out.capture, sb.buf, sb.len);
	strbuf_release(&sb);
}

/* Whether the command word of `cmd` is an executable on PATH. */
static int
on_path(const char *cmd)
{
	size_t n = strcspn(cmd, " \t");
	const char *path = getenv("PATH");
	int found = 0;

	if (n == 0)
		return 0;
	if (memchr(cmd, '/', n) != NULL) {
		char *f = xstrndup(cmd, n);
		found = access(f, X_OK) == 0;
		free(f);
		return found;
	}
	while (path != NULL && *path != '\0' && !found) {
		size_t m = strcspn(path, ":");
		char *f = xasprintf("%.*s/%.*s", (int)m, path, (int)n, cmd);

		found = access(f, X_OK) == 0;
		free(f);
		path += m + (path[m] == ':');
	}
	return found;
}

void
out_paged(const char *text, int page)
{
	struct winsize ws;
	const char *pager = getenv("PAGER");
	size_t lines = 0;
	FILE *fp;

	strbuf_addstr(&out.capture, text);
	for (const char *p = text; *p != '\0'; p++)
		lines += *p == '\n';
	if (pager == NULL || *pager == '\0')
		pager = "less -FRX";
	if (!page || !isatty(STDOUT_FILENO) ||
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 ||
	    lines < ws.ws_row || strcmp(pager, "cat") == 0 || !on_path(pager)) {
		fputs(text, stdout);
		return;
	}
	fflush(stdout);
	if ((fp = popen(pager, "w")) == NULL) {
		fputs(text, stdout);
		return;
	}
	fputs(text, fp); /* EPIPE when the pager quits early: SIGPIPE is ignored */
	pclose(fp);
}

void
out_echo(const char *line)
{
	/* the transcript shows the command, but `expect output` must not
	 * find its own text in it */
	fputs(line, stdout);
}

void
out_error(const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (out.origin != NULL) {
		char *t = xasprintf("%s: %s", out.origin, msg);
		free(msg);
		msg = t;
	}
	emit_str(stderr, "error: ", "1;31", msg);
	free(msg);
}

void
out_set_origin(const char *origin)
{
	out.origin = origin;
}

void
out_warning(const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	/* a command aimed at many ranks says each distinct thing once */
	if (strstr(out.capture.buf, msg) == NULL)
		emit_str(stderr, "warning: ", "1;33", msg);
	free(msg);
}

void
out_caret(size_t col, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t start = 0, end;

	if (out.line == NULL || col > strlen(out.line))
		return;
	/* a command continued over lines: the line the column is on */
	for (size_t i = 0; i < col; i++)
		if (out.line[i] == '\n')
			start = i + 1;
	end = start + strcspn(out.line + start, "\n");
	strbuf_addf(&sb, "  %.*s\n  ", (int)(end - start), out.line + start);
	for (size_t i = start; i < col; i++)
		strbuf_addch(&sb, out.line[i] == '\t' ? '\t' : ' ');
	strbuf_addch(&sb, '^');
	for (size_t i = 1; i < len && i < 60; i++)
		strbuf_addch(&sb, '~');
	strbuf_addch(&sb, '\n');
	fflush(stdout);
	fputs(sb.buf, stderr);
	fflush(stderr);
	strbuf_add(&out.capture, sb.buf, sb.len);
	strbuf_release(&sb);
}

static void
print_now(const char *text)
{
	if (out.prompt != NULL) {
		int up = out.prompt->rows_above_cursor();
		if (up > 0)
			fprintf(stdout, "\033[%dA", up);
		fputs("\r\033[J", stdout); /* the whole half-typed line */
		fputs(text, stdout);
		fputc('\n', stdout);
		fflush(stdout);
		out.prompt->refresh();
	} else {
		fputs(text, stdout);
		fputc('\n', stdout);
	}
	strbuf_addstr(&out.capture, text);
	strbuf_addch(&out.capture, '\n');
	if (out.tap != NULL)
		out.tap(text);
}

void
out_event(int rank, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	if (out.prompt != NULL) {
		print_now(text);
		free(text);
		return;
	}
	if (out.n == out.alloc) {
		out.alloc = out.alloc ? out.alloc * 2 : 16;
		out.ev = xreallocarray(out.ev, out.alloc, sizeof *out.ev);
	}
	out.ev[out.n].rank = rank;
	out.ev[out.n].seq = out.seq++;
	out.ev[out.n].text = text;
	out.n++;
}

static int
by_rank(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The rank of an event "[rank N] ..." and where its text starts, or -1. */
static int
event_rank(const char *text, const char **rest)
{
	char *end;
	long r;

	if (strncmp(text, "[rank ", 6) != 0)
		return -1;
	r = strtol(text + 6, &end, 10);
	if (end == text + 6 || *end != ']' || r < 0)
		return -1;
	*rest = end + 1;
	return (int)r;
}

static void
group_print(void *arg, const char *ranks, int count, const char *text)
{
	char *line = xasprintf("[%s %s]%s", group_ranks_word(count), ranks, text);

	(void)arg;
	print_now(line);
	free(line);
}

/* The events of a large world, "[rank N] ..." ones grouped (group.h);
 * each run of them between the others is one group. */
static void
flush_grouped(void)
{
	struct group *g = NULL;

	for (size_t i = 0; i < out.n; i++) {
		const char *rest;
		int r = event_rank(out.ev[i].text, &rest);

		if (r >= 0) {
			if (g == NULL)
				g = group_new(out.world, GROUP_ALIKE);
			group_add(g, r, rest);
		} else {
			if (g != NULL) {
				group_each(g, group_print, NULL);
				group_free(g);
				g = NULL;
			}
			print_now(out.ev[i].text);
		}
		free(out.ev[i].text);
	}
	if (g != NULL) {
		group_each(g, group_print, NULL);
		group_free(g);
	}
}

void
out_flush_events(void)
{
	if (out.n > 1)
		qsort(out.ev, out.n, sizeof *out.ev, by_rank);
	if (out.n > 1 && group_wanted(out.world)) {
		flush_grouped();
	} else {
		for (size_t i = 0; i < out.n; i++) {
			print_now(out.ev[i].text);
			free(out.ev[i].text);
		}
	}
	out.n = 0;
	fflush(stdout);
}
