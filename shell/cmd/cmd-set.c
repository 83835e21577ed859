/*
 * cmd-set.c - settings: `set times|color|echo|strict|timeout|settle|
 * wait-giveup|reset-windows|group VALUE`; `set` alone lists them.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "cmd/cmd.h"
#include "xmalloc.h"

enum kind { K_BOOL, K_SECS, K_COUNT, K_WINDOWS, K_AUTO };

/* A value parsed for a setting of its kind. */
struct value {
	int on;		  /* K_BOOL; K_AUTO: 1 on, 0 off, -1 auto */
	double secs;	  /* K_SECS */
	uint64_t count;	  /* K_COUNT */
	const char *text; /* K_WINDOWS: as typed */
};

/* A setting: `set` shows them in the table's order, `set NAME` shows one,
 * `set NAME VALUE` parses the value by kind and applies it. */
struct setting {
	const char *name;
	enum kind kind;
	const char *help;
	/* the value as `set` prints it */
	void (*show)(struct session *s, struct strbuf *sb);
	/* 0, or -1 (reported) */
	int (*apply)(struct cmdctx *ctx, const struct value *v);
};

static void
show_bool(int on, struct strbuf *sb)
{
	strbuf_addstr(sb, on ? "on" : "off");
}

static void
show_times(struct session *s, struct strbuf *sb)
{
	show_bool(s->set.times, sb);
}

static void
show_color(struct session *s, struct strbuf *sb)
{
	show_bool(s->set.color, sb);
}

static void
show_echo(struct session *s, struct strbuf *sb)
{
	show_bool(s->set.echo, sb);
}

static void
show_strict(struct session *s, struct strbuf *sb)
{
	show_bool(s->set.strict, sb);
}

static void
show_timeout(struct session *s, struct strbuf *sb)
{
	strbuf_addf(sb, "%g", s->set.timeout);
}

static void
show_settle(struct session *s, struct strbuf *sb)
{
	strbuf_addf(sb, "%g", s->set.settle_ms / 1000.0);
}

static void
show_giveup(struct session *s, struct strbuf *sb)
{
	strbuf_addf(sb, "%u", (unsigned)atomic_load(&s->seg.h->wait_giveup));
}

static void
show_reset(struct session *s, struct strbuf *sb)
{
	strbuf_addstr(sb, s->set.reset_windows[0] ? s->set.reset_windows : "off");
}

static int
apply_times(struct cmdctx *ctx, const struct value *v)
{
	ctx->s->set.times = v->on;
	return 0;
}

static int
apply_color(struct cmdctx *ctx, const struct value *v)
{
	ctx->s->set.color = v->on;
	return 0;
}

static int
apply_echo(struct cmdctx *ctx, const struct value *v)
{
	ctx->s->set.echo = v->on;
	return 0;
}

static int
apply_strict(struct cmdctx *ctx, const struct value *v)
{
	if (!v->on && ctx->s->set.strict)
		out_printf(
		    "note: strict off: PyPTO's op and dtype restrictions are lifted where colldb can still compute the result\n");
	ctx->s->set.strict = v->on;
	return 0;
}

static int
apply_timeout(struct cmdctx *ctx, const struct value *v)
{
	ctx->s->set.timeout = v->secs;
	return 0;
}

static int
apply_settle(struct cmdctx *ctx, const struct value *v)
{
	ctx->s->set.settle_ms = (int)(v->secs * 1000);
	ctx->s->set.settle_explicit = 1;
	return 0;
}

static int
apply_giveup(struct cmdctx *ctx, const struct value *v)
{
	ctl_set_wait_giveup(&ctx->s->seg, (uint32_t)v->count);
	return 0;
}

static void
show_group(struct session *s, struct strbuf *sb)
{
	(void)s;
	strbuf_addstr(sb,
	    group_setting() == GROUP_ON	     ? "on" :
		group_setting() == GROUP_OFF ? "off" :
					       "auto");
}

static int
apply_group(struct cmdctx *ctx, const struct value *v)
{
	(void)ctx;
	group_set(v->on < 0 ? GROUP_AUTO : v->on ? GROUP_ON : GROUP_OFF);
	return 0;
}

static int set_reset_windows(struct cmdctx *ctx, const char *val);

static int
apply_reset(struct cmdctx *ctx, const struct value *v)
{
	return set_reset_windows(ctx, v->text);
}

/* The one list of settings. */
static const struct setting settings[] = {
	{ "times", K_BOOL, "show times in ranks/diagnose output", show_times,
	    apply_times },
	{ "color", K_BOOL,
	    "colour error/warning prefixes and verdicts on a terminal",
	    show_color, apply_color },
	{ "echo", K_BOOL, "echo each command (transcripts)", show_echo,
	    apply_echo },
	{ "strict", K_BOOL, "PyPTO's op and dtype restrictions", show_strict,
	    apply_strict },
	{ "timeout", K_SECS, "hang watchdog, seconds without progress (0 = off)",
	    show_timeout, apply_timeout },
	{ "settle", K_SECS, "how long a command waits for the world to settle",
	    show_settle, apply_settle },
	{ "wait-giveup", K_COUNT,
	    "sim mode: a wait returns after N polls (0 = never)", show_giveup,
	    apply_giveup },
	{ "reset-windows", K_WINDOWS,
	    "windows a repeat re-zeroes before each iteration (off, all, or NAME,NAME...)",
	    show_reset, apply_reset },
	{ "group", K_AUTO,
	    "one line per kind of rank line in ranks/where/diagnose/print/events (auto: 32 ranks or more)",
	    show_group, apply_group },
};

static const struct setting *
setting_find(const char *name)
{
	for (size_t i = 0; name != NULL && i < ARRAY_SIZE(settings); i++) {
		if (strcmp(settings[i].name, name) == 0)
			return &settings[i];
	}
	return NULL;
}

