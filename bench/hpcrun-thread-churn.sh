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
# the goal of 3x native + 0.5 s.  BASE=BUILD2 runs every mode with
# BUILD2's hpcrun too, in the same rounds, each hpcrun run of BUILD
# followed by BUILD2's, and prints its row under BUILD's, labelled "(base)".
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
BASERUN=${BASE:+$(cd "$BASE" && pwd)/bin/hpcrun}

# mode KEY OPTS...: one run of each hpcrun (BUILD's as KEY, BASE's as
# KEY-base) with OPTS.
mode() {
	k=$1
	shift
	bench_run $k "$HPCRUN" -q "$@" -o m ./rt-churn $prog
	[ -z "$BASERUN" ] || bench_run $k-base "$BASERUN" -q "$@" -o m ./rt-churn $prog
}

# row SUFFIX LABEL: the table row of the keys ending in SUFFIX.
row() {
	row="| rt-churn $prog$2 | $p"
	ok=yes
	for k in s n d h t; do
		v=$(bench_median $k$1 1)
		row="$row | $v ($(awk -v a="$v" -v b="$p" 'BEGIN { printf "%.1f", a / b }'))"
		awk -v a="$v" -v b="$p" 'BEGIN { exit !(a > 3 * b + 0.5) }' && ok=no
	done
	echo "$row | $ok |"
}

for prog in "rounds 10 200 100" "rounds 1 2000 100" "pool 10 64 100"; do
	for k in p s n d h t s-base n-base d-base h-base t-base; do : >$k.t; done
	i=0
	while [ $i -lt "$RUNS" ]; do
		bench_run p ./rt-churn $prog
		mode s
		mode n --no-sync
		mode d --data
		mode h --sharing
		mode t -t
		i=$((i + 1))
	done
	p=$(bench_median p 1)
	row "" ""
	[ -z "$BASERUN" ] || row -base " (base)"
done
