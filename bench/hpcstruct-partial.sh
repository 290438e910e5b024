#!/bin/sh
# hpcstruct-partial.sh [DIR] [REPEAT]: the first look at a measurement, from
# an empty structure cache, with partial structure files (hpcstruct(5),
# PARTIAL STRUCTURE FILES) against whole ones, side by side in one loop.
#   clang: `clang -O2 -c lib/formula.c` (529 lines) measured once by hpcrun
#     and once by `perf record -e cpu-clock`; each round times, in CPU
#     seconds (user+sys), `perf report --stdio`, then `hpcstruct DIR` +
#     `hpcprof` and `hpcstruct --all DIR` + `hpcprof`, each hpcstruct from an
#     empty cache, with hpcstruct's peak RSS and the structure files' size,
#     and hpcstruct again from the cache so filled.
#   make (with BENCH_MAKE=1): `make -j2` of a copy of this tree, measured
#     once by hpcrun; each round does the same without perf.
# Rerunning with the same DIR reuses the measurements.
set -e
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${HPC_BUILD:-$SRC/build}/bin
DIR=${1:-/tmp/hpcstruct-partial}
REPEAT=${2:-3}
mkdir -p "$DIR" && cd "$DIR"
CC="clang -O2 -c $SRC/lib/formula.c -I$SRC/lib -o x.o"
[ -d m ] || "$BIN/hpcrun" -q -o m $CC
[ -f perf.data ] || perf record -q -e cpu-clock -o perf.data $CC 2>/dev/null

# cpu COMMAND...: COMMAND's user+sys CPU seconds, its output discarded.
cpu() {
	/usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 |
		awk '{ printf "%.2f", $1 + $2 }'
}
# cold MEAS [--all]: hpcstruct from an empty cache (CPU seconds, peak RSS
# in MB), then hpcprof (CPU seconds); the structure files' size in MB; then
# hpcstruct again from the cache it filled (CPU seconds, "warm").
cold() {
	rm -rf "$1/structs" cache db
	s=$(HPCSTRUCT_CACHE=$PWD/cache /usr/bin/time -f "%U %S %M" \
		"$BIN/hpcstruct" -q $2 "$1" 2>&1 >/dev/null | tail -1 |
		awk '{ printf "%.2f %d", $1 + $2, $3 / 1024 }')
	p=$(cpu "$BIN/hpcprof" -o db "$1")
	mb=$(du -cm "$1"/structs/*.hpcstruct | tail -1 | cut -f1)
	rm -rf "$1/structs"
	w=$(HPCSTRUCT_CACHE=$PWD/cache cpu "$BIN/hpcstruct" -q $2 "$1")
	echo "$s $p $mb $w"
}
echo "clang: round perf-report | partial: hpcstruct RSS hpcprof MB warm | whole: the same"
for i in $(seq "$REPEAT"); do
	echo "$i $(cpu perf report --stdio -i perf.data) | $(cold m) | $(cold m --all)"
done
[ "${BENCH_MAKE:-0}" = 1 ] || exit 0
if [ ! -d mk ]; then
	rm -rf tree && mkdir tree
	(cd "$SRC" && git ls-files -z | xargs -0 cp --parents -t "$DIR/tree")
	"$BIN/hpcrun" -q -o mk make -C tree -j2 >/dev/null
fi
echo "make: round | partial: hpcstruct RSS hpcprof MB warm | whole: the same"
for i in $(seq "$REPEAT"); do
	echo "$i | $(cold mk) | $(cold mk --all)"
done
