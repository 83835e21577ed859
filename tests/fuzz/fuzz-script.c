/*
 * fuzz-script.c - libFuzzer harness: the script runner, on a real world.
 * Each input is a script run (script_run_stream(), as `colldb FILE` does)
 * by a fresh 2-rank session of agent processes, closed after it: commands,
 * errors, repeat blocks, continuation lines, collectives, blocked ranks.
 * The ranks are this very program (--agent, as colldb's are), so the
 * protocol is the one it was built with.
 *
 * What would make a run slow or reach outside is not run: a line whose
 * first word could name sleep, pause, watch, source, record, trace, load,
 * call, gdb, explore, bench, kill, quit or repeat (a unique prefix, or an
 * alias, could), or that sets settle, timeout or wait-giveup.  Settling is
 * bounded to 20 ms and the watchdog is off.  Seeds: tests/golden/ (*.coll).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneside.h"
#include "start/start.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

static const char *const unsafe[] = { "sleep", "pause", "watch", "source",
	"record", "trace", "load", "call", "gdb", "explore", "bench", "kill",
	"quit", "repeat", "tree", "until", NULL };

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* the session's ranks: `SELF --agent SEGFD SOCKFD RANK` */
	if (*argc > 1 && strcmp((*argv)[1], "--agent") == 0)
		exit(rank_agent_main(*argc, *argv));
	return 0;
}

static int
safe_line(const char *l, size_t len)
{
	char w[64];
	size_t i = 0, k = 0;

	for (size_t j = 0; j + 6 <= len; j++)
		if (memcmp(l + j, "settle", 6) == 0 ||
		    memcmp(l + j, "timeout", 6) == 0 ||
		    memcmp(l + j, "giveup", 6) == 0)
			return 0;
	while (i < len && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (i < len && l[i] == '@') { /* rank targets, then the command */
		while (i < len && l[i] != ' ' && l[i] != '\t')
			i++;
		while (i < len && (l[i] == ' ' || l[i] == '\t'))
			i++;
	}
	while (i < len && k < sizeof w - 1 && l[i] != ' ' && l[i] != '\t')
		w[k++] = l[i++];
	w[k] = '\0';
	if (k == 0)
		return 1;
	for (int u = 0; unsafe[u] != NULL; u++)
		if (strncmp(unsafe[u], w, k) == 0)
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static struct session the;
	struct session *s = &the;
	char *buf = malloc(n + 2), *cause = NULL, *exe;
	size_t k = 0;
	FILE *fp;

	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && data[e] != '\n')
			e++;
		if (safe_line((const char *)data + i, e - i)) {
			memcpy(buf + k, data + i, e - i);
			k += e - i;
			buf[k++] = '\n';
		}
		i = e + 1;
	}
	exe = s->self_exe; /* the session keeps it for the process's life */
	memset(s, 0, sizeof *s);
	s->self_exe = exe;
	settings_init(&s->set);
	s->batch = 1;
	s->set.timeout = 0;
	s->set.settle_ms = 20;
	s->set.settle_explicit = 1;
	memset(&script, 0, sizeof script);
	shell_wire(s);
	sess = s;
	if (session_open(s, &rank_kind_agent, NULL, 2, "fuzz", 1 << 20,
		&cause) != 0) {
		fprintf(stderr, "fuzz-script: %s\n", cause);
		abort(); /* the harness itself is broken */
	}
	if ((fp = fmemopen(buf, k > 0 ? k : 1, "r")) != NULL) {
		if (k > 0)
			script_run_stream(s, fp, "fuzz");
		fclose(fp);
	}
	session_close(s);
	sess = NULL;
	free(buf);
	return 0;
}
