/*
 * bench.h - shell/bench/: the commands of help's "Benchmarks and traces"
 * and the bench engine.  `bench` (cmd-bench.c) with its arguments
 * (bench-args.c), windows (bench-wins.c), one size (bench-one.c), its runs
 * on the ranks (bench-run.c), `check` (bench-check.c), the figures from
 * the spans (bench-stats.c) and what is printed (bench-out.c); `tree` and
 * `trace`, which read the last bench and the session's spans
 * (cmd-trace.c).
 *
 * May use: core, viz (stats, trees), shell/lang, out, view, session, user,
 * diag, trace, and cmd's table machinery and argument helpers (it stands
 * on cmd/; cmd/table.c only names its entries).
 *
 * bench allocates its own windows ("bench.buf", "bench.src", "bench.sig":
 * a '.' no user window can have), zero-filled, runs the collective on them
 * and frees them.  SIZE is the per-rank buffer, as in nccl-tests: the
 * buffer of allreduce and broadcast, the [N, SIZE/N] matrix of
 * reduce_scatter and all_to_all, allgather's [N, SIZE/N] output, and
 * all_to_all_v's SRC and DST, [SIZE/elt, 1]: MAX_RECV is SIZE/N of
 * one-element rows, and every SEND_COUNTS is MAX_RECV (uniform counts
 * filling SIZE, as nccl-tests' alltoall sends SIZE/N to each rank; the
 * counts do not change what moves: PyPTO's transfer shape is static).
 * Each rank runs the program warmup + rounds times back to back
 * (core/rank.c), and every run's root span (the collective, core/span.h)
 * is that rank's time in the round; the BenchmarkStats line is PyPTO's
 * (viz/stats.h, L3: the round's time is the max over ranks), time is its
 * median round, algbw = SIZE / time and busbw = algbw x nccl-tests'
 * factor (coll_busbw_factor).  `check` first runs one call on random data
 * (all_to_all_v: random counts too, 0..99) and counts wrong elements,
 * then zeroes the data again; the timed calls always run on zeros (sums
 * and products stay finite and never go subnormal).
 *
 * Ownership: a struct bench_result is filled by bench_one() and released
 * with bench_result_release().
 */
#ifndef COLLDB_BENCH_H
#define COLLDB_BENCH_H

#include "cmd/cmd.h"
#include "span.h"

/* ---- the last bench, for the commands that read it ------------------------ */

/* The last bench, for `tree` and the header of `trace save`. */
struct bench_last {
	char root[32]; /* the collective: the run root span */
	long rounds, warmup;
	int rounds_timed; /* time= picked the rounds (a figure) */
	uint32_t *tags;	  /* per rank: the jobs (time=: two each) */
	int ntags;
	uint32_t gen; /* trace generation holding its spans */
	int complete; /* none of its spans lost or not kept */
	uint64_t lost, not_kept, kept;
	uint64_t bytes;		/* its size (0: a barrier) */
	int ring;		/* mode=ring */
	int sweep;		/* the last size of a bench sweep */
	enum span_detail spans; /* what it recorded */
	const char *stopped;	/* NULL, or how it ended early: "was
				 * interrupted", "was stopped by ..." */
	long done;		/* runs (warmup + rounds) every rank
				 * finished: tree shows those */
};

/* Whether figures (times, bandwidths) are shown: interactive sessions and
 * `set times on`; masked as '*' otherwise (transcripts). */
int bench_figures(struct session *s);
/* Forget the last bench (session close). */
void bench_last_free(struct session *s);
/* bench_last_free() as a session hook. */
extern const struct session_hook bench_session_hook;

/* time= at most (seconds per size), and the rounds it may pick. */
#define BENCH_TIME_MAX 3600
#define BENCH_ROUNDS_MAX 100000

/*
 * A bench's arguments.  rounds= (-n) and warmup= (-w) are counts; time=
 * picks the rounds instead: the warmup rounds are timed first, then as
 * many rounds run as fit in `time` seconds at the median warmup round's
 * pace (1 .. BENCH_ROUNDS_MAX).  -b/-e/-f are a sweep's MIN, MAX and
 * factor=, as nccl-tests spells them.
 */
struct bench_args {
	struct coll_call cc; /* kind, op, mode, impl, root, check, json */
	enum dtype dtype;
	long rounds, warmup;
	double time;	   /* seconds per size; 0: rounds= decides */
	uint64_t size;	   /* bytes (not for barrier) */
	uint64_t min, max; /* sweep */
	uint64_t factor;
	int sweep;
	int flag_sweep;		/* the sweep was asked for with -b/-e */
	enum span_detail spans; /* what the ranks record (core/span.h) */
	size_t at_size, at_dtype, at_coll, at_time; /* argument positions */
	char domain_name[SEG_NAME_MAX]; /* domain=, "" for the world */
};

/* What one bench measured. */
struct bench_result {
	uint64_t bytes, count;
	long rounds, warmup; /* as run (time= picks the rounds) */
	double *samples;     /* per round (us): max over ranks */
	double **rank_us;    /* [rank][round] */
	size_t nsamples;
	double min, median, mean, max, stdev, union_mean;
	double algbw, busbw; /* GB/s */
	int64_t wrong;	     /* -1: not checked */
	uint64_t lost, not_kept;
	/* how the ranks waited during the timed calls (all ranks, summed:
	 * the board's n_yield, n_sleep, n_wake) */
	uint64_t yields, sleeps, wakes;
	struct strbuf stats; /* the BenchmarkStats line */
};

