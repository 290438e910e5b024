#!/bin/sh
test_description='hpcviewer-tui: the time columns by default, others on request, never the scope left out, percentages as percentages'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

# A 4-thread barrier program: cpu-clock, its instruction-mix shares and
# the synchronization metrics, 24 columns the database shows.
test_expect_success 'setup: measure, analyze, correlate' '
	cc -O2 -g -pthread -o rt-sync "$TEST_PROGS/rt-sync.c" &&
	hpcrun -q -e cpu-clock -o meas ./rt-sync barrier 4 12 spin 5 >/dev/null &&
	hpcstruct meas >/dev/null 2>&1 &&
	hpcprof -o db meas 2>/dev/null &&
	hpcviewer-tui --csv db | sed -n 1p | tr , "\n" | grep -c " %$" >ncols &&
	test "$(cat ncols)" -ge 20
'

# Every row of text has a name after its cells (the cells are right
# aligned, so the scope starts after two spaces).
named_rows() {
	sed 1d "$1" | grep -v "  [-+ ] [^ ]" && return 1
	return 0
}

test_expect_success 'text by default: the cpu-clock columns, then the scope' '
	for view in top-down bottom-up flat functions; do
		hpcviewer-tui --stdio --view $view db >out &&
		sed -n 1p out >head &&
		echo "perf::cpu-clock (s):Sum (I)  perf::cpu-clock (s):Sum (E)  Scope ($view)" >expect &&
		test_cmp expect head &&
		named_rows out || exit 1
	done
'

test_expect_success '--width 120 and 80: lines that fit, every row named, the sort column kept' '
	for w in 120 80; do
		for cols in "" "--metrics all"; do
			hpcviewer-tui --stdio --view functions --width $w $cols db >out &&
			awk -v w=$w "length > w { print; bad = 1 } END { exit bad }" out &&
			named_rows out &&
			sed -n 1p out | grep -q "perf::cpu-clock (s):Sum (E)" &&
			grep -q "  [+ ] work \[rt-sync\]" out || exit 1
		done
	done &&
	hpcviewer-tui --stdio --view functions --width 80 db | sed -n 1p >head &&
	echo "perf::cpu-clock (s):Sum (E)  Scope (functions)" >expect &&
	test_cmp expect head
'

# The integer share: nearly all of the program's user time (its spin is
# mostly the kernel's, reading the thread's clock), far from 0; its FP
# share may be 0 in a run, which shows blank.
test_expect_success '--metrics: the columns named, in table order; a share as a percentage' '
	hpcviewer-tui --stdio --metrics "int_share,barrier wait,cpu-clock" --depth 1 db >out &&
	sed -n 1p out >head &&
	echo "perf::cpu-clock (s):Sum (I)  barrier wait (s):Sum (I)  perf::cpu-clock.int_share (I)  Scope (top-down)" >expect &&
	test_cmp expect head &&
	sed -n 2p out | grep -Eq "^ +[0-9.]+e[-+][0-9]+ 100\.0% +[0-9.]+e[-+][0-9]+ 100\.0% +[0-9]+\.[0-9]%  - Experiment Aggregate Metrics$" &&
	! grep -q "e+01  " out
'

test_expect_success '--metrics: CSV takes it too; without it CSV has every shown column' '
	hpcviewer-tui --csv --metrics cpu-clock --depth 0 db | sed -n 1p >head &&
	echo "depth,kind,scope,file,line,perf::cpu-clock (s):Sum (I),perf::cpu-clock (s):Sum (I) %" >expect &&
	test_cmp expect head &&
	hpcviewer-tui --csv --depth 0 db | sed -n 1p | tr , "\n" | grep -c " %$" >n &&
	test_cmp ncols n
'

test_expect_success '--metrics with no such metric: one line naming it, exit 1' '
	status=0 && hpcviewer-tui --stdio --metrics cpu-clock,bogus db >out 2>err || status=$? &&
	test $status = 1 && ! test -s out &&
	test_line_count = 1 err &&
	grep -q "^hpcviewer-tui: .bogus.: no such metric (" err
'

test_expect_success TMUX 'screen at 80x24: the functions view shows the column it sorts by' '
	open_viewer 80 24 --metrics all --view functions db &&
	screen >s &&
	sed -n 2p s | grep -q "^ *perf::cpu-clock (s):Sum (E)  Scope (+[0-9]* columns: m)" &&
	sed -n 1p s | grep -q "sort: perf::cpu-clock (s):Sum (E)"
'

test_done
