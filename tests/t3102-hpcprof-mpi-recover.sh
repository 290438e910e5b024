#!/bin/sh
test_description='hpcprof-mpi recovers a killed process once and says it as hpcprof does'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/kill-lib.sh"

test_expect_success HPCPROF_MPI 'a process killed with its two threads leaves live files' '
	cc -O2 -fomit-frame-pointer -pthread -o rt-end "$TEST_PROGS/rt-end.c" &&
	hpcrun -o k ./rt-end spin 2 >k.out &
	pid=$! &&
	killed $pid k.out &&
	echo $pid >pid &&
	ls k/*.hpcrun-live >live &&
	test_line_count = 3 live &&
	mv k orig
'

# fresh DIR: DIR/k, a copy of the killed process's measurement directory
# (recovery turns its live files into profiles).
fresh() {
	rm -rf "$1" && mkdir "$1" && cp -a orig "$1/k"
}

test_expect_success HPCPROF_MPI 'hpcprof recovers the three threads: the reference' '
	fresh ref &&
	(cd ref && hpcprof -o db k 2>err) &&
	grep "recovered 3 profiles of killed process $(cat pid) (rt-end)" ref/err
'

for np in 2 3; do
	for run in 1 2 3; do
		test_expect_success HPCPROF_MPI "-np $np, run $run: one recovery, hpcprof's messages, its database" '
			fresh np'$np'r'$run' &&
			(cd np'$np'r'$run' && $MPIRUN '$np' hpcprof-mpi -j 1 -o db k 2>err.all) &&
			grep "^hpcprof-mpi: " np'$np'r'$run'/err.all |
				grep -v "$MPI_CPU_NOTICE" |
				sed "s/^hpcprof-mpi:/hpcprof:/" >actual &&
			test_cmp ref/err actual &&
			diff -r ref/db np'$np'r'$run'/db &&
			ls np'$np'r'$run'/k/*.hpcrun >profiles &&
			test_line_count = 3 profiles &&
			! ls np'$np'r'$run'/k/*.hpcrun-live 2>/dev/null
		'
	done
done

test_done
