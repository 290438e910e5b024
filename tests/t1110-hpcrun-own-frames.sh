#!/bin/sh
test_description='hpcrun: its own frames, objects and costs stay out of the program'\''s results (allocation tracking, OpenMP and barrier wrappers)'
. "$(dirname "$0")/test-lib.sh"

PYENV_PYTHON=/root/.pyenv/versions/3.11.7/bin/python3.11
test_lazy_prereq PYENV_PYTHON 'test -x "$PYENV_PYTHON"'

# views DB [data]: every view of DB as text (with "data", the data view), and its folded stacks, in DB.views.
views() {
	for v in top-down bottom-up flat functions; do
		hpcviewer-tui --stdio --view $v "$1" || return 1
	done >"$1.views" &&
	if test -n "$2"; then
		hpcviewer-tui --stdio --view data "$1" >>"$1.views" || return 1
	fi &&
	hpcviewer-tui --folded - "$1" >>"$1.views"
}

# no_own DB [data]: no row of any view of DB, no folded stack, names hpcrun's
# module or its OpenMP trampoline.
no_own() {
	views "$1" "$2" &&
	test -s "$1.views" &&
	! grep -e "libhpcrun" -e "region_body" -e "rt_data" "$1.views"
}

# adds_up MEAS: the log's samples add up with those taken in hpcrun.
adds_up() {
	taken=$(sed -n "s/^samples-taken: //p" "$1"/*.log) &&
	recorded=$(sed -n "s/^samples-recorded: //p" "$1"/*.log) &&
	own=$(sed -n "s/^samples-in-hpcrun: //p" "$1"/*.log) &&
	dropped=$(sed -n "s/^samples-dropped: //p" "$1"/*.log) &&
	test "$((recorded + own + dropped))" -eq "$taken"
}

test_expect_success 'setup: the allocation, OpenMP and barrier programs' '
	cc -O2 -g -pthread -o rt-data "$TEST_PROGS/rt-data.c" &&
	cc -O2 -g -fopenmp -pthread -o rt-sync-gomp "$TEST_PROGS/rt-sync.c" &&
	cc -O2 -g -pthread -o rt-sync "$TEST_PROGS/rt-sync.c"
'

# churn: malloc/free pairs, tracked by --data's wrappers, which before
# showed as malloc, free and rt_data_alloc [libhpcrun.so] in most paths.
test_expect_success 'an allocation loop under --data: no view names libhpcrun.so' '
	hpcrun -q --data -o churn ./rt-data churn 2000000 &&
	hpcprof -o churn.d churn >/dev/null &&
	no_own churn.d data &&
	adds_up churn &&
	grep "^samples-in-hpcrun: [0-9]*$" churn/*.log
'

test_expect_success 'the allocations keep their program paths, malloc outermost of libc' '
	grep -q "churn \[rt-data\]" churn.d.views &&
	hpcviewer-tui --folded - churn.d >churn.folded &&
	! grep "malloc;malloc" churn.folded
'

test_expect_success 'gcc OpenMP: no region_body nor GOMP_parallel of hpcrun in any path' '
	OMP_WAIT_POLICY=passive hpcrun -q -o omp ./rt-sync-gomp omp 4 8 spin 10 >out &&
	hpcprof -o omp.d omp >/dev/null &&
	no_own omp.d &&
	adds_up omp &&
	grep "GOMP_parallel \[libgomp" omp.d.views
'

test_expect_success 'OpenMP: the outlined bodies hang below libgomp, not below hpcrun' '
	hpcviewer-tui --folded - omp.d >omp.folded &&
	grep "_omp_fn" omp.folded >bodies &&
	test -s bodies &&
	! grep -v "libgomp\|GOMP\|gomp_thread_start\|start_thread\|clone" bodies
'

test_expect_success 'a pthread barrier program, sleeping and spinning: no libhpcrun.so' '
	hpcrun -q -o bsleep ./rt-sync barrier 4 8 sleep 10 >out &&
	hpcprof -o bsleep.d bsleep >/dev/null &&
	no_own bsleep.d &&
	hpcrun -q -o bspin ./rt-sync barrier 4 8 spin 10 >out &&
	hpcprof -o bspin.d bspin >/dev/null &&
	no_own bspin.d &&
	adds_up bspin
'

test_expect_success PYENV_PYTHON 'CPython under --data: no view names libhpcrun.so' '
	hpcrun -q --data -o py "$PYENV_PYTHON" -c "d={};l=[]
for i in range(300000): d[str(i)]=i; l.append(i*2)
l.sort()" &&
	hpcprof -o py.d py >/dev/null &&
	no_own py.d data &&
	adds_up py
'

test_done