int
settings_is(const char *name)
{
	return setting_find(name) != NULL;
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
	struct strbuf sb = STRBUF_INIT;

	int w = 0;

	for (size_t i = 0; i < ARRAY_SIZE(settings); i++) /* one column */
		w = MAX(w, (int)strlen(settings[i].name));
	st->show(s, &sb);
	out_printf("%-*s %s\n", w, st->name, sb.buf);
	strbuf_release(&sb);
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
		return arg_error(ctx, 1,
		    "too long a window list for reset-windows (at most %zu characters)",
		    sizeof s->set.reset_windows - 1);
	if (strcmp(val, "all") != 0) {
		list = xstrdup(val);
		if (val[0] == ',' || val[strlen(val) - 1] == ',' ||
		    strstr(val, ",,") != NULL)
			rc = arg_error(ctx, 1,
			    "bad window list '%s' for reset-windows (expected off, all or NAME,NAME...)",
			    val);
		for (char *t = strtok_r(list, ",", &save); rc == 0 && t != NULL;
		     t = strtok_r(NULL, ",", &save)) {
			if (strcmp(t, "all") == 0)
				rc = arg_error(ctx, 1,
				    "'all' resets every window; give it alone");
			else if (seg_win_find(&s->seg, t) == NULL)
				rc = arg_error(ctx, 1,
				    "unknown window '%s' in reset-windows%s", t,
				    seg_win_list(&s->seg,
					(struct seg_window *[1]){ NULL }, 1) ?
					" (see 'windows')" :
					" (there are no windows; see 'alloc')");
		}
		free(list);
		if (rc != 0)
			return -1;
	}
	snprintf(s->set.reset_windows, sizeof s->set.reset_windows, "%s", val);
	return 0;
}

/* NAME is no setting: a typo of one, or a window (`set NAME VALUE` stores
 * then).  1 when it said so (an error), 0 to let `set` store. */
static int
not_a_setting(struct cmdctx *ctx, const char *name)
{
	struct session *s = ctx->s;
	struct strbuf all = STRBUF_INIT;
	struct nearest near = NEAREST_INIT;

	/* A near miss of a setting that is not a window: a typo. */
	if (strchr(name, '[') != NULL || seg_win_find(&s->seg, name) != NULL)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(settings); i++)
		nearest_try(&near, name, settings[i].name);
	if (near.best != NULL) {
		arg_error(ctx, 0, "unknown setting '%s' (did you mean '%s'?)",
		    name, near.best);
		return 1;
	}
	if (nearest_window(&s->view, name) != NULL)
		return 0;
	/* neither a window nor near one: say both readings */
	for (size_t i = 0; i < ARRAY_SIZE(settings); i++)
		strbuf_addf(&all, "%s%s", i ? ", " : "", settings[i].name);
	arg_error(ctx, 0, "unknown setting or window '%s' (settings: %s)", name,
	    all.buf);
	strbuf_release(&all);
	return 1;
}

/* VAL for setting st, by its kind; 0, or -1 (reported). */
static int
parse_value(struct cmdctx *ctx, const struct setting *st, const char *val,
    struct value *v)
{
	char *cause = NULL;

	memset(v, 0, sizeof *v);
	v->text = val;
	switch (st->kind) {
	case K_BOOL:
		if (strcmp(val, "on") == 0 || strcmp(val, "1") == 0)
			v->on = 1;
		else if (strcmp(val, "off") != 0 && strcmp(val, "0") != 0)
			return arg_error(ctx, 1,
			    "bad value '%s' for %s (expected on or off)", val,
			    st->name);
		return 0;
	case K_SECS: {
		/* settle 0 would never let a command's results print */
		double lo = strcmp(st->name, "settle") == 0 ? 0.001 : 0;

		if (parse_number(val, &v->secs, &cause) != 0 ||
		    !(v->secs >= lo && v->secs <= 86400)) {
			free(cause);
			return arg_error(ctx, 1,
			    "bad value '%s' for %s (expected seconds, %g..86400)",
			    val, st->name, lo);
		}
		return 0;
	}
	case K_COUNT:
		if (parse_uint(val, &v->count, 1, &cause) != 0 ||
		    v->count > UINT32_MAX) {
			free(cause);
			return arg_error(ctx, 1,
			    "bad value '%s' for %s (expected a count)", val,
			    st->name);
		}
		return 0;
	case K_WINDOWS:
		return 0; /* apply_reset checks the names */
	case K_AUTO:
		if (strcmp(val, "auto") == 0)
			v->on = -1;
		else if (strcmp(val, "on") == 0 || strcmp(val, "1") == 0)
			v->on = 1;
		else if (strcmp(val, "off") != 0 && strcmp(val, "0") != 0)
			return arg_error(ctx, 1,
			    "bad value '%s' for %s (expected auto, on or off)",
			    val, st->name);
		return 0;
	}
	return -1;
}

int
settings_try(struct cmdctx *ctx, enum cmd_retval *rv)
{
	struct session *s = ctx->s;
	const char *name = arg(ctx, 0), *val = arg(ctx, 1);
	const struct setting *st = setting_find(name);
	struct value v;

	*rv = CMD_OK;
	if (st == NULL && name != NULL) {
		if (!not_a_setting(ctx, name))
			return 0;
		*rv = CMD_ERROR;
		return 1;
	}
	if (s->sink != NULL) {
		*rv = CMD_ERROR;
		arg_error(ctx, 0,
		    "an explore script cannot change settings ('%s')",
		    name != NULL ? name : "set");
		return 1;
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
	if (parse_value(ctx, st, val, &v) != 0 || st->apply(ctx, &v) != 0)
		*rv = CMD_ERROR;
	return 1;
}
