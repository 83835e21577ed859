/*
 * opts.c - the options `colldb` and `colldb run` share (-n, -x, --batch,
 * --echo, --name, --timeout), parsed and checked in one place.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kern.h"
#include "seg.h"
#include "start/start.h"
#include "xmalloc.h"

static int hosts_ok(const char *h);
static int listen_ok(const char *l);

/*
 * One `error:` line, as the log tools say it: on the command line of WHO
 * ("colldb", "colldb run") with where to look, in a script's "#! args:"
 * line (WHO is its path) with the path first.
 */
static printflike(2, 3) void opt_error(const char *who, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (strncmp(who, "colldb", 6) == 0)
		fprintf(stderr, "error: %s (try '%s --help')\n", msg, who);
	else
		fprintf(stderr, "error: %s: %s\n", who, msg);
	free(msg);
}

void
shell_opt_getopt_error(int c, char *const *argv, const char *who)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (c == ':' && optopt != 0 && strncmp(arg, "--", 2) != 0)
		opt_error(who, "-%c needs a value", optopt);
	else if (c == ':')
		opt_error(who, "%s needs a value", arg);
	else if (strncmp(arg, "--", 2) == 0 && optopt != 0 &&
	    strchr(arg, '=') != NULL)
		opt_error(who, "%.*s takes no value", (int)strcspn(arg, "="),
		    arg);
	else if (optopt != 0 && strncmp(arg, "--", 2) != 0)
		opt_error(who, "unknown option '-%c'", optopt);
	else
		opt_error(who, "unknown option '%s'", arg);
}

void
shell_longopts(struct option *lo, const struct option *extra)
{
	static const struct option shared[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "echo", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "name", required_argument, NULL, 'N' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "window-area", required_argument, NULL, 'A' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "mpirun", required_argument, NULL, 'M' },
		{ "net", required_argument, NULL, 'I' },
		{ "listen", required_argument, NULL, 'L' },
	};
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(shared); i++)
		lo[n++] = shared[i];
	for (; extra != NULL && extra->name != NULL; extra++) {
		if (n + 1 >= SHELL_LONGOPTS_MAX)
			BUG("more than %d long options", SHELL_LONGOPTS_MAX - 1);
		lo[n++] = *extra;
	}
	memset(&lo[n], 0, sizeof lo[n]);
}

void
shell_opts_init(struct shell_opts *o)
{
	memset(o, 0, sizeof *o);
	o->nranks = -1;
	o->timeout = -1;
}

void
shell_opts_release(struct shell_opts *o)
{
	free(o->xfiles);
	o->xfiles = NULL;
	o->nx = 0;
}

