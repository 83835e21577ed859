#!/usr/bin/env python3
"""check_json.py TRACE.json NRANKS NSPANS [bench]

Checks a Chrome trace-event file written by `trace save` with a real JSON
parser: one process per rank named "rank N", NSPANS "X" events that nest
properly on each rank, every flow start ("s") matched by one finish ("f")
on the waiting rank that lies inside a wait span, starting inside a
notify span, never ending before it starts (every flow), one flow per wait, "C"
counter samples on cell names, and (bench) the colldb header with root,
rounds and warmup.  Prints one line per failure; exit status 1 if any.
"""
import json
import sys

path, nranks, nspans = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bench = len(sys.argv) > 4 and sys.argv[4] == "bench"
bad = []

with open(path, encoding="utf-8") as f:
    doc = json.load(f)
ev = doc["traceEvents"]
head = doc.get("colldb", {})
if head.get("trace") != 1 or head.get("ranks") != nranks:
    bad.append("header %r" % head)
if bench and not ("root" in head and "rounds" in head and "warmup" in head):
    bad.append("bench header lacks root/rounds/warmup: %r" % head)

names = {e["pid"]: e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "process_name"}
if names != {r: "rank %d" % r for r in range(nranks)}:
    bad.append("process names %r" % names)

xs = [e for e in ev if e["ph"] == "X"]
if len(xs) != nspans:
    bad.append("%d X events, expected %d" % (len(xs), nspans))
for e in xs:
    a = e["args"]
    if not (isinstance(a["inv"], int) and isinstance(a["depth"], int)
            and isinstance(a["hid"], str) and isinstance(a["attrs"], str)):
        bad.append("X event args %r" % a)
        break
    if a["depth"] != e["name"].count("."):
        bad.append("depth %d of %s" % (a["depth"], e["name"]))
        break

# Nesting: on each rank, in ns, a span starting inside another ends inside it.
def ns(us):
    return round(us * 1000)

for pid in range(nranks):
    spans = sorted(((ns(e["ts"]), -ns(e["dur"]), e["name"]) for e in xs
                    if e["pid"] == pid))
    stack = []
    for ts, mdur, name in spans:
        end = ts - mdur
        while stack and stack[-1][0] <= ts:
            stack.pop()
        if stack and end > stack[-1][0]:
            bad.append("rank %d: %s [%d, %d] overlaps %s ending at %d"
                       % (pid, name, ts, end, stack[-1][1], stack[-1][0]))
            break
        stack.append((end, name))

waits = {}
for e in xs:
    if e["name"].endswith("wait") and e["cat"] == "op":
        waits.setdefault(e["pid"], []).append((ns(e["ts"]), ns(e["ts"] + e["dur"])))
starts = {e["id"]: e for e in ev if e["ph"] == "s"}
ends = {e["id"]: e for e in ev if e["ph"] == "f"}
if not starts:
    bad.append("no flow events")
if set(starts) != set(ends):
    bad.append("unmatched flow ids: %d starts, %d finishes"
               % (len(starts), len(ends)))
notifies = {}
for e in xs:
    if e["name"].endswith("notify") and e["cat"] == "op":
        notifies.setdefault(e["pid"], []).append((ns(e["ts"]), ns(e["ts"] + e["dur"])))
# Every flow: it starts inside a notify of the notifying rank, ends inside
# a wait of the waiting rank, and never ends before it starts.
outside_w = outside_n = backward = 0
for i, f in ends.items():
    t = ns(f["ts"])
    if f.get("bp") != "e" or not any(a <= t <= b for a, b in waits.get(f["pid"], [])):
        outside_w += 1
    s = starts.get(i)
    if s is None:
        continue
    if not any(a <= ns(s["ts"]) <= b for a, b in notifies.get(s["pid"], [])):
        outside_n += 1
    if t < ns(s["ts"]):
        backward += 1
for n, what in ((outside_w, "end outside a wait of the waiting rank"),
                (outside_n, "start outside a notify of the notifying rank"),
                (backward, "end before they start")):
    if n:
        bad.append("%d of %d flows %s" % (n, len(ends), what))

nwaits = sum(len(v) for v in waits.values())
if len(ends) != nwaits:
    bad.append("%d flows for %d waits (every wait is released by one notify)"
               % (len(ends), nwaits))

counters = [e for e in ev if e["ph"] == "C"]
if not counters or any("[" not in c["name"] or "value" not in c["args"]
                       for c in counters):
    bad.append("counter events missing or malformed")

for b in bad:
    print("check_json: %s: %s" % (path, b))
sys.exit(1 if bad else 0)
