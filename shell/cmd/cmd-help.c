/* cmd-help.c - help and apropos, generated from the command table. */
#include <ctype.h>
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
	else if (e->flags & CMD_NEEDS_TARGETS)
		out_printf("  needs an @RANKS prefix (the focus is not used)\n");
	else if (e->flags & CMD_TARGETS)
		out_printf(
		    "  applies to the focus ranks, or to an @RANKS prefix\n");
	if (e->flags & CMD_AGENTS_ONLY)
		out_printf(
		    "  not under 'colldb run' (needs colldb's own ranks)\n");
	if (e->flags & CMD_REPEAT)
		out_printf("  at the prompt, an empty line repeats it\n");
	if (e->example != NULL)
		out_printf("  example: %s\n", e->example);
}

/* The width of the name column of the listings. */
static int
name_width(void)
{
	size_t width = 0;

	for (int i = 0; cmd_table[i] != NULL; i++)
		width = MAX(width, strlen(cmd_table[i]->name));
	return (int)width;
}

/* Whether WORD occurs in TEXT, case aside. */
static int
mentions(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (; *text != '\0'; text++) {
		size_t k = 0;
		while (k < n && text[k] != '\0' &&
		    tolower((unsigned char)text[k]) ==
			tolower((unsigned char)word[k]))
			k++;
		if (k == n)
			return 1;
	}
	return 0;
}

/* apropos WORD: the commands whose name, aliases, summary or usage
 * mention WORD, listed as help lists them. */
static enum cmd_retval
cmd_apropos_exec(struct cmdctx *ctx)
{
	const char *word = arg(ctx, 0);
	int width = name_width(), n = 0;

	if (word[0] == '\0') { /* it would list every command */
		arg_error(ctx, 0,
		    "empty word (expected a word to look for, as in 'apropos breakpoint')");
		return CMD_ERROR;
	}
	for (int i = 0; cmd_table[i] != NULL; i++) {
		const struct cmd_entry *e = cmd_table[i];

		if (mentions(e->name, word) || mentions(e->summary, word) ||
		    mentions(e->usage, word) ||
		    (e->alias != NULL && mentions(e->alias, word))) {
			out_printf("  %-*s  %s\n", width, e->name, e->summary);
			n++;
		}
	}
	if (n == 0)
		out_printf("apropos: no command mentions '%s' (see 'help')\n",
		    word);
	return CMD_OK;
}

int
cmd_help_print(const char *word, char **cause)
{
	int width = name_width();

	if (word != NULL) {
		const struct cmd_entry *e = cmd_find(word, cause);
		if (e == NULL)
			return -1;
		help_one(e);
		return 0;
	}
	for (int g = 0; g < GRP__COUNT; g++) {
		int shown = 0;
		for (int i = 0; cmd_table[i] != NULL; i++) {
			const struct cmd_entry *e = cmd_table[i];
			if ((int)e->group != g)
				continue;
			if (!shown++)
				out_printf("%s%s:\n", g ? "\n" : "",
				    cmd_group_names[g]);
			out_printf("  %-*s  %s\n", width, e->name, e->summary);
		}
	}
	out_printf(
	    "\n'help CMD' shows a command's usage.  Prefix a command with @R, @R,S,\n"
	    "@R-S, @all or @!R to aim it at ranks; 'focus' changes the default.\n");
	return 0;
}

static enum cmd_retval
cmd_help_exec(struct cmdctx *ctx)
{
	char *cause = NULL;

	if (cmd_help_print(nargs(ctx) == 1 ? arg(ctx, 0) : NULL, &cause) != 0) {
		arg_error(ctx, 0, "%s", cause);
		free(cause);
		return CMD_ERROR;
	}
	return CMD_OK;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.alias = "?",
	.usage = "[CMD]",
	.summary = "list commands by group, or show one command's usage",
	.example = "help notify",
	.group = GRP_SESSION,
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_help_exec,
};

const struct cmd_entry cmd_apropos_entry = {
	.name = "apropos",
	.usage = "WORD",
	.summary = "list the commands whose name or summary mentions WORD",
	.example = "apropos breakpoint",
	.group = GRP_SESSION,
	.min_args = 1,
	.max_args = 1,
	.flags = CMD_NO_SETTLE,
	.exec = cmd_apropos_exec,
};
