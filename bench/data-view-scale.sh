#!/bin/sh
# data-view-scale.sh [N...] - hpcprof and hpcviewer-tui --view data on a
# synthetic hpcrun --data profile of N heap objects (default 1000 10000
# 100000), each its own allocation path (^Heap -> frame -> ^Access -> two
# access frames, one sample), in a module without a binary (addresses).
# Prints wall time, CPU time (user + system) and peak RSS of hpcprof and of
# the data view's whole CSV, best of 2 runs: linear work grows 10x per
# line.  The same profile without data roots (every sample under ^Primary)
# is timed beside it: the data tree's own cost is the difference.
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${HPC_BUILD:-$here/../build}
bin=$build/bin
tmp=${TMPDIR:-/tmp}/data-view-scale.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
[ $# -gt 0 ] || set -- 1000 10000 100000
cc -I"$here/../lib" -o "$tmp/mkprofile" "$here/../tests/progs/pf-mkprofile.c" \
	"$build/obj/libhpc.a"

best() {	# best "elapsed cpu maxrss" of 2 runs of the command
	for i in 1 2; do
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" >/dev/null 2>&1
		awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tmp/t"
	done | sort -n | head -n 1
}

# spec N DATA: the profile's spec, with data roots when DATA is 1
spec() {
	awk -v n="$1" -v data="$2" 'BEGIN {
		print "header program-name scale"
		if (data) print "header data-centric 1"
		print "lm 1 /nonexistent/scale"
		print "metric cycles int"
		print "metric DATA:bytes int"
		print "node 1 0 0 ^Primary"
		id = 2
		for (i = 0; i < n; i++) {
			if (data) {
				printf "node %d 0 0 ^Heap\n", id
				printf "node %d %d 1 %x\n", id + 1, id, 4096 + 16 * i
				printf "value %d 1 4096\n", id + 1
				printf "node %d %d 0 ^Access\n", id + 2, id + 1
				top = id + 2
				id += 3
			} else {
				top = 1
			}
			printf "node %d %d 1 %x\n", id, top, 1048576 + 16 * (i % 64)
			printf "node %d %d 1 %x\n", id + 1, id, 2097152 + 16 * i
			printf "value %d 0 1\n", id + 1
			id += 2
		}
	}'
}

printf '%7s | %-22s | %-22s | %-22s\n' objects "hpcprof plain: s,cpu,KB" \
	"hpcprof --data" "viewer --view data"
for n in "$@"; do
	rm -rf "$tmp/p" "$tmp/d" "$tmp/dbp" "$tmp/dbd"
	mkdir "$tmp/p" "$tmp/d"
	spec "$n" 0 | "$tmp/mkprofile" "$tmp/p/scale-000000-000-00001234-1-0.hpcrun"
	spec "$n" 1 | "$tmp/mkprofile" "$tmp/d/scale-000000-000-00001234-1-0.hpcrun"
	p=$(best sh -c "rm -rf '$tmp/dbp'; '$bin/hpcprof' -o '$tmp/dbp' '$tmp/p'")
	d=$(best sh -c "rm -rf '$tmp/dbd'; '$bin/hpcprof' -o '$tmp/dbd' '$tmp/d'")
	v=$(best "$bin/hpcviewer-tui" --csv --view data "$tmp/dbd")
	printf '%7s | %-22s | %-22s | %-22s\n' "$n" "$p" "$d" "$v"
done
