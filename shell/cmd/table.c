/*
 * table.c - the one command table: every entry, in the order `help` lists
 * them, and lookup (alias, exact name, unique prefix of two letters or
 * more).  A new command is a
 * cmd-NAME.c exporting its const struct cmd_entry, and a line here.
 */
#include <string.h>

#include "cmd/cmd.h"

extern const struct cmd_entry cmd_help_entry, cmd_apropos_entry,
    cmd_world_entry, cmd_ranks_entry, cmd_info_entry, cmd_focus_entry,
    cmd_alloc_entry, cmd_free_entry, cmd_windows_entry, cmd_fill_entry,
    cmd_print_entry, cmd_set_entry, cmd_notify_entry, cmd_wait_entry,
    cmd_put_entry, cmd_get_entry, cmd_interrupt_entry, cmd_source_entry,
    cmd_expect_entry, cmd_sleep_entry, cmd_say_entry, cmd_pause_entry,
    cmd_quit_entry, cmd_kill_entry, cmd_allreduce_entry, cmd_barrier_entry,
    cmd_broadcast_entry, cmd_allgather_entry, cmd_reduce_scatter_entry,
    cmd_all_to_all_entry, cmd_plan_entry, cmd_start_entry, cmd_step_entry,
    cmd_continue_entry, cmd_where_entry, cmd_break_entry, cmd_delete_entry,
    cmd_tbreak_entry, cmd_until_entry, cmd_advance_entry, cmd_gdb_entry,
    cmd_diagnose_entry, cmd_explore_entry, cmd_watch_entry, cmd_record_entry,
    cmd_bench_entry, cmd_tree_entry, cmd_trace_entry, cmd_load_entry,
    cmd_call_entry, cmd_reset_entry, cmd_repeat_entry, cmd_end_entry,
    cmd_remote_store_entry, cmd_remote_load_entry, cmd_defer_wait_entry,
    cmd_all_to_all_v_entry, cmd_domain_entry;

const struct cmd_entry *const cmd_table[] = { &cmd_help_entry, &cmd_world_entry,
	&cmd_ranks_entry, &cmd_info_entry, &cmd_focus_entry, &cmd_alloc_entry,
	&cmd_free_entry, &cmd_windows_entry, &cmd_domain_entry, &cmd_reset_entry,
	&cmd_fill_entry, &cmd_print_entry, &cmd_set_entry, &cmd_notify_entry,
	&cmd_wait_entry, &cmd_defer_wait_entry, &cmd_put_entry, &cmd_get_entry,
	&cmd_remote_store_entry, &cmd_remote_load_entry, &cmd_interrupt_entry,
	&cmd_kill_entry, &cmd_allreduce_entry, &cmd_barrier_entry,
	&cmd_broadcast_entry, &cmd_allgather_entry, &cmd_reduce_scatter_entry,
	&cmd_all_to_all_entry, &cmd_all_to_all_v_entry, &cmd_plan_entry,
	&cmd_start_entry, &cmd_step_entry, &cmd_continue_entry,
	&cmd_break_entry, &cmd_tbreak_entry, &cmd_until_entry,
	&cmd_advance_entry, &cmd_gdb_entry, &cmd_delete_entry, &cmd_where_entry,
	&cmd_diagnose_entry, &cmd_explore_entry, &cmd_watch_entry,
	&cmd_bench_entry, &cmd_tree_entry, &cmd_trace_entry, &cmd_load_entry,
	&cmd_call_entry, &cmd_source_entry, &cmd_repeat_entry, &cmd_end_entry,
	&cmd_expect_entry, &cmd_sleep_entry, &cmd_record_entry, &cmd_say_entry,
	&cmd_pause_entry, &cmd_apropos_entry, &cmd_quit_entry, NULL };

