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
#     Then `hpcprof` alone with no structure files (its DWARF fallback) and,
#     with BASE=BUILD-DIR (another commit's build), that build's
#     `hpcstruct DIR` + `hpcprof`, so that both are timed in the same rounds.
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
# cold MEAS [--all [BIN]]: hpcstruct from an empty cache (CPU seconds,
# peak RSS in MB), then hpcprof (CPU seconds); the structure files' size in
# MB; then hpcstruct again from the cache it filled (CPU seconds, "warm").
cold() {
	b=${3:-$BIN}
	rm -rf "$1/structs" cache db
	s=$(HPCSTRUCT_CACHE=$PWD/cache /usr/bin/time -f "%U %S %M" \
		"$b/hpcstruct" -q $2 "$1" 2>&1 >/dev/null | tail -1 |
		awk '{ printf "%.2f %d", $1 + $2, $3 / 1024 }')
	p=$(cpu "$b/hpcprof" -o db "$1")
	mb=$(du -cm "$1"/structs/*.hpcstruct | tail -1 | cut -f1)
	rm -rf "$1/structs"
	w=$(HPCSTRUCT_CACHE=$PWD/cache cpu "$b/hpcstruct" -q $2 "$1")
	echo "$s $p $mb $w"
}
# fallback MEAS: hpcprof's CPU seconds without structure files.
fallback() {
	rm -rf "$1/structs" db
	cpu "$BIN/hpcprof" -o db "$1"
}
echo "clang: round perf-report | partial: hpcstruct RSS hpcprof MB warm | whole: the same | fallback: hpcprof${BASE:+ | base partial: hpcstruct RSS hpcprof MB warm}"
for i in $(seq "$REPEAT"); do
	echo "$i $(cpu perf report --stdio -i perf.data) | $(cold m) | $(cold m --all) | $(fallback m)${BASE:+ | $(cold m "" "$BASE/bin")}"
done
[ "${BENCH_MAKE:-0}" = 1 ] || exit 0
if [ ! -d mk ]; then
	rm -rf tree && mkdir tree
	(cd "$SRC" && git ls-files -z | xargs -0 cp --parents -t "$DIR/tree")
	"$BIN/hpcrun" -q -o mk make -C tree -j2 >/dev/null
fi
echo "make: round | partial: hpcstruct RSS hpcprof MB warm | whole: the same | fallback: hpcprof${BASE:+ | base partial: the same}"
for i in $(seq "$REPEAT"); do
	echo "$i | $(cold mk) | $(cold mk --all) | $(fallback mk)${BASE:+ | $(cold mk "" "$BASE/bin")}"
done
