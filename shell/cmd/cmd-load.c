/*
 * cmd-load.c - load LIB [as NAME]: dlopen a shared library in every
 * target rank, for `call NAME:SYM(...)`.  Without arguments, list what is
 * loaded where.
 *
 * The shell checks what it can before any rank moves: the name (default:
 * the file name without "lib" and ".so..."), a name already in use, and,
 * for a path with a '/', that the file exists and is an ELF shared object.
 * The ranks then dlopen() it (RTLD_NOW, so missing dependencies show
 * here); their dlerror() text is the error.  A bare file name is searched
 * as dlopen searches (LD_LIBRARY_PATH, the system paths).
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

struct shlib {
	char *name;
	char *path;
	struct rankset ranks; /* where it is loaded */
};

static struct shlib *shlibs;
static size_t nshlibs;

static struct shlib *
shlib_find(const char *name)
{
	for (size_t i = 0; i < nshlibs; i++) {
		if (strcmp(shlibs[i].name, name) == 0)
			return &shlibs[i];
	}
	return NULL;
}

const char *
shlib_path(const char *name, int r)
{
	struct shlib *l = shlib_find(name);

	return l != NULL && rankset_has(&l->ranks, r) ? l->path : NULL;
}

size_t
shlib_count(void)
{
	return nshlibs;
}

/* "./build/libkern.so.1" -> "kern"; NULL if that is no identifier. */
static char *
default_name(const char *path)
{
	const char *b = strrchr(path, '/');
	char *name;
	size_t n;

	b = b != NULL ? b + 1 : path;
	if (strncmp(b, "lib", 3) == 0 && b[3] != '\0' && b[3] != '.')
		b += 3;
	n = strcspn(b, ".");
	name = xstrndup(b, n);
	for (size_t i = 0; i < n; i++) {
		if (!(isalnum((unsigned char)name[i]) || name[i] == '_') ||
		    (i == 0 && isdigit((unsigned char)name[i]))) {
			free(name);
			return NULL;
		}
	}
	if (n == 0 || n >= SEG_NAME_MAX) {
		free(name);
		return NULL;
	}
	return name;
}

static int
name_ok(const char *name)
{
	if (name[0] == '\0' || isdigit((unsigned char)name[0]))
		return 0;
	for (const char *p = name; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	}
	return strlen(name) < SEG_NAME_MAX;
}

