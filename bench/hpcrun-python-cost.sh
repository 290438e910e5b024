#!/bin/sh
# hpcrun-python-cost.sh - what Python frames cost: the CPU time of a
# pure-Python program (bench/py-work.py, fixed work: the eval loop, calls
# through C, dicts, strings, long ints, sorting) natively, under hpcrun
# (Python frames on) and under hpcrun --no-python, on each pyenv CPython.
#
#   bench/hpcrun-python-cost.sh [BUILD]     (BUILD defaults to build/)
#   environment: ROUNDS (interleaved rounds, default 7), WORK (py-work.py
#   rounds, default 12: about 1.5 s of CPU), MINORS (default "11 12 13").
#
# CPU time is the whole process's, user + system, from GNU time around
# it: the runtime's start, every sample, the files
# written at the end.  Each round runs the three configurations back to
# back, so a burst of load hits them alike; ratios are paired by round
# (median, quartiles).  The bar: hpcrun / native <= 1.05.
set -e
SRC_ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC_ROOT/build}
BIN=$BUILD/bin
ROUNDS=${ROUNDS:-7}
WORK=${WORK:-12}
MINORS=${MINORS:-11 12 13}
. "$SRC_ROOT/bench/lib.sh"
. "$SRC_ROOT/tests/lib/python-lib.sh"
bench_workdir_said hpcrun-python-cost
# One hash seed for every run: string hashing, and so dict and set
# layouts, are then the same in each configuration.
export PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0
cp "$SRC_ROOT/bench/py-work.py" work.py
[ -x /usr/bin/time ] || { echo "(skipped: no /usr/bin/time)"; exit 0; }

# cpu CONFIG PY: the CPU seconds (user + system) of one run
cpu() {
	rm -rf m
	case $1 in
	native) /usr/bin/time -f '%U %S' -o t "$2" work.py 1 "$WORK" ;;
	hpcrun) /usr/bin/time -f '%U %S' -o t "$BIN/hpcrun" -q -o m "$2" work.py 1 "$WORK" ;;
	nopy)	/usr/bin/time -f '%U %S' -o t "$BIN/hpcrun" -q -o m --no-python \
			"$2" work.py 1 "$WORK" ;;
	esac >/dev/null 2>>run.err
	awk '{ print $1 + $2 }' t
}

# q FILE K: the K-th quarter point (0..4) of the numbers in FILE
q() { sort -n "$1" | sed -n "$(((ROUNDS - 1) * $2 / 4 + 1))p"; }

echo "## Python frames: CPU cost on pure Python"
echo
echo "Measured $(date -u +%Y-%m-%d) by \`bench/hpcrun-python-cost.sh\` at"
echo "$(git -C "$SRC_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') on $(nproc) cores, $(uname -sr);"
echo "\`bench/py-work.py 1 $WORK\`, $ROUNDS interleaved rounds, \`hpcrun\` defaults (cpu-clock, 1000/s)."
echo
echo "| CPython | native CPU, s (median) | hpcrun / native (median, quartiles) | hpcrun --no-python / native | bar 1.05 |"
echo "|---|---|---|---|---|"
for m in $MINORS; do
	V=3.$m
	py=$(pypath $V) || { echo "| $V | not installed under $PYROOT | | | |"; continue; }
	: >r.hpcrun; : >r.nopy; : >c.native
	r=1
	while [ $r -le "$ROUNDS" ]; do
		n=$(cpu native "$py")
		h=$(cpu hpcrun "$py")
		p=$(cpu nopy "$py")
		echo "$n" >>c.native
		awk -v a="$h" -v b="$n" 'BEGIN { printf "%.4f\n", a / b }' >>r.hpcrun
		awk -v a="$p" -v b="$n" 'BEGIN { printf "%.4f\n", a / b }' >>r.nopy
		r=$((r + 1))
	done
	bar=$(awk -v x="$(q r.hpcrun 2)" 'BEGIN { print x <= 1.05 ? "met" : "NOT met" }')
	echo "| $V | $(q c.native 2) | $(q r.hpcrun 2) ($(q r.hpcrun 1)-$(q r.hpcrun 3)) |" \
		"$(q r.nopy 2) ($(q r.nopy 1)-$(q r.nopy 3)) | $bar |"
done
