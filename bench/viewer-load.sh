#!/bin/sh
# viewer-load.sh [MAXDEPTH] - hpcviewer-tui load time and peak RSS against
# the size of experiment.xml, on viewer-gen-db.sh databases of depth 6 up to
# MAXDEPTH (default 10, ~1M scopes).  Each figure is the best of 3 runs of
# "hpcviewer-tui --stdio --depth 0" (load, build the view, print one row);
# "xmllint --stream" parsing the same file is the reference for the cost of
# the XML parse alone.
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin=${HPC_BUILD:-$here/../build}/bin
max=${1:-10}
tmp=${TMPDIR:-/tmp}/hpcviewer-bench-load.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"

best() {	# best "elapsed maxrss" of 3 runs of the command
	for i in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$tmp/t" "$@" >/dev/null 2>&1
		cat "$tmp/t"
	done | sort -n | head -n 1
}

printf '%5s %9s %8s | %-25s | %-25s | %-25s | %8s\n' depth scopes "XML MB" \
	"top-down: s, MB RSS, MB/s" "bottom-up: s, MB RSS" "flat: s, MB RSS" \
	"xmllint"
d=6
while [ $d -le "$max" ]; do
	"$here/viewer-gen-db.sh" "$tmp/db$d" $d 2>"$tmp/gen"
	scopes=$(sed 's/ .*//' "$tmp/gen")
	bytes=$(wc -c <"$tmp/db$d/experiment.xml")
	mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
	set -- $(best "$bin/hpcviewer-tui" --stdio --depth 0 "$tmp/db$d")
	td=$(awk -v s="$1" -v r="$2" -v mb="$mb" \
		'BEGIN { printf "%.2f, %.0f, %.0f", s, r / 1024, (s > 0 ? mb / s : 0) }')
	set -- $(best "$bin/hpcviewer-tui" --stdio --depth 0 --view bottom-up "$tmp/db$d")
	bu=$(awk -v s="$1" -v r="$2" 'BEGIN { printf "%.2f, %.0f", s, r / 1024 }')
	set -- $(best "$bin/hpcviewer-tui" --stdio --depth 0 --view flat "$tmp/db$d")
	fl=$(awk -v s="$1" -v r="$2" 'BEGIN { printf "%.2f, %.0f", s, r / 1024 }')
	set -- $(best xmllint --stream --noout "$tmp/db$d/experiment.xml")
	printf '%5s %9s %8s | %-25s | %-25s | %-25s | %7ss\n' $d "$scopes" "$mb" \
		"$td" "$bu" "$fl" "$1"
	rm -rf "$tmp/db$d"
	d=$((d + 1))
done
