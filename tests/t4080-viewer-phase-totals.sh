#!/bin/sh
test_description='hpcviewer-tui: the flat, functions and bottom-up views of a database with synchronization data count every sample once'
. "$(dirname "$0")/test-lib.sh"

# A database with synchronization data holds per-phase profiles
# (hpcprof-database(5)): the same samples again, below frames of the
# module <phases>.  The code views must not add them in: each shows the
# same CPU time as the database of the same profiles without their
# .hpcsync files (which has no per-phase profiles).

# The CPU-time columns of a CSV view, the rows with any CPU time, sorted
# (a tie may sort either way).
cpu_rows() {
	awk -F, 'NR == 1 {
			for (i = 1; i <= NF; i++) {
				if ($i == "perf::cpu-clock (s):Sum (I)") ci = i
				if ($i == "perf::cpu-clock (s):Sum (E)") ce = i
			}
			next
		}
		$ci != 0 || $ce != 0 { print $1, $2, $3, $ci, $ce }' "$1" | sort
}

# measure NAME CC-FLAGS ARGS...: NAME/db with synchronization data and
# NAME/nosync from the same profiles without it.
measure() {
	name=$1 flags=$2 && shift 2 &&
	mkdir "$name" &&
	cc -O2 -g -pthread $flags -o "$name/prog" "$TEST_PROGS/rt-sync.c" &&
	OMP_WAIT_POLICY=passive hpcrun -q -e cpu-clock -o "$name/meas" \
		"$name/prog" "$@" >/dev/null &&
	hpcstruct "$name/meas" >/dev/null 2>&1 &&
	ls "$name"/meas/*.hpcsync >/dev/null &&
	cp -R "$name/meas" "$name/meas-nosync" &&
	rm "$name"/meas-nosync/*.hpcsync &&
	hpcprof -o "$name/db" "$name/meas" 2>/dev/null &&
	hpcprof -o "$name/nosync" "$name/meas-nosync" 2>/dev/null &&
	grep -q "n=\"&lt;phases&gt;\"" "$name/db/experiment.xml" &&
	! grep -q "n=\"&lt;phases&gt;\"" "$name/nosync/experiment.xml"
}

# same_views NAME: the code views of NAME/db and NAME/nosync agree.
same_views() {
	for view in flat functions bottom-up; do
		hpcviewer-tui --csv --view $view --depth 3 "$1/db" >"$1/$view.csv" &&
		hpcviewer-tui --csv --view $view --depth 3 "$1/nosync" \
			>"$1/$view-nosync.csv" &&
		cpu_rows "$1/$view.csv" >"$1/$view.rows" &&
		cpu_rows "$1/$view-nosync.csv" >"$1/$view-nosync.rows" &&
		test_cmp "$1/$view-nosync.rows" "$1/$view.rows" || return 1
	done
}

# no_module_over_total NAME: no module of the flat view of NAME/db above
# 100% of the total, and no <phases> module.
no_module_over_total() {
	awk -F, 'NR == 1 {
			for (i = 1; i <= NF; i++)
				if ($i == "perf::cpu-clock (s):Sum (I) %") c = i
			next
		}
		$1 == 1 && ($c > 100 || $3 == "<phases>") { print; bad = 1 }
		END { exit bad }' "$1/flat.csv"
}

test_expect_success 'pthread barrier, 4 threads: flat, functions and bottom-up as without the .hpcsync files' '
	measure pt "" barrier 4 12 spin 5 &&
	same_views pt &&
	no_module_over_total pt
'

test_expect_success 'gcc OpenMP, 4 threads: flat, functions and bottom-up as without the .hpcsync files' '
	measure omp -fopenmp omp 4 12 spin 5 &&
	same_views omp &&
	no_module_over_total omp
'

# level_one_sum CSV: the top-down level 1's CPU time (I) is the root's.
level_one_sum() {
	awk -F, 'NR == 1 {
			for (i = 1; i <= NF; i++)
				if ($i == "perf::cpu-clock (s):Sum (I)") c = i
			next
		}
		$1 == 0 { root = $c }
		$1 == 1 { sum += $c }
		END {
			if (root <= 0 || sum < root * 0.999999 || sum > root * 1.000001) {
				print "level 1 adds up to " sum ", the root is " root
				exit 1
			}
		}' "$1"
}

test_expect_success 'the top-down view adds up, the per-phase profiles under one row' '
	for name in pt omp; do
		hpcviewer-tui --csv --view top-down --depth 2 $name/db >td.csv &&
		level_one_sum td.csv &&
		test "$(grep -c "^1,phases,<per-phase profiles " td.csv)" = 1 &&
		! grep "^1,procedure,<phase " td.csv &&
		grep "^2,procedure,<phase " td.csv || return 1
	done &&
	grep -q "^2,procedure,<phase after pthread_barrier_wait " td.csv ||
	grep -q "^2,procedure,<phase after GOMP_" td.csv
'

test_done
