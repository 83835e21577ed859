/*
 * stats.h - PyPTO's BenchmarkStats computed from span records (stats.c,
 * grouping in stats-group.c, str() in stats-format.c), and the exact
 * arithmetic behind its numbers (stats-exact.c).
 *
 * stats_new() does what bench.py's _parse_stats_from_strace() does to a
 * captured log, on a span_set (parsed from a log or filled in memory):
 *   - spans of the non-invocation families are ignored; the rest are
 *     grouped by (pid, inv) into invocations, sorted by (pid, inv);
 *   - L2: invocations are bucketed by hid, the busiest bucket (first one
 *     on ties) ordered by inv, the first `warmup` dropped; each remaining
 *     launch is one sample (device = chip.run.runner_run.device_wall, host
 *     = chip.run, taking the earliest span of that name, as simpler does);
 *   - L3: only invocations with a depth-0 chip.run count; pids that never
 *     emit device_wall (the host orchestrator) are dropped; if every rank's
 *     count is a multiple of warmup + rounds the stream is cut into that
 *     many chunks, warmup dropped, and round k's sample is the max over
 *     ranks of the rank's summed dispatches (first span of each name, as
 *     PyPTO's TraceInvocation does); otherwise the per-dispatch samples are
 *     pooled ("flattened", warmup dropped per rank);
 *   - with "[pypto] l3_swimlane_pass=timing" sentinels (L3), only complete
 *     timing regions count, and their number must be warmup + rounds.
 * Level and default rounds are colldb's policy for a log (documented in
 * docs/benchmarking.md): L3 when more than one pid emits device_wall or a
 * swimlane sentinel is present; rounds = launches in the log - warmup
 * (at least 0), where launches are: L2, the busiest bucket's size; L3,
 * the complete timing regions when sentinels are present, else the
 * host orchestrator's chip.run count (lowest such pid), else the gcd of
 * the ranks' dispatch counts (0 when there is no rank).
 *
 * Numbers match Python bit for bit: means are fsum()/n (exactly rounded
 * sums), stdev is the correctly rounded square root of the exact sample
 * variance (statistics.stdev), medians average the two middle values.
 *
 * Ownership: struct stats is allocated by stats_new() and freed by
 * stats_free(); it borrows the span_set, which must outlive it and must not
 * change meanwhile.  Every field is read-only for callers.
 */
#ifndef COLLDB_STATS_H
#define COLLDB_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "strace.h"

struct strbuf;

enum stats_level {
	STATS_AUTO = 0, /* decide from the spans (see above) */
	STATS_L2,
	STATS_L3,
};

struct stats_opts {
	enum stats_level level;
	long rounds; /* < 0: launches in the log minus warmup */
	long warmup; /* >= 0 */
	/*
	 * The run root and the device-wall span (NULL: PyPTO's "chip.run"
	 * and "chip.run.runner_run.device_wall").  Spans made in memory may
	 * use their own, e.g. a collective's root for both.  Borrowed for
	 * the life of the struct stats.
	 */
	const char *root_name;
	const char *device_name;
};

enum stats_inv_flags {
	STATS_INV_DISPATCH = (1 << 0), /* has a depth-0 root span */
	STATS_INV_DEVICE = (1 << 1),   /* has a device-wall span */
	STATS_INV_HOST = (1 << 2),     /* has a root-named span */
};

/* One (pid, inv) group: PyPTO's TraceInvocation. */
struct stats_inv {
	int64_t pid;
	uint64_t inv;
	uint32_t hid;	/* string id, hid of the first span */
	uint32_t first; /* its span indices: order[first ..] */
	uint32_t nspans;
	uint32_t flags;		/* enum stats_inv_flags */
	double device_us;	/* first device_wall span's dur / 1000, or 0 */
	double host_us;		/* first chip.run span's dur / 1000, or 0 */
	double device_early_us; /* same for the earliest-ts span of the name */
	double host_early_us;
	int64_t host_ts; /* first chip.run span: ts and dur (union) */
	int64_t host_dur;
	int32_t round; /* L3 grid coordinates, -1 outside the grid */
	int32_t slot;
};

/* One rank of the L3 grid. */
struct stats_rank {
	int64_t pid;
	size_t per_round; /* dispatches per round (the slots) */
	size_t base;	  /* its first entry in measured[] */
};

struct stats {
	const struct span_set *set; /* borrowed */
	const char *root_name;	    /* the run root span (borrowed) */
	const char *device_name;    /* the device-wall span (borrowed) */
	enum stats_level level;	    /* L2 or L3 as resolved */
	long rounds;
	long warmup;

	struct stats_inv *invs; /* every invocation, by (pid, inv) */
	size_t ninvs;
	uint32_t *order; /* span indices grouped by invocation */

	uint32_t *measured; /* PyPTO's `invocations`: invs indices */
	size_t nmeasured;   /* grid: rank-major, round, slot */
	double *device_us;  /* per-round samples (device_wall_us) */
	double *host_us;
	size_t nsamples;

	struct stats_rank *ranks; /* L3 grid, ascending pid */
	size_t nranks;
	int grid;      /* rounds_dispatches is non-empty */
	int flattened; /* fallback_flattened */
	int unstable;  /* unstable_dispatch_slots */
};

struct stats *stats_new(const struct span_set *set,
    const struct stats_opts *opts);
void stats_free(struct stats *st);

/* Append str(BenchmarkStats) (no trailing newline). */
void stats_format(const struct stats *st, struct strbuf *out);

/* measured[] entry of (rank, round, slot) in the grid. */
const struct stats_inv *stats_grid_at(const struct stats *st, size_t rank,
    size_t round, size_t slot);

/* The exact statistics (values finite and >= 0; n > 0 for fmean). */
double stats_fmean(const double *v, size_t n);
double stats_median(const double *v, size_t n);
double stats_stdev(const double *v, size_t n); /* 0 when n < 2 */

/*
 * Accumulator over integers (span durations or timestamps) giving what
 * statistics.fmean / stdev, min and max give for the same list of Python
 * ints.  Zero-initialise it; values must be >= 0.
 */
struct stats_iacc {
	uint64_t n;
	int64_t min;
	int64_t max;
	unsigned __int128 sum;	 /* exact sum */
	unsigned __int128 fsum;	 /* exact sum of float(x) */
	unsigned __int128 sq_lo; /* exact sum of squares: lo + hi*2^128 */
	uint64_t sq_hi;
};

void stats_iacc_add(struct stats_iacc *a, int64_t x);
double stats_iacc_fmean(const struct stats_iacc *a);
double stats_iacc_stdev(const struct stats_iacc *a); /* 0 when n < 2 */

/* stats-group.c, for stats.c: fill invs/order from the spans of VIEW. */
void stats_index(struct stats *st, uint32_t view);

#endif
