/*
 * tool-logs.h - `colldb tree` and `colldb stats`: PyPTO's print_tree /
 * print_mean_tree and str(BenchmarkStats) on a [STRACE] log or a Chrome
 * trace-event JSON file, from the command line (colldb.1, "LOG ANALYSIS").
 *
 * Both take argv with argv[0] = the subcommand name and return the exit
 * status: 0 success, 1 nothing to show or an unreadable input (explained
 * on stderr), 2 bad usage (one "error: ..." line on stderr).
 */
#ifndef COLLDB_TOOL_LOGS_H
#define COLLDB_TOOL_LOGS_H

int tool_tree_main(int argc, char **argv);
int tool_stats_main(int argc, char **argv);

#endif
