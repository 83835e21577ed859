/*
 * cmd-kill.c - kill: send a signal to rank processes (default SIGKILL), to
 * see how a protocol survives a crashed rank.  The death is reported like
 * any other (signal, last op) and the session goes on with the others.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"

static const struct {
	const char *name;
	int sig;
} sigs[] = {
	{ "KILL", SIGKILL },
	{ "TERM", SIGTERM },
	{ "SEGV", SIGSEGV },
	{ "ABRT", SIGABRT },
	{ "BUS", SIGBUS },
	{ "QUIT", SIGQUIT },
	{ "HUP", SIGHUP },
	{ "USR1", SIGUSR1 },
};

static enum cmd_retval
cmd_kill_exec(struct cmdctx *ctx)
{
	struct session *s = ctx->s;
	struct rankset live;
	int sig = SIGKILL;
	uint64_t deadline;

	if (nargs(ctx) == 1) {
		const char *a = arg(ctx, 0);
		if (strncmp(a, "SIG", 3) == 0)
			a += 3;
		sig = 0;
		for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
			if (strcmp(sigs[i].name, a) == 0)
				sig = sigs[i].sig;
		}
		if (sig == 0) {
			arg_error(ctx, 0,
			    "unknown signal '%s' (expected KILL, TERM, SEGV, ABRT, BUS, QUIT, HUP or USR1)",
			    arg(ctx, 0));
			return CMD_ERROR;
		}
	}
	if (targets_alive(ctx, &live) != 0)
		return CMD_ERROR;
	for (int r = 0; r < s->nranks; r++) {
		if (rankset_has(&live, r))
			s->kind->kill(s, r, sig);
	}
	/* Wait for the deaths to be noticed (a caught signal may not kill). */
	deadline = mono_ns() + 2000000000ull;
	while (mono_ns() < deadline) {
		int left = 0;
		session_pump(s, 5);
		for (int r = 0; r < s->nranks; r++)
			left += rankset_has(&live, r) && rank_alive(s, r);
		if (left == 0)
			break;
	}
	return CMD_OK;
}

static const char *const kill_keywords[] = { "KILL", "TERM", "SEGV", "ABRT",
	"BUS", "QUIT", "HUP", "USR1", NULL };

const struct cmd_entry cmd_kill_entry = {
	.name = "kill",
	.usage = "[SIGNAL]",
	.summary = "send a signal (default KILL) to the ranks named by @R",
	.example = "@2 kill SEGV",
	.group = GRP_CONTROL,
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_TARGETS | CMD_NEEDS_TARGETS,
	.keywords = kill_keywords,
	.exec = cmd_kill_exec,
};
