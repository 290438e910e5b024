#!/bin/sh
# hpcstruct-cache.sh - hpcstruct MEASUREMENT-DIR, first run and cached run.
#
# Builds a measurement directory whose load map names large binaries (with
# tests/progs/st-mkmeas.c), then times `hpcstruct -j 2 DIR` with an empty
# cache and again with the cache filled.  Usage:
#   bench/hpcstruct-cache.sh [BINARY...]     (default: libpython3.11, cc1)
# Environment: HPC_BUILD (default build).
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
build=${HPC_BUILD:-$here/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# = 0 ]; then
	libdir=$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("LIBDIR"))')
	set -- "$(readlink -f "$libdir/libpython3.11.so")" "$(readlink -f "$(gcc -print-prog-name=cc1)")"
fi
cc -I"$here/lib" -o "$tmp/mkmeas" "$here/tests/progs/st-mkmeas.c" \
	"$build/obj/libhpc.a" $(pkg-config --libs libdw libelf capstone libxml-2.0 zlib)
mkdir "$tmp/m"
args=
for b in "$@"; do args="$args +$b"; done
"$tmp/mkmeas" "$tmp/m/x-000000-000-0-1-0.hpcrun" $args "+[vdso]"
export HPCSTRUCT_CACHE="$tmp/cache"
t0=$(date +%s.%N)
"$build/bin/hpcstruct" -q -j 2 "$tmp/m"
t1=$(date +%s.%N)
rm -r "$tmp/m/structs"
"$build/bin/hpcstruct" -j 2 "$tmp/m" 2>"$tmp/err"
t2=$(date +%s.%N)
grep -c "reused cached" "$tmp/err" >/dev/null
echo "| modules | first run | cached run |"
echo "|---|---|---|"
printf "| %s| %.2f s | %.2f s |\n" "$(for b in "$@"; do basename "$b"; done | tr '\n' ' ')" \
	"$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
