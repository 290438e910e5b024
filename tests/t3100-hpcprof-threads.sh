#!/bin/sh
test_description='hpcprof -j N writes the database -j 1 writes, byte for byte'
. "$(dirname "$0")/test-lib.sh"

# exits_with N CMD...: CMD exits with status N.
exits_with() {
	want=$1; shift
	"$@"; got=$?
	test "$got" = "$want" || { echo "exit status $got, expected $want: $*"; return 1; }
}

# 48 profiles of two programs (PROGRAM nodes), each thread with its own
# real-valued metric (sums in floating point depend on the order they are
# added in), a placeholder with values, a library without a structure
# file or binary (addresses kept, scopes made on demand) and a module
# whose structure is given; then two bad profiles.
make_spec() {
	awk -v t="$1" -v prog="$2" -v big="${3:-0}" 'BEGIN {
		srand(t + 7)
		printf "header program-name %s\nheader process-id %d\n", prog, 100 + t
		print "lm 1 /nonexistent/prog"; print "lm 2 /nonexistent/libgone.so"
		print "metric cycles int"; print "metric time real"
		printf "thread %d\n", t
		print "node 2 0 0 ^Primary"
		printf "value 2 0 %d\n", 1 + t
		# a call tree over main, work (a loop) and the library
		n = big ? big : 40 + t % 7
		for (i = 1; i <= n; i++) {
			parent = i == 1 ? 2 : 2 * (1 + int((i - 1) / 3))
			lm = i % 5 == 0 ? 2 : 1
			addr = lm == 2 ? 0x500 + 16 * (i % 4) : (i % 2 ? 0x1005 : 0x2015 + (i % 3) * 16)
			printf "node %d %d %d %x\n", 2 * (i + 1), parent, lm, addr
		}
		for (i = 1; i <= n; i++)
			if ((i + t) % 3 == 0)
				printf "value %d 0 %d\nvalue %d 1 %.9f\n", 2 * (i + 1), 1 + int(rand() * 1000), 2 * (i + 1), rand() / 3
	}'
}

