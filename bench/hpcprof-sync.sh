#!/bin/sh
# hpcprof-sync.sh [THREADS] [RUNS] - what hpcrun's synchronization files cost
# hpcprof: the hand-made barrier loop of tests/lib/sync-meas.sh copied to
# THREADS threads (default 64), hpcprof timed RUNS times (default 5) with
# the .hpcsync files and, alternately, without them.  Prints the median
# wall time of each and their ratio.  HPC_BUILD (default build/) names the
# build.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
B=${HPC_BUILD:-$here/build}
T=${1:-64}
R=${2:-5}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w"
cc -I"$here/lib" -o mkprofile "$here/tests/progs/pf-mkprofile.c" "$B/obj/libhpc.a"
sh "$here/tests/lib/sync-meas.sh" two >/dev/null
mkdir sync plain
i=0
while [ $i -lt "$T" ]; do
	src=two/prog-000000-00$((i % 2))-0-42-0
	dst=prog-000000-$(printf %03d $i)-0-42-0
	cp $src.hpcrun sync/$dst.hpcrun
	cp $src.hpcrun plain/$dst.hpcrun
	sed "s/^thread: .*/thread: $i/" $src.hpcsync >sync/$dst.hpcsync
	i=$((i + 1))
done
now() { date +%s.%N; }
for k in $(seq "$R"); do
	for m in sync plain; do
		rm -rf db-$m
		s=$(now)
		"$B/bin/hpcprof" -S two/prog.hpcstruct -o db-$m $m 2>/dev/null
		e=$(now)
		echo "$m $(echo "$e - $s" | bc)"
	done
done >times
med() { grep "^$1 " times | cut -d" " -f2 | sort -n | sed -n "$(((R + 1) / 2))p"; }
a=$(med sync) b=$(med plain)
echo "threads $T, runs $R: with .hpcsync ${a}s, without ${b}s, ratio $(echo "scale=3; $a / $b" | bc)"
