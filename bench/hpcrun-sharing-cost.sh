#!/bin/sh
# hpcrun-sharing-cost.sh - the cost of hpcrun --sharing over plain hpcrun.
#
#   bench/hpcrun-sharing-cost.sh [BUILD]      (BUILD defaults to build/)
#
# CPU time (user + sys) of plain hpcrun and of hpcrun --sharing (default
# rate 100/64; both cpu-clock at 1 kHz), medians of ROUNDS interleaved
# rounds (default 5), on tests/progs/rt-sharing.c (patterns 2 with --watch
# naming its objects, patterns 2 with the objects chosen by their samples,
# numa serial) and on the CPython workload of hpcrun-data-overhead.sh
# (bench/data-py.py on the pyenv CPython; skipped when there is none).
# Prints a Markdown table; the bar of issue #16 is a ratio <= 1.5.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-5}
PY=$(ls "$HOME"/.pyenv/versions/*/bin/python3 2>/dev/null | sort -V | tail -1)
W=$(mktemp -d /tmp/hpcrun-sharing-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
cc -O1 -g -pthread -o rt-sharing "$ROOT/tests/progs/rt-sharing.c"
WATCH='table,counters,padded,cell,flag,alloc_*'

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

# row LABEL NAME: a table row, plain hpcrun against --sharing.
row() {
	awk -v l="$1" -v a="$(med "$2-plain")" -v b="$(med "$2-share")" \
		'BEGIN { printf "| %s | %s | %s | %.2f |\n", l, a, b, b / a }'
}

for r in $(seq "$RUNS"); do
	timed pw-plain "$HPCRUN" -q -o m ./rt-sharing patterns 2
	timed pw-share "$HPCRUN" -q --sharing --watch "$WATCH" -o m ./rt-sharing patterns 2
	timed ph-plain "$HPCRUN" -q -o m ./rt-sharing patterns 2
	timed ph-share "$HPCRUN" -q --sharing -o m ./rt-sharing patterns 2
	timed nu-plain "$HPCRUN" -q -o m ./rt-sharing numa serial
	timed nu-share "$HPCRUN" -q --sharing -o m ./rt-sharing numa serial
	if [ -n "$PY" ]; then
		timed py-plain "$HPCRUN" -q -o m "$PY" "$ROOT/bench/data-py.py" 20
		timed py-share "$HPCRUN" -q --sharing -o m "$PY" "$ROOT/bench/data-py.py" 20
	fi
done
echo "## hpcrun --sharing: CPU time over plain hpcrun (median of $RUNS)"
echo
echo "| workload | hpcrun CPU s | hpcrun --sharing CPU s | ratio |"
echo "|---|---|---|---|"
row "rt-sharing patterns 2, --watch its objects" pw
row "rt-sharing patterns 2, objects by samples" ph
row "rt-sharing numa serial" nu
if [ -n "$PY" ]; then
	row "CPython $(basename "$(dirname "$(dirname "$PY")")") data-py.py 20" py
else
	echo "| CPython (no pyenv CPython: skipped) | | | |"
fi
