#!/bin/sh
# hpcrun-python-perf.sh - hpcrun's Python functions against perf's on a
# real Python program: tests/progs/py/textwork.py (records through json,
# log lines through re, sorting with a key function), CPython 3.12 run
# with -X perf, whose trampolines name each Python function to perf as
# "py::QUALNAME:/path/FILE.py".
#
#   bench/hpcrun-python-perf.sh [BUILD]     (BUILD defaults to build/)
#   environment: ROUNDS (interleaved rounds, default 3), CPU_MS (CPU time
#   of a run, default 4000), PY (default pyenv's 3.12; -X perf needs 3.12
#   or later), CALLGRAPH (perf's --call-graph, default dwarf,16384: the
#   pyenv builds have no frame pointers, so "fp" chains stop in
#   libpython), TOP (rows, default 10), HPCRUN_XPERF (1: hpcrun's python
#   runs with -X perf too, default 0).  Skips (exit 0) without perf.
#
# -X perf changes what the interpreter does, not only what perf sees: a
# Python call becomes a C call through a trampoline, whose arguments
# the caller keeps until the call returns, so an argument the callee
# alone holds at its return (encode's records in textwork.py) is freed
# by the caller; without -X perf the callee frees it.  HPCRUN_XPERF=1
# compares the two profilers on the same execution.
#
# Like with like: each sample goes to its innermost Python function (its
# own bytecode and the C code it called), in hpcrun from hpcviewer-tui
# --folded (tests/lib/python-lib.sh, innermost_python), in perf from the
# first "py::" frame of 'perf script' up from the leaf (perf unwinds C
# frames with the DWARF stack copies and cannot unwind past a trampoline,
# so the innermost one is what it sees reliably); shares are of the
# samples with a Python function in each tool (each tool's samples without
# one are said), pooled over the rounds.  Prints a Markdown report for
# docs/BENCHMARKS.md: the TOP functions by hpcrun's share, both shares,
# their difference; the bar: every difference within 2 points.
set -e
SRC_ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC_ROOT/build}
BIN=$BUILD/bin
ROUNDS=${ROUNDS:-3}
CPU_MS=${CPU_MS:-4000}
CALLGRAPH=${CALLGRAPH:-dwarf,16384}
TOP=${TOP:-10}
XPERF=
[ "${HPCRUN_XPERF:-0}" = 1 ] && XPERF="-X perf"
. "$SRC_ROOT/bench/lib.sh"
. "$SRC_ROOT/tests/lib/python-lib.sh"
skip() { echo "(skipped: $*)"; exit 0; }
command -v perf >/dev/null 2>&1 || skip "perf is not installed"
PY=${PY:-$(pypath 3.12)} || skip "no CPython 3.12 under $PYROOT (set PY)"
"$PY" -X perf -c pass 2>/dev/null || skip "$PY has no -X perf"
bench_workdir_said hpcrun-python-perf
perf record -q -e cpu-clock:u -o probe.data true >/dev/null 2>&1 ||
	skip "perf record cannot sample here (perf_event_paranoid?)"
export PYTHONDONTWRITEBYTECODE=1
cp "$SRC_ROOT/tests/progs/py/textwork.py" .

# perf_innermost DATA: "SAMPLES FILE QUALNAME" of each sample's innermost
# py:: frame of a .py file (as innermost_python, which leaves out frozen
# modules' frames), "(none)" for a sample without one
perf_innermost() {
	perf script -i "$1" -F ip,sym 2>>perf.err | awk '
		function flush() { if (n) got[key ? key : "(none)"]++; n = 0; key = "" }
		/^[ \t]*$/ { flush(); next }
		{
			n++
			if (key == "" && $2 ~ /^py::.*\.py$/) {
				s = $2; sub(/^py::/, "", s)
				i = match(s, /:[^:]*$/)
				path = substr(s, i + 1); q = substr(s, 1, i - 1)
				sub(/.*\//, "", path)
				key = path " " q
			}
		}
		END { flush(); for (k in got) print got[k], k }'
}

r=1
: >h.folded
: >p.counts
while [ $r -le "$ROUNDS" ]; do
	rm -rf m db
	"$BIN/hpcrun" -q -o m "$PY" $XPERF textwork.py "$CPU_MS" >/dev/null 2>>hpcrun.err
	"$BIN/hpcprof" -o db m 2>>hpcprof.err
	"$BIN/hpcviewer-tui" --folded - db >>h.folded 2>>viewer.err
	# the shell becomes python: its pid names python's /tmp/perf-PID.map
	perf record -q -e cpu-clock:u -F 1000 --call-graph "$CALLGRAPH" -o p.data \
		sh -c 'echo $$ >pid; exec "$0" -X perf textwork.py "$1"' "$PY" "$CPU_MS" \
		>/dev/null 2>>perf.err
	perf_innermost p.data >>p.counts
	rm -f p.data "/tmp/perf-$(cat pid).map"
	r=$((r + 1))
done

# shares of the samples with a Python function: "FILE QUALNAME<TAB>SHARE"
innermost_python h.folded | awk '{ s = $1; $1 = ""; sub(/^ /, ""); print $0 "\t" s }' >h.share
awk '{ c = $1; $1 = ""; sub(/^ /, ""); got[$0] += c; all += c }
	END { for (k in got) printf "%s\t%.2f\n", k, 100 * got[k] / all }' p.counts >p.share
h_none=$(awk -F '\t' '$1 == "(none)" { print $2 }' h.share)
p_none=$(awk -F '\t' '$1 == "(none)" { print $2 }' p.share)
norm() {
	awk -F '\t' '$1 != "(none)" { all += $2; v[$1] = $2 }
		END { for (k in v) printf "%s\t%.2f\n", k, 100 * v[k] / all }' "$1"
}
norm h.share | sort -t "$(printf '\t')" -k2,2nr >h.norm
norm p.share >p.norm

echo "## Python frames: hpcrun against perf -X perf"
echo
echo "Measured $(date -u +%Y-%m-%d) by \`bench/hpcrun-python-perf.sh\` at"
echo "$(git -C "$SRC_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') on $(nproc) cores, $(uname -sr), $(perf --version);"
echo "\`$("$PY" -c 'import sys; print("CPython %d.%d.%d" % sys.version_info[:3])')\` on \`textwork.py $CPU_MS\`, $ROUNDS interleaved rounds:"
echo "\`hpcrun${XPERF:+ python $XPERF}\` (cpu-clock, 1000/s) and \`perf record -e cpu-clock:u -F 1000 --call-graph $CALLGRAPH python -X perf\`."
echo "Samples without a Python function: hpcrun ${h_none:-0}%, perf ${p_none:-0}%; the shares below"
echo "are of the samples with one."
echo
echo "| Python function (innermost) | hpcrun | perf | difference, points |"
echo "|---|---|---|---|"
head -n "$TOP" h.norm | awk -F '\t' '
	FILENAME == ARGV[1] { p[$1] = $2; next }
	{
		d = $2 - p[$1]; if (d < 0) d = -d; if (d > worst) worst = d
		printf "| %s | %.2f | %.2f | %.2f |\n", $1, $2, p[$1], d
	}
	END {
		printf "\nLargest difference over the top %d: %.2f points (bar 2: %s).\n",
			FNR, worst, worst <= 2 ? "met" : "NOT met"
	}' p.norm -
