#!/bin/sh
# hpcprof-threads.sh - hpcprof on 64 thread profiles of one program versus
# 'perf report' on a perf recording of the same workload.
#
#   bench/hpcprof-threads.sh [NTHREADS [WORK]]     (defaults 64 20000000)
#
# Prints: profiles, CCT nodes read, database scopes, hpcprof wall time
# (hyperfine, mean of runs) and peak RSS, throughput in CCT nodes/s, and the
# same timing for 'perf report --stdio' (with and without call graphs) on a
# 'perf record -g' of the same run.  Needs hyperfine and perf.
set -eu
SRC_ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${HPC_BUILD:-$SRC_ROOT/build}/bin
N=${1:-64}
WORK=${2:-20000000}
dir=$(mktemp -d /tmp/hpcprof-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

cc -O2 -g -pthread -o threads "$SRC_ROOT/tests/progs/pf-threads.c"
"$BIN/hpcrun" -o m ./threads "$N" "$WORK" >/dev/null
"$BIN/hpcstruct" m >/dev/null 2>&1
profiles=$(ls m/*.hpcrun | wc -l)
nodes=$("$BIN/hpcprof" --dump m/*.hpcrun | awk '/^cct / { s += $2 } END { print s }')

hyperfine -N --runs 10 --warmup 1 --prepare 'rm -rf db' --export-json hp.json \
	"$BIN/hpcprof -o db m" >/dev/null 2>&1
hp=$(sed -n 's/.*"mean": \([0-9.e+-]*\).*/\1/p' hp.json | head -n 1)
rm -rf db
/usr/bin/time -o rss.txt -f '%M' "$BIN/hpcprof" -o db m 2>/dev/null
rss=$(tail -n 1 rss.txt)
t0=$(date +%s%N)
for f in m/structs/*.hpcstruct; do "$BIN/hpcprof" --dump "$f" >/dev/null; done
t1=$(date +%s%N)
structs_kb=$(du -ck m/structs/*.hpcstruct | tail -n 1 | cut -f1)
"$BIN/hpcprof" -o db2 m 2>scopes.txt
scopes=$(sed -n "s/.*(\([0-9]*\) threads, \([0-9]*\) scopes).*/\2/p" scopes.txt)
xml=$(du -k db2/experiment.xml | cut -f1)

perf record -q -g -F 250 -o perf.data ./threads "$N" "$WORK" >/dev/null 2>&1
hyperfine -N --runs 5 --warmup 1 --export-json pr.json \
	"perf report -i perf.data --stdio --no-children" \
	"perf report -i perf.data --stdio -g none" >/dev/null 2>&1
pr_g=$(sed -n 's/.*"mean": \([0-9.e+-]*\).*/\1/p' pr.json | sed -n 1p)
pr_n=$(sed -n 's/.*"mean": \([0-9.e+-]*\).*/\1/p' pr.json | sed -n 2p)
samples=$(perf report -i perf.data --stdio -g none 2>/dev/null | sed -n 's/^# Samples: \([0-9a-zA-Z]*\).*/\1/p' | head -n 1)

printf 'profiles %s, CCT nodes read %s, database scopes %s, experiment.xml %s KB\n' \
	"$profiles" "$nodes" "$scopes" "$xml"
awk -v t="$hp" -v n="$nodes" -v r="$rss" -v s0="$t0" -v s1="$t1" -v kb="$structs_kb" 'BEGIN {
	printf "hpcprof: %.3f s mean, peak RSS %.1f MB, %.0f CCT nodes/s\n", t, r / 1024, n / t
	printf "  of which reading %d KB of structure files: %.3f s (one --dump each)\n", kb, (s1 - s0) / 1e9 }'
printf 'perf report --stdio (%s samples): call graph %.3f s, flat (-g none) %.3f s\n' \
	"$samples" "$pr_g" "$pr_n"

# Synthetic scale: NTHREADS profiles of SYN_NODES CCT nodes each (one 4-ary
# call tree, the same in every thread, over 64 procedures with a loop of 16
# statements each; values differ per thread), to measure the per-node cost
# apart from reading structure files.
SYN_NODES=${SYN_NODES:-20000}
cc -I"$SRC_ROOT/lib" -o mkprofile "$SRC_ROOT/tests/progs/pf-mkprofile.c" \
	"${HPC_BUILD:-$SRC_ROOT/build}/obj/libhpc.a"
sh "$SRC_ROOT/tests/lib/syn-tree.sh" struct >syn.hpcstruct
mkdir syn
t=0
while [ $t -lt "$N" ]; do
	sh "$SRC_ROOT/tests/lib/syn-tree.sh" profile "$t" "$SYN_NODES" |
		./mkprofile syn/syn-$t.hpcrun
	t=$((t + 1))
done
hyperfine -N --runs 5 --warmup 1 --prepare 'rm -rf dbsyn' --export-json syn.json \
	"$BIN/hpcprof -S syn.hpcstruct -o dbsyn syn" >/dev/null 2>&1
syn=$(sed -n 's/.*"mean": \([0-9.e+-]*\).*/\1/p' syn.json | head -n 1)
rm -rf dbsyn
/usr/bin/time -o rss.txt -f '%M' "$BIN/hpcprof" -S syn.hpcstruct -o dbsyn syn 2>scopes.txt
syn_scopes=$(sed -n "s/.*(\([0-9]*\) threads, \([0-9]*\) scopes).*/\2/p" scopes.txt)
awk -v t="$syn" -v n="$((N * SYN_NODES))" -v r="$(tail -n 1 rss.txt)" -v s="$syn_scopes" \
	-v kb="$(du -k dbsyn/experiment.xml | cut -f1)" 'BEGIN {
	printf "synthetic: %d CCT nodes in %s profiles -> %d scopes, %d KB XML: %.3f s, peak RSS %.1f MB, %.0f CCT nodes/s\n", n, "'"$N"'", s, kb, t, r / 1024, n / t }'
