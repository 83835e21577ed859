#!/usr/bin/env python3
"""Differential tier: random command sequences, run by colldb and by a small
reference model of the windows written here from the command language's
rules (docs/colldb.1: fill, set, notify, put, get, atomic=add, allreduce),
must print the same values.  A command the model says is an error gets an
`expect error` before it, so colldb must refuse it too, changing nothing.

    tests/diff/run.py [--seeds N] [--seed S] [--keep DIR]

Seeds are fixed (0..N-1) so a failure reproduces; COLLDB_DIFF_SEEDS=N
overrides the count.  Each failing sequence is written out as a script.
"""
import os
import random
import struct
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLLDB = os.environ.get('COLLDB', os.path.join(TOP, 'colldb'))
I32 = (-2**31, 2**31 - 1)


def f32(x):
    return struct.unpack('f', struct.pack('f', x))[0]


def wrap32(v):
    v &= 0xffffffff
    return v - 2**32 if v >= 2**31 else v


def fmt(dt, v):
    if dt == 'i32':
        return str(v)
    return '%g' % v


class Model:
    """Each rank's copy of each window, as Python numbers."""

    def __init__(self, nranks):
        self.n = nranks
        self.wins = {}          # name -> (dtype, count)
        self.val = {}           # (rank, name) -> list

    def alloc(self, name, count, dt):
        self.wins[name] = (dt, count)
        for r in range(self.n):
            self.val[r, name] = [0] * count

    def conv(self, dt, v):
        return wrap32(int(v)) if dt == 'i32' else f32(v)

    def fill(self, ranks, name, how, k):
        dt, cnt = self.wins[name]
        for r in ranks:
            if how == 'value':
                vals = [k] * cnt
            elif how == 'rank':
                vals = [r + k] * cnt
            else:               # iota
                vals = [i + k for i in range(cnt)]
            self.val[r, name] = [self.conv(dt, v) for v in vals]

    def put(self, r, dst, peer, src, doff, soff, count, add):
        s = self.val[r, src][soff:soff + count]   # read before (memmove)
        d = self.val[peer, dst]
        dt = self.wins[dst][0]
        for i, v in enumerate(s):
            d[doff + i] = self.conv(dt, d[doff + i] + v) if add else v

    def allreduce(self, name):
        dt, cnt = self.wins[name]
        tot = [sum(self.val[r, name][i] for r in range(self.n)) for i in range(cnt)]
        for r in range(self.n):
            self.val[r, name] = [self.conv(dt, v) for v in tot]

    def lines(self, name):
        dt = self.wins[name][0]
        return ['rank %d: %s' % (r, ' '.join(fmt(dt, v) for v in self.val[r, name]))
                for r in range(self.n)]


def sequence(seed):
    """A script (list of lines) and the output lines the model expects."""
    rnd = random.Random(seed)
    n = rnd.randint(2, 4)
    m = Model(n)
    lines, want = ['#! args: -n %d' % n], []
    data = []
    for k in range(rnd.randint(2, 4)):
        name, cnt, dt = 'w%d' % k, rnd.randint(1, 9), rnd.choice(['i32', 'f32'])
        m.alloc(name, cnt, dt)
        data.append(name)
        lines.append('alloc %s [%d] %s' % (name, cnt, dt))
    m.alloc('sig', n, 'i32')        # the allreduce's [N,1] signal
    lines.append('alloc sig [%d,1] i32' % n)

    def show(name):
        lines.append('print ' + name)
        want.append(('print ' + name, m.lines(name)))

    def bad(line):
        lines.append('expect error')
        lines.append(line)

    for _ in range(rnd.randint(10, 40)):
        op = rnd.random()
        r = rnd.randrange(n)
        name = rnd.choice(data)
        dt, cnt = m.wins[name]
        if op < 0.15:
            how = rnd.choice(['value', 'rank', 'iota'])
            k = rnd.randint(-50, 50)
            word = {'value': str(k), 'rank': 'rank%+d' % k if k else 'rank',
                    'iota': 'iota'}[how]
            if how == 'iota':
                k = 0
            if rnd.random() < 0.5:
                lines.append('fill %s %s' % (name, word))
                m.fill(range(n), name, how, k)
            else:
                lines.append('@%d fill %s %s' % (r, name, word))
                m.fill([r], name, how, k)
        elif op < 0.3:
            i, v = rnd.randrange(cnt + 1), rnd.randint(-1000, 1000)
            line = '@%d set %s[%d] %d' % (r, name, i, v)
            if i == cnt:
                bad(line)       # past the end
            else:
                lines.append(line)
                m.val[r, name][i] = m.conv(dt, v)
        elif op < 0.6:
            # put or get: same dtype both sides; offsets and counts, some
            # of them past the end (errors)
            other = rnd.choice([w for w in data if m.wins[w][0] == dt])
            peer = rnd.randrange(n)
            kind = rnd.choice(['put', 'get'])
            dst, src = (name, other)
            dcnt, scnt = m.wins[dst][1], m.wins[src][1]
            doff, soff = rnd.randrange(dcnt), rnd.randrange(scnt)
            cmax = min(dcnt - doff, scnt - soff)
            count = rnd.randint(1, cmax + (1 if rnd.random() < 0.15 else 0))
            add = kind == 'put' and rnd.random() < 0.4
            line = '@%d %s %s %d %s dst=%d src=%d count=%d%s' % (
                r, kind, dst, peer, src, doff, soff, count,
                ' atomic=add' if add else '')
            if count > cmax:
                bad(line)
            else:
                lines.append(line)
                if kind == 'put':
                    m.put(r, dst, peer, src, doff, soff, count, add)
                else:           # get: r's dst from peer's src
                    s = m.val[peer, src][soff:soff + count]
                    m.val[r, dst][doff:doff + count] = s
        elif op < 0.7:
            # a notify into a data window of i32 (a cell is a cell)
            i32w = [w for w in data if m.wins[w][0] == 'i32']
            if not i32w:
                continue
            w = rnd.choice(i32w)
            peer, i = rnd.randrange(n), rnd.randrange(m.wins[w][1])
            v, set_ = rnd.randint(-100, 100), rnd.random() < 0.3
            lines.append('@%d notify %d %s[%d] %d%s' % (r, peer, w, i, v,
                                                         ' set' if set_ else ''))
            cell = m.val[peer, w]
            cell[i] = wrap32(v if set_ else cell[i] + v)
        elif op < 0.8:
            if dt == 'i32':     # PyPTO's mesh allreduce is f16/f32 only
                bad('allreduce %s sig' % name)
            else:
                lines.append('allreduce %s sig' % name)
                m.allreduce(name)
        else:
            show(name)
    for w in data + ['sig']:
        show(w)
    return lines, want


