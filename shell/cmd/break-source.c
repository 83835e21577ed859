/*
 * break-source.c - a source breakpoint (`break ring.c:75`) against the
 * program's source text, as gdb checks one against its line table, but
 * without debug information: a call site is the line the cdb_* macros
 * record (__LINE__: the line of the call's name with gcc, of its closing
 * parenthesis with clang), so the file is read and its cdb_* calls found
 * by a small C lexer.  The file is looked for as typed, beside the
 * program, and where the program's own file names say (the __FILE__
 * strings its cdb_* calls carry, in its read-only data; relative to this
 * directory, the program's, or one of the program's parents).
 *
 * And when the program has ended: the breakpoints on its calls that
 * never stopped a rank are said (a session hook).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "site.h"
#include "xmalloc.h"

#define SRC_MAX (16u << 20)  /* a source file larger is not read */
#define SECT_MAX (64u << 20) /* nor a program section */
#define NAMES_MAX 16	     /* file names taken from the program */
#define PARENTS_MAX 4	     /* of the program's directory, tried */

/* ---- the source text -------------------------------------------------------- */

/* What the lexer found: per line (1..nlines) whether it holds code (not
 * only blanks, comments and braces), and the lines each cdb_* call spans
 * (its name to its closing parenthesis). */
struct src {
	int nlines;
	unsigned char *code; /* [nlines + 2] */
	struct span {
		int lo, hi;
	} * calls;
	size_t ncalls;
};

static void
src_release(struct src *sr)
{
	free(sr->code);
	free(sr->calls);
	memset(sr, 0, sizeof *sr);
}

static int
is_site_fn(const char *id, size_t n)
{
	for (int f = FN_NONE + 1; f < FN__COUNT; f++) {
		const char *name = api_fn_name((enum api_fn)f);

		if (name != NULL && strlen(name) == n && memcmp(name, id, n) == 0)
			return 1;
	}
	return 0;
}

