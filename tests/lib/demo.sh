#!/bin/sh
# demo.sh - 'make demo': profile the bundled example end to end and print
# its hot spots.  Runs in $DEMO_DIR (default $HPC_BUILD/demo); the tools
# come from $HPC_BUILD/bin.
set -u
SRC_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HPC_BUILD=${HPC_BUILD:-$SRC_ROOT/build}
PATH=$HPC_BUILD/bin:$PATH
dir=${DEMO_DIR:-$HPC_BUILD/demo}
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1

step() { printf '\n== %s\n' "$*"; }

step "compile the example: cc -O2 -g -pthread -o demo tests/progs/demo.c"
cc -O2 -g -pthread -o demo "$SRC_ROOT/tests/progs/demo.c" || exit 1

step "measure: hpcrun -o demo-measurements ./demo"
hpcrun -o demo-measurements ./demo || {
	echo "demo: hpcrun failed; stopping here"; exit 1; }

step "recover structure: hpcstruct demo-measurements"
hpcstruct demo-measurements || {
	echo "demo: hpcstruct failed; stopping here"; exit 1; }

step "correlate and report: hpcprof -o demo-database --text - demo-measurements"
hpcprof -o demo-database --top 8 --text - demo-measurements || {
	echo "demo: hpcprof failed; stopping here"; exit 1; }

step "calling context: hpcviewer-tui --stdio --depth 4 demo-database"
hpcviewer-tui --stdio --depth 4 demo-database || {
	echo "demo: hpcviewer-tui failed"; exit 1; }

printf '\nBrowse it interactively with:\n  %s/bin/hpcviewer-tui %s/demo-database\n' \
	"$HPC_BUILD" "$dir"
