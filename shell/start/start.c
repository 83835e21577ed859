/*
 * start.c - what `colldb` and `colldb run` do alike to bring a session up.
 */
#include "shell.h"

/* The floors above the session, wired in: the order is the order the
 * session calls them (history before the trace takes a job's program). */
void
shell_wire(struct session *s)
{
	session_hook_add(s, &diag_session_hook);
	session_hook_add(s, &trace_session_hook);
	session_hook_add(s, &bench_session_hook);
	session_hook_add(s, &match_session_hook);
	session_hook_add(s, &user_lint_session_hook);
	out_use_colour(&s->set.color);
	out_set_event_tap(record_event);
}
