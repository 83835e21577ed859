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
	const char *item[16];
	size_t n = 0, len = 0;

	item[n++] = "rounds= (-n)";
	item[n++] = "warmup= (-w)";
	item[n++] = "time=";
	if (ba->sweep)
		item[n++] = "factor= (-f)";
	if (k != COLL_BARRIER)
		item[n++] = "dtype=";
	for (int i = 0; keys[i] != NULL; i++) {
		char key[16];

		snprintf(key, sizeof key, "%.*s", (int)strlen(keys[i]) - 1,
		    keys[i]);
		if (coll_option_allowed(k, key))
			item[n++] = keys[i];
	}
	item[n++] = "spans=";
	if (k != COLL_BARRIER)
		item[n++] = "check";
	item[n++] = "json";
	item[n++] = "domain=";
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    i == 0	   ? "" :
			i + 1 == n ? " or " :
				     ", ",
		    item[i]);
}

static int
parse_count(struct cmdctx *ctx, size_t i, const char *key, const char *v,
    long min, long *out)
{
	int64_t x;
	char *cause = NULL;

	if (parse_int(v, &x, 0, &cause) != 0 || x > INT32_MAX) {
		free(cause);
		return arg_error(ctx, i, "bad %s '%s' (expected a count)", key,
		    v);
	}
	if (x < min)
		return arg_error(ctx, i, "%s must be at least %ld, got %lld",
		    key, min, (long long)x);
	*out = (long)x;
	return 0;
}

static int
parse_size(struct cmdctx *ctx, size_t i, const char *what, const char *v,
    uint64_t *out)
{
	char *cause = NULL;

	if (parse_uint(v, out, 1, &cause) != 0) {
		free(cause);
		return arg_error(ctx, i,
		    "bad %s '%s' (expected bytes like 4096 or 4M)", what, v);
	}
	if (*out == 0)
		return arg_error(ctx, i,
		    "%s must be at least one element, got 0", what);
	return 0;
}

/* time=SECS: seconds, a number above 0 and at most BENCH_TIME_MAX. */
static int
parse_time(struct cmdctx *ctx, size_t i, const char *v, double *out)
{
	char *end;
	double t = strtod(v, &end);

	if (end == v || *end != '\0' || !(t > 0) || t > BENCH_TIME_MAX)
		return arg_error(ctx, i,
		    "bad time '%s' (expected seconds per size, above 0 and at most %d, like time=0.5)",
		    v, BENCH_TIME_MAX);
	*out = t;
	return 0;
}

/*
 * The options that have two spellings, k=v and nccl-tests' flag (whose
 * value is the next word, or joined: -n 20, -n20), and the positional
 * MIN and MAX of a sweep, which -b and -e spell.  first[] remembers where
 * each was given, so a second spelling is refused like a repeated key.
 */
enum bench_key { BK_ROUNDS, BK_WARMUP, BK_FACTOR, BK_MIN, BK_MAX, BK__COUNT };

static const struct {
	const char *key, *flag;
} bench_keys[BK__COUNT] = {
	[BK_ROUNDS] = { "rounds", "-n" },
	[BK_WARMUP] = { "warmup", "-w" },
	[BK_FACTOR] = { "factor", "-f" },
	[BK_MIN] = { "MIN", "-b" },
	[BK_MAX] = { "MAX", "-e" },
};

struct bench_parse {
	size_t first[BK__COUNT]; /* word that gave it, + 1 (0: not yet) */
	size_t vlen[BK__COUNT];	 /* words it took (a flag: 1 or 2) */
};

/* Word i is a flag of ours: which key, and where its value is. */
static int
bench_flag(struct cmdctx *ctx, size_t i, enum bench_key *k, const char **val,
    size_t *at)
{
	const char *a = arg(ctx, i);

	for (int j = 0; j < BK__COUNT; j++) {
		const char *f = bench_keys[j].flag;

		if (strncmp(a, f, 2) != 0)
			continue;
		*k = (enum bench_key)j;
		if (a[2] != '\0') {
			*val = a + 2;
			*at = i;
			return 1;
		}
		if (i + 1 >= nargs(ctx)) {
			arg_error(ctx, i, "%s needs a value (%s)", f,
			    j == BK_MIN	    ? "the sweep's MIN size" :
				j == BK_MAX ? "the sweep's MAX size" :
					      bench_keys[j].key);
			return -1;
		}
		*val = arg(ctx, i + 1);
		*at = i + 1;
		return 1;
	}
	return 0;
}

/* Key k given at word i: refuse a second spelling of it. */
static int
bench_once(struct cmdctx *ctx, struct bench_parse *bp, enum bench_key k,
    size_t i, size_t words)
{
	if (bp->first[k] != 0) {
		size_t f = bp->first[k] - 1;

		return arg_error(ctx, i, "%s given twice (first as '%s%s%s')",
		    bench_keys[k].key, arg(ctx, f), bp->vlen[k] > 1 ? " " : "",
		    bp->vlen[k] > 1 ? arg(ctx, f + 1) : "");
	}
	bp->first[k] = i + 1;
	bp->vlen[k] = words;
	return 0;
}

