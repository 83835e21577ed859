#!/bin/sh
# Trace tier: what `trace save` writes, checked by real parsers and read
# back.  A bench on 3 ranks (figures shown) is saved as Chrome JSON and as
# [STRACE] lines; then
#   - python3's json module checks the JSON's layout (check_json.py);
#   - every [STRACE] record matches simpler's grammar (viz/strace.h);
#   - colldb stats / colldb tree on both files print exactly what the shell
#     printed for the bench: the BenchmarkStats line, tree, tree mean.
# bench ... json carries numbers (keys and types checked by
# check_bench_json.py).  A session of single commands and a collective is
# saved too: its waits,
# collective or not, each get one notify->wait flow.
#   tests/trace/run.sh [objdir]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
colldb=$top/colldb
here=$top/tests/trace
tmp=$(mktemp -d "${TMPDIR:-/tmp}/colldb-trace.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2
. "$top/tests/need.sh"
need python3 diff awk
pass=0 fail=0

check() {	# check NAME CMD...: pass if CMD succeeds
	_n=$1
	shift
	if "$@" >"$tmp/check.out" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: trace $_n"
		head -20 "$tmp/check.out"
	fi
}

same() {	# same NAME FILE1 FILE2
	check "$1" diff -u "$2" "$3"
}

# the lines a command printed in an --echo transcript
section() {	# section FILE 'COMMAND'
	awk -v c="(colldb) $2" '$0 == c { on = 1; next }
	    /^\(colldb\) / { on = 0 } on' "$1"
}

cat >bench.coll <<'EOS'
set times on
bench allreduce 96k rounds=4 warmup=2 mode=ring check spans=ops
trace
tree
tree mean spread=both
tree mean spread=minmax rank=2 ns
tree launch=-1
trace save b.json
trace save b.log strace
EOS
env -i PATH=/usr/bin:/bin LC_ALL=C "$colldb" -n 3 --batch --echo bench.coll \
    >bench.out 2>&1
check "bench session" test $? -eq 0
nspans=$(sed -n 's/^trace: \([0-9]*\) spans (rank.*/\1/p' bench.out)
check "span count" test -n "$nspans"

check "json layout" python3 "$here/check_json.py" b.json 3 "${nspans:-0}" bench
check "strace grammar" python3 -c '
import re, sys
rec = re.compile(r"\[STRACE\]\s+v=(\d+)\s+pid=(\d+)\s+tid=(\d+)\s+inv=(\d+)\s+"
    r"hid=([0-9a-fA-F]+)\s+depth=(\d+)\s+name=(\S+)\s+ts=(\d+)\s+dur=(\d+)(.*)$")
n = 0
for line in open(sys.argv[1]):
    if "[STRACE]" in line:
        m = rec.search(line)
        if not m or line.count("[STRACE]") != 1:
            sys.exit("not a record: " + line)
        if int(m.group(6)) != m.group(7).count("."):
            sys.exit("depth: " + line)
        n += 1
if n != int(sys.argv[2]):
    sys.exit("%d records, expected %s" % (n, sys.argv[2]))
' b.log "${nspans:-0}"

section bench.out 'bench allreduce 96k rounds=4 warmup=2 mode=ring check spans=ops' |
    head -1 >shell.stats
section bench.out 'tree' >shell.tree
section bench.out 'tree mean spread=both' >shell.mean
section bench.out 'tree mean spread=minmax rank=2 ns' >shell.mean2
section bench.out 'tree launch=-1' >shell.last
for f in b.log b.json; do
	"$colldb" stats "$f" >"$f.stats" 2>&1
	same "stats $f" shell.stats "$f.stats"
	"$colldb" tree "$f" >"$f.tree" 2>&1
	same "tree $f" shell.tree "$f.tree"
	"$colldb" tree --mean --spread both "$f" >"$f.mean" 2>&1
	same "tree --mean $f" shell.mean "$f.mean"
	"$colldb" tree --mean --spread minmax --pid 2 --ns "$f" >"$f.mean2" 2>&1
	same "tree --mean --pid --ns $f" shell.mean2 "$f.mean2"
	"$colldb" tree --launch -1 "$f" >"$f.last" 2>&1
	same "tree --launch -1 $f" shell.last "$f.last"
done
check "bench line" grep -q '^allreduce ring f32 98304 B  3 ranks  time [0-9.]*us  algbw [0-9.]* GB/s  busbw [0-9.]* GB/s  #wrong 0  spans=ops$' bench.out

# bench ... json: real numbers in batch mode too (set times off), every
# key there, null where a figure does not exist
cat >json.coll <<'EOS'
set times off
bench allreduce 4k rounds=2 warmup=0 json
bench allreduce 8k rounds=2 warmup=1 mode=ring check json
bench barrier rounds=2 warmup=0 json
bench broadcast 4k root=1 rounds=1 warmup=0 json
bench sweep allgather 4 64 factor=4 rounds=1 warmup=0 json
bench allreduce 4k time=0.01 spans=phases json
bench sweep allreduce -b 4 -e 64 -f 4 time=0.005 -w 1 json
bench all_to_all_v 4k rounds=2 warmup=0 check json
bench sweep all_to_all_v 8 64 factor=8 rounds=1 warmup=0 json
EOS
env -i PATH=/usr/bin:/bin LC_ALL=C "$colldb" -n 2 --batch json.coll >json.out 2>&1
check "bench json session" test $? -eq 0
check "bench json keys and types" python3 "$here/check_bench_json.py" json.out 2

cat >cmds.coll <<'EOS'
alloc sig [2,1] i32
@1 wait sig[0] >= 1
@0 notify 1 sig[0] 1
@0 notify 1 sig[1] 5 set
@1 wait sig[1] == 5
alloc buf [1000] f32
allreduce buf sig check
trace
trace save i.json
trace save i.log strace
EOS
env -i PATH=/usr/bin:/bin LC_ALL=C "$colldb" -n 2 --batch --echo cmds.coll \
    >cmds.out 2>&1
check "commands session" test $? -eq 0
nspans=$(sed -n 's/^trace: \([0-9]*\) spans (rank.*/\1/p' cmds.out)
check "commands json" python3 "$here/check_json.py" i.json 2 "${nspans:-0}"
check "commands strace header" grep -qx '\[colldb\] trace v=1 ranks=2 root=allreduce warmup=0' i.log

echo "  trace: $pass passed, $fail failed"
[ $fail -eq 0 ]
