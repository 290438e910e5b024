#!/bin/sh
# hpcrun-realtime-cost.sh - what hpcrun -e REALTIME costs, whose time off
# the CPU is a sample per context switch (hpcrun(1)): side by side in
# each round, natively, under hpcrun's default event, under -e REALTIME,
# under BASE=BUILD2's -e REALTIME when given, and under perf record
# sampling every context switch with its call path (the peer that counts
# off-CPU time so: perf record -e context-switches -c 1 -g).
#
#   bench/hpcrun-realtime-cost.sh [BUILD]
#
# Programs: bench/pingpong.c (two threads handing a turn back and forth:
# a switch per hand-over, the worst case), on any CPU and on one (taskset
# -c 0: no wake-up crosses CPUs, so native runs several times faster),
# and tests/progs/rt-wall.c (a server's waits beside a worker: few
# switches).  ROUNDS rounds (default 5).  Prints the median wall seconds
# of each and its ratio to native.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-5}
SRC_ROOT=$ROOT
. "$ROOT/bench/lib.sh"
bench_workdir hpcrun-realtime-bench
cc -O2 -g -pthread -o pingpong "$ROOT/bench/pingpong.c"
cc -O2 -g -pthread -o rt-wall "$ROOT/tests/progs/rt-wall.c"
PERF=$(command -v perf || true)

echo "## hpcrun -e REALTIME: cost ($(date -u +%F), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| program | native s | hpcrun s (x) | -e REALTIME s (x) | base -e REALTIME s (x) | perf record -e context-switches -c 1 -g s (x) |"
echo "|---|---|---|---|---|---|"
for case in ":pingpong 50000" "taskset -c 0 :pingpong 50000" ":rt-wall 10 20"; do
	pin=${case%%:*}
	prog=${case#*:}
	for k in n d r b p; do : >$k.t; done
	i=0
	while [ $i -lt "$RUNS" ]; do
		bench_run n $pin ./$prog
		bench_run d $pin "$HPCRUN" -q -o m ./$prog
		bench_run r $pin "$HPCRUN" -q -e REALTIME -o m ./$prog
		[ -z "${BASE:-}" ] || bench_run b $pin "$BASE/bin/hpcrun" -q -e REALTIME -o m ./$prog
		[ -z "$PERF" ] || bench_run p $pin "$PERF" record -q -o perf.data -e context-switches -c 1 -g ./$prog
		i=$((i + 1))
	done
	nat=$(bench_median n 1)
	row="| $pin$prog | $nat"
	for k in d r b p; do
		if [ -s $k.t ]; then
			v=$(bench_median $k 1)
			row="$row | $v ($(awk -v a="$v" -v b="$nat" 'BEGIN { printf "%.2f", a / b }'))"
		else
			row="$row | -"
		fi
	done
	echo "$row |"
done
