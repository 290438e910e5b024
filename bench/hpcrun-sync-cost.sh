#!/bin/sh
# hpcrun-sync-cost.sh - the cost of hpcrun's synchronization measurement
# (issue #15), side by side with the same hpcrun without it (--no-sync) and
# with no hpcrun at all.
#
#   bench/hpcrun-sync-cost.sh [BUILD]      (BUILD defaults to build/)
#
# Prints a Markdown report:
#  1. per episode per thread: "rt-sync solo 1000000" (one thread, a barrier
#     of 1: the real call never blocks, so the wrapper's cost stands alone)
#     and "rt-sync many 100000" (two threads, 10^5 real episodes); CPU
#     time (user + sys of the whole process, /usr/bin/time), not wall time:
#     the machine is shared;
#  2. a program with 10^5 barriers: "rt-sync work 100000 50", two threads
#     each spinning 50 us of CPU per phase; the slowdown of hpcrun over
#     hpcrun --no-sync, in CPU and in wall time.
# ROUNDS interleaved rounds (default 5); medians.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-5}
SRC_ROOT=$ROOT
. "$ROOT/bench/lib.sh"
bench_workdir hpcrun-sync-bench
cc -O2 -g -pthread -o rt-sync "$ROOT/tests/progs/rt-sync.c"

echo "## hpcrun synchronization measurement: cost ($(date -u +%F), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
for what in "solo 1000000 1000000 1" "many 100000 100000 2"; do
	set -- $what
	mode=$1 arg=$2 episodes=$3 threads=$4
	: >s.$mode.t; : >n.$mode.t; : >p.$mode.t
	i=0
	while [ $i -lt "$RUNS" ]; do
		bench_run p.$mode ./rt-sync $mode $arg
		bench_run n.$mode "$HPCRUN" -q --no-sync -o m ./rt-sync $mode $arg
		bench_run s.$mode "$HPCRUN" -q -o m ./rt-sync $mode $arg
		i=$((i + 1))
	done
	ps=$(bench_median p.$mode 2) ns=$(bench_median n.$mode 2) ss=$(bench_median s.$mode 2)
	echo "- rt-sync $mode $arg ($episodes episodes x $threads threads): CPU s plain $ps, hpcrun --no-sync $ns, hpcrun $ss;" \
	     "sync cost $(awk -v a="$ss" -v b="$ns" -v e="$episodes" -v t="$threads" \
		'BEGIN { printf "%.2f", (a - b) / (e * t) * 1e6 }') us per episode per thread"
done
: >s.w.t; : >n.w.t; : >p.w.t
i=0
while [ $i -lt "$RUNS" ]; do
	bench_run p.w ./rt-sync work 100000 50
	bench_run n.w "$HPCRUN" -q --no-sync -o m ./rt-sync work 100000 50
	bench_run s.w "$HPCRUN" -q -o m ./rt-sync work 100000 50
	i=$((i + 1))
done
echo "- rt-sync work 100000 50 (10^5 barriers, 2 threads, 50 us of work a phase):" \
     "CPU s plain $(bench_median p.w 2), --no-sync $(bench_median n.w 2), hpcrun $(bench_median s.w 2)" \
     "($(awk -v a="$(bench_median s.w 2)" -v b="$(bench_median n.w 2)" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }') over --no-sync);" \
     "wall s plain $(bench_median p.w 1), --no-sync $(bench_median n.w 1), hpcrun $(bench_median s.w 1)" \
     "($(awk -v a="$(bench_median s.w 1)" -v b="$(bench_median n.w 1)" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }'))"
