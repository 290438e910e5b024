#!/bin/sh
test_description='hpcrun: OpenMP regions started by more than one thread at once (nested teams, a pool of pthreads), gcc/libgomp: one join a construct at its line, its summed waits within max(20 ms, 10%) of the truth the program prints'
. "$(dirname "$0")/test-lib.sh"

# check DB OUT C...: for each construct C of OUT (rt-omp-nested.c's
# header), phases.tsv of DB has one omp-join site at its line, whose
# threads' waits add up to the program's, with a last arrival in each of
# its regions and each team thread's episode in each; no other site.
check() {
	db=$1 out=$2 &&
	shift 2 &&
	awk -F'\t' '$1 == "site" && $3 != "mutex" && $3 != "cond" && $3 != "sem"' "$db/phases.tsv" >sites &&
	test_line_count = $# sites &&
	for c in "$@"; do
		line=$(awk -v c=$c '$1 == "construct" && $2 == c { print $3 }' "$out") &&
		regions=$(awk -v c=$c '$1 == "regions" && $2 == c { print $3 }' "$out") &&
		want=$(awk -v c=$c '$1 == "wait" && $2 == c { print $3 }' "$out") &&
		grep "rt-omp-nested.c:$line \[" sites >site || { cat sites; exit 1; }
		test_line_count = 1 site &&
		set -- $(cut -f 2,3,10,12 site) &&
		test "$2" = omp-join && test "$4" = "$regions" &&
		test "$(awk -F'\t' -v s="$1" '$1 == "episode" && $2 == s' "$db/phases.tsv" | wc -l)" = $((2 * regions)) &&
		got=$(awk -F'\t' -v s="$1" '$1 == "thread" && $2 == s { w += $5 } END { printf "%.9f\n", w }' "$db/phases.tsv") &&
		test_within "$3" "$got" 0.000001 &&
		tol=$(awk -v w="$want" 'BEGIN { t = w / 10; print (t > 0.02 ? t : 0.02) }') &&
		test_within "$got" "$want" "$tol" || { echo "construct $c: wait $got, truth $want" >&2; exit 1; }
	done
}

test_expect_success 'setup: the program with gcc -fopenmp' '
	cc -O2 -g -fopenmp -pthread -o nested "$TEST_PROGS/rt-omp-nested.c"
'

for policy in passive active; do
	test_expect_success "nested teams, OMP_WAIT_POLICY=$policy: outer and inner joins at their lines, waits as the program saw them" "
		OMP_MAX_ACTIVE_LEVELS=2 OMP_WAIT_POLICY=$policy hpcrun -o n-$policy ./nested nested >out-n-$policy &&
		hpcprof -o db-n-$policy n-$policy >/dev/null &&
		check db-n-$policy out-n-$policy outer inner
	"
	test_expect_success "a pool of pthreads, OMP_WAIT_POLICY=$policy: one join at the construct, waits as the program saw them" "
		OMP_WAIT_POLICY=$policy hpcrun -o p-$policy ./nested pool >out-p-$policy &&
		hpcprof -o db-p-$policy p-$policy >/dev/null &&
		check db-p-$policy out-p-$policy pool
	"
done

test_done
