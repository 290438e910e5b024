#!/bin/sh
# hpcprof-scale.sh - hpcprof -j 1 against -j 2, and hpcprof-mpi on 1, 2 and
# 4 ranks, for growing numbers of synthetic profiles: wall time (median of
# RUNS runs) and peak RSS (of the process; per rank for hpcprof-mpi, the
# largest rank's).  Every database is compared with -j 1's (diff -r).
#
#   bench/hpcprof-scale.sh [COUNTS [NODES]]
#     COUNTS  profile counts, default "64 256 1024"
#     NODES   CCT nodes per profile, default 20000 (tests/lib/syn-tree.sh's
#             synthetic set: one 4-ary call tree over 64 procedures with a
#             loop of 16 statements each, values differing per thread)
#   RUNS=N (default 5).  Needs /usr/bin/time; hpcprof-mpi rows need mpirun
#   and a build with MPI.
set -eu
SRC_ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${HPC_BUILD:-$SRC_ROOT/build}
BIN=$BUILD/bin
COUNTS=${1:-64 256 1024}
NODES=${2:-20000}
RUNS=${RUNS:-5}
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
. "$SRC_ROOT/bench/lib.sh"
bench_workdir hpcprof-scale

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# measure NAME CMD...: RUNS runs of CMD (database db-NAME); prints the
# median wall time (s) and the largest peak RSS (MB) over runs and ranks.
measure() {
	name=$1; shift
	: >times; : >rss
	r=0
	while [ $r -lt "$RUNS" ]; do
		rm -rf "db-$name" rss.*
		t0=$(date +%s%N)
		"$@" -S syn.hpcstruct -o "db-$name" syn 2>/dev/null
		t1=$(date +%s%N)
		echo "$t0 $t1" | awk '{ print ($2 - $1) / 1e9 }' >>times
		cat rss.* | sort -n | tail -n 1 >>rss
		r=$((r + 1))
	done
	diff -r db-j1 "db-$name" >/dev/null 2>&1 || [ "$name" = j1 ] ||
		echo "  ($name: database differs from -j 1's!)"
	printf '%s %s\n' "$(median <times)" "$(sort -n rss | tail -n 1 | awk '{ printf "%.1f", $1 / 1024 }')"
}

# rss_time CMD...: CMD with its peak RSS in rss.PID (KB).
cat >rss_time <<'EOT'
#!/bin/sh
exec /usr/bin/time -f %M -o rss.$$ "$@"
EOT
chmod +x rss_time

have_mpi=
command -v mpirun >/dev/null && [ -x "$BIN/hpcprof-mpi" ] && have_mpi=1
echo "# $(date -u '+%F %T') UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $RUNS runs, $NODES nodes/profile"
printf '%-9s %-18s %-18s %-18s %-18s %-18s\n' profiles "-j 1 (s, MB)" "-j 2" "mpi np1 -j1" "mpi np2 -j1" "mpi np4 -j1"
for n in $COUNTS; do
	syn_profiles "$n" "$NODES"
	row=$(printf '%-9s' "$n")
	for j in 1 2; do
		row="$row $(printf '%-18s' "$(measure j$j ./rss_time "$BIN/hpcprof" -j $j)")"
	done
	for np in 1 2 4; do
		if [ -n "$have_mpi" ]; then
			row="$row $(printf '%-18s' "$(measure np$np mpirun --oversubscribe --bind-to none -np $np ./rss_time "$BIN/hpcprof-mpi" -j 1)")"
		else
			row="$row $(printf '%-18s' "(no MPI)")"
		fi
	done
	echo "$row"
done
