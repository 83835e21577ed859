#!/usr/bin/env python3
"""genlog.py - write synthetic PyPTO/simpler [STRACE] logs for colldb's tests.

usage: genlog.py SCENARIO [--spans N] [--seed S]

Each scenario is deterministic (seeded).  The logs imitate what simpler's host
logger prints at the TIMING level: one record per span on scope exit, children
before parents, device spans (clk=dev) re-emitted by the host after readback,
an L3 host-orchestrator parent that emits chip.run roots without device_wall,
node.* scheduler spans, CLOCK_ANCHOR lines and unrelated noise.  `scale`
writes a large L3 log (default 1 000 000 spans) for bench/logs-scale.sh.
"""
import argparse
import random
import sys

DEV_PHASES = ("preamble", "orch", "sched")


class Gen:
    def __init__(self, seed, out):
        self.rng = random.Random(seed)
        self.out = out
        self.mono = 10_000_000
        self.inv_next = {}
        self.pending = []          # records waiting to be joined (joined lines)

    def prefix(self, tid):
        self.mono += self.rng.randint(1000, 5000)
        return f"[mono_ns={self.mono}][T0x{tid:x}][TIMING] emit_host_span: "

    def record(self, pid, tid, inv, hid, depth, name, ts, dur, attrs=""):
        rec = (f"[STRACE] v=1 pid={pid} tid={tid} inv={inv} hid={hid} depth={depth} "
               f"name={name} ts={ts} dur={dur}")
        if attrs:
            rec += " " + attrs
        return rec

    def emit(self, pid, tid, rec, prefix=True):
        line = (self.prefix(tid) if prefix else "") + rec
        self.out.write(line + "\n")

    def next_inv(self, pid):
        self.inv_next[pid] = self.inv_next.get(pid, 0) + 1
        return self.inv_next[pid]

    def dispatch(self, pid, hid, host_ts, scale=1.0, device=True, inv=None,
                 root_attrs="", dup_device=False):
        """Return the records of one chip.run dispatch, in emission order."""
        r = self.rng
        if inv is None:
            inv = self.next_inv(pid)
        tid = pid
        recs = []
        t = host_ts
        bind_ts = t + r.randint(200, 400)
        args_dur = int(r.randint(19000, 23000) * scale)
        pre_dur = int(r.choice((4000, 4000, 4012, 3987)) * scale)
        args_ts = bind_ts + 300
        pre_ts = args_ts + args_dur + 200
        bind_dur = pre_ts + pre_dur + 250 - bind_ts
        recs.append(self.record(pid, tid, inv, hid, 2, "chip.run.bind.args", args_ts, args_dur, "ntensor=3"))
        recs.append(self.record(pid, tid, inv, hid, 2, "chip.run.bind.prebuilt", pre_ts, pre_dur))
        recs.append(self.record(pid, tid, inv, hid, 1, "chip.run.bind", bind_ts, bind_dur))
        rr_ts = bind_ts + bind_dur + 150
        dev_total = 0
        if device:
            d = 0
            devrecs = []
            for ph in DEV_PHASES:
                if ph == "preamble" and r.random() < 0.3:
                    continue        # zero-length phases are omitted
                if ph == "preamble":
                    pdur = r.randint(300, 900)
                elif ph == "orch":
                    pdur = int(r.randint(5800, 6600) * scale)
                else:
                    pdur = int(r.randint(39000, 44000) * scale)
                pts = d + r.randint(0, 200) if ph != "sched" else 100
                devrecs.append(self.record(pid, tid, inv, hid, 3,
                                           f"chip.run.runner_run.device_wall.{ph}", pts, pdur, "clk=dev"))
                d = max(d, pts + pdur)
            dev_total = d + r.randint(500, 1500)
            recs.extend(devrecs)
            recs.append(self.record(pid, tid, inv, hid, 2, "chip.run.runner_run.device_wall",
                                    7 if dup_device else 0, dev_total, "clk=dev"))
            if dup_device:
                # A second device_wall in the same invocation, emitted later but
                # with an earlier ts: first-seen and earliest disagree.
                recs.append(self.record(pid, tid, inv, hid, 2, "chip.run.runner_run.device_wall", 0,
                                        dev_total // 2, "clk=dev"))
        rr_dur = dev_total + r.randint(15000, 19000)
        recs.append(self.record(pid, tid, inv, hid, 1, "chip.run.runner_run", rr_ts, rr_dur))
        cr_ts = rr_ts + rr_dur + 100
        cr_dur = r.choice((1200, 1200, 1250, 1187))
        recs.append(self.record(pid, tid, inv, hid, 1, "chip.run.claim_release", cr_ts, cr_dur))
        va_ts = cr_ts + cr_dur + 80
        va_dur = r.choice((3400, 3400, 3420, 3381))
        recs.append(self.record(pid, tid, inv, hid, 1, "chip.run.validate", va_ts, va_dur))
        root_dur = va_ts + va_dur + 120 - t
        recs.append(self.record(pid, tid, inv, hid, 0, "chip.run", t, root_dur, root_attrs))
        return recs, t + root_dur


def noise(g):
    g.out.write("[mono_ns=9000000][T0x1a2b][INFO] init: simpler runtime 6ebaf771 starting\n")
    g.out.write("[mono_ns=9000100][T0x1a2b][TIMING] clock_anchor: [CLOCK_ANCHOR] v=1 pid=4000 "
                "mono_ns=9000100 wall_ns=1767225600000000000\n")


HID_A = "9f3c2a1b7e6d5c4b"
HID_B = "5e1d0c9b8a7f6e5d"
HID_C = "0a1b2c3d4e5f6071"


def scen_l2(g, launches=8, device=True, extras=True):
    pid = 4000
    noise(g)
    ts = 50_000_000
    if extras:
        # prepare-time group on another hid (a once-seen bucket)
        inv = g.next_inv(pid)
        g.emit(pid, pid, g.record(pid, pid, inv, "c0ffee", 1, "chip.prewarm.build.arena", ts, 800_000))
        g.emit(pid, pid, g.record(pid, pid, inv, "c0ffee", 0, "chip.prewarm.build", ts - 10, 812_345))
        ts += 1_000_000
    for k in range(launches):
        recs, end = g.dispatch(pid, HID_A.upper() if k == 1 else HID_A, ts, device=device,
                               root_attrs=f"run_id={k + 1} dispatch_id=0 run_epoch={k + 1} slot_id=0 generation=1")
        for rec in recs:
            g.emit(pid, pid, rec)
        if extras and k == 2:
            g.out.write("some unrelated stderr line mentioning STRACE without brackets\n")
            g.emit(pid, pid, g.record(pid, pid, 0, HID_A, 0, "ext.pypto.decode_layer", ts, 999))
            g.emit(pid, pid, g.record(pid, pid, 0, HID_A, 0, "l3.submit", ts, 999))
        ts = end + g.rng.randint(20_000, 40_000)


def scen_l3(g, ranks=2, launches=4, dispatches=(HID_A,), host_orch=True, device=True,
            unstable_round=None, extra_dispatch=None, join=False, scale_of=None,
            dup_device=False):
    pids = [4101 + 7 * r for r in range(ranks)]
    host = 4100
    noise(g)
    ts = 80_000_000
    for k in range(launches):
        lines = []           # (pid, rec)
        if host_orch:
            hinv = g.next_inv(host)
            lines.append((host, g.record(host, host, 0, HID_C, 0, "node.submit", ts, 2_000, "role=scheduler")))
        ends = []
        for ri, pid in enumerate(pids):
            order = list(dispatches)
            if unstable_round is not None and k == unstable_round and ri == 0:
                order.reverse()
            n_extra = 1 if (extra_dispatch and extra_dispatch(k, ri)) else 0
            t = ts + 500 + ri * 333
            for di, hid in enumerate(order + [HID_A] * n_extra):
                sc = scale_of(ri, di) if scale_of else 1.0
                recs, t = g.dispatch(pid, hid, t, scale=sc, device=device, dup_device=dup_device)
                lines.extend((pid, rec) for rec in recs)
                t += 900
            ends.append(t)
        if host_orch:
            end = max(ends) + 500
            lines.append((host, g.record(host, host, hinv, HID_C, 0, "chip.run", ts, end - ts)))
        # Interleave ranks a little, the way forked children share one fd.
        if join:
            out = []
            i = 0
            while i < len(lines):
                pid, rec = lines[i]
                if i + 1 < len(lines) and lines[i + 1][0] != pid and g.rng.random() < 0.5:
                    pid2, rec2 = lines[i + 1]
                    style = g.rng.randint(0, 2)
                    if style == 0:       # both with host-log prefixes
                        out.append(g.prefix(pid) + rec + g.prefix(pid2) + rec2)
                    elif style == 1:     # second record bare
                        out.append(g.prefix(pid) + rec + rec2)
                    else:                # text between
                        out.append("chip child " + str(pid) + ": " + rec + " " + rec2)
                    i += 2
                    continue
                out.append(g.prefix(pid) + rec)
                i += 1
            for line in out:
                g.out.write(line + "\n")
        else:
            for pid, rec in lines:
                g.emit(pid, pid, rec)
        ts = max(ends) + 50_000


def scen_swimlane(g, ranks=2, launches=4, broken=False):
    """Two-pass L3 capture: a graph pass, then the timing pass, per launch."""
    pids = [4101 + 7 * r for r in range(ranks)]
    noise(g)
    ts = 90_000_000
    for k in range(launches):
        for kind in ("graph", "timing"):
            if not (broken and kind == "timing" and k == launches - 1):
                g.out.write(f"[pypto] l3_swimlane_pass={kind} event=begin\n")
            recs = []
            for ri, pid in enumerate(pids):
                r, end = g.dispatch(pid, HID_A, ts + 400 * ri, scale=1.5 if kind == "graph" else 1.0)
                recs.extend(r)
            ts = end + 30_000
            for i, rec in enumerate(recs):
                if kind == "timing" and k == 1 and i == len(recs) - 1:
                    # the end sentinel on the same line as the last record
                    g.out.write(g.prefix(4101) + rec + f"[pypto] l3_swimlane_pass={kind} event=end\n")
                    break
                g.emit(4101, 4101, rec)
            else:
                g.out.write(f"[pypto] l3_swimlane_pass={kind} event=end\n")


def scen_exact(g):
    """Rank 1 sums 0.15+0.15, 0.1+0.1, 0.15+0.15, 0.1+0.2 us: stdev is just
    below 0.05 exactly (PyPTO prints 0.0), 0.05 in naive floating point."""
    vals = [(150, 150), (100, 100), (150, 150), (100, 200)]
    for k, (a, b) in enumerate(vals):
        for inv, hid, dev, ts in ((2 * k + 1, HID_A, a, k * 1000), (2 * k + 2, HID_B, b, k * 1000 + 500)):
            g.emit(1, 1, g.record(1, 1, inv, hid, 2, "chip.run.runner_run.device_wall", 0, dev, "clk=dev"))
            g.emit(1, 1, g.record(1, 1, inv, hid, 0, "chip.run", ts, 400))
        g.emit(2, 2, g.record(2, 2, k + 1, HID_A, 2, "chip.run.runner_run.device_wall", 0, 10, "clk=dev"))
        g.emit(2, 2, g.record(2, 2, k + 1, HID_A, 0, "chip.run", k * 1000 + 20, 300))


def scen_edge(g):
    """Hand-made oddities on an L2 log: percent-encoded and non-ASCII names
    (decoded to Latin-1 code points, as Python's chr() does), an invalid
    UTF-8 byte, '~' truncation, tabs between fields, three records on one
    line, a torn record, foreign families, a CRLF line, mixed-case hids."""
    def rec(inv, hid, depth, name, ts, dur, attrs="", sep=" "):
        r = sep.join(["[STRACE]", "v=1", "pid=300", "tid=300", f"inv={inv}", f"hid={hid}",
                      f"depth={depth}", f"name={name}", f"ts={ts}", f"dur={dur}"])
        return r + (" " + attrs if attrs else "")
    pre = "[mono_ns=12345][T0x12c][TIMING] emit_host_span: "
    out = ["simpler: starting (edge-case log for colldb tests)",
           "[mono_ns=1][T0x12c][TIMING] clock_anchor: [CLOCK_ANCHOR] v=1 pid=300 mono_ns=1 "
           "wall_ns=1767225600000000000",
           pre + rec(1, "c0ffee", 0, "chip.prewarm.build", 10, 5000)]
    for k in range(5):
        inv = k + 2
        base = 1_000_000 * (k + 1)
        hid = "AbC0" if k % 2 else "abc0"
        spans = [
            (2, "chip.run.bind.args", base + 300, 20000 + k * 10, "ntensor=3"),
            (2, "chip.run.bind.x%2Ey", base + 200, 1000 + k, ""),
            (1, "chip.run.bind", base + 100, 26000 + k * 7, ""),
            (3, "chip.run.runner_run.device_wall.orch", 40, 6000 + k * 3, "clk=dev"),
            (3, "chip.run.runner_run.device_wall.sched", 40, 41000 + k * 11, "clk=device"),
            (2, "chip.run.runner_run.device_wall", 0, 45000 + k * 13, "clk=dev x=%41"),
            (1, "chip.run.runner_run", base + 30000, 60000 + k, ""),
            (1, "chip.run.caf%C3%A9", base + 95000, 300, ""),
            (1, "chip.run.sp%20ace", base + 95000, 200, ""),
            (1, "chip.run.trunc~", base + 95100, 100, ""),
            (1, "chip.run.\u00e9t\u00e9", base + 95200, 50, ""),
            (1, "chip.run.bad\udcff", base + 95300, 40, ""),
            (0, "chip.run", base, 98000 + k * 17, "run_id=%d slot_id=0" % (k + 1)),
        ]
        recs = [rec(inv, hid, d, n, ts, dur, a) for d, n, ts, dur, a in spans]
        if k == 1:
            recs[1] = rec(inv, hid, 2, "chip.run.bind.x%2Ey", base + 200, 1001, "", sep="\t")
            out.append(pre + recs[0] + pre + recs[1] + "  " + recs[2])
            recs = recs[3:]
        if k == 2:
            out.append(pre + "[STRACE] v=1 pid=300 tid=300 inv=4 hid=abc0 depth=1 name=chip.run.bi")
            out.append(pre + rec(0, hid, 0, "node.submit", base, 5, "role=scheduler") +
                       rec(0, hid, 0, "ext.pypto.decode", base, 5) + " " + rec(0, hid, 0, "l3.sched", base, 5))
        out.extend(pre + r for r in recs)
    text = "\n".join(out[:10]) + "\r\n" + "\n".join(out[10:]) + "\n"
    g.out.flush()
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))


