/* bench-args.c - parse `bench` and `bench sweep`; see bench.h. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* What `bench [sweep] COLL` takes, for its error messages. */
static void
bench_expected(const struct bench_args *ba, char *buf, size_t size)
{
	static const char *const keys[] = { "op=", "mode=", "root=", "impl=",
		"core_num=", NULL };
	enum coll_kind k = ba->cc.a.kind;
	const char *item[12];
	size_t n = 0, len = 0;

	item[n++] = "rounds=";
	item[n++] = "warmup=";
	if (ba->sweep)
		item[n++] = "factor=";
	if (k != COLL_BARRIER)
		item[n++] = "dtype=";
	for (int i = 0; keys[i] != NULL; i++) {
		char key[16];

		snprintf(key, sizeof key, "%.*s", (int)strlen(keys[i]) - 1, keys[i]);
		if (coll_option_allowed(k, key))
			item[n++] = keys[i];
	}
	if (k != COLL_BARRIER)
		item[n++] = "check";
	item[n++] = "json";
	item[n++] = "domain=";
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    i == 0 ? "" : i + 1 == n ? " or " : ", ", item[i]);
}

static int
parse_count(struct cmdctx *ctx, size_t i, const char *key, const char *v,
    long min, long *out)
{
	int64_t x;
	char *cause = NULL;

	if (parse_int(v, &x, 0, &cause) != 0 || x > INT32_MAX) {
		free(cause);
		return arg_error(ctx, i, "bad %s '%s' (expected a count)", key, v);
	}
	if (x < min)
		return arg_error(ctx, i, "%s must be at least %ld, got %lld", key,
		    min, (long long)x);
	*out = (long)x;
	return 0;
}

static int
parse_size(struct cmdctx *ctx, size_t i, const char *what, uint64_t *out)
{
	char *cause = NULL;

	if (parse_uint(arg(ctx, i), out, 1, &cause) != 0) {
		free(cause);
		return arg_error(ctx, i, "bad %s '%s' (expected bytes like 4096 or 4M)",
		    what, arg(ctx, i));
	}
	if (*out == 0)
		return arg_error(ctx, i, "%s must be at least one element, got 0",
		    what);
	return 0;
}

