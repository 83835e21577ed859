/*
 * user.h - shell/user/: what the shell checks in a user program's own
 * calls (`colldb run`), as session hooks: collective matching
 * (coll-match.c: the ranks' k-th collectives must be the same call) and
 * the lint patterns with their source lines (lint-user.c).
 *
 * May use: core, shell/lang, out, view, session (the history of completed
 * writes is the session's data).  diag/ reads the last mismatch for
 * diagnose's cause; start/ wires the hooks in.
 */
#ifndef COLLDB_USER_H
#define COLLDB_USER_H

#include "session/session.h"

/* Warns when the ranks' k-th collectives differ (a session hook). */
extern const struct session_hook match_session_hook;
/* The lint patterns for a user program's calls, with their source lines
 * (a session hook). */
extern const struct session_hook user_lint_session_hook;
/* The last mismatch it warned of ("collective mismatch on sig: ..."),
 * or NULL; borrowed until the session closes. */
const char *coll_match_said(struct session *s);

#endif
