#!/bin/sh
# hpcrun-overhead.sh - hpcrun side by side with perf record on this machine.
#
#   bench/hpcrun-overhead.sh [BUILD]      (BUILD defaults to build/)
#
# Prints a Markdown report for docs/BENCHMARKS.md:
#  1. in-process slowdown of a CPU-bound -O2 program (no frame pointers):
#     the CPU time of the program's own process around its work (CPU time,
#     not wall time, because the machine is shared and the profiler's own
#     process must not count; ROUNDS interleaved rounds, default 15, the
#     program pinned to the last CPU so that perf's process and everything
#     else run beside it, not on it), plain, under hpcrun with full
#     call paths (by default from the kernel's stack copies in ring
#     buffers, and with --no-stack-copy, one signal per sample), under perf
#     record without call paths, and under perf record with --call-graph
#     dwarf (the kernel copies 8 KB of user stack into its ring buffer at
#     each sample), 1 kHz and 5 kHz; as medians of the ratio to the plain
#     run, and as hpcrun / perf without call paths paired by round (the
#     load of the machine drifts between rounds, less within one);
#  2. start-up plus teardown of "hpcrun /bin/true" vs "perf record /bin/true"
#     (hyperfine);
#  3. profile size after a 2 s run at 1 kHz and 5 kHz;
#  4. cost per sample by call-path depth: the time spent inside hpcrun's
#     handler (handler-ns in the log, clock_gettime around it) / samples.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
HPCRUN=$BUILD/bin/hpcrun
RUNS=${ROUNDS:-15}
W=$(mktemp -d /tmp/hpcrun-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

cc -O2 -fomit-frame-pointer -o cpu "$ROOT/bench/cpu-work.c"

# samples: samples recorded in the measurement directory m.
samples() {
	sed -n 's/^samples-recorded: //p' m/*.log | awk '{ t += $1 } END { print t }'
}

UNITS=200	# about 2 s
# The measured program runs on the last CPU; perf's own process, hpcrun's
# launcher before its exec and the rest of the machine on the others.
PIN=
if [ "$(nproc)" -gt 1 ] && command -v taskset >/dev/null; then
	PIN="taskset -c $(($(nproc) - 1))"
fi
# Interleaved: each round runs every configuration once, so a burst of load
# from other processes hits all of them alike; medians over the rounds.
CONFIGS="plain h1000 s1000 p1000 d1000 h5000 s5000 p5000 d5000"
i=0
while [ $i -lt $RUNS ]; do
	for c in $CONFIGS; do
		rm -rf m perf.data
		case $c in
		plain) $PIN ./cpu 5 $UNITS ;;
		h*) $PIN "$HPCRUN" -o m -e cpu-clock@f${c#h} ./cpu 5 $UNITS ;;
		s*) $PIN "$HPCRUN" -o m --no-stack-copy -e cpu-clock@f${c#s} ./cpu 5 $UNITS ;;
		p*) perf record -q -F ${c#p} -e cpu-clock -o perf.data \
			$PIN ./cpu 5 $UNITS 2>/dev/null ;;
		d*) perf record -q -F ${c#d} -e cpu-clock --call-graph dwarf,8192 \
			-o perf.data $PIN ./cpu 5 $UNITS 2>/dev/null ;;
		esac | tail -n 1 >>t.$c
	done
	i=$((i + 1))
done
# q FILE K: the K-th quarter point (0..4) of the numbers in FILE.
q() { sort -n "$1" | sed -n "$(((RUNS - 1) * $2 / 4 + 1))p"; }
med() { q t.$1 2; }
plain=$(med plain)
echo "## hpcrun"
echo
echo "Measured $(date -u +%Y-%m-%d) by \`bench/hpcrun-overhead.sh\` on $(nproc) cores,"
echo "$(uname -sr), $(perf --version 2>/dev/null || echo 'no perf'); no hardware PMU, so both tools sample"
echo "the \`cpu-clock\` software event."
echo
echo "### In-process slowdown (CPU-bound -O2 program, no frame pointers, call depth 7)"
echo
echo "CPU time of the program's process around its work, median of $RUNS interleaved"
echo "rounds, the program pinned to one CPU (${PIN:-not pinned}); plain: ${plain} ms."
echo
echo "| rate | hpcrun, full call paths | hpcrun --no-stack-copy | perf record, no call paths | perf record --call-graph dwarf,8192 |"
echo "|---|---|---|---|---|"
ratio() { awk "BEGIN { printf \"%.3fx (%s ms)\", $1 / $plain, $1 }"; }
for f in 1000 5000; do
	echo "| $f/s | $(ratio "$(med h$f)") | $(ratio "$(med s$f)") | $(ratio "$(med p$f)") |" \
	     "$(ratio "$(med d$f)") |"
done
echo
echo "Paired by round: each configuration's time over perf-without-call-paths'"
echo "time in the same round; median and quartiles of the $RUNS rounds."
echo
echo "| rate | hpcrun / perf | hpcrun --no-stack-copy / perf | perf --call-graph dwarf / perf |"
echo "|---|---|---|---|"
# pair A B: A's time over B's, round by round, as "median (q1-q3)".
pair() {
	paste t.$1 t.$2 | awk '{ printf "%.4f\n", $1 / $2 }' >r.pair
	echo "$(q r.pair 2) ($(q r.pair 1)-$(q r.pair 3))"
}
for f in 1000 5000; do
	echo "| $f/s | $(pair h$f p$f) | $(pair s$f p$f) | $(pair d$f p$f) |"
done
echo
echo "### Start-up plus teardown"
echo
if command -v hyperfine >/dev/null; then
	hyperfine -N --warmup 3 --runs 20 --export-markdown st.md \
		--prepare 'rm -rf m perf.data' \
		"$HPCRUN -o m /bin/true" "perf record -q -o perf.data /bin/true" \
		"/bin/true" >/dev/null 2>&1
	sed "s|$HPCRUN|hpcrun|" st.md
else
	echo "(hyperfine not installed)"
fi

echo
echo "### Profile size after a 2 s run"
echo
echo "| rate | samples | .hpcrun bytes | perf.data bytes (no call paths) |"
echo "|---|---|---|---|"
for f in 1000 5000; do
	rm -rf m perf.data
	"$HPCRUN" -o m -e cpu-clock@f$f ./cpu 5 $UNITS >/dev/null
	perf record -q -F $f -e cpu-clock -o perf.data ./cpu 5 $UNITS >/dev/null 2>&1
	echo "| $f/s | $(samples) | $(cat m/*.hpcrun | wc -c) | $(wc -c <perf.data) |"
done

echo
echo "### Cost per sample by call-path depth (5000 samples/s)"
echo
echo "Time inside hpcrun's signal handler (unwind + tree insert; with stack"
echo "copies, reading them from the ring), from the log's handler-ns, divided by"
echo "the samples; the kernel's part comes on top (same for every depth)."
echo
echo "| depth | frames per sample | samples | ns per sample | ns per frame |"
echo "|---|---|---|---|---|"
for d in 0 10 100 1000; do
	for mode in unwind no-unwind; do
		[ $mode = no-unwind ] && [ $d != 0 ] && continue
		opt=
		[ $mode = no-unwind ] && opt=--no-unwind
		rm -rf m
		"$HPCRUN" -o m $opt -e cpu-clock@f5000 ./cpu $d 100 >/dev/null
		n=$(sed -n 's/^samples-taken: //p' m/*.log)
		h=$(sed -n 's/^handler-ns: //p' m/*.log)
		frames=$((d + 4))
		label=$d
		[ $mode = no-unwind ] && { label="$d (--no-unwind)"; frames=1; }
		echo "| $label | $frames | $n |" \
		     "$(awk "BEGIN { printf \"%.0f | %.0f\", $h / $n, $h / $n / $frames }") |"
	done
done
