#!/bin/sh
# hpcrun-python-cost.sh - what Python frames cost: the CPU time of a
# pure-Python program (bench/py-work.py, fixed work: the eval loop, calls
# through C, dicts, strings, long ints, sorting) natively, under hpcrun
# (Python frames on), under hpcrun --no-python and, side by side, under
# the peer `perf record -e cpu-clock -F 1000 -g` (the same rate), on each
# pyenv CPython.
#
#   bench/hpcrun-python-cost.sh [BUILD]     (BUILD defaults to build/)
#   environment: ROUNDS (rounds, default 7), WORK (py-work.py rounds,
#   default 12: about 1.5 s of CPU), MINORS (default "11 12 13"), MODE
#   (seq, the default, or pair), CONFS (the configurations measured
#   against native, default "hpcrun nopy perf"; also f4000: hpcrun at
#   -e cpu-clock@f4000, the check of the method below; base: the hpcrun
#   of the build BASE, to compare two builds in the same rounds; floor:
#   bench/sampling-floor.c preloaded, hpcrun's event with a handler that
#   does nothing -- the kernel's part of a sample, which no sampler at
#   this rate avoids).
#
# CPU time is the whole process's, user + system, from GNU time around
# it (perf's own process included): the runtime's start, every sample, the
# files written at the end.  On a shared VM one native run takes from 1.1
# to 1.8 s, so the cost (a few percent) is only seen paired:
#   seq   each round runs native and the configurations back to back;
#   pair  each configuration runs CONCURRENTLY with a native run, each
#         pinned to its own CPU (taskset; the two CPUs swapped every
#         round), so that a burst of the host's load would hit both.
#         On the 2-CPU VM of docs/BENCHMARKS.md it did not narrow the
#         spread: the other load there lands on one CPU at a time.
# Ratios are paired by round (median, quartiles); the least CPU time of
# each configuration over all rounds gives a second ratio (min/min).
# The method is checked on a known cost: hpcrun at 4000 samples/s
# (CONFS="hpcrun f4000") should cost about 4 times what it costs at 1000.
# hpcrun's log gives its handler's time (handler-ns; per sample, and as
# a share of the run's CPU time: a floor of the cost that the host's
# noise bends far less, without the kernel's signal delivery, the
# program's caches refilled, hpcrun's start and end).  The bar:
# hpcrun / native <= 1.05 (paired median).
set -e
SRC_ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC_ROOT/build}
BIN=$BUILD/bin
ROUNDS=${ROUNDS:-7}
WORK=${WORK:-12}
MINORS=${MINORS:-11 12 13}
MODE=${MODE:-seq}
CONFS=${CONFS:-hpcrun nopy perf}
. "$SRC_ROOT/bench/lib.sh"
. "$SRC_ROOT/tests/lib/python-lib.sh"
bench_workdir_said hpcrun-python-cost
# One hash seed for every run: string hashing, and so dict and set
# layouts, are then the same in each configuration.
export PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0
cp "$SRC_ROOT/bench/py-work.py" work.py
[ -x /usr/bin/time ] || { echo "(skipped: no /usr/bin/time)"; exit 0; }
case $MODE in
pair)	[ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null ||
		{ echo "(skipped: MODE=pair wants 2 CPUs and taskset)"; exit 0; } ;;
seq)	;;
*)	echo "$0: MODE '$MODE': not pair or seq" >&2; exit 2 ;;
esac
case " $CONFS " in
*" floor "*) cc -O2 -shared -fPIC -o floor.so "$SRC_ROOT/bench/sampling-floor.c" ;;
esac
case " $CONFS " in
*" base "*) [ -x "${BASE:-}/bin/hpcrun" ] ||
	{ echo "$0: CONFS has base, and BASE '${BASE:-}' has no bin/hpcrun" >&2; exit 2; } ;;
esac