/* A -b/-e anywhere makes `bench COLL` a sweep, as in nccl-tests. */
static int
has_range_flag(struct cmdctx *ctx, size_t from)
{
	for (size_t i = from; i < nargs(ctx); i++) {
		const char *a = arg(ctx, i);

		if (strncmp(a, "-b", 2) == 0 || strncmp(a, "-e", 2) == 0)
			return 1;
	}
	return 0;
}

int
bench_parse(struct cmdctx *ctx, struct bench_args *ba)
{
	struct bench_parse bp;
	size_t i = 0, npos = 0;
	int have_root = 0;
	const char *name;
	char expected[200];

	memset(ba, 0, sizeof *ba);
	memset(&bp, 0, sizeof bp);
	ba->rounds = 100;
	ba->warmup = 3;
	ba->dtype = DT_F32;
	ba->factor = 2;
	ba->spans = SPAN_DETAIL_ROOTS;
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
		return arg_error(ctx, i,
		    "unknown collective '%s' (expected allreduce, barrier, broadcast, allgather, reduce_scatter, all_to_all or all_to_all_v)",
		    name);
	if (has_range_flag(ctx, i + 1))
		ba->flag_sweep = ba->sweep = 1;
	for (i++; i < nargs(ctx); i++) {
		const char *a = arg(ctx, i), *v;
		enum coll_kind k = ba->cc.a.kind;
		enum bench_key bk;
		size_t at;
		int fl;

		if ((fl = bench_flag(ctx, i, &bk, &v, &at)) < 0)
			return -1;
		if (fl) {
			if (bk == BK_FACTOR && !ba->sweep)
				return arg_error(ctx, i,
				    "-f is the factor of a sweep (give -b MIN -e MAX, or 'bench sweep')");
			if ((bk == BK_MIN || bk == BK_MAX) && k == COLL_BARRIER)
				return arg_error(ctx, i,
				    "barrier moves no data: there is no size to sweep");
			if (bench_once(ctx, &bp, bk, i, at - i + 1) != 0)
				return -1;
			i = at;
		} else if (arg_key_repeated(ctx, ba->at_coll + 1, i) != 0) {
			return -1;
		}
		if (fl && bk == BK_ROUNDS) {
			if (parse_count(ctx, at, "rounds", v, 1, &ba->rounds) != 0)
				return -1;
		} else if (fl && bk == BK_WARMUP) {
			if (parse_count(ctx, at, "warmup", v, 0, &ba->warmup) != 0)
				return -1;
		} else if (fl && bk == BK_FACTOR) {
			long f;
			if (parse_count(ctx, at, "factor", v, 2, &f) != 0)
				return -1;
			ba->factor = (uint64_t)f;
		} else if (fl) { /* -b / -e */
			uint64_t *out = bk == BK_MIN ? &ba->min : &ba->max;

			if (parse_size(ctx, at, bk == BK_MIN ? "MIN" : "MAX", v,
				out) != 0)
				return -1;
			ba->at_size = at;
			npos++;
		} else if (arg_is_kv(a, "rounds", &v)) {
			if (bench_once(ctx, &bp, BK_ROUNDS, i, 1) != 0 ||
			    parse_count(ctx, i, "rounds", v, 1, &ba->rounds) != 0)
				return -1;
		} else if (arg_is_kv(a, "warmup", &v)) {
			if (bench_once(ctx, &bp, BK_WARMUP, i, 1) != 0 ||
			    parse_count(ctx, i, "warmup", v, 0, &ba->warmup) != 0)
				return -1;
		} else if (arg_is_kv(a, "factor", &v) && ba->sweep) {
			long f;
			if (bench_once(ctx, &bp, BK_FACTOR, i, 1) != 0 ||
			    parse_count(ctx, i, "factor", v, 2, &f) != 0)
				return -1;
			ba->factor = (uint64_t)f;
		} else if (arg_is_kv(a, "time", &v)) {
			if (parse_time(ctx, i, v, &ba->time) != 0)
				return -1;
			ba->at_time = i;
		} else if (arg_is_kv(a, "spans", &v)) {
			if (span_detail_from_name(v, &ba->spans) != 0)
				return arg_error(ctx, i,
				    "unknown span detail '%s' (expected ops, phases or roots)",
				    v);
		} else if (arg_is_kv(a, "dtype", &v)) {
			if (dtype_from_name(v, &ba->dtype) != 0 ||
			    ba->dtype == DT_U8)
				return arg_error(ctx, i,
				    "unknown dtype '%s' (expected i8 i16 i32 i64 f16 bf16 f32 f64)",
				    v);
			ba->at_dtype = i;
		} else if (strcmp(a, "check") == 0) {
			if (k == COLL_BARRIER)
				return arg_error(ctx, i,
				    "barrier moves no data: nothing to check");
			if (arg_flag_repeated(ctx, ba->at_coll + 1, i) != 0)
				return -1;
			ba->cc.check = 1;
		} else if (strcmp(a, "json") == 0) {
			if (arg_flag_repeated(ctx, ba->at_coll + 1, i) != 0)
				return -1;
			ba->cc.json = 1;
		} else if (arg_is_kv(a, "domain", &v)) {
			/* bench on a comm domain: its members run it */
			int dk = seg_domain_find(&ctx->s->seg, v);
			if (dk == 0)
				return arg_error(ctx, i,
				    "unknown domain '%s' (see 'domain')", v);
			ba->cc.a.domain = dk;
			snprintf(ba->domain_name, sizeof ba->domain_name, "%s",
			    v);
			memcpy(ba->cc.a.members,
			    seg_domain_get(&ctx->s->seg, dk)->ranks,
			    sizeof ba->cc.a.members);
		} else if (strchr(a, '=') != NULL) {
			bench_expected(ba, expected, sizeof expected);
			if (coll_option(ctx, i, k, &ba->cc, &have_root,
				expected) != 0)
				return -1;
		} else if (k == COLL_BARRIER && !ba->sweep) {
			return arg_error(ctx, i,
			    "barrier moves no data: 'bench barrier' takes no SIZE");
		} else if (k == COLL_BARRIER) {
			return arg_error(ctx, i,
			    "barrier moves no data: there is no size to sweep");
		} else if (ba->flag_sweep) {
			return arg_error(ctx, i,
			    "unexpected '%s': -b and -e give the sweep's sizes",
			    a);
		} else if (npos == 0 && !ba->sweep) {
			if (parse_size(ctx, i, "size", a, &ba->size) != 0)
				return -1;
			ba->at_size = i;
			npos++;
		} else if (npos < 2 && ba->sweep) {
			enum bench_key pk = npos ? BK_MAX : BK_MIN;

			if (bench_once(ctx, &bp, pk, i, 1) != 0 ||
			    parse_size(ctx, i, npos ? "MAX" : "MIN", a,
				npos ? &ba->max : &ba->min) != 0)
				return -1;
			ba->at_size = i;
			npos++;
		} else {
			bench_expected(ba, expected, sizeof expected);
			return arg_error(ctx, i,
			    "unexpected '%s' (expected %s)", a, expected);
		}
	}
	if (ba->cc.a.kind == COLL_BARRIER && ba->sweep) {
		cmd_error(ctx,
		    "barrier moves no data: there is no size to sweep");
		return -1;
	}
	if (ba->flag_sweep && (bp.first[BK_MIN] == 0 || bp.first[BK_MAX] == 0)) {
		size_t at = bp.first[BK_MIN] ? bp.first[BK_MIN] - 1 :
					       bp.first[BK_MAX] - 1;

		return arg_error(ctx, at, "%s",
		    bp.first[BK_MIN] ? "-b needs -e (the sweep's MAX size)" :
				       "-e needs -b (the sweep's MIN size)");
	}
	if (ba->cc.a.kind != COLL_BARRIER && npos < (ba->sweep ? 2u : 1u)) {
		cmd_usage_error(ctx, "'bench %s%s' needs %s",
		    ba->sweep && !ba->flag_sweep ? "sweep " : "", name,
		    ba->sweep ? "MIN and MAX sizes" : "a SIZE");
		return -1;
	}
	if (ba->sweep && ba->max < ba->min)
		return arg_error(ctx, bp.first[BK_MAX] - 1,
		    "MAX %llu is below MIN %llu", (unsigned long long)ba->max,
		    (unsigned long long)ba->min);
	if (ba->time > 0 && bp.first[BK_ROUNDS] != 0)
		return arg_error(ctx, ba->at_time,
		    "time= picks the rounds; give rounds= or time=, not both");
	if (ba->time > 0 && ba->warmup == 0)
		return arg_error(ctx, ba->at_time,
		    "time= picks the rounds by timing the warmup rounds: it needs warmup=1 or more");
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
	    k == COLL_ALL_TO_ALL || k == COLL_ALL_TO_ALL_V)
		g *= (uint64_t)nranks;
	return g;
}

int
bench_check_size(struct cmdctx *ctx, const struct bench_args *ba, uint64_t size)
{
	uint64_t esz = dtype_size(ba->dtype),
		 g = bench_granule(ba, coll_size(&ba->cc.a, ctx->s->nranks));

	if (size % esz != 0)
		return arg_error(ctx, ba->at_size,
		    "size %llu is not a multiple of the %s element size (%llu bytes)",
		    (unsigned long long)size, dtype_name(ba->dtype),
		    (unsigned long long)esz);
	if (size % g != 0)
		return arg_error(ctx, ba->at_size,
		    "%s splits SIZE into one %s per rank: %llu is not a multiple of %d ranks x %llu bytes = %llu",
		    coll_kind_name(ba->cc.a.kind),
		    ba->cc.a.kind == COLL_ALL_TO_ALL_V ? "block" : "row",
		    (unsigned long long)size,
		    coll_size(&ba->cc.a, ctx->s->nranks),
		    (unsigned long long)esz, (unsigned long long)g);
	return 0;
}
