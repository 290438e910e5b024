#!/bin/sh
test_description='every measured thread of a PyTorch-shaped run (thread pools, OpenMP teams from several threads, constructors, a fork) has a name of its own in phases.tsv and the phases view, the THREAD of its files'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq LIBOMP 'echo "int main(void){return 0;}" >omp.c && clang -fopenmp=libomp -o omp omp.c'

# tests/progs/rt-threads.c: the parent measures 13 threads with gcc, the
# forked child 2; the thread the library's constructor makes before
# hpcrun's is not measured.
build() {
	$1 -O2 -g -pthread $2 -shared -fPIC -DRT_THREADS_LIB \
		-o librt-threads.so "$TEST_PROGS/rt-threads.c" &&
	$1 -O2 -g -pthread $2 -o rt-threads "$TEST_PROGS/rt-threads.c" \
		-L. -lrt-threads -Wl,-rpath,"$PWD"
}

# The names the files give: "process PID thread T" (two processes).
file_names() {
	ls "$1" | sed -n "s/^rt-threads-[0-9]*-0*\([0-9][0-9]*\)-[0-9a-f]*-\([0-9]*\)-[0-9]*\.hpcsync$/process \2 thread \1/p" |
		sort
}

# Each thread row of the phases view after the line of its site or phase
# kind, numbered (two sites at one line can print alike: their values are
# rounded):
# "N SITE<tab>NAME".
view_rows() {
	hpcviewer-tui --stdio --view phases "$1" |
		awk '!/^[0-9. ]*    (process [0-9]+ )?thread [0-9]+( +\|.*)?$/ { site = ++n " " $0; next }
			{ sub(/ *\|.*$/, ""); sub(/^[0-9. ]*    /, ""); print site "\t" $0 }'
}

names_right() {
	file_names $1 >expect &&
	test_line_count = $2 expect &&
	ls $1/*.hpcrun >profiles && test_line_count = $2 profiles &&
	grep -v "^#" $3/threads.tsv >threads && test_line_count = $2 threads &&
	awk "\$1 == \"thread\" { print \$3 } \$1 == \"phase-thread\" { print \$4 }" \
		$3/phases.tsv | sort -u >tsv && test_line_count = $2 tsv &&
	view_rows $3 >rows &&
	cut -f 2 rows | sort -u >actual &&
	test_cmp expect actual &&
	sort rows | uniq -d >dups && test_line_count = 0 dups &&
	awk "\$1 == \"thread\" { print \$2, \$3 } \$1 == \"phase-thread\" { print \$2, \$3, \$4 }" \
		$3/phases.tsv | sort | uniq -d >dups && test_line_count = 0 dups
}

test_expect_success 'gcc, libgomp: 15 threads, 15 names, each the THREAD of its files, once per site' '
	build cc -fopenmp &&
	hpcrun -o g ./rt-threads 3 &&
	hpcstruct g >/dev/null 2>&1 &&
	hpcprof -o gdb g 2>err &&
	names_right g 15 gdb
'

test_expect_success LIBOMP 'clang, libomp: as many names as threads, each the THREAD of its files' '
	build clang -fopenmp=libomp &&
	hpcrun -o l ./rt-threads 3 &&
	hpcstruct l >/dev/null 2>&1 &&
	hpcprof -o ldb l 2>err &&
	n=$(ls l/*.hpcsync | wc -l) && test "$n" -ge 9 &&
	names_right l $n ldb
'

test_done
