#!/bin/sh
# hpcrun-sharing-phoenix.sh - what hpcrun --sharing costs on Phoenix's
# histogram (tests/progs/phoenix-histogram.c) at 4 threads, fixed work.
#
#   bench/hpcrun-sharing-phoenix.sh [BUILD]   (BUILD defaults to build/)
#
# Each round runs, interleaved: the program alone, under plain hpcrun
# (cpu-clock at 1 kHz), under hpcrun --sharing (its default, cpu-clock at
# 5 kHz) and under --sharing at 1 kHz, the false-sharing layout (packed)
# and its padded fix, PASSES passes over the image per thread (default
# 20000).  Prints the medians of ROUNDS rounds (default 5) of wall and
# CPU (user + sys) seconds and the ratios to plain hpcrun as a Markdown
# table.  Fixed work, so CPU time is a cost measure here.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-5}
N=${PASSES:-20000}
SRC_ROOT=$ROOT
. "$ROOT/bench/lib.sh"
bench_workdir hpcrun-sharing-phoenix
cc -O2 -g -fno-optimize-sibling-calls -pthread -o phoenix-histogram \
	"$ROOT/tests/progs/phoenix-histogram.c"

for r in $(seq "$RUNS"); do
	for l in packed padded; do
		p="./phoenix-histogram $l 4 passes $N"
		bench_run $l-native $p
		bench_run $l-plain "$HPCRUN" -q -o m $p
		bench_run $l-share "$HPCRUN" -q --sharing -o m $p
		bench_run $l-share1 "$HPCRUN" -q --sharing -e cpu-clock@f1000 -o m $p
	done
done
echo "## hpcrun --sharing on phoenix-histogram, 4 threads, $N passes (median of $RUNS)"
echo
echo "| layout | run | wall s | CPU s | CPU / plain hpcrun |"
echo "|---|---|---|---|---|"
for l in packed padded; do
	base=$(bench_median $l-plain 2)
	for k in native plain share share1; do
		case $k in
		native) what="no hpcrun" ;;
		plain) what="hpcrun (1 kHz)" ;;
		share) what="hpcrun --sharing (5 kHz)" ;;
		share1) what="hpcrun --sharing at 1 kHz" ;;
		esac
		awk -v l=$l -v w="$what" -v a="$(bench_median $l-$k 1)" -v c="$(bench_median $l-$k 2)" \
			-v b="$base" 'BEGIN { printf "| %s | %s | %s | %s | %.2f |\n", l, w, a, c, c / b }'
	done
done