# cpu CONFIG PY TAG [CPU]: the CPU seconds (user + system) of one run
# (pinned to CPU when given), its files named by TAG; an hpcrun run's
# handler ns a sample appended to h.CONFIG, its handler's share of the
# run's CPU time to s.CONFIG
cpu() {
	rm -rf m.$3 p.$3.data
	pin=${4:+taskset -c $4}
	case $1 in
	native) $pin /usr/bin/time -f '%U %S' -o t.$3 "$2" work.py 1 "$WORK" ;;
	hpcrun) $pin /usr/bin/time -f '%U %S' -o t.$3 "$BIN/hpcrun" -q -o m.$3 \
			"$2" work.py 1 "$WORK" ;;
	base)	$pin /usr/bin/time -f '%U %S' -o t.$3 "$BASE/bin/hpcrun" -q -o m.$3 \
			"$2" work.py 1 "$WORK" ;;
	f4000)	$pin /usr/bin/time -f '%U %S' -o t.$3 "$BIN/hpcrun" -q -o m.$3 \
			-e cpu-clock@f4000 "$2" work.py 1 "$WORK" ;;
	nopy)	$pin /usr/bin/time -f '%U %S' -o t.$3 "$BIN/hpcrun" -q -o m.$3 \
			--no-python "$2" work.py 1 "$WORK" ;;
	floor)	LD_PRELOAD=$dir/floor.so $pin /usr/bin/time -f '%U %S' -o t.$3 \
			"$2" work.py 1 "$WORK" ;;
	perf)	$pin /usr/bin/time -f '%U %S' -o t.$3 perf record -q -e cpu-clock \
			-F 1000 -g -o p.$3.data "$2" work.py 1 "$WORK" ;;
	esac >/dev/null 2>>run.err
	c=$(awk '{ print $1 + $2 }' t.$3)
	[ ! -d m.$3 ] || cat m.$3/*.log | awk -v c="$c" -v h=h.$1 -v s=s.$1 '
		$1 == "handler-ns:" { ns += $2 }
		$1 == "samples-taken:" { n += $2 }
		END { if (n && c > 0) { printf "%.0f\n", ns / n >>h
					printf "%.4f\n", ns / 1e9 / c >>s } }'
	echo "$c"
}

# pair CONFIG PY ROUND: CONFIG and native at once, on CPUs 0 and 1 (1 and
# 0 in odd rounds); "CONFIG-seconds native-seconds"
pair() {
	a=$(($3 % 2))
	cpu native "$2" n $((1 - a)) >n.out &
	cpu "$1" "$2" c $a >c.out
	wait
	echo "$(cat c.out) $(cat n.out)"
}

# Is the peer there and allowed to sample here?
PERF=perf
perf record -q -e cpu-clock -F 1000 -g -o p.data true >/dev/null 2>&1 || PERF=
[ -n "$PERF" ] || CONFS=$(echo "$CONFS" | sed 's/perf//')

# q FILE K: the K-th quarter point (0..4) of the numbers in FILE
q() { sort -n "$1" | sed -n "$((($(wc -l <"$1") - 1) * $2 / 4 + 1))p"; }

echo "## Python frames: CPU cost on pure Python"
echo
echo "Measured $(date -u +%Y-%m-%d) by \`bench/hpcrun-python-cost.sh\` at"
echo "$(git -C "$SRC_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') on $(nproc) cores, $(uname -sr);"
echo "\`bench/py-work.py 1 $WORK\`, $ROUNDS rounds, MODE=$MODE, \`hpcrun\` defaults (cpu-clock, 1000/s)."
echo
# ratio CONF: "median (q1-q3) | min/min" of CONF against native
ratio() {
	echo "$(q r.$1 2) ($(q r.$1 1)-$(q r.$1 3)) | $(awk -v a="$(q c.$1 0)" \
		-v b="$(q n.$1 0)" 'BEGIN { printf "%.4f", a / b }')"
}

echo "| CPython | configuration | CPU / native CPU: paired median (quartiles) | min/min | handler: ns a sample, share of the CPU time (medians) | bar 1.05 |"
echo "|---|---|---|---|---|---|"
for m in $MINORS; do
	V=3.$m
	py=$(pypath $V) || { echo "| $V | not installed under $PYROOT | | | | |"; continue; }
	: >c.native
	for k in $CONFS; do : >r.$k; : >c.$k; : >n.$k; : >h.$k; : >s.$k; done
	r=1
	while [ $r -le "$ROUNDS" ]; do
		[ "$MODE" = pair ] || n=$(cpu native "$py" n)
		for k in $CONFS; do
			if [ "$MODE" = pair ]; then
				set -- $(pair $k "$py" $r)
				v=$1 n=$2
			else
				v=$(cpu $k "$py" c)
			fi
			echo "$n" >>c.native
			echo "$n" >>n.$k
			echo "$v" >>c.$k
			awk -v a="$v" -v b="$n" 'BEGIN { printf "%.4f\n", a / b }' >>r.$k
		done
		r=$((r + 1))
	done
	echo "| $V | native: CPU s, median $(q c.native 2), min $(q c.native 0) | | | | |"
	for k in $CONFS; do
		case $k in
		hpcrun) name=hpcrun ;;
		base)	name="hpcrun of $BASE" ;;
		f4000)	name="hpcrun -e cpu-clock@f4000" ;;
		nopy)	name="hpcrun --no-python" ;;
		floor)	name="the sampling floor (bench/sampling-floor.c)" ;;
		perf)	name="perf record -e cpu-clock -F 1000 -g" ;;
		esac
		h=
		[ ! -s h.$k ] || h="$(q h.$k 2), $(q s.$k 2)"
		bar=
		[ $k != hpcrun ] || bar=$(awk -v x="$(q r.$k 2)" \
			'BEGIN { print x <= 1.05 ? "met" : "NOT met" }')
		echo "| $V | $name | $(ratio $k) | $h | $bar |"
	done
done
