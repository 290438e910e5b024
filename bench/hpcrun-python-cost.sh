#!/bin/sh
# hpcrun-python-cost.sh - what Python frames cost: the CPU time of a
# pure-Python program (bench/py-work.py, fixed work: the eval loop, calls
# through C, dicts, strings, long ints, sorting) natively, under hpcrun
# (Python frames on), under hpcrun --no-python and, side by side, under
# the peer `perf record -e cpu-clock -F 1000 -g` (the same rate), on each
# pyenv CPython.
#
#   bench/hpcrun-python-cost.sh [BUILD]     (BUILD defaults to build/)
#   environment: ROUNDS (interleaved rounds, default 7), WORK (py-work.py
#   rounds, default 12: about 1.5 s of CPU), MINORS (default "11 12 13").
#
# CPU time is the whole process's, user + system, from GNU time around
# it (perf's own process included): the runtime's start, every sample, the
# files written at the end.  Each round runs the configurations back to
# back, so a burst of load hits them alike; ratios are paired by round
# (median, quartiles), and the least CPU time of each configuration over
# all rounds gives a second ratio (min/min) that a noisy host bends less:
# on a shared VM one native run takes from 1.1 to 1.8 s.  The bar:
# hpcrun / native <= 1.05 (paired median).
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
	rm -rf m p.data
	case $1 in
	native) /usr/bin/time -f '%U %S' -o t "$2" work.py 1 "$WORK" ;;
	hpcrun) /usr/bin/time -f '%U %S' -o t "$BIN/hpcrun" -q -o m "$2" work.py 1 "$WORK" ;;
	nopy)	/usr/bin/time -f '%U %S' -o t "$BIN/hpcrun" -q -o m --no-python \
			"$2" work.py 1 "$WORK" ;;
	perf)	/usr/bin/time -f '%U %S' -o t perf record -q -e cpu-clock -F 1000 -g \
			-o p.data "$2" work.py 1 "$WORK" ;;
	esac >/dev/null 2>>run.err
	awk '{ print $1 + $2 }' t
}

# Is the peer there and allowed to sample here?
PERF=perf
perf record -q -e cpu-clock -F 1000 -g -o p.data true >/dev/null 2>&1 || PERF=

# q FILE K: the K-th quarter point (0..4) of the numbers in FILE
q() { sort -n "$1" | sed -n "$(((ROUNDS - 1) * $2 / 4 + 1))p"; }

echo "## Python frames: CPU cost on pure Python"
echo
echo "Measured $(date -u +%Y-%m-%d) by \`bench/hpcrun-python-cost.sh\` at"
echo "$(git -C "$SRC_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') on $(nproc) cores, $(uname -sr);"
echo "\`bench/py-work.py 1 $WORK\`, $ROUNDS interleaved rounds, \`hpcrun\` defaults (cpu-clock, 1000/s)."
echo
# ratio CONF: "median (q1-q3), min/min" of CONF against native
ratio() {
	echo "$(q r.$1 2) ($(q r.$1 1)-$(q r.$1 3)), $(awk -v a="$(q c.$1 0)" \
		-v b="$(q c.native 0)" 'BEGIN { printf "%.4f", a / b }')"
}

echo "| CPython | native CPU, s (median, min) | hpcrun / native: paired median (quartiles), min/min | hpcrun --no-python / native | perf record -g / native | bar 1.05 |"
echo "|---|---|---|---|---|---|"
for m in $MINORS; do
	V=3.$m
	py=$(pypath $V) || { echo "| $V | not installed under $PYROOT | | | | |"; continue; }
	confs="hpcrun nopy${PERF:+ perf}"
	: >c.native
	for k in $confs; do : >r.$k; : >c.$k; done
	r=1
	while [ $r -le "$ROUNDS" ]; do
		n=$(cpu native "$py")
		echo "$n" >>c.native
		for k in $confs; do
			v=$(cpu $k "$py")
			echo "$v" >>c.$k
			awk -v a="$v" -v b="$n" 'BEGIN { printf "%.4f\n", a / b }' >>r.$k
		done
		r=$((r + 1))
	done
	bar=$(awk -v x="$(q r.hpcrun 2)" 'BEGIN { print x <= 1.05 ? "met" : "NOT met" }')
	peer="no perf here"
	[ -z "$PERF" ] || peer=$(ratio perf)
	echo "| $V | $(q c.native 2), $(q c.native 0) | $(ratio hpcrun) | $(ratio nopy) |" \
		"$peer | $bar |"
done