int
shell_opt(int c, const char *val, const char *who, struct shell_opts *o)
{
	char *cause = NULL, *end;
	int64_t v;

	switch (c) {
	case 'n':
		if (parse_int(val, &v, 0, &cause) != 0 || v < 1 ||
		    v > SEG_MAX_RANKS) {
			free(cause);
			opt_error(who, "-n %s: expected 1..%d ranks", val,
			    SEG_MAX_RANKS);
			return -1;
		}
		o->nranks = (int)v;
		return 1;
	case 'x':
		o->xfiles =
		    xreallocarray(o->xfiles, o->nx + 1, sizeof *o->xfiles);
		o->xfiles[o->nx++] = val;
		return 1;
	case 'b':
		o->batch = 1;
		return 1;
	case 'e':
		o->echo = 1;
		return 1;
	case 'N':
		if (strlen(val) == 0 || strlen(val) >= 48 ||
		    strchr(val, '/') != NULL) {
			opt_error(who,
			    "--name %s: expected 1..47 characters, no '/'", val);
			return -1;
		}
		snprintf(o->name, sizeof o->name, "%s", val);
		return 1;
	case 'T':
		o->timeout = strtod(val, &end);
		if (*end != '\0' || end == val ||
		    !(o->timeout >= 0 && o->timeout <= 86400)) {
			opt_error(who,
			    "--timeout %s: expected seconds, 0..86400", val);
			return -1;
		}
		return 1;
	case 't':
		if (strcmp(optarg, "shm") == 0) {
			o->mpi = 0;
			return 1;
		}
		if (strcmp(optarg, "mpi") == 0) {
			o->mpi = 1;
			return 1;
		}
		opt_error(who, "-t %s: unknown transport (expected shm or mpi)",
		    optarg);
		return -1;
	case 'H':
		if (!hosts_ok(optarg)) {
			opt_error(who,
			    "--hosts %s: expected HOST[:N],... (N ranks on HOST, 1..%d)",
			    optarg, SEG_MAX_RANKS);
			return -1;
		}
		o->mpi_ranks.hosts = optarg;
		return 1;
	case 'M':
		if (optarg[strspn(optarg, " \t")] == '\0') {
			opt_error(who, "--mpirun '%s': expected a command",
			    optarg);
			return -1;
		}
		o->mpi_ranks.mpirun = optarg;
		return 1;
	case 'I':
		if (optarg[0] == '\0' || strlen(optarg) > 64) {
			opt_error(who, "--net '%s': expected an interface",
			    optarg);
			return -1;
		}
		o->mpi_ranks.net = optarg;
		return 1;
	case 'L':
		if (!listen_ok(optarg)) {
			opt_error(who,
			    "--listen '%s': expected ADDR[:PORT] (PORT 0..65535)",
			    optarg);
			return -1;
		}
		o->mpi_ranks.listen = optarg;
		return 1;
	case 'A':
		v = parse_uint(val, &o->area, 1, &cause);
		free(cause);
		if (v != 0 || o->area < 4096 || o->area > SEG_AREA_MAX) {
			opt_error(who, "--window-area %s: %s", val,
			    v != 0 ?
				"expected bytes: an integer, optionally with k, M or G" :
				o->area < 4096 ?
				"too small (expected at least 4096 bytes)" :
				"too large (expected at most 64 TiB over all ranks)");
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}

/* HOST[:N],...: names without spaces or commas, N 1..SEG_MAX_RANKS. */
static int
hosts_ok(const char *h)
{
	if (*h == '\0')
		return 0;
	for (;;) {
		size_t n = strcspn(h, ":,");

		if (n == 0 || strcspn(h, " \t") < n)
			return 0;
		h += n;
		if (*h == ':') {
			char *end;
			long k = strtol(h + 1, &end, 10);
			if (end == h + 1 || k < 1 || k > SEG_MAX_RANKS)
				return 0;
			h = end;
		}
		if (*h == '\0')
			return 1;
		if (*h != ',')
			return 0;
		h++;
	}
}

/* ADDR[:PORT] as the shell reads it (shell/session/mpi-attach.c): an
 * address without spaces, then a port 0..65535 after the last ':'. */
static int
listen_ok(const char *l)
{
	const char *colon = strrchr(l, ':');
	char *end;
	long port;

	if (l[0] == '\0' || strlen(l) > 100 || colon == l ||
	    strcspn(l, " \t") < strlen(l))
		return 0;
	if (colon == NULL)
		return 1;
	port = strtol(colon + 1, &end, 10);
	return end != colon + 1 && *end == '\0' && colon[1] != '-' &&
	    colon[1] != '+' && port >= 0 && port <= 65535;
}

int
shell_opts_transport_ok(struct shell_opts *o, const char *who)
{
	const struct mpi_ranks *m = &o->mpi_ranks;
	const char *opt = m->hosts != NULL ? "--hosts" :
	    m->mpirun != NULL		   ? "--mpirun" :
	    m->net != NULL		   ? "--net" :
	    m->listen != NULL		   ? "--listen" :
					     NULL;

	if (!o->mpi && opt != NULL) {
		opt_error(who, "%s needs -t mpi", opt);
		return -1;
	}
	if (!o->mpi)
		return 0;
	if (o->nranks < 0 && m->hosts != NULL) {
		/* -n defaults to the slots --hosts names */
		int n = 0;
		for (const char *h = m->hosts; *h != '\0';) {
			size_t k = strcspn(h, ",");
			const char *colon = memchr(h, ':', k);
			n += colon != NULL ? atoi(colon + 1) : 1;
			h += k + (h[k] == ',');
		}
		o->nranks = n <= SEG_MAX_RANKS ? n : SEG_MAX_RANKS;
	}
	if (o->area == 0) {
		uint64_t n = o->nranks > 0 ? (uint64_t)o->nranks : 4;
		o->area = MPI_AREA_TOTAL / n < MPI_AREA_PER ?
		    (MPI_AREA_TOTAL / n + 4095) / 4096 * 4096 :
		    MPI_AREA_PER;
	}
	return 0;
}

int
shell_opts_scripts_ok(const struct shell_opts *o, const char *who)
{
	for (size_t i = 0; i < o->nx; i++) {
		struct stat st;

		if (access(o->xfiles[i], R_OK) != 0 ||
		    stat(o->xfiles[i], &st) != 0) {
			opt_error(who, "cannot read script '%s': %s",
			    o->xfiles[i], strerror(errno));
			return 0;
		}
		if (S_ISDIR(st.st_mode)) {
			opt_error(who, "script '%s' is a directory",
			    o->xfiles[i]);
			return 0;
		}
	}
	return 1;
}

int
shell_opt_last(int c, const char *val, char *const *argv, const char *who,
    struct shell_opts *o)
{
	int r = shell_opt(c, val, who, o);

	if (r == 1)
		return 0;
	if (r == 0)
		shell_opt_getopt_error(c, argv, who);
	shell_opts_release(o);
	return -1;
}

/*
 * A script may say what world it needs on a "#! args: -n N [--timeout S]"
 * line (lessons, scenarios, recordings do); it is used when the command
 * line does not say, and checked like the command line.
 */
int
shell_opts_from_script(struct shell_opts *o, const char *path, const char *who)
{
	FILE *fp = fopen(path, "r");
	char line[256], *save = NULL, *tok;
	int rc = 0;

	if (fp == NULL)
		return 0;
	for (int i = 0; i < 3 && fgets(line, sizeof line, fp) != NULL; i++) {
		if (strncmp(line, "#! args:", 8) != 0)
			continue;
		for (tok = strtok_r(line + 8, " \t\n", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			char *v = strtok_r(NULL, " \t\n", &save);
			struct shell_opts t;
			int c = strcmp(tok, "-n") == 0	      ? 'n' :
			    strcmp(tok, "--timeout") == 0     ? 'T' :
			    strcmp(tok, "--window-area") == 0 ? 'A' :
								0;

			if (c == 0 || v == NULL) {
				fprintf(stderr,
				    "error: %s: bad '#! args:' line at '%s' (expected -n N, --timeout SECS, --window-area BYTES)\n",
				    path, tok);
				rc = -1;
				break;
			}
			shell_opts_init(&t);
			if (shell_opt(c, v, path, &t) != 1) {
				rc = -1;
				break;
			}
			if (c == 'n' && o->nranks < 0)
				o->nranks = t.nranks;
			if (c == 'T' && o->timeout < 0)
				o->timeout = t.timeout;
			if (c == 'A' && o->area == 0)
				o->area = t.area;
		}
		break;
	}
	fclose(fp);
	return rc;
}

/*
 * The environment knobs the ranks read (docs/colldb.1, ENVIRONMENT):
 * deep in a rank a bad value could only be ignored, so it is refused
 * here, before any rank starts.
 */
int
shell_opts_env_ok(const char *who)
{
	const char *v;
	char *end;
	int ok = 0;

	if ((v = getenv("COLLDB_KERN")) != NULL) {
		for (int l = 0; l < KERN__COUNT; l++)
			ok |= strcmp(v, kern_level_name((enum kern_level)l)) == 0;
		if (!ok) {
			opt_error(who,
			    "COLLDB_KERN=%s: expected scalar, generic or avx2",
			    v);
			return -1;
		}
	}
	if ((v = getenv("COLLDB_STREAM_MIN")) != NULL && strcmp(v, "off") != 0) {
		errno = 0;
		(void)strtoull(v, &end, 0);
		if (end == v || *end != '\0' || errno != 0 ||
		    strchr(v, '-') != NULL) {
			opt_error(who,
			    "COLLDB_STREAM_MIN=%s: expected a byte count or off",
			    v);
			return -1;
		}
	}
	return 0;
}
