#!/bin/sh
# hpcrun-python-accuracy.sh - how close hpcrun's Python frames come to a
# known split of CPU time: tests/progs/py/kernels.py's kernels cost 1:2:3
# (units of the same bytecode, counted), on two threads, through worker ->
# pipeline -> stage -> kernel_X.
#
#   bench/hpcrun-python-accuracy.sh [BUILD]     (BUILD defaults to build/)
#   environment: ROUNDS (runs per version, default 3), CPU_MS (CPU time of
#   a run, default 4000), MINORS (pyenv CPythons, default "10 11 12 13";
#   the bar holds for 3.11-3.13).  Takes about a minute per version.
#
# Prints a Markdown report for docs/BENCHMARKS.md: per version, each
# kernel's inclusive share of the three kernels' samples (from
# hpcviewer-tui --folded, tests/lib/python-lib.sh), pooled over the rounds
# and the largest distance of one round from 16.67 / 33.33 / 50; whether
# every kernel's samples sit under stage, pipeline and worker; the bar:
# within 3 points.  A version not installed under PYENV_ROOT (~/.pyenv) is
# said and skipped.
set -e
SRC_ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC_ROOT/build}
BIN=$BUILD/bin
ROUNDS=${ROUNDS:-3}
CPU_MS=${CPU_MS:-4000}
MINORS=${MINORS:-10 11 12 13}
. "$SRC_ROOT/bench/lib.sh"
. "$SRC_ROOT/tests/lib/python-lib.sh"
bench_workdir_said hpcrun-python-accuracy
export PYTHONDONTWRITEBYTECODE=1
cp "$SRC_ROOT/tests/progs/py/kernels.py" .

echo "## Python frames: accuracy against kernels of known cost 1:2:3"
echo
echo "Measured $(date -u +%Y-%m-%d) by \`bench/hpcrun-python-accuracy.sh\` at"
echo "$(git -C "$SRC_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') on $(nproc) cores, $(uname -sr);"
echo "\`hpcrun\` defaults (cpu-clock, 1000/s), $ROUNDS runs of $CPU_MS ms of CPU per version."
echo
echo "| CPython | kernel_a (16.67) | kernel_b (33.33) | kernel_c (50.00) | worst round, points | under stage < pipeline < worker | bar 3 points |"
echo "|---|---|---|---|---|---|---|"
for m in $MINORS; do
	V=3.$m
	py=$(pypath $V) || { echo "| $V | not installed under $PYROOT | | | | | |"; continue; }
	ka=$(pyname $V kernels.py kernel_a)
	kb=$(pyname $V kernels.py kernel_b)
	kc=$(pyname $V kernels.py kernel_c)
	cw=$(pyname $V kernels.py worker)
	cp=$(pyname $V kernels.py pipeline)
	cs=$(pyname $V kernels.py stage)
	: >pooled.$V
	worst=0 nested=yes r=1
	while [ $r -le "$ROUNDS" ]; do
		rm -rf m db
		"$BIN/hpcrun" -q -o m "$py" kernels.py "$CPU_MS" >out 2>>hpcrun.err
		"$BIN/hpcprof" -o db m 2>>hpcprof.err
		"$BIN/hpcviewer-tui" --folded f.$V.$r db 2>>viewer.err
		cat f.$V.$r >>pooled.$V
		frame_share f.$V.$r "$ka" "$kb" "$kc" >s
		worst=$(awk -v w="$worst" '{ d = $NF - (NR == 1 ? 16.67 : NR == 2 ? 33.33 : 50)
			if (d < 0) d = -d; if (d > w) w = d } END { printf "%.2f", w }' s)
		for k in "$ka" "$kb" "$kc"; do
			in_order f.$V.$r "$cw" "$cp" "$cs" "$k" 2>/dev/null || nested=no
		done
		r=$((r + 1))
	done
	frame_share pooled.$V "$ka" "$kb" "$kc" >s
	set -- $(awk '{ print $NF }' s)
	bar=$(awk -v w="$worst" -v m="$m" 'BEGIN { print m < 11 ? "(not held to it)" : w <= 3 ? "met" : "NOT met" }')
	echo "| $V | $1 | $2 | $3 | $worst | $nested | $bar |"
done
echo
echo "Shares are of the samples under any of the three kernels, about $CPU_MS a run"
echo "(one per ms of CPU)."
