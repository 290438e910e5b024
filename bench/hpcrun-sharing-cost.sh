#!/bin/sh
# hpcrun-sharing-cost.sh - the cost of hpcrun --sharing over plain hpcrun.
#
#   bench/hpcrun-sharing-cost.sh [BUILD]      (BUILD defaults to build/)
#
# CPU time (user + sys) of plain hpcrun (cpu-clock at 1 kHz) and of
# hpcrun --sharing (its default, cpu-clock at 5 kHz, and at 1 kHz),
# medians of ROUNDS interleaved rounds (default 5), on
# tests/progs/share-patterns.c (linreg and migratory, 4 threads, 1 s of
# CPU time each: equal by construction, no measure of cost) and on the
# CPython workload of hpcrun-data-overhead.sh (bench/data-py.py on
# the pyenv CPython; skipped when there is none).  Prints a Markdown
# table; the bar is a ratio <= 1.5.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-5}
PY=$(ls "$HOME"/.pyenv/versions/*/bin/python3 2>/dev/null | sort -V | tail -1)
SRC_ROOT=$ROOT
. "$ROOT/bench/lib.sh"
bench_workdir hpcrun-sharing-bench
cc -O2 -g -fno-optimize-sibling-calls -pthread -o share-patterns \
	"$ROOT/tests/progs/share-patterns.c"

# row LABEL NAME: a table row, plain hpcrun against --sharing at 5 and
# 1 kHz.
row() {
	awk -v l="$1" -v a="$(bench_median "$2-plain" 2)" -v b="$(bench_median "$2-share" 2)" \
		-v c="$(bench_median "$2-share1" 2)" \
		'BEGIN { printf "| %s | %s | %s | %.2f | %s | %.2f |\n", l, a, b, b / a, c, c / a }'
}

for r in $(seq "$RUNS"); do
	for m in linreg migratory; do
		bench_run $m-plain "$HPCRUN" -q -o m ./share-patterns $m 4 1000
		bench_run $m-share "$HPCRUN" -q --sharing -o m ./share-patterns $m 4 1000
		bench_run $m-share1 "$HPCRUN" -q --sharing -e cpu-clock@f1000 -o m \
			./share-patterns $m 4 1000
	done
	if [ -n "$PY" ]; then
		bench_run py-plain "$HPCRUN" -q -o m "$PY" "$ROOT/bench/data-py.py" 20
		bench_run py-share "$HPCRUN" -q --sharing -o m "$PY" "$ROOT/bench/data-py.py" 20
		bench_run py-share1 "$HPCRUN" -q --sharing -e cpu-clock@f1000 -o m \
			"$PY" "$ROOT/bench/data-py.py" 20
	fi
done
echo "## hpcrun --sharing: CPU time over plain hpcrun (median of $RUNS)"
echo
echo "| workload | hpcrun CPU s | --sharing CPU s | ratio | --sharing at 1 kHz CPU s | ratio |"
echo "|---|---|---|---|---|---|"
row "share-patterns linreg 4 1000" linreg
row "share-patterns migratory 4 1000" migratory
if [ -n "$PY" ]; then
	row "CPython $(basename "$(dirname "$(dirname "$PY")")") data-py.py 20" py
else
	echo "| CPython (no pyenv CPython: skipped) | | | | | |"
fi
