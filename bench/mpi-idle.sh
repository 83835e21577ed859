#!/bin/sh
# mpi-idle.sh - `make bench`, mpi part: what an mpi session costs while
# nothing runs.  `colldb -t mpi -n N` under each MPI on this host, at the
# prompt doing nothing; 2 s after the ranks attach,
# the CPU time of the shell and of every process under it (the launcher,
# its proxies, the agents with all their threads) over SECS seconds, as %
# of one core: the agents' total and per agent, the launcher with its
# proxies, the shell.  The goal: under 0.5% of a core per agent (a
# verdict line per MPI).  Figures, not tests.
#   bench/mpi-idle.sh [N [SECS]]        (defaults: 8 ranks, 10 s)
set -u
n=${1:-8}
secs=${2:-10}
status=0
top=$(cd "$(dirname "$0")/.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for mpi in mpirun.openmpi mpirun.mpich; do
	command -v $mpi >/dev/null 2>&1 || {
		echo "mpi-idle.sh: $mpi not found (make deps installs it)" >&2; exit 1; }
	python3 - "$top/colldb" "$mpi" "$n" "$secs" <<'EOS'
import os, re, signal, subprocess, sys, time
colldb, mpi, n, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
p = subprocess.Popen([colldb, "-t", "mpi", "--mpirun", mpi, "-n", str(n)],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True)
def give_up(sig, frame):
    p.terminate()   # the shell ends the launcher's process group
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
    sys.exit("mpi-idle: no answer from the session under %s in 120 s" % mpi)
signal.signal(signal.SIGALRM, give_up)
signal.alarm(120)
p.stdin.write("ranks\n")
p.stdin.flush()
# `ranks` lists each rank ("rank 7: idle") or, when they agree, a range
# ("ranks 0-31: idle"): either way the last rank ends a line's label.
last = re.compile(r"ranks? (\d+-)?%d:" % (n - 1))
for line in p.stdout:
    if last.match(line):
        break
else:
    sys.exit("mpi-idle: the session did not start under %s" % mpi)
signal.alarm(0)
time.sleep(2)   # past the agents' first, short polls

def tree(root):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                st = open("/proc/%s/stat" % d).read()
            except OSError:
                continue
            ppid = int(st[st.rindex(")") + 2:].split()[1])
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        q = todo.pop()
        for k in kids.get(q, []):
            out.append(k)
            todo.append(k)
    return out

def ticks(pids):
    t = {}
    for q in pids:
        try:
            st = open("/proc/%d/stat" % q).read()
            cmd = open("/proc/%d/cmdline" % q).read()
        except OSError:
            continue
        f = st[st.rindex(")") + 2:].split()
        argv = cmd.split("\0")
        t[q] = (int(f[11]) + int(f[12]), len(argv) > 1 and argv[1] == "--agent-mpi")
    return t

pids = [p.pid] + tree(p.pid)
a = ticks(pids)
t0 = time.monotonic()
time.sleep(secs)
b = ticks(pids)
el = time.monotonic() - t0
hz = os.sysconf("SC_CLK_TCK")
agents = rest = shell = 0.0
nag = 0
for q, (tk, ag) in b.items():
    if q not in a:
        continue
    pct = 100.0 * (tk - a[q][0]) / hz / el
    if q == p.pid:
        shell = pct
    elif ag:
        agents += pct
        nag += 1
    else:
        rest += pct
name = mpi.replace("mpirun.", "")
each = agents / max(nag, 1)
print("  %-8s %3d agents idle %3.0f s: agents %6.2f%% of a core (%5.2f%% each), launcher %5.2f%%, shell %5.2f%%"
      % (name, nag, el, agents, each, rest, shell))
if nag != n:
    print("  NO FIGURE: mpi %s idle agents < 0.5%% of a core each (%d of %d agents seen)" % (name, nag, n))
    sys.exit(1)
print("  %s: mpi %s idle agents < 0.5%% of a core each (%.2f%%)"
      % ("MET" if each < 0.5 else "OVER TARGET", name, each))
p.stdin.close()
p.wait(timeout=60)
EOS
	[ $? -eq 0 ] || status=1
done
exit $status
