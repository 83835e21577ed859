/*
 * coll-args.c - parse a collective call (shared by the collective commands,
 * plan, start and bench) and check it with PyPTO's rules (core/coll).
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "xmalloc.h"

/* Positional operands per collective, in order. */
static const struct {
	int n, nopt;		/* required, optional (allreduce's SIG) */
	enum coll_arg role[3];
	const char *usage;
} shapes[COLL__COUNT] = {
	[COLL_ALLREDUCE] = { 1, 1, { CARG_BUF, CARG_SIG }, "BUF [SIG]" },
	[COLL_BARRIER] = { 1, 0, { CARG_SIG }, "SIG" },
	[COLL_BROADCAST] = { 2, 0, { CARG_BUF, CARG_SIG }, "BUF SIG" },
	[COLL_ALLGATHER] = { 3, 0, { CARG_SRC, CARG_BUF, CARG_SIG }, "SRC DST SIG" },
	[COLL_REDUCE_SCATTER] = { 2, 0, { CARG_BUF, CARG_SIG }, "BUF SIG" },
	[COLL_ALL_TO_ALL] = { 3, 0, { CARG_SRC, CARG_BUF, CARG_SIG }, "SRC DST SIG" },
};

int
coll_option_allowed(enum coll_kind k, const char *key)
{
	if (strcmp(key, "op") == 0)
		return k == COLL_ALLREDUCE || k == COLL_REDUCE_SCATTER;
	if (strcmp(key, "mode") == 0)
		return k == COLL_ALLREDUCE;
	if (strcmp(key, "impl") == 0)
		return 1;
	if (strcmp(key, "root") == 0)
		return k == COLL_BROADCAST;
	return 0;
}

static const char *
options_text(enum coll_kind k)
{
	switch (k) {
	case COLL_ALLREDUCE:
		return "op=, mode=, impl= or check";
	case COLL_REDUCE_SCATTER:
		return "op=, impl= or check";
	case COLL_BROADCAST:
		return "root=, impl= or check";
	case COLL_BARRIER:
		return "impl=";
	default:
		return "impl= or check";
	}
}

int
coll_option(struct cmdctx *ctx, size_t i, enum coll_kind kind,
    struct coll_call *cc, int *have_root, const char *expected)
{
	struct session *s = ctx->s;
	const char *a = arg(ctx, i), *eq = strchr(a, '='), *v;
	char key[32], *cause = NULL;

	if (eq == NULL)
		return arg_error(ctx, i, "unknown option '%s' for %s (expected %s)",
		    a, coll_kind_name(kind), expected ? expected : options_text(kind));
	v = eq + 1;
	snprintf(key, sizeof key, "%.*s", (int)(eq - a), a);
	if (!coll_option_allowed(kind, key))
		return arg_error(ctx, i, "unknown option '%s' for %s (expected %s)",
		    a, coll_kind_name(kind), expected ? expected : options_text(kind));
	cc->argpos[CARG_OPTION] = i;
	if (strcmp(key, "op") == 0) {
		if (reduce_op_from_name(v, &cc->a.op) != 0)
			return arg_error(ctx, i, "unknown reduce op '%s' (expected sum, max, min or prod)", v);
	} else if (strcmp(key, "mode") == 0) {
		if (strcmp(v, "mesh") == 0)
			cc->a.mode = MODE_MESH;
		else if (strcmp(v, "ring") == 0)
			cc->a.mode = MODE_RING;
		else
			return arg_error(ctx, i, "unknown mode '%s' (expected mesh or ring)", v);
	} else if (strcmp(key, "impl") == 0) {
		if (strcmp(v, "composite") == 0)
			cc->a.impl = IMPL_COMPOSITE;
		else if (strcmp(v, "builtin") == 0)
			cc->a.impl = IMPL_BUILTIN;
		else
			return arg_error(ctx, i, "unknown impl '%s' (expected composite or builtin)", v);
	} else {
		int64_t r;
		if (parse_int(v, &r, 0, &cause) != 0) {
			free(cause);
			return arg_error(ctx, i, "bad root '%s' (expected a rank number)", v);
		}
		if (r < 0 || r >= s->nranks)
			return arg_error(ctx, i, "root %lld out of range (world has %d ranks)",
			    (long long)r, s->nranks);
		cc->a.root = (int)r;
		*have_root = 1;
	}
	return 0;
}

static int
window_operand(struct cmdctx *ctx, size_t i, struct win_ref *ref, char *name)
{
	const char *a = arg(ctx, i);
	struct seg_window *w;

	if (strchr(a, '[') != NULL)
		return arg_error(ctx, i, "collectives take whole windows, not regions ('%.*s')",
		    (int)strcspn(a, "["), a);
	w = win_lookup(ctx, i, a);
	if (w == NULL)
		return -1;
	seg_win_ref(w, ref);
	snprintf(name, SEG_NAME_MAX, "%s", w->name);
	ref->name = name;
	return 0;
}

int
coll_parse(struct cmdctx *ctx, enum coll_kind kind, size_t first,
    struct coll_call *cc, const char *const *extra_keys, uint64_t *extra)
{
	struct session *s = ctx->s;
	struct win_ref *slot[5];
	size_t npos = 0;
	int have_root = 0;
	char *cause = NULL;
	enum coll_arg bad = CARG_NONE;

