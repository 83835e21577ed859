/*
 * opts.c - the options `colldb` and `colldb run` share (-n, -x, --batch,
 * --echo, --name, --timeout), parsed and checked in one place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seg.h"
#include "shell.h"
#include "xmalloc.h"

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
shell_opt(int c, const char *optarg, const char *who, struct shell_opts *o)
{
	char *cause = NULL, *end;
	int64_t v;

	switch (c) {
	case 'n':
		if (parse_int(optarg, &v, 0, &cause) != 0 || v < 1 ||
		    v > SEG_MAX_RANKS) {
			free(cause);
			fprintf(stderr, "%s: -n %s: expected 1..%d ranks\n", who, optarg,
			    SEG_MAX_RANKS);
			return -1;
		}
		o->nranks = (int)v;
		return 1;
	case 'x':
		o->xfiles = xreallocarray(o->xfiles, o->nx + 1, sizeof *o->xfiles);
		o->xfiles[o->nx++] = optarg;
		return 1;
	case 'b':
		o->batch = 1;
		return 1;
	case 'e':
		o->echo = 1;
		return 1;
	case 'N':
		if (strlen(optarg) == 0 || strlen(optarg) >= 48 ||
		    strchr(optarg, '/') != NULL) {
			fprintf(stderr, "%s: --name %s: expected 1..47 characters, no '/'\n",
			    who, optarg);
			return -1;
		}
		snprintf(o->name, sizeof o->name, "%s", optarg);
		return 1;
	case 'T':
		o->timeout = strtod(optarg, &end);
		if (*end != '\0' || end == optarg || o->timeout < 0) {
			fprintf(stderr, "%s: --timeout %s: expected seconds\n", who, optarg);
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}
