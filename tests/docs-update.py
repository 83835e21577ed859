#!/usr/bin/env python3
"""Developer helper: re-run every ```colldb -n N block of README.md and
docs/*.md and write colldb's real output back into the block (what
tests/docs.sh compares).  Read the diff before committing."""
import glob, os, re, subprocess, sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
env = {'PATH': '/usr/bin:/bin', 'HOME': '/tmp', 'LC_ALL': 'C'}

def run(args, block, n):
    script = ''.join(l[9:] + '\n' if l.startswith('(colldb) ') else
                     l[4:] + '\n' if l.startswith('... ') else
                     l + '\n' if l.startswith('#') else ''
                     for l in block.splitlines())
    r = subprocess.run(['./colldb', '--batch', '--echo', '--name', 'docs-%d' % n]
                       + args.split(), input=script, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env)
    return r.stdout

count = 0
for doc in ['README.md'] + sorted(glob.glob('docs/*.md')):
    text = open(doc).read()
    def repl(m):
        global count
        count += 1
        return '```colldb' + m.group(1) + '\n' + run(m.group(1).strip(), m.group(2), count) + '```'
    new = re.sub(r'```colldb([^\n]*)\n(.*?)```', repl, text, flags=re.S)
    if new != text:
        open(doc, 'w').write(new)
        print('updated', doc)
