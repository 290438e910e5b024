#!/bin/sh
# hpcrun-thread-churn.sh - what hpcrun costs a program that churns threads
# (issue #34, item 2): tests/progs/rt-churn.c natively and under hpcrun
# (synchronization measured, the default), hpcrun --no-sync, --data,
# --sharing and -t (a trace per thread), side by side in each round.
#
#   bench/hpcrun-thread-churn.sh [BUILD [DIR]]
#
# BUILD defaults to build/; DIR is where the measurement directories go
# (default a new directory under /tmp): the file system counts, as each
# thread creates its live file and its profile (an ext4 without a journal
# skips every inode freed in the last minutes at each create).
# Programs: "rounds 10 200 100" (10 rounds of 200 threads of 0.1 ms each),
# "rounds 1 2000 100" (2000 threads at once), "pool 10 64 100" (a pool
# of at most 64 threads growing and shrinking over 10 bursts).
# Prints a Markdown table: median wall seconds of ROUNDS interleaved
# rounds (default 3), each mode's ratio to native, and whether it is within
# the goal of 3x native + 0.5 s.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-3}
SRC_ROOT=$ROOT
. "$ROOT/bench/lib.sh"
bench_workdir hpcrun-churn-bench ${2:+"$2"}
cc -O2 -g -pthread -o rt-churn "$ROOT/tests/progs/rt-churn.c"

echo "## hpcrun thread churn ($(date -u +%F), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), measurements on $(df -T . | awk 'NR == 2 { print $2 }'))"
echo
echo "| program | native s | hpcrun s (x) | --no-sync s (x) | --data s (x) | --sharing s (x) | -t s (x) | within 3x + 0.5 s |"
echo "|---|---|---|---|---|---|---|---|"
for prog in "rounds 10 200 100" "rounds 1 2000 100" "pool 10 64 100"; do
	for k in p s n d h t; do : >$k.t; done
	i=0
	while [ $i -lt "$RUNS" ]; do
		bench_run p ./rt-churn $prog
		bench_run s "$HPCRUN" -q -o m ./rt-churn $prog
		bench_run n "$HPCRUN" -q --no-sync -o m ./rt-churn $prog
		bench_run d "$HPCRUN" -q --data -o m ./rt-churn $prog
		bench_run h "$HPCRUN" -q --sharing -o m ./rt-churn $prog
		bench_run t "$HPCRUN" -q -t -o m ./rt-churn $prog
		i=$((i + 1))
	done
	p=$(bench_median p 1)
	row="| rt-churn $prog | $p"
	ok=yes
	for k in s n d h t; do
		v=$(bench_median $k 1)
		row="$row | $v ($(awk -v a="$v" -v b="$p" 'BEGIN { printf "%.1f", a / b }'))"
		awk -v a="$v" -v b="$p" 'BEGIN { exit !(a > 3 * b + 0.5) }' && ok=no
	done
	echo "$row | $ok |"
done