	memset(cc, 0, sizeof *cc);
	if (extra != NULL)
		*extra = 0;
	cc->a.kind = kind;
	cc->a.strict = s->set.strict != 0;
	cc->a.has_sig = true;
	cc->a.op = RED_SUM;
	slot[CARG_BUF] = &cc->a.buf;
	slot[CARG_SRC] = &cc->a.src;
	slot[CARG_SIG] = &cc->a.sig;
	for (size_t i = first; i < nargs(ctx); i++) {
		const char *a = arg(ctx, i), *eq = strchr(a, '=');

		if (eq == NULL && strcmp(a, "check") == 0 && kind != COLL_BARRIER) {
			cc->check = 1;
			continue;
		}
		if (eq == NULL && strcmp(a, "json") == 0 && extra_keys != NULL) {
			cc->json = 1;
			continue;
		}
		if (eq != NULL) {
			char key[32];
			int skip = 0;

			if (arg_key_repeated(ctx, first, i) != 0)
				return -1;

			snprintf(key, sizeof key, "%.*s", (int)(eq - a), a);
			for (int k = 0; extra_keys != NULL && extra_keys[k] != NULL; k++)
				skip |= strcmp(extra_keys[k], key) == 0;
			if (skip) {
				if (i < 64)
					*extra |= 1ull << i;
				continue;
			}
			if (coll_option(ctx, i, kind, cc, &have_root, NULL) != 0)
				return -1;
			continue;
		}
		if (npos == (size_t)(shapes[kind].n + shapes[kind].nopt))
			return arg_error(ctx, i, "unexpected '%s' (usage: %s %s)", a,
			    coll_kind_name(kind),
			    strcmp(ctx->entry->name, coll_kind_name(kind)) == 0 ?
			    ctx->entry->usage : shapes[kind].usage);
		{
			enum coll_arg role = shapes[kind].role[npos];
			int idx = role == CARG_BUF ? 0 : role == CARG_SRC ? 1 : 2;
			cc->argpos[role] = i;
			if (window_operand(ctx, i, slot[role], cc->names[idx]) != 0)
				return -1;
		}
		npos++;
	}
	if (npos < (size_t)shapes[kind].n) {
		cmd_error(ctx, "%s needs %s (usage: %s %s)", coll_kind_name(kind),
		    shapes[kind].usage, coll_kind_name(kind), shapes[kind].usage);
		return -1;
	}
	if (kind == COLL_BROADCAST && !have_root) {
		cmd_error(ctx, "broadcast needs root=R");
		return -1;
	}
	if (kind == COLL_ALLREDUCE && npos == 1) {
		cc->a.has_sig = false;
		cc->synth = 1;
		if (cc->a.mode == MODE_RING) {
			cmd_error(ctx, "ring allreduce needs an explicit signal of shape [%d,%d] (PyPTO rejects mode=ring without one)",
			    2 * (s->nranks - 1), s->nranks);
			return -1;
		}
	}
	if (coll_validate(&cc->a, s->nranks, &cause, &bad) != 0) {
		size_t pos = bad == CARG_NONE ? (size_t)-1 : cc->argpos[bad];
		if (bad == CARG_OPTION && pos == 0)
			pos = (size_t)-1;
		arg_error(ctx, pos, "%s", cause);
		free(cause);
		return -1;
	}
	return 0;
}

int
coll_synth_signal(struct cmdctx *ctx, struct coll_call *cc, int dry)
{
	struct session *s = ctx->s;
	struct seg_window *w;
	struct win_ref ref;
	char *cause = NULL;

	if (!cc->synth)
		return 0;
	coll_synth_sig_shape(s->nranks, &ref);
	snprintf(cc->synth_name, sizeof cc->synth_name, "%s.sig", cc->a.buf.name);
	w = seg_win_find(&s->seg, cc->synth_name);
	if (w == NULL && !dry) {
		seg_lock(&s->seg);
		w = seg_win_alloc(&s->seg, cc->synth_name, ref.shape, ref.ndim,
		    DT_I32, WIN_SYNTH, &cause);
		seg_unlock(&s->seg);
		if (w == NULL) {
			cmd_error(ctx, "cannot synthesize a signal: %s", cause);
			free(cause);
			return -1;
		}
		out_printf("note: synthesized signal %s [%d,1] i32 (self-clearing; reused by later calls)\n",
		    cc->synth_name, s->nranks);
	}
	if (w != NULL) {
		seg_win_ref(w, &cc->a.sig);
	} else {
		/* plan of a first call: show where it would go */
		struct seg_window *list[SEG_MAX_WINDOWS];
		int n = seg_win_list(&s->seg, list, SEG_MAX_WINDOWS);
		uint64_t top = 0;
		for (int i = 0; i < n; i++)
			top = MAX(top, list[i]->off + (list[i]->bytes + SEG_ALIGN - 1) /
			    SEG_ALIGN * SEG_ALIGN);
		cc->a.sig = ref;
		cc->a.sig.off = top;
	}
	cc->a.sig.name = cc->synth_name;
	return 0;
}
