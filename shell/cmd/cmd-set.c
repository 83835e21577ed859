/*
 * cmd-set.c - settings: `set times|color|echo|strict|timeout|settle|
 * wait-giveup VALUE`; `set` alone lists them.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

enum kind { K_BOOL, K_SECS, K_COUNT, K_WINDOWS };

static const struct setting {
	const char *name;
	enum kind kind;
	const char *help;
} settings[] = {
	{ "times", K_BOOL, "show times in ranks/diagnose output" },
	{ "color", K_BOOL, "colour error/warning prefixes and verdicts on a terminal" },
	{ "echo", K_BOOL, "echo each command (transcripts)" },
	{ "strict", K_BOOL, "PyPTO's op and dtype restrictions" },
	{ "timeout", K_SECS, "hang watchdog, seconds without progress (0 = off)" },
	{ "settle", K_SECS, "how long a command waits for the world to settle" },
	{ "wait-giveup", K_COUNT, "sim mode: a wait returns after N polls (0 = never)" },
	{ "reset-windows", K_WINDOWS, "windows a repeat re-zeroes before each iteration (off, all, or NAME,NAME...)" },
};

int
settings_is(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(settings); i++) {
		if (strcmp(settings[i].name, name) == 0)
			return 1;
	}
	return 0;
}

void
settings_init(struct settings *set)
{
	memset(set, 0, sizeof *set);
	set->strict = 1;
	set->timeout = 10;
	set->settle_ms = 1000;
}

static void
show(struct session *s, const struct setting *st)
{
	struct settings *v = &s->set;

	if (strcmp(st->name, "times") == 0)
		out_printf("times        %s\n", v->times ? "on" : "off");
	else if (strcmp(st->name, "color") == 0)
		out_printf("color        %s\n", v->color ? "on" : "off");
	else if (strcmp(st->name, "echo") == 0)
		out_printf("echo         %s\n", v->echo ? "on" : "off");
	else if (strcmp(st->name, "strict") == 0)
		out_printf("strict       %s\n", v->strict ? "on" : "off");
	else if (strcmp(st->name, "timeout") == 0)
		out_printf("timeout      %g\n", v->timeout);
	else if (strcmp(st->name, "settle") == 0)
		out_printf("settle       %g\n", v->settle_ms / 1000.0);
	else if (strcmp(st->name, "reset-windows") == 0)
		out_printf("reset-windows %s\n", v->reset_windows[0] ?
		    v->reset_windows : "off");
	else
		out_printf("wait-giveup  %u\n",
		    (unsigned)atomic_load(&s->seg.h->wait_giveup));
}

/* `set reset-windows off|all|NAME[,NAME...]`: names must exist now. */
static int
set_reset_windows(struct cmdctx *ctx, const char *val)
{
	struct session *s = ctx->s;
	char *list, *save = NULL;
	int rc = 0;

	if (strcmp(val, "off") == 0) {
		s->set.reset_windows[0] = '\0';
		return 0;
	}
	if (strlen(val) >= sizeof s->set.reset_windows)
		return arg_error(ctx, 1, "too long a window list for reset-windows (at most %zu characters)",
		    sizeof s->set.reset_windows - 1);
	if (strcmp(val, "all") != 0) {
		list = xstrdup(val);
		if (val[0] == ',' || val[strlen(val) - 1] == ',' || strstr(val, ",,") != NULL)
			rc = arg_error(ctx, 1, "bad window list '%s' for reset-windows (expected off, all or NAME,NAME...)",
			    val);
		for (char *t = strtok_r(list, ",", &save); rc == 0 && t != NULL;
		    t = strtok_r(NULL, ",", &save)) {
			if (strcmp(t, "all") == 0)
				rc = arg_error(ctx, 1, "'all' resets every window; give it alone");
			else if (seg_win_find(&s->seg, t) == NULL)
				rc = arg_error(ctx, 1, "unknown window '%s' in reset-windows%s", t,
				    seg_win_list(&s->seg, (struct seg_window *[1]){ NULL }, 1) ?
				    " (see 'windows')" : " (there are no windows; see 'alloc')");
		}
		free(list);
		if (rc != 0)
			return -1;
	}
	snprintf(s->set.reset_windows, sizeof s->set.reset_windows, "%s", val);
	return 0;
}

