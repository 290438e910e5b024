#!/bin/sh
test_description='hpcrun, hpcprof and the phases view on an OpenMP time loop: one construct is one site with an episode per region however many calls it compiled to, and its phases show the outlined function'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq LIBOMP 'echo "int main(void){return 0;}" >omp.c && clang -fopenmp=libomp -o omp omp.c'

# rt-omp-unrolled R (tests/progs/rt-omp-unrolled.c): R rounds of 6 steps,
# each a region of the one "#pragma omp parallel for" (its line: CONSTRUCT
# below), in a loop of constant trip count that clang -O2 unrolls into 6
# calls of __kmpc_fork_call.

# measure DIR PROG R: hpcrun, hpcstruct and hpcprof with two threads, the
# phases view's CSV in DIR.csv and text in DIR.txt.
measure() {
	rm -rf "$1" "$1.db" &&
	OMP_NUM_THREADS=2 hpcrun -o "$1" "$2" "$3" >"$1.out" &&
	hpcstruct "$1" >/dev/null 2>&1 &&
	hpcprof -o "$1.db" "$1" 2>"$1.err" &&
	hpcviewer-tui --csv --view phases "$1.db" >"$1.csv" &&
	hpcviewer-tui --stdio --width 0 --view phases "$1.db" >"$1.txt"
}

# one_site DIR KIND: one site of KIND at the construct's line, whose
# episodes, in all and in each of the two threads, are the regions the
# program ran; and one phase kind from that site to itself, each thread's
# phases one fewer.
one_site() {
	regions=$(sed -n "s/^regions //p" "$1.out") &&
	line=$(grep -n "CONSTRUCT \*/" "$TEST_PROGS/rt-omp-unrolled.c" | cut -d: -f1) &&
	grep ",$2,all," "$1.csv" >sites &&
	test_line_count = 1 sites &&
	IFS=, read site kind thread episodes rest <sites &&
	test "$episodes" = "$regions" &&
	grep -q ",rt-omp-unrolled.c:$line \[" sites &&
	grep "^$site,$2,[01]," "$1.csv" | cut -d, -f4 >actual &&
	printf "%s\n" $regions $regions >expect &&
	test_cmp expect actual &&
	grep "^$site-$site,phase,[01]," "$1.csv" | cut -d, -f4 >actual &&
	printf "%s\n" $((regions - 1)) $((regions - 1)) >expect &&
	test_cmp expect actual
}

test_expect_success LIBOMP 'setup: clang unrolls the time loop into several calls of one construct' '
	clang -O2 -g -fopenmp=libomp -o rt-omp-unrolled-kmp "$TEST_PROGS/rt-omp-unrolled.c" &&
	test "$(objdump -d rt-omp-unrolled-kmp | grep -c "call.*<__kmpc_fork_call")" -gt 1
'

test_expect_success LIBOMP 'clang with libomp: one kmp-join site, an episode per region' '
	measure k ./rt-omp-unrolled-kmp 20 &&
	one_site k kmp-join
'

test_expect_success 'gcc: one omp-join site, an episode per region' '
	cc -O2 -g -fopenmp -o rt-omp-unrolled-gomp "$TEST_PROGS/rt-omp-unrolled.c" &&
	measure g ./rt-omp-unrolled-gomp 20 &&
	one_site g omp-join
'

# phase_code DIR FN: within the default depth the code of the phase kind
# from the construct to itself names the outlined function FN and the
# loop of the construct (its header's line or its body's), and no line of
# code has an empty label.
phase_code() {
	line=$(grep -n "CONSTRUCT \*/" "$TEST_PROGS/rt-omp-unrolled.c" | cut -d: -f1) &&
	sed -n "/^ *[0-9.]* *[0-9.]* *[0-9]* *[0-9]* *[0-9.]*  from /,\$p" "$1.txt" >code &&
	grep -q "^ *[0-9.e+-]*  *$2\$" code &&
	grep -Eq "^ *[0-9.e+-]*  *loop at rt-omp-unrolled.c:($((line + 1))|$((line + 2)))\$" code &&
	! grep -q "^ *[0-9.e+-]* *\$" code &&
	! grep -q "loop at \$" code
}

# phases DIR PROG FN: measured in a CPU budget (retry_budget), phase_code.
phases() {
	measure "$1" "$2" "$(retry_budget 20)" && phase_code "$1" "$3"
}

test_expect_success 'gcc: a worker phase opens at the outlined function and its loop' '
	retry 3 phases gp ./rt-omp-unrolled-gomp smooth._omp_fn.0
'

test_expect_success LIBOMP 'clang with libomp: a worker phase opens at the outlined function and its loop' '
	retry 3 phases kp ./rt-omp-unrolled-kmp .omp_outlined.
'

test_done
