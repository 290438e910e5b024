#!/bin/sh
# viewer-deep.sh [DEPTH...] - hpcviewer-tui on one call path DEPTH frames
# deep (tests/lib/viewer-deep-db.sh: mutual recursion f/g, default depths
# 20000 60000 200000): wall time, CPU time (user + system) and peak RSS of
# "--csv" of each whole view, best of 2 runs.  Linear work shows as time and
# memory growing 10x from 20,000 to 200,000 frames.
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin=${HPC_BUILD:-$here/../build}/bin
tmp=${TMPDIR:-/tmp}/hpcviewer-bench-deep.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
[ $# -gt 0 ] || set -- 20000 60000 200000

best() {	# best "elapsed cpu maxrss" of 2 runs of the command
	for i in 1 2; do
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" >/dev/null 2>&1
		awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tmp/t"
	done | sort -n | head -n 1
}

printf '%7s %7s | %-20s | %-20s | %-20s | %-20s\n' depth "XML MB" \
	"top-down: s, cpu, MB" "bottom-up" "flat" "functions"
for d in "$@"; do
	sh "$here/../tests/lib/viewer-deep-db.sh" "$tmp/db" "$d"
	mb=$(wc -c <"$tmp/db/experiment.xml" |
		awk '{ printf "%.1f", $1 / 1048576 }')
	line=$(printf '%7s %7s' "$d" "$mb")
	for v in top-down bottom-up flat functions; do
		set -- $(best "$bin/hpcviewer-tui" --csv --view $v "$tmp/db")
		line="$line | $(printf '%-20s' "$1, $2, $(($3 / 1024))")"
	done
	echo "$line"
	rm -rf "$tmp/db"
done