def run(seed, keep):
    lines, want = sequence(seed)
    script = '\n'.join(lines) + '\n'
    env = {'PATH': '/usr/bin:/bin', 'LC_ALL': 'C', 'HOME': '/nonexistent'}
    for k in ('ASAN_OPTIONS', 'LSAN_OPTIONS', 'UBSAN_OPTIONS'):
        if k in os.environ:
            env[k] = os.environ[k]
    n = int(lines[0].split()[-1])
    p = subprocess.run([COLLDB, '--batch', '--echo', '-n', str(n),
                        '--name', 'diff-%d-%d' % (os.getpid(), seed)],
                       input=script, capture_output=True, text=True,
                       env=env, timeout=120)
    out = p.stdout.splitlines()
    problems = []
    if p.returncode != 0:
        problems.append('exit %d: %s' % (p.returncode, p.stderr.strip()[-300:]))
    pos = 0
    for cmd, exp in want:
        try:
            pos = out.index('(colldb) ' + cmd, pos) + 1
        except ValueError:
            problems.append('no output of %s' % cmd)
            break
        got = [l for l in out[pos:pos + len(exp)]]
        if got != exp:
            problems.append('%s (after line %d):\n  colldb: %s\n  model:  %s' % (
                cmd, pos, '\n          '.join(got), '\n          '.join(exp)))
            break
    if problems and keep:
        os.makedirs(keep, exist_ok=True)
        with open(os.path.join(keep, 'diff-%d.coll' % seed), 'w') as f:
            f.write(script)
    return problems, len(lines)


def main():
    args = sys.argv[1:]
    nseeds = int(os.environ.get('COLLDB_DIFF_SEEDS', '300'))
    seeds, keep = None, None
    while args:
        a = args.pop(0)
        if a == '--seeds':
            nseeds = int(args.pop(0))
        elif a == '--seed':
            seeds = [int(args.pop(0))]
        elif a == '--keep':
            keep = args.pop(0)
        else:
            print('usage: tests/diff/run.py [--seeds N] [--seed S] [--keep DIR]',
                  file=sys.stderr)
            return 2
    if not os.access(COLLDB, os.X_OK):
        print('  FAIL diff: %s is not built' % COLLDB)
        return 1
    fail = cmds = 0
    for seed in seeds if seeds is not None else range(nseeds):
        problems, n = run(seed, keep)
        cmds += n
        if problems:
            fail += 1
            print('  FAIL diff seed %d: %s' % (seed, problems[0]))
    total = len(seeds) if seeds is not None else nseeds
    print('  diff: %d sequences (%d commands) against the model, %d diverged'
          % (total, cmds, fail))
    return 1 if fail else 0


if __name__ == '__main__':
    sys.exit(main())
