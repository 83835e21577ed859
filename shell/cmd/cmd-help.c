/* cmd-help.c - help, generated from the command table. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"

static void
help_one(const struct cmd_entry *e)
{
	out_printf("usage: %s%s%s\n", e->name, e->usage[0] ? " " : "", e->usage);
	out_printf("  %s\n", e->summary);
	if (e->alias != NULL)
		out_printf("  aliases: %s\n", e->alias);
	if (e->flags & CMD_ALL_RANKS_ONLY)
		out_printf("  runs on all ranks (no @ prefix)\n");
	else if (e->flags & CMD_TARGETS)
		out_printf("  applies to the focus ranks, or to an @RANKS prefix\n");
	if (e->flags & CMD_AGENTS_ONLY)
		out_printf("  not under 'colldb run' (needs colldb's own ranks)\n");
	if (e->example != NULL)
		out_printf("  example: %s\n", e->example);
}

static enum cmd_retval
cmd_help_exec(struct cmdctx *ctx)
{
	size_t width = 0;

	if (nargs(ctx) == 1) {
		char *cause = NULL;
		const struct cmd_entry *e = cmd_find(arg(ctx, 0), &cause);
		if (e == NULL) {
			arg_error(ctx, 0, "%s", cause);
			free(cause);
			return CMD_ERROR;
		}
		help_one(e);
		return CMD_OK;
	}
	for (int i = 0; cmd_table[i] != NULL; i++)
		width = MAX(width, strlen(cmd_table[i]->name));
	for (int g = 0; g < GRP__COUNT; g++) {
		int shown = 0;
		for (int i = 0; cmd_table[i] != NULL; i++) {
			const struct cmd_entry *e = cmd_table[i];
			if ((int)e->group != g)
				continue;
			if (!shown++)
				out_printf("%s%s:\n", g ? "\n" : "", cmd_group_names[g]);
			out_printf("  %-*s  %s\n", (int)width, e->name, e->summary);
		}
	}
	out_printf("\n'help CMD' shows a command's usage.  Prefix a command with @R, @R,S,\n"
	    "@R-S, @all or @!R to aim it at ranks; 'focus' changes the default.\n");
	return CMD_OK;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help", .alias = "?", .usage = "[CMD]",
	.summary = "list commands by group, or show one command's usage",
	.example = "help notify", .group = GRP_SESSION, .min_args = 0,
	.max_args = 1, .flags = CMD_NO_SETTLE, .exec = cmd_help_exec,
};
