#!/bin/sh
# hpcstruct-bench.sh - hpcstruct against objdump -d on large real binaries.
#
# For each binary: wall time of `objdump -d BIN >/dev/null`, `hpcstruct -j 1`
# and `hpcstruct -j 2` (hyperfine, RUNS runs each, side by side in one run),
# then the peak RSS of each from /usr/bin/time -v.  Prints a Markdown table
# for docs/BENCHMARKS.md.  Usage:
#   bench/hpcstruct-bench.sh [BINARY...]
# Defaults: the pyenv libpython3.11.so (full DWARF), gcc's cc1 (no DWARF),
# libLLVM-15.so.1 (~100 MB, no DWARF).  Environment: HPC_BUILD (default
# build), RUNS (default 5).
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
build=${HPC_BUILD:-$here/build}
runs=${RUNS:-5}
hs=$build/bin/hpcstruct
command -v hyperfine >/dev/null || { echo "needs hyperfine" >&2; exit 1; }
[ -x "$hs" ] || { echo "build hpcstruct first (make)" >&2; exit 1; }

if [ $# = 0 ]; then
	libdir=$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("LIBDIR"))' 2>/dev/null || true)
	for b in "$libdir/libpython3.11.so" "$(gcc -print-prog-name=cc1)" \
		/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1; do
		[ -f "$b" ] && set -- "$@" "$(readlink -f "$b")"
	done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rss() {	# peak RSS in MB of a command
	/usr/bin/time -v "$@" >/dev/null 2>"$tmp/time" || true
	awk -F': ' '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$tmp/time"
}
mean() {	# mean seconds of command N in hyperfine's JSON export
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print("%.2f ± %.2f" % (r["mean"], r["stddev"]))' "$tmp/h.json" "$1"
}

echo "| binary | size | objdump -d | hpcstruct -j 1 | hpcstruct -j 2 | RSS objdump / -j 1 / -j 2 | loops found |"
echo "|---|---|---|---|---|---|---|"
for b in "$@"; do
	size=$(du -m "$b" | cut -f1)
	hyperfine -N -w 1 -r "$runs" --export-json "$tmp/h.json" \
		"objdump -d $b" \
		"$hs -q -j 1 -o $tmp/out1 $b" \
		"$hs -q -j 2 -o $tmp/out2 $b" >"$tmp/hf.txt" 2>&1 || {
		cat "$tmp/hf.txt" >&2; exit 1; }
	cmp -s "$tmp/out1" "$tmp/out2" || { echo "$b: -j 1 and -j 2 differ" >&2; exit 1; }
	r0=$(rss objdump -d "$b")
	r1=$(rss "$hs" -q -j 1 -o "$tmp/out1" "$b")
	r2=$(rss "$hs" -q -j 2 -o "$tmp/out2" "$b")
	loops=$(grep -c "<L " "$tmp/out1" || true)
	echo "| $(basename "$b") | ${size} MB | $(mean 0) s | $(mean 1) s | $(mean 2) s | $r0 / $r1 / $r2 MB | $loops |"
done