test_expect_success 'build the profile generator and 48 profiles of two programs' '
	build_mkprofile &&
	structure_file /nonexistent/prog /src/prog.c >prog.hpcstruct <<-\EOT &&
	<P i="3" n="main" l="10" v="{[0x1000-0x1001)}">
	<S i="4" l="11" v="{[0x1000-0x1010)}"/>
	</P>
	<P i="6" n="work" l="20" v="{[0x2000-0x2001)}">
	<S i="7" l="21" v="{[0x2000-0x2010)}"/>
	<L i="8" l="22" f="/src/prog.c" v="{[0x2010-0x2011)}">
	<S i="9" l="23" v="{[0x2010-0x2020)}"/>
	<S i="10" l="24" v="{[0x2020-0x2040)}"/>
	</L>
	</P>
	EOT
	mkdir meas &&
	t=0 &&
	while [ $t -lt 48 ]; do
		prog=alpha && [ $((t % 4)) -eq 3 ] && prog=beta
		make_spec $t $prog >spec &&
		./mkprofile meas/$prog-000000-$(printf %03d $t)-a8c00001-$((100 + t))-0.hpcrun <spec || return 1
		t=$((t + 1))
	done &&
	ls meas/*.hpcrun >list && test_line_count = 48 list
'

# run_j N DIR: hpcprof -j N in DIR (made), database DIR/db, stderr DIR/err.
run_j() {
	mkdir $2 && (cd $2 && hpcprof -j $1 -S ../prog.hpcstruct -o db ../meas 2>err)
}

test_expect_success '-j 1, 2, 3, 7 and 64 write the same database' '
	run_j 1 j1 &&
	for j in 2 3 7 64; do
		run_j $j j$j &&
		diff -r j1/db j$j/db &&
		test_cmp j1/err j$j/err || return 1
	done &&
	grep "wrote .db. (2 programs, 48 processes, 48 threads" j1/err
'

test_expect_success 'one profile with -j 3: one worker, the database -j 1 writes' '
	mkdir one && cp meas/alpha-000000-000-a8c00001-100-0.hpcrun one/ &&
	(cd one && hpcprof -j 1 -S ../prog.hpcstruct -o db1 . 2>err1 &&
	 hpcprof -j 3 -S ../prog.hpcstruct -o db3 . 2>err3) &&
	diff -r one/db1 one/db3
'

# 24 profiles, the 13th (the first of the second thread's range at -j 2)
# of 100,000 contexts: the first thread is done while the second has 11
# left, and takes the second half of them as a third range.
test_expect_success 'a thread done early takes half of what another has left: the same database' '
	mkdir meas-steal &&
	t=0 &&
	while [ $t -lt 24 ]; do
		big=0 && [ $t -eq 12 ] && big=100000
		make_spec $t alpha $big >spec &&
		./mkprofile meas-steal/alpha-000000-$(printf %03d $t)-a8c00001-$((100 + t))-0.hpcrun <spec || return 1
		t=$((t + 1))
	done &&
	for j in 1 2 3; do
		mkdir steal$j &&
		(cd steal$j && hpcprof -j $j -S ../prog.hpcstruct -o db ../meas-steal 2>err) || return 1
	done &&
	diff -r steal1/db steal2/db && test_cmp steal1/err steal2/err &&
	diff -r steal1/db steal3/db && test_cmp steal1/err steal3/err
'

# tmpfail.so: tmpfile() fails (EMFILE) from call TMPFAIL_AFTER + 1 on.
# hpcprof -j 3 makes one per worker, where its per-thread values wait.
test_expect_success 'a worker without its temporary file: one line, exit 1, no database' '
	cat >tmpfail.c <<-\EOT &&
	#define _GNU_SOURCE
	#include <dlfcn.h>
	#include <errno.h>
	#include <stdio.h>
	#include <stdlib.h>
	static int calls;
	FILE *tmpfile(void)
	{
		FILE *(*real)(void) = (FILE *(*)(void))dlsym(RTLD_NEXT, "tmpfile");
		const char *n = getenv("TMPFAIL_AFTER");

		if (n && __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) > atoi(n))
			return errno = EMFILE, NULL;
		return real();
	}
	EOT
	cc -shared -fPIC -o tmpfail.so tmpfail.c -ldl &&
	mkdir fail &&
	(cd fail && exits_with 1 env TMPFAIL_AFTER=1 LD_PRELOAD=$PWD/../tmpfail.so \
		ASAN_OPTIONS=verify_asan_link_order=0 \
		hpcprof -j 3 -S ../prog.hpcstruct -o db ../meas 2>err) &&
	echo "hpcprof: cannot create a temporary file: Too many open files" >want &&
	test_cmp want fail/err &&
	! test -e fail/db
'

test_expect_success 'the merged tree holds every thread: sums over threads are exact' '
	for f in meas/*.hpcrun; do hpcprof --dump $f; done |
	awk "/^  ctx / { for (i = 3; i < NF; i++) if (\$i == \"[0]\") s += \$(i + 1) } END { print s }" >want &&
	xmllint --xpath "string(//SecCallPathProfileData/M[@n=\"0\"]/@v)" j3/db/experiment.xml >got &&
	test_cmp want got &&
	grep "&lt;program alpha&gt;" j3/db/experiment.xml &&
	grep "&lt;program beta&gt;" j3/db/experiment.xml &&
	grep "&lt;unknown&gt; 0x1f" j7/db/experiment.xml &&
	grep "Primary&gt;" j7/db/experiment.xml
'

test_expect_success 'bad profiles: one line each in profile order, exit 1, same database' '
	head -c 100 meas/alpha-000000-000-a8c00001-100-0.hpcrun >meas/alpha-000000-900-a8c00001-900-0.hpcrun &&
	echo garbage >meas/alpha-000000-901-a8c00001-901-0.hpcrun &&
	! run_j 1 b1 && exits_with 1 run_j 4 b4 &&
	exits_with 1 hpcprof -j 1 -S prog.hpcstruct -o b1again meas 2>/dev/null &&
	test_cmp b1/err b4/err &&
	diff -r b1/db b4/db &&
	grep "900-0.hpcrun.: truncated.*; skipping it" b1/err >l900 && test_line_count = 1 l900 &&
	grep "901-0.hpcrun.*; skipping it" b1/err >l901 && test_line_count = 1 l901 &&
	grep -n skipping b1/err | cut -d: -f1 | tr "\n" " " >order &&
	printf "1 2 " >want && test_cmp want order
'

# The benchmarks' tree (tests/lib/syn-tree.sh), smaller; node ids dense (as
# hpcrun writes them) and spread out (the reader's other index).
test_expect_success 'a deep tree of 8 x 3,000 contexts: -j 1, 2 and 5 write the same database, whatever the ids' '
	sh "$SRC_ROOT/tests/lib/syn-tree.sh" struct >deep.hpcstruct &&
	mkdir deep spread &&
	for t in 0 1 2 3 4 5 6 7; do
		sh "$SRC_ROOT/tests/lib/syn-tree.sh" profile $t 3000 |
			./mkprofile deep/deep-$t.hpcrun &&
		sh "$SRC_ROOT/tests/lib/syn-tree.sh" profile $t 3000 100003 |
			./mkprofile spread/deep-$t.hpcrun || return 1
	done &&
	for j in 1 2 5; do
		hpcprof -j $j -S deep.hpcstruct -o deep-j$j deep 2>err-j$j || return 1
	done &&
	hpcprof -j 2 -S deep.hpcstruct -o spread-j2 spread 2>err-s &&
	diff -r deep-j1 deep-j2 && diff -r deep-j1 deep-j5 &&
	diff -r deep-j1 spread-j2 &&
	sed s/deep-j5/deep-j1/ err-j5 >err-j5-as-j1 && test_cmp err-j1 err-j5-as-j1 &&
	test $(wc -l <deep-j1/thread-values.tsv) -gt 10000 &&
	test $(grep -c "<PF " deep-j1/experiment.xml) -gt 1000
'

# each_j DIR J...: hpcprof -j J on DIR/ into DIR-jJ for each J, every
# database the first one's, byte for byte.
each_j() {
	d=$1 && shift && first=$1 &&
	for j in "$@"; do
		hpcprof -j $j -S prog.hpcstruct -o $d-j$j $d 2>/dev/null &&
		diff -r $d-j$first $d-j$j || return 1
	done
}

# Integer values let the workers add up their own threads (their sums are
# exact, so the order does not matter) unless a sum reaches 2^53: there
# 2^53 - 2, 1, 1, 1, 1 in thread order give 2^53 (each later 1 is
# rounded away), while -j 2's halves would give 2^53 + 2.
test_expect_success 'integer sums near 2^53 are added in thread order at every -j' '
	mkdir big &&
	for t in 0 1 2 3 4; do
		v=1 && [ $t -eq 0 ] && v=9007199254740990
		printf "%s\n" "header program-name big" "lm 1 /nonexistent/prog" \
			"metric cycles int" "thread $t" "node 2 0 1 1005" \
			"node 4 2 1 2015" "value 4 0 $v" |
			./mkprofile big/big-$t.hpcrun || return 1
	done &&
	each_j big 1 2 3 5 &&
	xmllint --xpath "string(//SecCallPathProfileData/M[@n=\"0\"]/@v)" big-j2/experiment.xml >got &&
	echo 9007199254740992 >want && test_cmp want got
'

# A real-valued metric beside an integer one: the integers' sums are the
# workers' own, the reals' are folded again in thread order.  0.1, 0.1,
# 0.4 and 0.1 in thread order give 0.7000000000000001; -j 2's halves,
# (0.1 + 0.1) + (0.4 + 0.1), would give 0.7.
test_expect_success 'a real metric beside an integer one: its sums in thread order at every -j' '
	mkdir mixed &&
	for t in 0 1 2 3; do
		v=0.1 && [ $t -eq 2 ] && v=0.4
		printf "%s\n" "header program-name mixed" "lm 1 /nonexistent/prog" \
			"metric cycles int" "metric time real" "thread $t" \
			"node 2 0 1 1005" "node 4 2 1 2015" "value 4 0 $((t + 1))" \
			"value 4 1 $v" |
			./mkprofile mixed/mixed-$t.hpcrun || return 1
	done &&
	each_j mixed 1 2 3 4 &&
	for m in 0 12; do
		xmllint --xpath "string(//SecCallPathProfileData/M[@n=\"$m\"]/@v)" mixed-j2/experiment.xml ||
			return 1
	done >got &&
	printf "10\n0.7000000000000001\n" >want && test_cmp want got
'

test_expect_success '-j takes a number of threads from 1 to 1024' '
	for j in 5000 1025 0 -3 "" 2x; do
		exits_with 2 hpcprof -j "$j" -o dbx meas 2>err &&
		echo "hpcprof: -j '"'"'$j'"'"': expected a number of threads from 1 to 1024" >want &&
		test_cmp want err || return 1
	done &&
	! test -e dbx &&
	exits_with 1 hpcprof -j 1024 -o dbx meas 2>err &&	# its bad profiles
	test -e dbx/experiment.xml
'

test_done
