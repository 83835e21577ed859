/* stats-format.c - str(BenchmarkStats); see stats.h. */
#include <stdlib.h>

#include "../core/strbuf.h"
#include "../core/xmalloc.h"
#include "stats.h"

#define STR_MAX_DISPATCHES 8

static void
stats_union_suffix(const struct stats *st, struct strbuf *out)
{
	double *u = xreallocarray(NULL, (size_t)st->rounds, sizeof *u);
	size_t k, i, s;

	for (k = 0; k < (size_t)st->rounds; k++) {
		int64_t lo = 0;
		__int128 hi = 0;
		int any = 0;

		for (i = 0; i < st->nranks; i++) {
			for (s = 0; s < st->ranks[i].per_round; s++) {
				const struct stats_inv *iv =
				    stats_grid_at(st, i, k, s);
				__int128 end =
				    (__int128)iv->host_ts + iv->host_dur;

				if (!(iv->flags & STATS_INV_HOST))
					continue;
				if (!any || iv->host_ts < lo)
					lo = iv->host_ts;
				if (!any || end > hi)
					hi = end;
				any = 1;
			}
		}
		u[k] = any ? (double)(hi - lo) / 1000.0 : 0.0;
	}
	strbuf_addf(out, "; host-union mean=%.1fus",
	    stats_fmean(u, (size_t)st->rounds));
	free(u);
}

static void
stats_dispatch_line(const struct stats *st, struct strbuf *out)
{
	size_t i, s, k, ndisp = 0, shown = 0;
	double *v;

	if (!st->grid || st->unstable)
		return;
	for (i = 0; i < st->nranks; i++)
		ndisp += st->ranks[i].per_round;
	if (ndisp <= st->nranks)
		return; /* one dispatch per rank: nothing fused */
	v = xreallocarray(NULL, (size_t)st->rounds, sizeof *v);
	strbuf_addstr(out, "\n  per-dispatch device mean us: ");
	for (i = 0; i < st->nranks && shown < STR_MAX_DISPATCHES; i++) {
		for (s = 0;
		     s < st->ranks[i].per_round && shown < STR_MAX_DISPATCHES;
		     s++) {
			const struct stats_inv *iv = stats_grid_at(st, i, 0, s);

			for (k = 0; k < (size_t)st->rounds; k++)
				v[k] = stats_grid_at(st, i, k, s)->device_us;
			strbuf_addf(out, "%s(pid=%lld,slot=%zu,task=%s)=%.1f",
			    shown ? "  " : "", (long long)st->ranks[i].pid, s,
			    span_set_str(st->set, iv->hid),
			    stats_fmean(v, (size_t)st->rounds));
			shown++;
		}
	}
	if (ndisp > shown)
		strbuf_addf(out, "  ... +%zu more", ndisp - shown);
	free(v);
}

void
stats_format(const struct stats *st, struct strbuf *out)
{
	const double *d = st->device_us;
	size_t n = st->nsamples, i;
	double lo, hi;
	int nonzero = 0;

	if (n == 0) {
		strbuf_addf(out, "BenchmarkStats(rounds=%ld: no samples)",
		    st->rounds);
		return;
	}
	for (i = 0; i < n; i++)
		nonzero |= d[i] != 0.0;
	if (!nonzero) {
		strbuf_addf(out,
		    "BenchmarkStats(rounds=%ld): device_wall_us "
		    "all 0 \xe2\x80\x94 runtime built without "
		    "SIMPLER_HOST_STRACE or sim platform (use host_wall_us)",
		    st->rounds);
		return;
	}
	lo = hi = d[0];
	for (i = 1; i < n; i++) {
		lo = d[i] < lo ? d[i] : lo;
		hi = d[i] > hi ? d[i] : hi;
	}
	strbuf_addf(out,
	    "BenchmarkStats(rounds=%ld, warmup=%ld): "
	    "device_wall_us min=%.1f median=%.1f mean=%.1f max=%.1f "
	    "stdev=%.1f",
	    st->rounds, st->warmup, lo, stats_median(d, n), stats_fmean(d, n),
	    hi, stats_stdev(d, n));
	if (st->grid) {
		strbuf_addf(out, " [L3: %zu ranks, per-round max across ranks",
		    st->nranks);
		stats_union_suffix(st, out);
		strbuf_addch(out, ']');
	} else if (st->flattened)
		strbuf_addstr(out,
		    " [L3: flattened per-dispatch pool "
		    "\xe2\x80\x94 non-deterministic dispatch shape]");
	stats_dispatch_line(st, out);
}
