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
	int n, nopt; /* required, optional (allreduce's SIG) */
	enum coll_arg role[5];
	const char *usage;
} shapes[COLL__COUNT] = {
	[COLL_ALLREDUCE] = { 1, 1, { CARG_BUF, CARG_SIG }, "BUF [SIG]" },
	[COLL_BARRIER] = { 1, 0, { CARG_SIG }, "SIG" },
	[COLL_BROADCAST] = { 2, 0, { CARG_BUF, CARG_SIG }, "BUF SIG" },
	[COLL_ALLGATHER] = { 3, 0, { CARG_SRC, CARG_BUF, CARG_SIG },
	    "SRC DST SIG" },
	[COLL_REDUCE_SCATTER] = { 2, 0, { CARG_BUF, CARG_SIG }, "BUF SIG" },
	[COLL_ALL_TO_ALL] = { 3, 0, { CARG_SRC, CARG_BUF, CARG_SIG },
	    "SRC DST SIG" },
	[COLL_ALL_TO_ALL_V] = { 5, 0,
	    { CARG_SRC, CARG_BUF, CARG_SIG, CARG_SCOUNT, CARG_RCOUNT },
	    "SRC DST SIG SEND_COUNTS RECV_COUNTS" },
};

int
coll_option_allowed(enum coll_kind k, const char *key)
{
	if (strcmp(key, "op") == 0)
		return k == COLL_ALLREDUCE || k == COLL_REDUCE_SCATTER;
	if (strcmp(key, "mode") == 0 || strcmp(key, "core_num") == 0)
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
		return "op=, mode=, impl=, core_num= or check";
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

/* The options a command that takes a collective's adds (explore's
 * repeat=, plan's from=), after the collective's own; NULL for none. */
static const char *
own_options(struct cmdctx *ctx, enum coll_kind kind,
    const char *const *extra_keys, char *buf, size_t size)
{
	struct strbuf sb = STRBUF_INIT;

	if (extra_keys == NULL || extra_keys[0] == NULL)
		return NULL;
	strbuf_addf(&sb, "%s; %s's own: ", options_text(kind), ctx->entry->name);
	for (int k = 0; extra_keys[k] != NULL; k++) {
		if (k > 0)
			strbuf_addstr(&sb,
			    extra_keys[k + 1] == NULL ? " or " : ", ");
		strbuf_addf(&sb, "%s=", extra_keys[k]);
	}
	snprintf(buf, size, "%s", sb.buf);
	strbuf_release(&sb);
	return buf;
}

int
coll_option(struct cmdctx *ctx, size_t i, enum coll_kind kind,
    struct coll_call *cc, int *have_root, const char *expected)
{
	struct session *s = ctx->s;
	const char *a = arg(ctx, i), *eq = strchr(a, '='), *v;
	char key[32], *cause = NULL;

	if (eq == NULL)
		return arg_error(ctx, i,
		    "unknown option '%s' for %s (expected %s)", a,
		    coll_kind_name(kind),
		    expected ? expected : options_text(kind));
	v = eq + 1;
	snprintf(key, sizeof key, "%.*s", (int)(eq - a), a);
	if (!coll_option_allowed(kind, key))
		return arg_error(ctx, i,
		    "unknown option '%s' for %s (expected %s)", a,
		    coll_kind_name(kind),
		    expected ? expected : options_text(kind));
	cc->argpos[CARG_OPTION] = i;
	if (strcmp(key, "op") == 0) {
		if (reduce_op_from_name(v, &cc->a.op) != 0)
			return arg_error(ctx, i,
			    "unknown reduce op '%s' (expected sum, max, min or prod)",
			    v);
	} else if (strcmp(key, "mode") == 0) {
		if (strcmp(v, "mesh") == 0)
			cc->a.mode = MODE_MESH;
		else if (strcmp(v, "ring") == 0)
			cc->a.mode = MODE_RING;
		else
			return arg_error(ctx, i,
			    "unknown mode '%s' (expected mesh or ring)", v);
	} else if (strcmp(key, "impl") == 0) {
		if (strcmp(v, "composite") == 0)
			cc->a.impl = IMPL_COMPOSITE;
		else if (strcmp(v, "builtin") == 0)
			cc->a.impl = IMPL_BUILTIN;
		else if (strcmp(v, "builtin-neighbour") == 0 &&
		    kind == COLL_ALLREDUCE) {
			cc->a.impl = IMPL_BUILTIN;
			cc->a.neighbour = true;
		} else
			return arg_error(ctx, i,
			    "unknown impl '%s' (expected composite or builtin%s)",
			    v,
			    kind == COLL_ALLREDUCE ?
				", or builtin-neighbour for mode=ring" :
				"");
	} else if (strcmp(key, "core_num") == 0) {
		int64_t c;
		if (parse_int(v, &c, 0, &cause) != 0 || c < 1 ||
		    c > COLL_MAX_CORE_NUM) {
			free(cause);
			return arg_error(ctx, i,
			    "bad core_num '%s' (expected 1..%d, the AIV cores of a 910B)",
			    v, COLL_MAX_CORE_NUM);
		}
		cc->a.core_num = (int)c;
	} else {
		int64_t r;
		if (parse_int(v, &r, 0, &cause) != 0) {
			free(cause);
			return arg_error(ctx, i,
			    "bad root '%s' (expected a rank number)", v);
		}
		if (r < 0 || r >= s->nranks)
			return arg_error(ctx, i,
			    "root %lld out of range (world has %d ranks)",
			    (long long)r, s->nranks);
		cc->a.root = (int)r;
		*have_root = 1;
	}
	return 0;
}

static int
window_operand(struct cmdctx *ctx, size_t i, struct win_ref *ref, char *name,
    struct coll_call *cc, size_t *dom_at)
{
	struct session *s = ctx->s;
	const char *a = arg(ctx, i);
	struct seg_window *w;

	if (strchr(a, '[') != NULL)
		return arg_error(ctx, i,
		    "collectives take whole windows, not regions ('%.*s')",
		    (int)strcspn(a, "["), a);
	w = win_lookup(ctx, i, a);
	if (w == NULL)
		return -1;
	if (*dom_at == 0) {
		/* a collective takes its domain from its windows */
		const struct seg_domain *d = seg_domain_get(&s->seg, w->domain);
		cc->a.domain = w->domain;
		if (d != NULL)
			memcpy(cc->a.members, d->ranks, sizeof cc->a.members);
		*dom_at = i + 1;
	} else if (w->domain != cc->a.domain) {
		/* PyPTO: the window buffers must resolve to one comm domain */
		struct strbuf sb = STRBUF_INIT;
		domain_describe(s, cc->a.domain, &sb);
		strbuf_addf(&sb, ", '%s' on ", w->name);
		domain_describe(s, w->domain, &sb);
		arg_error(ctx, i,
		    "%s's windows must be on one domain: '%s' is on %s",
		    coll_kind_name(cc->a.kind), arg(ctx, *dom_at - 1), sb.buf);
		strbuf_release(&sb);
		return -1;
	}
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
	struct win_ref *slot[CARG_RCOUNT + 1];
	size_t npos = 0;
	int have_root = 0;
	char *cause = NULL;
	enum coll_arg bad = CARG_NONE;
	size_t dom_at = 0; /* the window that gave the domain, + 1 */

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
	slot[CARG_SCOUNT] = &cc->a.scount;
	slot[CARG_RCOUNT] = &cc->a.rcount;
	for (size_t i = first; i < nargs(ctx); i++) {
		const char *a = arg(ctx, i), *eq = strchr(a, '=');

		if (eq == NULL && strcmp(a, "check") == 0 &&
		    kind != COLL_BARRIER) {
			if (arg_flag_repeated(ctx, first, i) != 0)
				return -1;
			cc->check = 1;
			continue;
		}
		if (eq == NULL && strcmp(a, "json") == 0 && extra_keys != NULL) {
			if (arg_flag_repeated(ctx, first, i) != 0)
				return -1;
			cc->json = 1;
			continue;
		}
		if (eq != NULL) {
			char key[32], opts[256];
			int skip = 0;

			if (arg_key_repeated(ctx, first, i) != 0)
				return -1;

			snprintf(key, sizeof key, "%.*s", (int)(eq - a), a);
			for (int k = 0;
			     extra_keys != NULL && extra_keys[k] != NULL; k++)
				skip |= strcmp(extra_keys[k], key) == 0;
			if (skip) {
				if (i < 64)
					*extra |= 1ull << i;
				continue;
			}
			if (coll_option(ctx, i, kind, cc, &have_root,
				own_options(ctx, kind, extra_keys, opts,
				    sizeof opts)) != 0)
				return -1;
			continue;
		}
		if (npos == (size_t)(shapes[kind].n + shapes[kind].nopt))
			return arg_error(ctx, i, "unexpected '%s' (usage: %s %s)",
			    a, coll_kind_name(kind),
			    strcmp(ctx->entry->name, coll_kind_name(kind)) == 0 ?
				ctx->entry->usage :
				shapes[kind].usage);
		{
			enum coll_arg role = shapes[kind].role[npos];
			int idx = role == CARG_BUF ? 0 :
			    role == CARG_SRC	   ? 1 :
			    role == CARG_SIG	   ? 2 :
			    role == CARG_SCOUNT	   ? 3 :
						     4;
			cc->argpos[role] = i;
			if (window_operand(ctx, i, slot[role], cc->names[idx],
				cc, &dom_at) != 0)
				return -1;
		}
		npos++;
	}
	if (npos < (size_t)shapes[kind].n) {
		cmd_error(ctx, "%s needs %s (usage: %s %s)",
		    coll_kind_name(kind), shapes[kind].usage,
		    coll_kind_name(kind), shapes[kind].usage);
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
			int n = coll_size(&cc->a, s->nranks);
			int builtin = cc->a.impl == IMPL_BUILTIN;

			/* the builtin ring has a final barrier row */
			cmd_error(ctx,
			    "%sring allreduce needs an explicit signal of shape [%d,%d] (PyPTO rejects mode=ring without one)",
			    builtin ? "builtin " : "", 2 * (n - 1) + builtin, n);
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
	coll_synth_sig_shape(coll_size(&cc->a, s->nranks), cc->a.core_num, &ref);
	/* one per lane count: [N,1] and [N,core_num] differ */
	if (cc->a.core_num > 1)
		snprintf(cc->synth_name, sizeof cc->synth_name, "%s.sig%d",
		    cc->a.buf.name, cc->a.core_num);
	else
		snprintf(cc->synth_name, sizeof cc->synth_name, "%s.sig",
		    cc->a.buf.name);
	w = seg_win_find(&s->seg, cc->synth_name);
	if (w == NULL && !dry) {
		seg_lock(&s->seg);
		w = seg_win_alloc_in(&s->seg, cc->synth_name, ref.shape,
		    ref.ndim, DT_I32, WIN_SYNTH, cc->a.domain, &cause);
		seg_unlock(&s->seg);
		if (w == NULL) {
			cmd_error(ctx, "cannot synthesize a signal: %s", cause);
			free(cause);
			return -1;
		}
		out_printf("note: synthesized signal %s [%llu,%llu] i32 (self-clearing; reused by later calls)\n",
		    cc->synth_name, (unsigned long long)ref.shape[0],
		    (unsigned long long)ref.shape[1]);
	}
	if (w != NULL) {
		seg_win_ref(w, &cc->a.sig);
	} else {
		/* plan of a first call: show where it would go */
		struct seg_window *list[SEG_MAX_WINDOWS];
		int n = seg_win_list(&s->seg, list, SEG_MAX_WINDOWS);
		uint64_t top = 0;
		for (int i = 0; i < n; i++)
			top = MAX(top,
			    list[i]->off +
				(list[i]->bytes + SEG_ALIGN - 1) / SEG_ALIGN *
				    SEG_ALIGN);
		cc->a.sig = ref;
		cc->a.sig.off = top;
	}
	cc->a.sig.name = cc->synth_name;
	return 0;
}
