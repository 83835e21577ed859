/*
 * cmd-bench.c - `bench COLL SIZE ...` and `bench sweep COLL MIN MAX ...`:
 * time warmup + rounds back-to-back calls of a collective on every rank
 * (bench.h has how).  Figures are masked as '*' unless bench_figures()
 * (docs/benchmarking.md, "Transcripts").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "xmalloc.h"

static enum cmd_retval
bench_single(struct cmdctx *ctx, const struct bench_args *ba)
{
	struct session *s = ctx->s;
	struct bench_result res;
	uint64_t size = ba->cc.a.kind == COLL_BARRIER ? 0 : ba->size;

	if (size != 0 && bench_check_size(ctx, ba, size) != 0)
		return CMD_ERROR;
	if (bench_one(ctx, ba, size, NULL, &res) != 0)
		return CMD_ERROR;
	if (ba->cc.json) {
		struct strbuf sb = STRBUF_INIT;
		bench_json(s, ba, &res, &sb);
		out_printf("%s\n", sb.buf);
		strbuf_release(&sb);
	} else {
		bench_print(s, ba, &res);
	}
	bench_spans_warning(&res);
	bench_result_release(&res, s->nranks);
	return CMD_OK;
}

/*
 * The sizes of a sweep: MIN, MIN x factor, ... up to MAX, each rounded
 * down to what the collective can split (as nccl-tests does); sizes that
 * hold no element per rank are skipped.  Returns 0 past the end.
 */
static uint64_t
sweep_next(const struct bench_args *ba, uint64_t g, uint64_t *raw)
{
	while (*raw <= ba->max) {
		uint64_t sz = *raw / g * g;

		*raw = *raw > UINT64_MAX / ba->factor ? UINT64_MAX :
							*raw * ba->factor;
		if (sz > 0)
			return sz;
		if (*raw == UINT64_MAX)
			break;
	}
	return 0;
}

static enum cmd_retval
bench_sweep(struct cmdctx *ctx, const struct bench_args *ba)
{
	struct session *s = ctx->s;
	uint64_t g = bench_granule(ba, coll_size(&ba->cc.a, s->nranks)),
		 raw = ba->min, sz;
	struct strbuf js = STRBUF_INIT;
	struct bench_wins bw;
	double busbw_sum = 0;
	char *cause = NULL;
	int rows = 0;
	enum cmd_retval rv = CMD_OK;

	if (sweep_next(ba, g, &raw) == 0) {
		arg_error(ctx, ba->at_size,
		    "no size in %llu..%llu gives every rank an element: %s needs a multiple of %llu bytes",
		    (unsigned long long)ba->min, (unsigned long long)ba->max,
		    coll_kind_name(ba->cc.a.kind), (unsigned long long)g);
		return CMD_ERROR;
	}
	/* every size is checked before the first one runs; the windows are
	 * placed for the largest and every size runs on them (allocated and
	 * touched once) */
	for (raw = ba->min; (sz = sweep_next(ba, g, &raw)) != 0;) {
		struct coll_args a;

		if (bench_validate(ctx, ba, sz, &a, &bw) != 0)
			return CMD_ERROR;
	}
	if (bench_wins_alloc(s, &bw, &cause) != 0) {
		arg_error(ctx, ba->at_size, "%s", cause);
		free(cause);
		return CMD_ERROR;
	}
	if (ba->cc.json)
		strbuf_addstr(&js, "{\"sweep\": [");
	else
		bench_sweep_header(s, ba);
	for (raw = ba->min; (sz = sweep_next(ba, g, &raw)) != 0;) {
		struct bench_result res;

		if (bench_one(ctx, ba, sz, &bw, &res) != 0) {
			rv = CMD_ERROR;
			break;
		}
		if (ba->cc.json) {
			strbuf_addstr(&js, rows ? ", " : "");
			bench_json(s, ba, &res, &js);
		} else {
			bench_sweep_row(s, ba, &res);
		}
		busbw_sum += res.busbw;
		rows++;
		bench_spans_warning(&res);
		bench_result_release(&res, s->nranks);
	}
	if (rv == CMD_OK && ba->cc.json) {
		strbuf_addstr(&js, "], \"avg_busbw_GBps\": ");
		if (ba->cc.a.kind != COLL_BARRIER && isfinite(busbw_sum / rows))
			strbuf_addf(&js, "%.9g", busbw_sum / rows);
		else
			strbuf_addstr(&js, "null");
		strbuf_addch(&js, '}');
		out_printf("%s\n", js.buf);
	} else if (rv == CMD_OK) {
		bench_sweep_footer(s, busbw_sum / rows);
	}
	bench_wins_release(s, &bw);
	strbuf_release(&js);
	return rv;
}

static enum cmd_retval
cmd_bench_exec(struct cmdctx *ctx)
{
	struct bench_args ba;

	if (bench_parse(ctx, &ba) != 0)
		return CMD_ERROR;
	return ba.sweep ? bench_sweep(ctx, &ba) : bench_single(ctx, &ba);
}

static const char *const bench_keywords[] = { "sweep", "allreduce", "barrier",
	"broadcast", "allgather", "reduce_scatter", "all_to_all",
	"all_to_all_v", "rounds=", "warmup=", "dtype=", "mode=mesh",
	"mode=ring", "op=sum", "op=max", "op=min", "op=prod", "impl=composite",
	"impl=builtin", "root=", "factor=", "time=", "spans=ops",
	"spans=phases", "spans=roots", "check", "json", NULL };

const struct cmd_entry cmd_bench_entry = {
	.name = "bench",
	.usage =
	    "COLL SIZE [rounds=100|time=SECS] [warmup=3] [dtype=f32] "
	    "[mode=mesh|ring] [op=sum|max|min|prod] [impl=composite|builtin] "
	    "[root=R] [spans=roots|phases|ops] [check] [json]"
	    " | sweep COLL MIN MAX [factor=2] [the same options]"
	    " | COLL -b MIN -e MAX [-f 2] [-n ROUNDS] [-w WARMUP] [the same options]",
	.summary = "time a collective: BenchmarkStats, algbw and busbw",
	.example = "bench allreduce -b 4k -e 64M -f 4 time=0.2 mode=ring check",
	.group = GRP_BENCH,
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_ALL_RANKS_ONLY | CMD_AGENTS_ONLY | CMD_NEEDS_NO_COLL |
	    CMD_NEEDS_NO_BREAKS | CMD_NEEDS_ALL_IDLE,
	.keywords = bench_keywords,
	.agents_why = "bench times colldb's own collectives; these ranks run "
		      "their program",
	.exec = cmd_bench_exec,
};
