#!/usr/bin/env python3
"""check_bench_json.py FILE NRANKS

Every line of FILE is the output of one `bench ... json` (a single bench,
or a sweep: {"sweep": [...], "avg_busbw_GBps": N}), printed in batch mode
with `set times off`.  JSON is machine output, so it must parse, carry
every key, and hold numbers where a figure exists and null where it does
not, whatever `set times` says: never a masked "*".  Prints one line per
failure; exit status 1 if any.
"""
import json
import sys

path, nranks = sys.argv[1], int(sys.argv[2])
bad = []
num = (int, float)
none = type(None)

# key: the types it may have; a tuple with none: null allowed
KEYS = {
    "collective": (str,), "mode": (str, none), "impl": (str,),
    "op": (str, none), "root": (int, none), "dtype": (str, none),
    "bytes": (int, none), "count": (int, none), "ranks": (int,),
    "rounds": (int,), "warmup": (int,), "busbw_factor": num,
    "time_us": (dict,), "host_union_mean_us": num,
    "algbw_GBps": num + (none,), "busbw_GBps": num + (none,),
    "wrong": (int, none), "spans_lost": (int,), "spans_not_kept": (int,),
    "time_s": num + (none,), "spans": (str,), "waits": (dict,),
    "stats": (str,), "samples_us": (list,), "per_rank_us": (list,),
}


def is_a(v, types):
    # a bool is an int to Python: never a figure here
    return not isinstance(v, bool) and isinstance(v, types)


def check(o, where):
    if set(o) != set(KEYS):
        bad.append("%s: keys %s, expected %s" % (where, sorted(o), sorted(KEYS)))
        return
    for k, types in KEYS.items():
        if not is_a(o[k], types):
            bad.append("%s: %s is %r" % (where, k, o[k]))
    t = o["time_us"]
    if set(t) != {"min", "median", "mean", "max", "stdev"} or \
            not all(is_a(v, num) for v in t.values()):
        bad.append("%s: time_us %r" % (where, t))
    if o["ranks"] != nranks:
        bad.append("%s: ranks %r" % (where, o["ranks"]))
    s = o["samples_us"]
    if len(s) != o["rounds"] or not all(is_a(v, num) for v in s):
        bad.append("%s: samples_us %r" % (where, s))
    p = o["per_rank_us"]
    if len(p) != nranks or not all(len(r) == o["rounds"] and
                                   all(is_a(v, num) for v in r) for r in p):
        bad.append("%s: per_rank_us %r" % (where, p))
    w = o["waits"]
    if set(w) != {"yields", "sleeps", "wakes"} or \
            not all(is_a(v, (int,)) and v >= 0 for v in w.values()):
        bad.append("%s: waits %r" % (where, w))
    if o["spans"] not in ("ops", "phases", "roots"):
        bad.append("%s: spans %r" % (where, o["spans"]))
    if o["time_s"] is not None and not o["time_s"] > 0:
        bad.append("%s: time_s %r" % (where, o["time_s"]))
    if "*" in o["stats"]:
        bad.append("%s: stats masked: %r" % (where, o["stats"]))
    # null exactly where a figure does not exist
    barrier = o["collective"] == "barrier"
    for k in ("dtype", "bytes", "count", "algbw_GBps", "busbw_GBps"):
        if (o[k] is None) != barrier:
            bad.append("%s: %s is %r for %s" % (where, k, o[k], o["collective"]))
    if (o["mode"] is None) != (o["collective"] != "allreduce"):
        bad.append("%s: mode %r" % (where, o["mode"]))
    if (o["root"] is None) != (o["collective"] != "broadcast"):
        bad.append("%s: root %r" % (where, o["root"]))
    # nccl-tests' factors (alltoall's for all_to_all_v)
    n = o["ranks"]
    want = {"allreduce": 2.0 * (n - 1) / n, "allgather": (n - 1) / n,
            "reduce_scatter": (n - 1) / n, "all_to_all": (n - 1) / n,
            "all_to_all_v": (n - 1) / n}.get(o["collective"], 1.0)
    if abs(o["busbw_factor"] - want) > 1e-6:
        bad.append("%s: busbw_factor %r for %s on %d ranks, expected %r" %
                   (where, o["busbw_factor"], o["collective"], n, want))
    if o["wrong"] not in (None, 0):
        bad.append("%s: wrong %r" % (where, o["wrong"]))


n = 0
with open(path, encoding="utf-8") as f:
    for i, line in enumerate(f, 1):
        try:
            o = json.loads(line)
        except ValueError as e:
            bad.append("line %d: not JSON (%s): %.80s" % (i, e, line))
            continue
        if "sweep" in o:
            if set(o) != {"sweep", "avg_busbw_GBps"} or not o["sweep"] or \
                    not is_a(o["avg_busbw_GBps"], num + (none,)):
                bad.append("line %d: sweep keys %r" % (i, sorted(o)))
            for k, row in enumerate(o.get("sweep", [])):
                check(row, "line %d, sweep row %d" % (i, k))
                n += 1
        else:
            check(o, "line %d" % i)
            n += 1
if n == 0:
    bad.append("no bench results")
for b in bad:
    print("check_bench_json: %s: %s" % (path, b))
sys.exit(1 if bad else 0)