int
settings_try(struct cmdctx *ctx, enum cmd_retval *rv)
{
	struct session *s = ctx->s;
	const struct setting *st = NULL;
	const char *name = arg(ctx, 0), *val = arg(ctx, 1);
	char *cause = NULL;
	int on = 0;
	double secs = 0;
	uint64_t count = 0;

	*rv = CMD_OK;
	for (size_t i = 0; name != NULL && i < ARRAY_SIZE(settings); i++) {
		if (strcmp(settings[i].name, name) == 0)
			st = &settings[i];
	}
	if (st == NULL && name != NULL) {
		/* A near miss of a setting that is not a window: a typo. */
		if (strchr(name, '[') != NULL || seg_win_find(&s->seg, name) != NULL)
			return 0;
		for (size_t i = 0; i < ARRAY_SIZE(settings); i++) {
			if (edit_distance(name, settings[i].name) <= 2) {
				*rv = CMD_ERROR;
				arg_error(ctx, 0, "unknown setting '%s' (did you mean '%s'?)", name,
				    settings[i].name);
				return 1;
			}
		}
		if (nearest_window(&s->view, name) == NULL) {
			/* neither a window nor near one: say both readings */
			*rv = CMD_ERROR;
			arg_error(ctx, 0, "unknown setting or window '%s' (settings: times, color, echo, strict, timeout, settle, wait-giveup, reset-windows)",
			    name);
			return 1;
		}
		return 0;
	}
	if (ctx->explicit_targets) {
		/* Settings belong to the session, not to ranks. */
		const char *at = strchr(ctx->line, '@');
		*rv = CMD_ERROR;
		cmd_error(ctx, "settings apply to the whole session; drop '%s'",
		    ctx->target_text);
		if (at != NULL)
			out_caret((size_t)(at - ctx->line), strcspn(at, " \t"));
		return 1;
	}
	if (name == NULL) {
		for (size_t i = 0; i < ARRAY_SIZE(settings); i++)
			show(s, &settings[i]);
		return 1;
	}
	if (val == NULL) {
		show(s, st);
		return 1;
	}
	*rv = CMD_ERROR;
	switch (st->kind) {
	case K_BOOL:
		if (strcmp(val, "on") == 0 || strcmp(val, "1") == 0)
			on = 1;
		else if (strcmp(val, "off") != 0 && strcmp(val, "0") != 0) {
			arg_error(ctx, 1, "bad value '%s' for %s (expected on or off)", val, name);
			return 1;
		}
		break;
	case K_SECS: {
		/* settle 0 would never let a command's results print */
		double lo = strcmp(name, "settle") == 0 ? 0.001 : 0;

		if (parse_number(val, &secs, &cause) != 0 || !(secs >= lo && secs <= 86400)) {
			free(cause);
			arg_error(ctx, 1, "bad value '%s' for %s (expected seconds, %g..86400)",
			    val, name, lo);
			return 1;
		}
		break;
	}
	case K_COUNT:
		if (parse_uint(val, &count, 1, &cause) != 0 || count > UINT32_MAX) {
			free(cause);
			arg_error(ctx, 1, "bad value '%s' for %s (expected a count)", val, name);
			return 1;
		}
		break;
	case K_WINDOWS:
		if (set_reset_windows(ctx, val) == 0)
			*rv = CMD_OK;
		return 1;
	}
	if (strcmp(name, "times") == 0)
		s->set.times = on;
	else if (strcmp(name, "color") == 0)
		s->set.color = on;
	else if (strcmp(name, "echo") == 0)
		s->set.echo = on;
	else if (strcmp(name, "strict") == 0) {
		if (!on && s->set.strict)
			out_printf("note: strict off: PyPTO's op and dtype restrictions are lifted where colldb can still compute the result\n");
		s->set.strict = on;
	} else if (strcmp(name, "timeout") == 0)
		s->set.timeout = secs;
	else if (strcmp(name, "settle") == 0) {
		s->set.settle_ms = (int)(secs * 1000);
		s->set.settle_explicit = 1;
	} else
		ctl_set_wait_giveup(&s->seg, (uint32_t)count);
	*rv = CMD_OK;
	return 1;
}
