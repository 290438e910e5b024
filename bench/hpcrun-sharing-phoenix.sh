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
W=$(mktemp -d /tmp/hpcrun-sharing-phoenix.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
cc -O2 -g -fno-optimize-sibling-calls -pthread -o phoenix-histogram \
	"$ROOT/tests/progs/phoenix-histogram.c"

# run KEY CMD...: appends "wall cpu" of CMD to KEY.t.
run() {
	key=$1
	shift
	rm -rf m
	/usr/bin/time -f "%e %U %S" -o one "$@" >/dev/null 2>&1
	awk '{ print $1, $2 + $3 }' one >>"$key.t"
}

# median KEY FIELD: the median of that field (1 wall, 2 CPU) of KEY.t.
median() {
	awk -v f="$2" '{ print $f }' "$1.t" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

for r in $(seq "$RUNS"); do
	for l in packed padded; do
		p="./phoenix-histogram $l 4 passes $N"
		run $l-native $p
		run $l-plain "$HPCRUN" -q -o m $p
		run $l-share "$HPCRUN" -q --sharing -o m $p
		run $l-share1 "$HPCRUN" -q --sharing -e cpu-clock@f1000 -o m $p
	done
done
echo "## hpcrun --sharing on phoenix-histogram, 4 threads, $N passes (median of $RUNS)"
echo
echo "| layout | run | wall s | CPU s | CPU / plain hpcrun |"
echo "|---|---|---|---|---|"
for l in packed padded; do
	base=$(median $l-plain 2)
	for k in native plain share share1; do
		case $k in
		native) what="no hpcrun" ;;
		plain) what="hpcrun (1 kHz)" ;;
		share) what="hpcrun --sharing (5 kHz)" ;;
		share1) what="hpcrun --sharing at 1 kHz" ;;
		esac
		awk -v l=$l -v w="$what" -v a="$(median $l-$k 1)" -v c="$(median $l-$k 2)" \
			-v b="$base" 'BEGIN { printf "| %s | %s | %s | %s | %.2f |\n", l, w, a, c, c / b }'
	done
done