/* A file the shell can look at: is it an ELF shared object? */
static int
check_file(struct cmdctx *ctx, const char *path)
{
	unsigned char h[EI_NIDENT + 4];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint16_t type;

	if (fd < 0)
		return arg_error(ctx, 0, "cannot open '%s': %s", path,
		    strerror(errno));
	n = read(fd, h, sizeof h);
	close(fd);
	if (n < (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0)
		return arg_error(ctx, 0,
		    "'%s' is not a shared object (no ELF header)", path);
	memcpy(&type, h + EI_NIDENT, sizeof type);
	if (h[EI_DATA] == ELFDATA2MSB)
		type = (uint16_t)(type >> 8 | type << 8);
	if (type != ET_DYN)
		return arg_error(ctx, 0,
		    "'%s' is not a shared object (ELF type %s)", path,
		    type == ET_EXEC	? "executable" :
			type == ET_REL	? "relocatable object" :
			type == ET_CORE ? "core file" :
					  "unknown");
	return 0;
}

static void
list(struct session *s)
{
	if (nshlibs == 0) {
		out_printf("no libraries loaded (see 'help load')\n");
		return;
	}
	for (size_t i = 0; i < nshlibs; i++) {
		char *t = rankset_format(&shlibs[i].ranks, s->nranks);
		out_printf("%-12s %s  %s\n", shlibs[i].name, shlibs[i].path, t);
		free(t);
	}
}

static enum cmd_retval
cmd_load_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct rankset live, ok;
	struct call_result *res;
	struct shlib *l;
	const char *path = arg(ctx, 0);
	char *name = NULL, *t;
	size_t n;
	enum cmd_retval rv = CMD_ERROR;

	if (nargs(ctx) == 0) {
		list(s);
		return CMD_OK;
	}
	if (nargs(ctx) != 1 &&
	    (nargs(ctx) != 3 || strcmp(arg(ctx, 1), "as") != 0)) {
		arg_error(ctx, 1,
		    "expected 'as NAME' after the library, got '%s'",
		    arg(ctx, 1));
		return CMD_ERROR;
	}
	if (nargs(ctx) == 3) {
		if (!name_ok(arg(ctx, 2))) {
			arg_error(ctx, 2,
			    "bad library name '%s' (letters, digits and _, at most %d)",
			    arg(ctx, 2), SEG_NAME_MAX - 1);
			return CMD_ERROR;
		}
		name = xstrdup(arg(ctx, 2));
	} else if ((name = default_name(path)) == NULL) {
		arg_error(ctx, 0,
		    "cannot make a name from '%s'; use 'load %s as NAME'", path,
		    path);
		return CMD_ERROR;
	}
	/* the same library again extends it to more ranks */
	if ((l = shlib_find(name)) != NULL && strcmp(l->path, path) != 0) {
		arg_error(ctx, nargs(ctx) == 3 ? 2 : 0,
		    "a library named '%s' is already loaded (%s); use 'load LIB as OTHER'",
		    name, l->path);
		goto out;
	}
	if (strchr(path, '/') != NULL && check_file(ctx, path) != 0)
		goto out;
	if (targets_live(ctx, &live) != 0)
		goto out;
	if (l != NULL) {
		for (int r = 0; r < s->nranks; r++)
			if (rankset_has(&l->ranks, r))
				rankset_del(&live, r);
		if (rankset_count(&live) == 0) {
			t = rankset_format(&l->ranks, s->nranks);
			arg_error(ctx, 0, "%s is already loaded as %s on %s",
			    path, name, t);
			free(t);
			goto out;
		}
	}
	call_results_begin();
	for (int r = 0; r < s->nranks; r++) {
		struct strbuf sb = STRBUF_INIT;
		struct prog *p;
		struct uop u;

		if (!rankset_has(&live, r))
			continue;
		call_load_encode(name, path, &sb);
		p = prog_new("load");
		memset(&u, 0, sizeof u);
		u.kind = UOP_LOAD;
		u.src = prog_str(p, sb.buf);
		u.name = prog_str(p, "load");
		strbuf_release(&sb);
		prog_add(p, &u);
		if (call_submit(ctx, r, p, xasprintf("load %s", path)) != 0)
			goto out;
	}
	res = call_results_settle(ctx, &n);
	rankset_clear(&ok);
	for (size_t i = 0; i < n; i++) {
		if (res[i].done && res[i].status == DONE_OK)
			rankset_add(&ok, res[i].rank);
	}
	if (rankset_count(&ok) > 0 && l != NULL) {
		for (int r = 0; r < s->nranks; r++)
			if (rankset_has(&ok, r))
				rankset_add(&l->ranks, r);
		t = rankset_format(&ok, s->nranks);
		out_printf("loaded %s as %s on %s\n", path, name, t);
		free(t);
	} else if (rankset_count(&ok) > 0) {
		shlibs = xreallocarray(shlibs, nshlibs + 1, sizeof *shlibs);
		shlibs[nshlibs].name = xstrdup(name);
		shlibs[nshlibs].path = xstrdup(path);
		shlibs[nshlibs].ranks = ok;
		nshlibs++;
		t = rankset_format(&ok, s->nranks);
		out_printf("loaded %s as %s on %s\n", path, name, t);
		free(t);
	}
	if (call_results_report_errors(ctx, ctx->w.v[0].col, ctx->w.v[0].len) == 0)
		rv = CMD_OK;
out:
	call_results_end();
	free(name);
	return rv;
}

static const char *const load_keywords[] = { "as", NULL };

const struct cmd_entry cmd_load_entry = {
	.name = "load",
	.usage = "[LIB [as NAME]]",
	.summary = "dlopen a library in the target ranks; alone, list them",
	.example = "load ./libkern.so as kern",
	.group = GRP_CODE,
	.min_args = 0,
	.max_args = 3,
	.flags = CMD_TARGETS | CMD_AGENTS_ONLY,
	.keywords = load_keywords,
	.agents_why = "load and call run in colldb's own ranks (colldb -n N); "
		      "these ranks are the program",
	.exec = cmd_load_exec,
};
