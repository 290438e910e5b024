#!/bin/sh
# hpcrun-sharing-cost.sh - the cost of hpcrun --sharing over plain hpcrun.
#
#   bench/hpcrun-sharing-cost.sh [BUILD]      (BUILD defaults to build/)
#
# CPU time (user + sys) of plain hpcrun (cpu-clock at 1 kHz) and of
# hpcrun --sharing (its default, cpu-clock at 5 kHz, and at 1 kHz),
# medians of ROUNDS interleaved rounds (default 5), on
# tests/progs/share-patterns.c (linreg and migratory, 4 threads, 1 s) and
# on the CPython workload of hpcrun-data-overhead.sh (bench/data-py.py on
# the pyenv CPython; skipped when there is none).  Prints a Markdown
# table; the bar is a ratio <= 1.5.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-5}
PY=$(ls "$HOME"/.pyenv/versions/*/bin/python3 2>/dev/null | sort -V | tail -1)
W=$(mktemp -d /tmp/hpcrun-sharing-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
cc -O2 -g -fno-optimize-sibling-calls -pthread -o share-patterns \
	"$ROOT/tests/progs/share-patterns.c"

# timed NAME CMD...: appends the CPU seconds of CMD to NAME.t (output dropped).
timed() {
	name=$1
	shift
	rm -rf m
	/usr/bin/time -f "%U %S" -o t.one "$@" >/dev/null 2>&1
	awk '{ print $1 + $2 }' t.one >>"$name.t"
}

# med NAME: the median of NAME.t.
med() {
	sort -n "$1.t" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# row LABEL NAME: a table row, plain hpcrun against --sharing at 5 and
# 1 kHz.
row() {
	awk -v l="$1" -v a="$(med "$2-plain")" -v b="$(med "$2-share")" \
		-v c="$(med "$2-share1")" \
		'BEGIN { printf "| %s | %s | %s | %.2f | %s | %.2f |\n", l, a, b, b / a, c, c / a }'
}

for r in $(seq "$RUNS"); do
	for m in linreg migratory; do
		timed $m-plain "$HPCRUN" -q -o m ./share-patterns $m 4 1000
		timed $m-share "$HPCRUN" -q --sharing -o m ./share-patterns $m 4 1000
		timed $m-share1 "$HPCRUN" -q --sharing -e cpu-clock@f1000 -o m \
			./share-patterns $m 4 1000
	done
	if [ -n "$PY" ]; then
		timed py-plain "$HPCRUN" -q -o m "$PY" "$ROOT/bench/data-py.py" 20
		timed py-share "$HPCRUN" -q --sharing -o m "$PY" "$ROOT/bench/data-py.py" 20
		timed py-share1 "$HPCRUN" -q --sharing -e cpu-clock@f1000 -o m \
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
