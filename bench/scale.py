#!/usr/bin/env python3
"""scale.py - `make bench` / bench/scale.sh: colldb on many ranks.

For each world size it starts `colldb -n N --batch`, feeds it commands on
stdin one group at a time and times each group from the moment it is
written to the moment a `say` marker written after it comes back (so the
figure is what a person at the prompt waits, output included):

  start       the process started until it answers (every rank up)
  steps       start allreduce 64 Ki f32 mode=ring, then step 100
  where       where, on the stopped ring
  diagnose    diagnose, after every rank but 0 ran on until blocked
  pane        one watch pane sample (watch dump)
              (these three: the median of 5)
  ring        allreduce 64 Ki f32 mode=ring, check
  mesh        allreduce 1 MiB f32 (mode=mesh), check
  quit        quit until the process is gone
and the peak resident set (VmHWM: with the pages of the shared segment it
touched) of the shell and of the largest rank, read after the ring, and
their private memory (RssAnon: the shell's the most seen while it ran,
sampled every 0.2 s; a rank's after the ring); after quit, that
no rank process and no segment of the shell is left (noted if one is).
The ring and the
mesh get -t SECS each (default 1800): one not done by then is interrupted
(SIGINT, as Ctrl-C), abandoned and shown as '-'.  PyPTO's protocols make
both O(N^2) in work: every step of the ring is two credit barriers of all
the ranks, and every rank of the mesh reduces the whole buffer of every
peer.  Figures, not tests: nothing here asserts a time.

  bench/scale.py COLLDB N... [-t SECS] [-v]   (-v: each step's time, on stderr)
"""
import os
import re
import select
import signal
import subprocess
import sys
import time


VERBOSE = False


