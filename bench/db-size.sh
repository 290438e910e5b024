#!/bin/sh
# db-size.sh - the size of a database and what it is made of: hpcrun
# measures `make -j2` building hpcstruct from this source tree (about 150
# processes: make, the shell, cc1, as, ld, with the instruction mix of
# hpcstruct's structure files), then hpcprof writes the database.  Prints
# the bytes of the database, of experiment.xml and thread-values.tsv, and
# of experiment.xml's <M> values by kind of column, plus its indentation.
#
#   bench/db-size.sh [WORKDIR [REFDB]]
#     WORKDIR  kept: meas/ (reused when present), db/, views/ (default: a
#              temporary directory, removed)
#     REFDB    a database of the same measurement written by another
#              hpcprof: every view of both, --stdio and --csv with all
#              columns, is printed and compared (diff -r; any difference
#              is shown)
set -eu
SRC_ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${HPC_BUILD:-$SRC_ROOT/build}
BIN=$BUILD/bin
. "$SRC_ROOT/bench/lib.sh"
bench_workdir db-size "${1:-}"
ref=${2:-}

if [ ! -d meas ]; then
	rm -rf obj
	"$BIN/hpcrun" -q -o meas make -s -C "$SRC_ROOT" -j2 BUILD="$dir/obj" \
		"$dir/obj/bin/hpcstruct" >/dev/null 2>&1
	"$BIN/hpcstruct" -j2 meas >/dev/null 2>&1
fi
rm -rf db
"$BIN/hpcprof" -j2 -o db meas 2>&1 | tail -n 1

size() { wc -c <"$1" | tr -d ' '; }
echo "database            $(du -sb db | cut -f1)"
echo "experiment.xml      $(size db/experiment.xml)"
echo "thread-values.tsv   $(size db/thread-values.tsv)"
# Columns by kind, from the metric table: a raw metric's Sum or a
# statistic, an instruction-mix metric's (NAME.fp ...), a derived one.
xmllint --xpath '//Metric' db/experiment.xml 2>/dev/null |
	grep -o '<Metric i="[0-9]*" n="[^"]*"[^>]*v="[a-z-]*"' |
	sed 's/<Metric i="\([0-9]*\)" n="\([^"]*\)".* v="\([a-z-]*\)"/\1\t\2\t\3/' |
	awk -F'\t' '{
		mix = $2 ~ /\.(fp|mem|int|branch)[: ]/ ? "mix " : "";
		k = $3 == "derived" ? "derived" : $2 ~ /:(Mean|Min|Max|StdDev|CoefVar) / ? mix "statistic" : mix "sum";
		print $1 "\t" k
	}' >kinds
grep -o '<M n="[0-9]*" v="[^"]*"/>' db/experiment.xml |
	awk -F'"' 'NR == FNR { kind[$0 + 0] = substr($0, index($0, "\t") + 1); next }
		{ k = kind[$2]; if (k == "") k = "data attribute";
		  n[k]++; b[k] += length($0) + 1 }
		END { for (k in n) printf "  <M> %-16s %8d values %10d bytes\n", k, n[k], b[k] }' \
		FS='\t' kinds FS='"' - | sort
awk '{ match($0, /^ */); s += RLENGTH } END { printf "  indentation %25d bytes\n", s }' \
	db/experiment.xml

[ -n "$ref" ] || exit 0
# views DB OUT: every view as text and CSV, all columns.
views() {
	mkdir -p "$2"
	for v in top-down bottom-up flat functions; do
		"$BIN/hpcviewer-tui" --stdio --metrics all --view $v "$1" >"$2/$v.txt"
		"$BIN/hpcviewer-tui" --csv --metrics all --view $v "$1" >"$2/$v.csv"
	done
}
rm -rf views
views "$ref" views/ref
views db views/new
if diff -r views/ref views/new >views/diff; then
	echo "views: identical to $ref's ($(cat views/ref/* | wc -l) lines)"
else
	echo "views: differ from $ref's:"
	head -n 40 views/diff
fi
