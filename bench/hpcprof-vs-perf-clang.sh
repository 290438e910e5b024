#!/bin/sh
# hpcprof-vs-perf-clang.sh [DIR] [REPEAT]: `clang -O2 -c` of hpcprof/experiment.c
# measured by hpcrun and by `perf record -e cpu-clock`; then, side by side in
# one loop, `perf report --stdio`, hpcprof with its structure index
# (structindex.h; cached after the first run) and hpcprof reading every
# structure file whole (HPCPROF_STRUCT_INDEX=0).  hpcstruct runs once (libLLVM
# takes a while); rerunning with the same DIR reuses both measurements.
set -e
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${HPC_BUILD:-$SRC/build}/bin
DIR=${1:-/tmp/hpcprof-vs-perf-clang}
REPEAT=${2:-3}
mkdir -p "$DIR" && cd "$DIR"
CC="clang -O2 -c $SRC/hpcprof/experiment.c -I$SRC/lib -I$SRC/hpcprof -I/usr/include/libxml2 -o x.o"
if [ ! -d m ]; then
	"$BIN/hpcrun" -q -o m $CC
	"$BIN/hpcstruct" -j 2 m
fi
[ -f perf.data ] || perf record -q -e cpu-clock -o perf.data $CC 2>/dev/null
du -shc m/structs/*.hpcstruct | tail -1
t() { /usr/bin/time -f "%e" "$@" 2>&1 >/dev/null | tail -1; }
echo "run perf-report hpcprof hpcprof-whole-files"
for i in $(seq "$REPEAT"); do
	p=$(t perf report --stdio -i perf.data)
	rm -rf db; h=$(t "$BIN/hpcprof" -o db m)
	rm -rf db; w=$(HPCPROF_STRUCT_INDEX=0 t "$BIN/hpcprof" -o db m)
	echo "$i $p $h $w"
done
