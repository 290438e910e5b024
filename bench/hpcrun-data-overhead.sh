#!/bin/sh
# hpcrun-data-overhead.sh - the cost of hpcrun --data on this machine.
#
#   bench/hpcrun-data-overhead.sh [BUILD]      (BUILD defaults to build/)
#
# Prints a Markdown report:
#  1. the malloc/free churn of tests/progs/rt-data.c (10^7 pairs of small
#     blocks, 10^4 of 4 KiB): ns added per pair by hpcrun --data over plain
#     hpcrun, from the CPU time (user + sys) of each run, medians of ROUNDS
#     interleaved rounds (default 7);
#  2. a dict/list/sort CPython workload (bench/data-py.py) on the pyenv
#     CPython when there is one (else python3): plain, hpcrun, hpcrun --data
#     (both cpu-clock at 1 kHz), heaptrack and valgrind --tool=dhat, wall and
#     CPU time as medians of ROUNDS interleaved rounds, and the ratios
#     hpcrun --data / hpcrun, heaptrack / plain, dhat / plain.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-7}
PY=$(ls "$HOME"/.pyenv/versions/*/bin/python3 2>/dev/null | sort -V | tail -1)
PY=${PY:-python3}
W=$(mktemp -d /tmp/hpcrun-data-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
cc -O2 -g -pthread -o rt-data "$ROOT/tests/progs/rt-data.c"

# timed NAME CMD...: appends "wall cpu" of CMD to NAME.t (output dropped).
timed() {
	name=$1
	shift
	rm -rf m ht* dhat.*
	/usr/bin/time -f "%e %U %S" -o t.one "$@" >/dev/null 2>&1
	awk '{ print $1, $2 + $3 }' t.one >>"$name.t"
}

# med NAME COLUMN: the median of COLUMN (1 wall, 2 cpu) in NAME.t.
med() {
	sort -n -k"$2" "$1.t" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

for r in $(seq "$RUNS"); do
	timed churn-plain ./rt-data churn 10000000
	timed churn-hpcrun "$HPCRUN" -q -o m ./rt-data churn 10000000
	timed churn-data "$HPCRUN" -q --data -o m ./rt-data churn 10000000
done
echo "## hpcrun --data: cost per malloc/free pair"
echo
echo "10^7 small pairs + 10^4 of 4 KiB (\`rt-data churn\`), CPU s, median of $RUNS:"
echo "plain $(med churn-plain 2), hpcrun $(med churn-hpcrun 2), hpcrun --data $(med churn-data 2);"
awk -v a="$(med churn-hpcrun 2)" -v b="$(med churn-data 2)" \
	'BEGIN { printf "added by --data: %.1f ns per pair\n", (b - a) * 1e9 / 10010000 }'
echo

for r in $(seq "$RUNS"); do
	timed py-plain "$PY" "$ROOT/bench/data-py.py" 20
	timed py-hpcrun "$HPCRUN" -q -o m "$PY" "$ROOT/bench/data-py.py" 20
	timed py-data "$HPCRUN" -q --data -o m "$PY" "$ROOT/bench/data-py.py" 20
	timed py-heaptrack heaptrack -o ht "$PY" "$ROOT/bench/data-py.py" 20
	timed py-dhat valgrind --tool=dhat --dhat-out-file=dhat.out "$PY" "$ROOT/bench/data-py.py" 20
done
echo "## hpcrun --data on CPython ($PY, bench/data-py.py 20)"
echo
echo "| run | wall s | CPU s | CPU / plain |"
echo "|---|---|---|---|"
for k in plain hpcrun data heaptrack dhat; do
	awk -v k="$k" -v w="$(med py-$k 1)" -v c="$(med py-$k 2)" -v p="$(med py-plain 2)" \
		'BEGIN { printf "| %s | %s | %s | %.2f |\n", k, w, c, c / p }'
done
echo
awk -v a="$(med py-hpcrun 2)" -v b="$(med py-data 2)" -v aw="$(med py-hpcrun 1)" -v bw="$(med py-data 1)" \
	'BEGIN { printf "hpcrun --data / hpcrun: %.3f (CPU), %.3f (wall)\n", b / a, bw / aw }'