/* The windows of one bench, placed where seg_win_alloc() will put them.
 * all_to_all_v has its counts too: SEND_COUNTS [N] and RECV_COUNTS [N,1]
 * i32 ("bench.scount", "bench.rcount"). */
struct bench_wins {
	struct win_ref buf, src, sig, scount, rcount;
	int has_buf, has_src, has_counts;
	int domain;    /* the comm domain they are on (0: the world) */
	uint64_t need; /* bytes of window area per rank */
};

/* bench-args.c */
/* Parse `bench ...` (the words after the name); 0 or -1 (reported). */
int bench_parse(struct cmdctx *ctx, struct bench_args *ba);
/* Bytes SIZE must be a multiple of: the element, times N when every rank
 * gets a row. */
uint64_t bench_granule(const struct bench_args *ba, int nranks);
/* A single bench's SIZE: 0, or -1 (reported). */
int bench_check_size(struct cmdctx *ctx, const struct bench_args *ba,
    uint64_t size);

/* bench-wins.c */
/* Check a bench of `size` bytes without touching anything: fills *a with
 * the call on the windows *bw would have; 0, or -1 (reported). */
int bench_validate(struct cmdctx *ctx, const struct bench_args *ba,
    uint64_t size, struct coll_args *a, struct bench_wins *bw);
int bench_wins_alloc(struct session *s, struct bench_wins *bw, char **cause);
void bench_wins_free(struct session *s);
/* Free the windows bw, unless a rank that did not stop still holds them
 * (then say so and leave them). */
void bench_wins_release(struct session *s, const struct bench_wins *bw);

/* bench-one.c */
/* One bench of `size` bytes: windows, check, timed runs, figures; it
 * becomes s->bench.  With reuse (a sweep), it runs on those windows, laid
 * out for a larger size, instead of allocating its own.  0, or -1
 * (reported). */
int bench_one(struct cmdctx *ctx, const struct bench_args *ba, uint64_t size,
    const struct bench_wins *reuse, struct bench_result *res);

/* bench-run.c */
/* The progress line of a long bench (interactive only, never captured). */
struct progress {
	uint64_t start_ns, last_ns;
	uint64_t *base; /* per rank: board progress at the start */
	uint64_t *nops; /* per rank: micro-ops of one run */
	long runs;
	int shown;
};
void bench_progress_start(struct session *s, struct progress *pg, long runs);
void bench_progress_end(struct progress *pg);
/* Wait until no rank holds the job tags[r] (0: none); 0, or -1 (reported)
 * when interrupted, the watchdog fired or a rank died.  pg may be NULL. */
int bench_wait(struct session *s, const uint32_t *tags, struct progress *pg);
/* Send the collective a, run `repeat` times (iterations first_iter ..)
 * recording spans at the given detail, to every rank; tags[r] receives
 * rank r's job.  0, or -1 (reported). */
int bench_submit(struct session *s, const struct coll_args *a, uint32_t repeat,
    uint32_t first_iter, enum span_detail spans, uint32_t *tags);

/* bench-check.c */
/* `check` on the windows bw: *wrong receives the mismatches; 0 or -1. */
int bench_check(struct session *s, const struct coll_args *a,
    const struct bench_wins *bw, int64_t *wrong);
/* all_to_all_v: every rank's SEND_COUNTS set to MAX_RECV, its
 * RECV_COUNTS to 0 (the timed calls' counts); 0 or -1. */
int bench_counts_reset(struct session *s, const struct coll_args *a,
    const struct bench_wins *bw);

/* bench-stats.c */
/* Fill res from the root spans of the jobs tags[0..ntags) (res->rounds
 * and res->warmup say which runs they hold); 0, or -1 (reported) when a
 * rank's roots are missing. */
int bench_stats(struct session *s, const struct bench_args *ba,
    const uint32_t *tags, size_t ntags, struct bench_result *res);
/* The median over the first `runs` runs of jobs tags[] of a run's time
 * (the slowest rank's), in us: the pace time= plans with. */
double bench_pace(struct session *s, const uint32_t *tags, size_t ntags,
    long runs);
void bench_result_release(struct bench_result *res, int nranks);

/* bench-out.c */
/* "allreduce ring f32", "broadcast root=1 f32", "allreduce mesh max f32" */
void bench_what(const struct bench_args *ba, struct strbuf *sb);
/* The BenchmarkStats line and the nccl-tests-like line. */
void bench_print(struct session *s, const struct bench_args *ba,
    const struct bench_result *res);
/* One JSON object with every figure and the per-round samples. */
void bench_json(struct session *s, const struct bench_args *ba,
    const struct bench_result *res, struct strbuf *sb);
/* bench sweep's table: header, one row per size, the average busbw. */
void bench_sweep_header(struct session *s, const struct bench_args *ba);
void bench_sweep_row(struct session *s, const struct bench_args *ba,
    const struct bench_result *res);
void bench_sweep_footer(struct session *s, double busbw_mean);
/* Warnings about spans lost or not kept during the bench. */
void bench_spans_warning(const struct bench_result *res);

#endif
