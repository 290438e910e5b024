#!/bin/sh
# hpcrun-python-fork.sh - what a fork costs a CPython 3.12+ program under
# hpcrun, whose own threads stand aside around the fork of a process's
# only thread (hpcrun(1), "Threads, processes and signals"): a script
# forking 200 children that exit at once, natively and under hpcrun (and
# BASE=BUILD2's hpcrun in the same rounds), each ROUNDS times (default 5)
# interleaved.  Prints the median milliseconds per fork and whether the
# run printed the "multi-threaded" DeprecationWarning.
#
#   bench/hpcrun-python-fork.sh [BUILD [PYTHON]]
#
# PYTHON defaults to pyenv's newest 3.12 or 3.13.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
SRC_ROOT=$ROOT
. "$ROOT/bench/lib.sh"
. "$ROOT/tests/lib/python-lib.sh"
PY=${2:-$(pypath 3.13 || pypath 3.12)}
RUNS=${ROUNDS:-5}
bench_workdir hpcrun-python-fork
cat >forks.py <<\EOF
import os, time
t = time.perf_counter()
for i in range(200):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
print("%.3f" % ((time.perf_counter() - t) / 200 * 1000))
EOF

# one KEY CMD...: one run; its ms per fork appended to KEY.t, a warning
# counted in KEY.w
one() {
	k=$1
	shift
	rm -rf m
	"$@" forks.py >out 2>err
	cat out >>$k.t
	grep -c "multi-threaded" err >>$k.w || true
}

for k in native hpcrun base; do : >$k.t; : >$k.w; done
i=0
while [ $i -lt "$RUNS" ]; do
	one native "$PY"
	one hpcrun "$BUILD/bin/hpcrun" -q -o m "$PY"
	[ -z "${BASE:-}" ] || one base "$BASE/bin/hpcrun" -q -o m "$PY"
	i=$((i + 1))
done

echo "## CPython fork under hpcrun ($(date -u +%F), $("$PY" -V 2>&1), $(nproc) CPUs)"
echo
echo "| run | ms per fork (median of $RUNS) | runs that warned |"
echo "|---|---|---|"
for k in native hpcrun base; do
	[ -s $k.t ] || continue
	echo "| $k | $(sort -n $k.t | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') | $(awk '$1 > 0 { n++ } END { print n + 0 }' $k.w) of $RUNS |"
done