int
bench_parse(struct cmdctx *ctx, struct bench_args *ba)
{
	size_t i = 0, npos = 0;
	int have_root = 0;
	const char *name;
	char expected[160];

	memset(ba, 0, sizeof *ba);
	ba->rounds = 100;
	ba->warmup = 3;
	ba->dtype = DT_F32;
	ba->factor = 2;
	ba->cc.a.op = RED_SUM;
	ba->cc.a.strict = ctx->s->set.strict != 0;
	ba->cc.a.has_sig = true;
	if (strcmp(arg(ctx, 0), "sweep") == 0) {
		ba->sweep = 1;
		i = 1;
		if (nargs(ctx) < 2) {
			cmd_usage_error(ctx, "'bench sweep' needs COLL MIN MAX");
			return -1;
		}
	}
	name = arg(ctx, i);
	ba->at_coll = i;
	if (coll_kind_from_name(name, &ba->cc.a.kind) != 0)
		return arg_error(ctx, i, "unknown collective '%s' (expected allreduce, barrier, broadcast, allgather, reduce_scatter or all_to_all)",
		    name);
	if (ba->cc.a.kind == COLL_ALL_TO_ALL_V)
		return arg_error(ctx, i, "bench does not run all_to_all_v: its counts are data (time it in a repeat block with trace save instead)");
	for (i++; i < nargs(ctx); i++) {
		const char *a = arg(ctx, i), *v;
		enum coll_kind k = ba->cc.a.kind;

		if (arg_key_repeated(ctx, ba->at_coll + 1, i) != 0)
			return -1;

		if (arg_is_kv(a, "rounds", &v)) {
			if (parse_count(ctx, i, "rounds", v, 1, &ba->rounds) != 0)
				return -1;
		} else if (arg_is_kv(a, "warmup", &v)) {
			if (parse_count(ctx, i, "warmup", v, 0, &ba->warmup) != 0)
				return -1;
		} else if (arg_is_kv(a, "factor", &v) && ba->sweep) {
			long f;
			if (parse_count(ctx, i, "factor", v, 2, &f) != 0)
				return -1;
			ba->factor = (uint64_t)f;
		} else if (arg_is_kv(a, "dtype", &v)) {
			if (dtype_from_name(v, &ba->dtype) != 0 || ba->dtype == DT_U8)
				return arg_error(ctx, i, "unknown dtype '%s' (expected i8 i16 i32 i64 f16 bf16 f32 f64)", v);
			ba->at_dtype = i;
		} else if (strcmp(a, "check") == 0) {
			if (k == COLL_BARRIER)
				return arg_error(ctx, i, "barrier moves no data: nothing to check");
			ba->cc.check = 1;
		} else if (strcmp(a, "json") == 0) {
			ba->cc.json = 1;
		} else if (arg_is_kv(a, "domain", &v)) {
			/* bench on a comm domain: its members run it */
			int dk = seg_domain_find(&ctx->s->seg, v);
			if (dk == 0)
				return arg_error(ctx, i, "unknown domain '%s' (see 'domain')", v);
			ba->cc.a.domain = dk;
			snprintf(ba->domain_name, sizeof ba->domain_name, "%s", v);
			memcpy(ba->cc.a.members, seg_domain_get(&ctx->s->seg, dk)->ranks,
			    sizeof ba->cc.a.members);
		} else if (strchr(a, '=') != NULL) {
			bench_expected(ba, expected, sizeof expected);
			if (coll_option(ctx, i, k, &ba->cc, &have_root,
			    expected) != 0)
				return -1;
		} else if (k == COLL_BARRIER && !ba->sweep) {
			return arg_error(ctx, i, "barrier moves no data: 'bench barrier' takes no SIZE");
		} else if (k == COLL_BARRIER) {
			return arg_error(ctx, i, "barrier moves no data: there is no size to sweep");
		} else if (npos == 0 && !ba->sweep) {
			if (parse_size(ctx, i, "size", &ba->size) != 0)
				return -1;
			ba->at_size = i;
			npos++;
		} else if (npos < 2 && ba->sweep) {
			if (parse_size(ctx, i, npos ? "MAX" : "MIN",
			    npos ? &ba->max : &ba->min) != 0)
				return -1;
			if (npos == 1 && ba->max < ba->min)
				return arg_error(ctx, i, "MAX %llu is below MIN %llu",
				    (unsigned long long)ba->max,
				    (unsigned long long)ba->min);
			ba->at_size = i;
			npos++;
		} else {
			bench_expected(ba, expected, sizeof expected);
			return arg_error(ctx, i, "unexpected '%s' (expected %s)", a,
			    expected);
		}
	}
	if (ba->cc.a.kind == COLL_BARRIER && ba->sweep) {
		cmd_error(ctx, "barrier moves no data: there is no size to sweep");
		return -1;
	}
	if (ba->cc.a.kind != COLL_BARRIER && npos < (ba->sweep ? 2u : 1u)) {
		cmd_usage_error(ctx, "'bench %s%s' needs %s", ba->sweep ? "sweep " : "",
		    name, ba->sweep ? "MIN and MAX sizes" : "a SIZE");
		return -1;
	}
	return 0;
}

/* Elements per rank of the buffer SIZE describes, rounded down to what the
 * collective can split (a multiple of N for the row-shaped ones). */
uint64_t
bench_granule(const struct bench_args *ba, int nranks)
{
	enum coll_kind k = ba->cc.a.kind;
	uint64_t g = dtype_size(ba->dtype);

	if (k == COLL_ALLGATHER || k == COLL_REDUCE_SCATTER ||
	    k == COLL_ALL_TO_ALL)
		g *= (uint64_t)nranks;
	return g;
}

int
bench_check_size(struct cmdctx *ctx, const struct bench_args *ba, uint64_t size)
{
	uint64_t esz = dtype_size(ba->dtype),
	    g = bench_granule(ba, coll_size(&ba->cc.a, ctx->s->nranks));

	if (size % esz != 0)
		return arg_error(ctx, ba->at_size, "size %llu is not a multiple of the %s element size (%llu bytes)",
		    (unsigned long long)size, dtype_name(ba->dtype),
		    (unsigned long long)esz);
	if (size % g != 0)
		return arg_error(ctx, ba->at_size, "%s splits SIZE into one row per rank: %llu is not a multiple of %d ranks x %llu bytes = %llu",
		    coll_kind_name(ba->cc.a.kind), (unsigned long long)size,
		    coll_size(&ba->cc.a, ctx->s->nranks), (unsigned long long)esz,
		    (unsigned long long)g);
	return 0;
}
