#!/bin/sh
# hpcrun-stack-copy.sh - what the size of the kernel's stack copy
# (hpcrun --stack-copy) costs and buys.
#
#   bench/hpcrun-stack-copy.sh [BUILD]      (BUILD defaults to build/)
#   environment: ROUNDS (interleaved rounds, default 11), SIZES (default
#   "1024 2048 4096 8192 16384").  Takes about 10 minutes.
#
# Prints a Markdown report for docs/BENCHMARKS.md:
#  1. cost: the CPU time of bench/cpu-work.c (-O2, no frame pointers, call
#     depth 7) under 'hpcrun -e cpu-clock@f5000 --stack-copy=SIZE' over its
#     time under 'perf record -F 5000 -e cpu-clock' (no call paths) in the
#     same round, median and quartiles over ROUNDS interleaved rounds, the
#     program pinned to the last CPU (as bench/hpcrun-overhead.sh does);
#  2. what it buys: on the Python interpreter (bench/py-work.py, one thread,
#     1000 samples/s), the share of samples whose path stays partial and of
#     those that went on up the live stack, from hpcrun's log; skipped
#     without a python3 linked with a shared libpython.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-11}
SIZES=${SIZES:-"1024 2048 4096 8192 16384"}
UNITS=200	# about 2 s
W=$(mktemp -d /tmp/hpcrun-stack-copy.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
command -v perf >/dev/null || { echo "(skipped: perf is not installed)"; exit 0; }
cc -O2 -fomit-frame-pointer -o cpu "$ROOT/bench/cpu-work.c"
PIN=
if [ "$(nproc)" -gt 1 ] && command -v taskset >/dev/null; then
	PIN="taskset -c $(($(nproc) - 1))"
fi

i=0
while [ $i -lt $RUNS ]; do
	rm -f perf.data
	perf record -q -F 5000 -e cpu-clock -o perf.data $PIN ./cpu 5 $UNITS \
		2>/dev/null | tail -n 1 >>t.perf
	for s in $SIZES; do
		rm -rf m
		$PIN "$HPCRUN" -o m --stack-copy=$s -e cpu-clock@f5000 ./cpu 5 $UNITS |
			tail -n 1 >>t.$s
	done
	i=$((i + 1))
done
# q FILE K: the K-th quarter point (0..4) of the numbers in FILE.
q() { sort -n "$1" | sed -n "$(((RUNS - 1) * $2 / 4 + 1))p"; }

echo "### Size of the stack copy"
echo
echo "Measured $(date -u +%Y-%m-%d) by \`bench/hpcrun-stack-copy.sh\` on $(nproc) cores,"
echo "$(uname -sr), $(perf --version)."
echo
echo "Cost: \`hpcrun -e cpu-clock@f5000 --stack-copy=SIZE\` over \`perf record -F 5000\`"
echo "without call paths, paired by round (median and quartiles of $RUNS rounds,"
echo "bench/cpu-work.c pinned: ${PIN:-not pinned}; perf's median $(q t.perf 2) ms)."
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=
if [ -x "$PY" ] && ldd "$PY" 2>/dev/null | grep -q libpython; then
	echo "What it buys, on CPython $("$PY" -c 'import platform; print(platform.python_version())')"
	echo "(libpython without frame pointers): \`hpcrun -e cpu-clock@f1000"
	echo "--stack-copy=SIZE python3 bench/py-work.py 1 20\`, from its log, the samples"
	echo "that stay partial and those whose path went on up the live stack."
else
	PY=
	echo "(No python3 with a shared libpython: the completeness columns are empty.)"
fi
echo
echo "| --stack-copy | hpcrun / perf at 5 kHz | Python: partial | Python: went on up the live stack |"
echo "|---|---|---|---|"
for s in $SIZES; do
	paste t.$s t.perf | awk '{ printf "%.4f\n", $1 / $2 }' >r.$s
	part= live=
	if [ -n "$PY" ]; then
		rm -rf pm
		"$HPCRUN" -o pm --stack-copy=$s -e cpu-clock@f1000 "$PY" \
			"$ROOT/bench/py-work.py" 1 20 >/dev/null
		eval "$(sed -n 's/^samples-recorded: /rec=/p; s/^samples-partial: /par=/p;
			s/^stack-copy-continued: /cont=/p' pm/*.log)"
		part=$(awk "BEGIN { printf \"%.1f%% of %d\", 100 * $par / $rec, $rec }")
		live=$(awk "BEGIN { printf \"%.1f%%\", 100 * $cont / $rec }")
	fi
	echo "| $s | $(q r.$s 2) ($(q r.$s 1)-$(q r.$s 3)) | $part | $live |"
done
