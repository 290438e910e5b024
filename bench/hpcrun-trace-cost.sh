#!/bin/sh
# hpcrun-trace-cost.sh - the cost of hpcrun -t (issue #37) side by side
# with the same hpcrun without it, at 1 kHz (cpu-clock@f1000, the
# default), and the bytes a sample costs on disk.
#
#   bench/hpcrun-trace-cost.sh [BUILD]     (BUILD defaults to build/)
#
# bench/cpu-work.c at depth 10 for UNITS units (default 250, about 2 s),
# ROUNDS paired rounds (default 7): in each, plain hpcrun then hpcrun -t,
# their order alternating; CPU time (user + sys of the whole process,
# /usr/bin/time), not wall time: the machine is shared.  Prints a Markdown
# report: the median and quartiles of the per-round ratio -t / plain, and
# the trace bytes (headers and no-activity records included) per sample
# recorded.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-7}
UNITS=${UNITS:-250}
SRC_ROOT=$ROOT
. "$ROOT/bench/lib.sh"
bench_workdir hpcrun-trace-bench
cc -O2 -g -o cpu-work "$ROOT/bench/cpu-work.c"

echo "## hpcrun -t: cost at 1 kHz ($(date -u +%F), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
: >p.t; : >t.t; : >size
i=0
while [ $i -lt "$RUNS" ]; do
	if [ $((i % 2)) = 0 ]; then
		bench_run p "$HPCRUN" -q -o m ./cpu-work 10 "$UNITS"
		bench_run t "$HPCRUN" -q -t -o m ./cpu-work 10 "$UNITS"
	else
		bench_run t "$HPCRUN" -q -t -o m ./cpu-work 10 "$UNITS"
		bytes=$(cat m/*.hpctrace | wc -c)
		samples=$(sed -n "s/^samples-recorded: //p" m/*.log)
		echo "$bytes $samples" >>size
		bench_run p "$HPCRUN" -q -o m ./cpu-work 10 "$UNITS"
	fi
	i=$((i + 1))
done
paste -d" " p.t t.t | awk '{ printf "%.4f\n", $4 / $2 }' | sort -g >ratio
q() {
	awk -v p="$1" '{ v[NR] = $1 } END { i = int((NR - 1) * p + 0.5) + 1; print v[i] }' ratio
}
echo "- cpu-work 10 $UNITS, $RUNS paired rounds: CPU s hpcrun $(bench_median p 2), hpcrun -t $(bench_median t 2);" \
     "-t / plain per round: median $(q 0.5) (quartiles $(q 0.25)-$(q 0.75))"
awk '{ b += $1; s += $2 } END {
	printf "- trace bytes per sample recorded: %.2f (%d bytes, %d samples, %d runs)\n", b / s, b, s, NR }' size
