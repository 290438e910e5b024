#!/bin/sh
test_description='hpcrun: OpenMP barriers in unmodified programs, GCC libgomp (explicit barriers, static and dynamic loops, the region join) and LLVM libomp'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/sync-lib.sh"

test_lazy_prereq LIBOMP 'echo "int main(void){return 0;}" >omp.c && clang -fopenmp=libomp -o omp omp.c'

test_expect_success 'setup: the test program with gcc -fopenmp' '
	cc -O2 -g -fopenmp -pthread -o rt-sync-gomp "$TEST_PROGS/rt-sync.c"
'

# rt-sync omp T R MODE MS: in round r thread r % T works 4 MS, the others
# MS, then "#pragma omp barrier"; then a static and a dynamic loop.
test_expect_success 'gcc: the omp barrier of the rounds, its late thread last in every episode' '
	OMP_WAIT_POLICY=passive hpcrun -o g4 ./rt-sync-gomp omp 4 16 sleep 10 >out &&
	ls g4/*.hpcsync >files && test_line_count = 4 files &&
	site=$(site_of g4 omp-barrier) &&
	set -- $(lasts_right g4 $site 4 out) && test "$2" = 16 && test "$1" -ge 15 &&
	last_counts_right g4 $site 4 out &&
	for i in 0 1 2 3; do
		set -- $(sync_line g4 $i $site) && test "$1" = 16 || exit 1
	done &&
	consistent g4 $site
'

test_expect_success 'gcc: the static loend barrier and the join of the region are sites too, one episode each per thread' '
	grep "^site [0-9]* omp-barrier " g4/*-002-*.hpcsync >bars &&
	test_line_count = 2 bars &&
	grep "^site [0-9]* omp-join 0x[0-9a-f]* [1-9][0-9]* 4$" g4/*-002-*.hpcsync >joins &&
	test_line_count = 1 joins &&
	j=$(sed -n "s/^site \([0-9]*\) omp-join .*/\1/p" g4/*-002-*.hpcsync) &&
	for i in 0 1 2 3; do
		set -- $(sync_line g4 $i $j) && test "$1" = 1 || exit 1
	done
'

test_expect_success 'gcc: spinning threads, per-phase work at the rounds barrier within max(1 ms, 5%)' '
	hpcrun -o g2 ./rt-sync-gomp omp 2 8 spin 20 >out &&
	site=$(site_of g2 omp-barrier) &&
	# rounds 1-7: thread 0 works 80 ms in 3 and 20 ms in 4, thread 1 80 ms
	# in 4 and 20 ms in 3
	test_within "$(work_of g2 0 $site)" 0.32 0.016 &&
	test_within "$(work_of g2 1 $site)" 0.38 0.019 &&
	set -- $(lasts_right g2 $site 2 out) && test "$1" -ge 7
'

test_expect_success LIBOMP 'clang with libomp: __kmpc_barrier, the late thread last in every episode' '
	clang -O2 -g -fopenmp=libomp -o rt-sync-kmp "$TEST_PROGS/rt-sync.c" &&
	KMP_BLOCKTIME=0 hpcrun -o k4 ./rt-sync-kmp omp 4 16 sleep 10 >out &&
	site=$(site_of k4 kmp-barrier) &&
	grep -q "^site $site kmp-barrier 0x4 [1-9][0-9]* 4$" k4/*-000-*.hpcsync &&
	set -- $(lasts_right k4 $site 4 out) && test "$2" = 16 && test "$1" -ge 15 &&
	last_counts_right k4 $site 4 out &&
	consistent k4 $site
'

test_expect_success LIBOMP 'clang with libomp: the worksharing loops end at barriers of their own' '
	grep "^site [0-9]* kmp-barrier " k4/*-001-*.hpcsync >bars &&
	test_line_count = 3 bars
'

test_done