static int
id_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* The program's own macros that make a call (`#define SEND(p) cdb_notify
 * (...)`, or one that uses such a macro): a use of one is a call there. */
struct macros {
	struct macro {
		char *name;
		int fnlike; /* SEND(...), not SYNC */
	} * v;
	size_t n, cap;
};

static const struct macro *
macro_find(const struct macros *m, const char *id, size_t n)
{
	for (size_t k = 0; k < m->n; k++) {
		if (strlen(m->v[k].name) == n && memcmp(m->v[k].name, id, n) == 0)
			return &m->v[k];
	}
	return NULL;
}

static void
call_add(struct src *sr, size_t *cap, int lo, int hi)
{
	if (sr->ncalls == *cap)
		sr->calls = xreallocarray(sr->calls,
		    *cap = *cap ? 2 * *cap : 32, sizeof *sr->calls);
	sr->calls[sr->ncalls].lo = lo;
	sr->calls[sr->ncalls++].hi = hi;
}

/* Lex text: comments, strings and character constants, and preprocessor
 * lines (a #define naming cdb_wait makes no call on its own line; its
 * uses do). */
static void
src_lex(struct src *sr, const char *t, size_t len)
{
	int line = 1, bol = 1, pp = 0, depth = 0, pending = 0;
	size_t cap = 0, nopen = 0, capopen = 0, i = 0;
	struct open {
		int lo, depth;
	} *open = NULL;
	struct macros mac = { NULL, 0, 0 };
	/* in a #define: 1 before its name, 2 in its body (defname) */
	int def = 0, pp_ids = 0;
	char *defname = NULL;
	int deffn = 0;

	sr->nlines = 1;
	for (size_t k = 0; k < len; k++)
		sr->nlines += t[k] == '\n' && k + 1 < len;
	sr->code = xcalloc((size_t)sr->nlines + 2, 1);
	while (i < len) {
		char c = t[i];

		if (c == '\n') {
			if (!(pp && i > 0 && t[i - 1] == '\\')) {
				pp = def = 0;
				free(defname);
				defname = NULL;
			}
			line++;
			bol = 1;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++;
			continue;
		}
		if (c == '/' && i + 1 < len && t[i + 1] == '/') {
			while (i < len && t[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < len && t[i + 1] == '*') {
			for (i += 2; i < len &&
			     !(t[i] == '*' && i + 1 < len && t[i + 1] == '/');
			     i++)
				line += t[i] == '\n';
			i += 2;
			continue;
		}
		if (bol && c == '#') {
			pp = 1;
			pp_ids = 0;
		}
		bol = 0;
		if (c != '{' && c != '}' && c != ';')
			sr->code[line] = 1;
		if (c == '"' || c == '\'') {
			for (i++; i < len && t[i] != c && t[i] != '\n'; i++) {
				if (t[i] == '\\' && i + 1 < len)
					line += t[++i] == '\n';
			}
			i++;
			pending = 0;
			continue;
		}
		if (id_char(c) && !(c >= '0' && c <= '9')) {
			size_t b = i, n;
			const struct macro *m;

			while (i < len && id_char(t[i]))
				i++;
			n = i - b;
			m = macro_find(&mac, t + b, n);
			pending = 0;
			if (pp) {
				if (pp_ids++ == 0 && n == 6 &&
				    memcmp(t + b, "define", 6) == 0) {
					def = 1;
				} else if (def == 1) {
					defname = xstrndup(t + b, n);
					deffn = i < len && t[i] == '(';
					def = 2;
				} else if (def == 2 && defname != NULL &&
				    (is_site_fn(t + b, n) || m != NULL) &&
				    macro_find(&mac, defname, strlen(defname)) ==
					NULL) {
					if (mac.n == mac.cap)
						mac.v = xreallocarray(mac.v,
						    mac.cap =
							mac.cap ? 2 * mac.cap : 8,
						    sizeof *mac.v);
					mac.v[mac.n].name = xstrdup(defname);
					mac.v[mac.n++].fnlike = deffn;
				}
			} else if (is_site_fn(t + b, n) ||
			    (m != NULL && m->fnlike)) {
				pending = line;
			} else if (m != NULL) {
				call_add(sr, &cap, line, line);
			}
			continue;
		}
		if (pp) {
			i++;
			continue;
		}
		if (c == '(') {
			if (pending) {
				if (nopen == capopen)
					open = xreallocarray(open,
					    capopen = capopen ? 2 * capopen : 8,
					    sizeof *open);
				open[nopen].lo = pending;
				open[nopen++].depth = depth;
			}
			depth++;
		} else if (c == ')' && depth > 0) {
			depth--;
			if (nopen > 0 && open[nopen - 1].depth == depth) {
				nopen--;
				call_add(sr, &cap, open[nopen].lo, line);
			}
		}
		pending = 0;
		i++;
	}
	free(defname);
	for (size_t k = 0; k < mac.n; k++)
		free(mac.v[k].name);
	free(mac.v);
	free(open);
}

static int
src_read(const char *path, struct src *sr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *t;
	ssize_t n;
	size_t got = 0;

	memset(sr, 0, sizeof *sr);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > SRC_MAX) {
		close(fd);
		return -1;
	}
	t = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size &&
	    (n = read(fd, t + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	src_lex(sr, t, got);
	free(t);
	return 0;
}

/* ---- where the source is ----------------------------------------------------- */

/* The program's file names that end in "/base" or are base: the strings
 * in its allocated, non-executable sections (read-only data, where
 * __FILE__ goes; not its debug sections).  Each is added to names. */
static void
program_names(const char *prog, const char *base, char **names, int *nnames)
{
	int fd = open(prog, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	size_t blen = strlen(base);
	char *buf = NULL;

	if (fd < 0)
		return;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof *sh || eh.e_shnum == 0 || eh.e_shnum > 4096)
		goto out;
	sh = xreallocarray(NULL, eh.e_shnum, sizeof *sh);
	if (pread(fd, sh, eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff) !=
	    (ssize_t)(eh.e_shnum * sizeof *sh))
		goto out;
	for (int k = 0; k < eh.e_shnum && *nnames < NAMES_MAX; k++) {
		size_t sz = sh[k].sh_size;

		if (sh[k].sh_type != SHT_PROGBITS ||
		    !(sh[k].sh_flags & SHF_ALLOC) ||
		    (sh[k].sh_flags & SHF_EXECINSTR) || sz == 0 || sz > SECT_MAX)
			continue;
		buf = xrealloc(buf, sz + 1);
		if (pread(fd, buf, sz, (off_t)sh[k].sh_offset) != (ssize_t)sz)
			continue;
		buf[sz] = '\0';
		for (char *p = buf; p < buf + sz && *nnames < NAMES_MAX;
		     p += strlen(p) + 1) {
			size_t n = strlen(p);
			int dup = 0;

			if (n < blen || strcmp(p + n - blen, base) != 0 ||
			    (n > blen && p[n - blen - 1] != '/'))
				continue;
			for (int j = 0; j < *nnames; j++)
				dup |= strcmp(names[j], p) == 0;
			if (!dup)
				names[(*nnames)++] = xstrdup(p);
		}
	}
out:
	free(buf);
	free(sh);
	close(fd);
}

/* path if it is a readable regular file: a copy, else NULL */
static char *
try_file(const char *dir, const char *name)
{
	char *p = dir != NULL && name[0] != '/' ? xasprintf("%s/%s", dir, name) :
						  xstrdup(name);
	struct stat st;

	if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

static int
ends_with_path(const char *name, const char *tail)
{
	size_t n = strlen(name), t = strlen(tail);

	return n >= t && strcmp(name + n - t, tail) == 0 &&
	    (n == t || name[n - t - 1] == '/');
}

/* A name the program carries, here, beside the program or in the
 * program's parents: a copy, or NULL. */
static char *
find_named(const char *name, const char *dir)
{
	struct strbuf up = STRBUF_INIT;
	char *found = try_file(NULL, name);

	strbuf_addstr(&up, dir);
	for (int p = 0; p <= PARENTS_MAX && found == NULL; p++) {
		found = try_file(up.buf, name);
		strbuf_addstr(&up, "/..");
	}
	strbuf_release(&up);
	return found;
}

/* Where the source is: a name the program carries (those that end in
 * what was typed first), else what was typed, here or beside the
 * program.  A copy without a leading "./", or NULL; *named: whether the
 * program carries a name for the file at all. */
static char *
find_source(const char *typed, const char *base, const char *prog, int *named)
{
	char *names[NAMES_MAX], *dir, *slash, *found = NULL;
	int nnames = 0;

	dir = xstrdup(prog);
	slash = strrchr(dir, '/');
	if (slash != NULL)
		*slash = '\0';
	else
		strcpy(dir, ".");
	program_names(prog, base, names, &nnames);
	*named = nnames > 0;
	for (int pass = 0; pass < 2 && found == NULL; pass++) {
		for (int k = 0; k < nnames && found == NULL; k++) {
			if ((pass == 0) == ends_with_path(names[k], typed))
				found = find_named(names[k], dir);
		}
	}
	if (found == NULL)
		found = try_file(NULL, typed);
	if (found == NULL)
		found = try_file(dir, typed);
	for (int k = 0; k < nnames; k++)
		free(names[k]);
	free(dir);
	while (found != NULL && strncmp(found, "./", 2) == 0)
		memmove(found, found + 2, strlen(found + 2) + 1);
	return found;
}

/* ---- the breakpoint against it ------------------------------------------------ */

void
break_source_resolve(struct session *s, const char *typed, struct seg_break *nb,
    struct strbuf *note)
{
	const char *colon = strrchr(typed, ':');
	char *file, *path;
	struct src sr;
	int named, line = nb->line, lo = 0, hi = 0, before = 0, after = 0;

	if (s->program == NULL || !(nb->flags & BRK_AT_CALL) ||
	    nb->file[0] == '\0' || nb->line <= 0 || colon == NULL)
		return;
	file = xstrndup(typed, (size_t)(colon - typed));
	path = find_source(file, nb->file, s->program, &named);
	if (path == NULL) {
		if (named)
			strbuf_addf(note,
			    "source %s not found here or beside %s: line %d not checked",
			    nb->file, s->program, line);
		else
			strbuf_addf(note,
			    "pending: no source file %s here, beside %s, or named in it",
			    file, s->program);
		free(file);
		return;
	}
	free(file);
	if (src_read(path, &sr) != 0) {
		strbuf_addf(note, "cannot read %s: line %d not checked", path,
		    line);
		free(path);
		return;
	}
	if (line > sr.nlines) {
		strbuf_addf(note, "pending: %s has %d line%s", path, sr.nlines,
		    sr.nlines == 1 ? "" : "s");
		goto out;
	}
	/* gdb moves a breakpoint on a line without code to the next line
	 * with code: here when that line starts a call */
	{
		int next = line;

		while (next <= sr.nlines && !sr.code[next])
			next++;
		for (size_t k = 0;
		     next != line && next <= sr.nlines && k < sr.ncalls; k++) {
			if (sr.calls[k].lo == next) {
				strbuf_addf(note,
				    "moved from line %d, which holds no code",
				    line);
				line = next;
				break;
			}
		}
	}
	for (size_t k = 0; k < sr.ncalls; k++) {
		const struct span *c = &sr.calls[k];

		if (c->lo <= line && line <= c->hi) {
			lo = lo == 0 || c->lo < lo ? c->lo : lo;
			hi = c->hi > hi ? c->hi : hi;
		}
		if (c->hi < line && c->hi > before)
			before = c->hi;
		if (c->lo > line && (after == 0 || c->lo < after))
			after = c->lo;
	}
	if (lo != 0) {
		/* the call's lines: gcc records one, clang another */
		nb->line = lo;
		nb->line_end = hi > lo ? hi : 0;
		goto out;
	}
	strbuf_addf(note, "%s:%d holds no cdb_* call", path, line);
	if (before != 0 && after != 0)
		strbuf_addf(note, "; the nearest are on lines %d and %d",
		    before, after);
	else if (before != 0 || after != 0)
		strbuf_addf(note, "; the nearest is on line %d",
		    before != 0 ? before : after);
	else
		strbuf_addstr(note, ", nor does any line of it");
out:
	src_release(&sr);
	free(path);
}

/* ---- when the program has ended ----------------------------------------------- */

static void
break_gone(struct session *s, int r)
{
	struct strbuf sb = STRBUF_INIT;

	(void)r;
	if (!s->kind->own_code || s->breaks_told)
		return;
	for (int q = 0; q < s->nranks; q++) {
		if (rank_alive(s, q))
			return;
	}
	s->breaks_told = 1;
	for (uint32_t id = 1; id <= s->next_break; id++) {
		for (int k = 0; k < SEG_MAX_BREAKS; k++) {
			struct seg_break *bp = &s->seg.h->breaks[k];

			if (bp->id != id || !(bp->flags & BRK_AT_CALL) ||
			    atomic_load(&bp->hits) != 0)
				continue;
			strbuf_reset(&sb);
			break_spec_format(s, bp, NULL, &sb);
			out_event(INT_MAX,
			    "note: the program ended; breakpoint %u (%s) never stopped a rank",
			    id, sb.buf);
		}
	}
	strbuf_release(&sb);
}

const struct session_hook break_session_hook = {
	.name = "break",
	.gone = break_gone,
};
