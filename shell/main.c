/* main.c - colldb entry point: pick the mode from argv. */
#include <stdio.h>
#include <string.h>

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("colldb %s\n", COLLDB_VERSION);
		return 0;
	}
	fprintf(stderr, "colldb: not built yet\n");
	return 2;
}