def status(pid, key):
    """A /proc/PID/status field in bytes (VmHWM: peak resident set,
    RssAnon: private memory now), 0 if gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def hwm(pid):
    return status(pid, "VmHWM")


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


class Shell:
    def __init__(self, colldb, n):
        self.t0 = time.monotonic()
        self.p = subprocess.Popen([colldb, "-n", str(n), "--batch"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
        self.buf = b""
        self.k = 0
        self.n = n
        self.anon = 0   # the shell's private memory, the most seen

    def send(self, lines, timeout):
        """Write lines, then a marker; wait for it: (seconds, output)."""
        self.k += 1
        mark = "=mark%d=" % self.k
        t = time.monotonic()
        try:
            self.p.stdin.write(("\n".join(lines + ["say " + mark]) +
                                "\n").encode())
            self.p.stdin.flush()
        except OSError:
            sys.stderr.write("scale.py: colldb -n %d ended; its last "
                             "output:\n%s\n" % (self.n, self.buf[-2000:]
                                                 .decode(errors="replace")))
            raise
        out = self.until(mark.encode(), t + timeout)
        if VERBOSE:
            sys.stderr.write("  %8.3f s  %s  (load %s)\n" % (
                time.monotonic() - t, "; ".join(lines),
                open("/proc/loadavg").read().split()[0]))
        return time.monotonic() - t, out

    def until(self, mark, deadline):
        fd = self.p.stdout.fileno()
        while mark not in self.buf:
            self.anon = max(self.anon, status(self.p.pid, "RssAnon"))
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([fd], [], [], min(left, 0.2))
            if r:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return None
                self.buf += chunk
        head, _, rest = self.buf.partition(mark)
        self.buf = rest.split(b"\n", 1)[1] if b"\n" in rest else b""
        return head.decode(errors="replace")

    def median(self, lines, times=5):
        """The median time of lines run `times` times (None if one
        failed)."""
        ts = []
        for _ in range(times):
            dt, out = self.send(lines, 600)
            if out is None:
                return None
            ts.append(dt)
        return sorted(ts)[times // 2]

    def abandon(self):
        """Stop and abandon what runs (blocked -> stopped -> abandoned:
        interrupt until every rank is idle), zero the signals, refill the
        inputs."""
        idle = "ranks 0-%d: idle" % (self.n - 1)
        for _ in range(10):
            dt, out = self.send(["interrupt @all", "ranks"], 600)
            if out is None or idle in out:
                break
        self.send(["reset rsig", "reset msig", "fill buf rank",
                   "fill rbuf rank"], 600)

    def bounded(self, lines, secs, what, notes):
        """A collective with check, given secs: its time, or None (then it
        is interrupted, as Ctrl-C would, and abandoned)."""
        dt, out = self.send(lines, secs)
        if out is not None and "#wrong 0" in out:
            return dt
        if out is None:
            notes.append("%s not done after %d s" % (what, secs))
            self.p.send_signal(signal.SIGINT)
            self.until(("=mark%d=" % self.k).encode(),
                       time.monotonic() + 600)
        else:
            if VERBOSE:
                sys.stderr.write(out)
            notes.append("%s: %s" % (what, out.strip().splitlines()[-1]
                                      if out.strip() else "no output"))
        self.abandon()
        return None

    def quit(self):
        t = time.monotonic()
        try:
            self.p.stdin.write(b"quit\n")
            self.p.stdin.close()
        except OSError:
            pass
        self.p.wait(timeout=600)
        return time.monotonic() - t


def one(colldb, n, secs):
    res = {"n": n, "notes": []}
    sh = Shell(colldb, n)
    dt, out = sh.send(["set timeout 0"], 300)
    res["start"] = time.monotonic() - sh.t0 if out is not None else None
    sh.send(["alloc buf [262144] f32", "alloc msig [%d,1] i32" % n,
             "alloc rbuf [65536] f32", "alloc rsig [%d,%d] i32" % (2 * n - 2, n),
             "fill buf rank", "fill rbuf rank"], 600)
    dt, out = sh.send(["start allreduce rbuf rsig mode=ring", "step 100"], 600)
    res["steps"] = dt if out is not None else None
    res["where"] = sh.median(["where"])
    sh.send(["@1-%d continue" % (n - 1)], 600)
    res["diagnose"] = sh.median(["diagnose"])
    res["pane"] = sh.median(["watch dump"])
    sh.abandon()
    res["ring"] = sh.bounded(["allreduce rbuf rsig mode=ring check"], secs,
                             "ring", res["notes"])
    # the shell's memory with a ring on every rank (the target)
    res["rss_shell"] = hwm(sh.p.pid)
    res["anon_shell"] = sh.anon
    kids = children(sh.p.pid)
    res["rss_rank"] = max([hwm(c) for c in kids] or [0])
    res["anon_rank"] = max([status(c, "RssAnon") for c in kids] or [0])
    res["mesh"] = sh.bounded(["allreduce buf msig check"], secs, "mesh",
                             res["notes"])
    kids = children(sh.p.pid)
    res["quit"] = sh.quit()
    # nothing left behind: no rank process, no segment of this shell
    alive = [c for c in kids if os.path.exists("/proc/%d" % c) and
             status(c, "VmHWM") > 0]
    segs = [f for f in os.listdir("/dev/shm")
            if f.startswith("colldb-%d-%d-" % (os.getuid(), sh.p.pid))]
    if alive or segs:
        res["notes"].append("after quit: %d rank(s) alive, %d segment(s)"
                            % (len(alive), len(segs)))
    return res


def fmt(v, unit="s"):
    if v is None:
        return "-"
    if unit == "s":
        return "%.3f" % v if v < 10 else "%.0f" % v
    return "%.0f" % (v / 1e6)


def main():
    args = sys.argv[1:]
    global VERBOSE
    secs = 1800
    if "-v" in args:
        VERBOSE = True
        args.remove("-v")
    if "-t" in args:
        i = args.index("-t")
        secs = int(args[i + 1])
        del args[i:i + 2]
    colldb, sizes = args[0], [int(a) for a in args[1:]]
    cols = ["start", "steps", "where", "diagnose", "pane", "ring", "mesh", "quit"]
    print("  %5s " % "ranks" + " ".join("%9s" % c for c in cols) +
          "  %14s %14s" % ("shell MB", "rank MB"))
    print("  %5s " % "" + " ".join("%9s" % "s" for c in cols) +
          "  %14s %14s" % ("peak/private", "peak/private"))
    last = None
    for n in sizes:
        r = one(colldb, n, secs)
        last = r
        print("  %5d " % n + " ".join("%9s" % fmt(r[c]) for c in cols) +
              "  %14s %14s" % (fmt(r["rss_shell"], "MB") + "/" +
                               fmt(r["anon_shell"], "MB"),
                               fmt(r["rss_rank"], "MB") + "/" +
                               fmt(r["anon_rank"], "MB")) +
              ("   (%s)" % "; ".join(r["notes"]) if r["notes"] else ""),
              flush=True)
    if last is not None:
        verdicts(last)


def verdicts(r):
    """The issue's targets, read on the largest world run."""
    n = r["n"]

    def say(goal, v, limit, unit, scale=1.0):
        if v is None:
            print("  NO FIGURE: %s" % goal)
            return
        fig = ("%.0f %s" if unit == "MB" else "%.3f %s") % (v * scale, unit)
        print("  %s: %s (%s)" % ("MET" if v * scale < limit else
                                 "OVER TARGET", goal, fig))

    say("%d-rank start < 5 s" % n, r["start"], 5, "s")
    for k in ("where", "diagnose", "pane"):
        say("%s on %d ranks mid-ring < 100 ms" % (k, n), r[k], 100, "ms",
            1000)
    say("shell memory with a ring on %d ranks < 200 MB (private, the "
        "most seen; peak RSS with the segment's pages %.0f MB)"
        % (n, r["rss_shell"] / 1e6), r["anon_shell"], 200, "MB", 1e-6)


if __name__ == "__main__":
    main()