const char *const cmd_group_names[GRP__COUNT] = {
	[GRP_WORLD] = "World and ranks",
	[GRP_WINDOWS] = "Windows and data",
	[GRP_SIGNALS] = "Signals and one-sided transfers",
	[GRP_COLL] = "Collectives",
	[GRP_CONTROL] = "Running and stopping",
	[GRP_OBSERVE] = "Observing",
	[GRP_BENCH] = "Benchmarks and traces",
	[GRP_CODE] = "Libraries in the ranks",
	[GRP_SCRIPT] = "Scripts",
	[GRP_SESSION] = "Session",
};

/* "s step, c continue, ...": the one-letter aliases, in table order. */
static void
one_letter_aliases(struct strbuf *sb)
{
	for (int i = 0; cmd_table[i] != NULL; i++) {
		const char *al = cmd_table[i]->alias;

		while (al != NULL && *al != '\0') {
			size_t n = strcspn(al, ",");
			if (n == 1)
				strbuf_addf(sb, "%s%c %s", sb->len ? ", " : "",
				    al[0], cmd_table[i]->name);
			al += n + (al[n] == ',');
		}
	}
}

const struct cmd_entry *
cmd_find(const char *name, char **cause)
{
	const struct cmd_entry *found = NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(name);
	int nfound = 0;

	/* an empty word ('help ""') is a prefix of every command */
	if (len == 0) {
		cause_set(cause, "expected a command name, not an empty word");
		strbuf_release(&sb);
		return NULL;
	}
	for (int i = 0; cmd_table[i] != NULL; i++) {
		const char *al = cmd_table[i]->alias;
		/* aliases are a comma-separated list */
		while (al != NULL && *al != '\0') {
			size_t n = strcspn(al, ",");
			if (n == len && strncmp(al, name, n) == 0)
				return cmd_table[i];
			al += n + (al[n] == ',');
		}
	}
	for (int i = 0; cmd_table[i] != NULL; i++) {
		if (strcmp(cmd_table[i]->name, name) == 0)
			return cmd_table[i];
	}
	for (int i = 0; cmd_table[i] != NULL; i++) {
		if (strncmp(cmd_table[i]->name, name, len) == 0) {
			found = cmd_table[i];
			strbuf_addf(&sb, "%s%s", nfound ? ", " : "", found->name);
			nfound++;
		}
	}
	/* One letter is a command only as an alias (s, c, u, b ...): taken
	 * as a prefix, n would be notify and k kill, where a gdb hand meant
	 * next, or a slip meant anything else. */
	if (nfound == 1 && len > 1) {
		strbuf_release(&sb);
		return found;
	}
	if (nfound > 0 && len == 1) {
		struct strbuf al = STRBUF_INIT;

		one_letter_aliases(&al);
		cause_set(cause,
		    "ambiguous command '%s': one letter is a command only as an alias (%s), could be: %s",
		    name, al.buf, sb.buf);
		strbuf_release(&al);
	} else if (nfound > 1) {
		cause_set(cause, "ambiguous command '%s', could be: %s", name,
		    sb.buf);
	} else {
		struct nearest near = NEAREST_INIT;

		for (int i = 0; cmd_table[i] != NULL; i++)
			nearest_try(&near, name, cmd_table[i]->name);
		if (near.best != NULL)
			cause_set(cause,
			    "unknown command '%s' (did you mean '%s'?)", name,
			    near.best);
		else
			cause_set(cause, "unknown command '%s' (try 'help')",
			    name);
	}
	strbuf_release(&sb);
	return NULL;
}

int
cmd_line_repeats(const char *line)
{
	const struct cmd_entry *e = NULL;
	struct words w;
	size_t first;

	if (parse_line(line, &w, NULL, NULL) != PARSE_OK)
		return 0;
	first = w.n > 0 && w.v[0].s[0] == '@';
	if (w.n > first)
		e = cmd_find(w.v[first].s, NULL);
	words_free(&w);
	return e != NULL && (e->flags & CMD_REPEAT);
}
