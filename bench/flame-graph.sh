#!/bin/sh
# flame-graph.sh [DEPTH...] - hpcviewer-tui --folded and --flame-graph on
# the synthetic databases of viewer-gen-db.sh (default depths 8 and 10:
# about 108,000 and 974,000 scopes), and --flame-graph on a 200,000-deep
# path (tests/lib/viewer-deep-db.sh): wall time, CPU time (user + system), peak
# RSS and output size, best of 2 runs.  With FLAMEGRAPH_PL=/path/to/
# flamegraph.pl (Brendan Gregg's FlameGraph), the same for the usual way
# to draw folded stacks, flamegraph.pl on the --folded output, side by side.
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin=${HPC_BUILD:-$here/../build}/bin
tmp=${TMPDIR:-/tmp}/hpcviewer-bench-flame.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
[ $# -gt 0 ] || set -- 8 10

best() {	# best "elapsed cpu maxrss-MB" of 2 runs; output in $tmp/out
	for i in 1 2; do
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" >"$tmp/out" 2>/dev/null
		awk '{ printf "%s %.2f %d\n", $1, $2 + $3, $4 / 1024 }' "$tmp/t"
	done | sort -n | head -n 1
}

row() {	# row LABEL COMMAND...
	label=$1; shift
	set -- $(best "$@")
	printf '%-34s %8s %8s %8s %9s\n' "$label" "$1" "$2" "$3" \
		"$(wc -c <"$tmp/out" | awk '{ printf "%.1f", $1 / 1048576 }')"
}

printf '%-34s %8s %8s %8s %9s\n' "run" "wall s" "cpu s" "RSS MB" "out MB"
for d in "$@"; do
	sh "$here/viewer-gen-db.sh" "$tmp/db" "$d"
	row "gen-db $d: --folded" "$bin/hpcviewer-tui" --folded - "$tmp/db"
	cp "$tmp/out" "$tmp/folded"
	row "gen-db $d: --flame-graph" "$bin/hpcviewer-tui" --flame-graph - "$tmp/db"
	if [ -n "$FLAMEGRAPH_PL" ]; then
		row "gen-db $d: flamegraph.pl on folded" perl "$FLAMEGRAPH_PL" "$tmp/folded"
	fi
	rm -rf "$tmp/db"
done
sh "$here/../tests/lib/viewer-deep-db.sh" "$tmp/deep" 200000
row "deep 200000: --flame-graph" "$bin/hpcviewer-tui" --flame-graph - "$tmp/deep"