def scen_empty(g):
    g.out.write("[mono_ns=9000000][T0x1a2b][INFO] init: simpler runtime starting\n"
                "no spans were captured: SIMPLER_HOST_STRACE=0\n"
                "[STRACE] hello\n")


def scen_scale(g, nspans):
    # L3, 4 ranks, 2 dispatches per launch, 11 spans per dispatch, and the
    # host orchestrator's chip.run root per launch.
    pids = [5001, 5002, 5003, 5004]
    per_dispatch = 11
    launches = max(1, nspans // (per_dispatch * len(pids) * 2 + 1))
    rng = g.rng
    w = g.out.write
    mono = 1
    for k in range(launches):
        w(f"[mono_ns={mono}][T0x1388][TIMING] emit_host_span: [STRACE] v=1 pid=5000 tid=5000 "
          f"inv={k + 1} hid={HID_C} depth=0 name=chip.run ts={1_000_000_000 + k * 1_000_000} dur=99000\n")
        for pid in pids:
            for hid in (HID_A, HID_B):
                g.inv_next[pid] = inv = g.inv_next.get(pid, 0) + 1
                base = 1_000_000_000 + k * 1_000_000 + pid
                recs = (
                    (2, "chip.run.bind.args", base + 300, 20000 + rng.randint(0, 3000), " ntensor=3"),
                    (2, "chip.run.bind.prebuilt", base + 24000, 4000, ""),
                    (1, "chip.run.bind", base + 200, 28500, ""),
                    (3, "chip.run.runner_run.device_wall.preamble", 10, 700, " clk=dev"),
                    (3, "chip.run.runner_run.device_wall.orch", 800, 6000 + rng.randint(0, 600), " clk=dev"),
                    (3, "chip.run.runner_run.device_wall.sched", 100, 40000 + rng.randint(0, 5000), " clk=dev"),
                    (2, "chip.run.runner_run.device_wall", 0, 46000 + rng.randint(0, 2000), " clk=dev"),
                    (1, "chip.run.runner_run", base + 29000, 62000, ""),
                    (1, "chip.run.claim_release", base + 91100, 1200, ""),
                    (1, "chip.run.validate", base + 92400, 3400, ""),
                    (0, "chip.run", base, 96000 + rng.randint(0, 900), ""),
                )
                for depth, name, ts, dur, attrs in recs:
                    mono += 1000
                    w(f"[mono_ns={mono}][T0x{pid:x}][TIMING] emit_host_span: [STRACE] v=1 pid={pid} "
                      f"tid={pid} inv={inv} hid={hid} depth={depth} name={name} ts={ts} dur={dur}{attrs}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--spans", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    g = Gen(a.seed, sys.stdout)
    s = a.scenario
    if s == "l2":
        scen_l2(g)
    elif s == "l2-sim":
        scen_l2(g, launches=5, device=False, extras=False)
    elif s == "l3-2rank":
        scen_l3(g, ranks=2, launches=4)
    elif s == "l3-4rank":
        scen_l3(g, ranks=4, launches=5)
    elif s == "l3-multi":
        scen_l3(g, ranks=4, launches=6, dispatches=(HID_A, HID_B, HID_A),
                scale_of=lambda r, d: 1.0 + 0.25 * d + 0.1 * r)
    elif s == "l3-multi2":
        scen_l3(g, ranks=2, launches=5, dispatches=(HID_A, HID_B), host_orch=False,
                scale_of=lambda r, d: 0.5 + d)
    elif s == "l3-unstable":
        scen_l3(g, ranks=2, launches=5, dispatches=(HID_A, HID_B), unstable_round=3)
    elif s == "l3-flat":
        scen_l3(g, ranks=2, launches=4, extra_dispatch=lambda k, r: k == 2 and r == 1)
    elif s == "l3-sim":
        scen_l3(g, ranks=2, launches=3, device=False)
    elif s == "l3-joined":
        scen_l3(g, ranks=2, launches=4, join=True)
    elif s == "l3-dup":
        scen_l3(g, ranks=2, launches=3, dup_device=True)
    elif s == "l3-swimlane":
        scen_swimlane(g)
    elif s == "l3-swimlane-bad":
        scen_swimlane(g, launches=3, broken=True)
    elif s == "l3-exact":
        scen_exact(g)
    elif s == "edge":
        scen_edge(g)
    elif s == "empty":
        scen_empty(g)
    elif s == "scale":
        scen_scale(g, a.spans)
    else:
        sys.exit(f"genlog.py: unknown scenario '{s}'")


if __name__ == "__main__":
    main()
