/* main.c - colldb entry point: pick the mode from argv. */
#include <stdio.h>
#include <string.h>

#include "tool-logs.h"

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "tree") == 0)
		return tool_tree_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "stats") == 0)
		return tool_stats_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("colldb %s\n", COLLDB_VERSION);
		return 0;
	}
	fprintf(stderr, "colldb: not built yet\n");
	return 2;
}
