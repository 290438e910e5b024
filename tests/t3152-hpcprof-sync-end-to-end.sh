#!/bin/sh
test_description='hpcrun, hpcstruct, hpcprof and the viewer on a real barrier program: waits at the call in its loop, per-phase work against the truth'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/sync-lib.sh"

# rt-sync barrier 2 10 spin 20 (tests/progs/rt-sync.c): in round r thread
# r % 2 spins 80 ms of its CPU time, the other 20 ms, then both meet at the
# pthread_barrier_wait of round_end (a tail call from the call of round_end
# in the loop of barrier_thread; thread 0 reaches it from main, thread 1
# from its start routine: two such calls in the tree).  The lines of that
# loop and call are read from the source (LOOP, CALL below).  The phases between two meetings (rounds
# 1-9): thread 0 works 4 x 80 + 5 x 20 = 420 ms, thread 1 480 ms; the
# program prints the thread it saw arrive last in each round.
# Columns: barrier wait (s) Sum (I) 12, Sum (E) 13, after cycles 0-11.

test_expect_success 'setup: measure, analyze, correlate' '
	cc -O2 -g -pthread -o rt-sync "$TEST_PROGS/rt-sync.c" &&
	hpcrun -o meas ./rt-sync barrier 2 10 spin 20 >out &&
	hpcstruct meas >/dev/null 2>&1 &&
	hpcprof -o db --text report meas 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml &&
	site=$(site_of meas barrier) && test -n "$site" && echo $site >site &&
	awk "/^static void \\*barrier_thread/ { b = 1 }
		b && !l && /for \\(r = 0; r < rounds; r\\+\\+\\)/ { l = NR }
		l && /round_end\\(\\);/ { print l, NR; exit }" \
		"$TEST_PROGS/rt-sync.c" >lines &&
	test_line_count = 1 lines
'

test_expect_success 'without structure files, the modules are named as attributed, as without .hpcsync' '
	mkdir bare nosync &&
	cp meas/*.hpcrun meas/*.hpcsync bare/ &&
	cp meas/*.hpcrun nosync/ &&
	hpcprof -o db-bare bare 2>err-bare &&
	hpcprof -o db-nosync nosync 2>err-nosync &&
	grep "structure-" db-bare/experiment.xml >actual &&
	grep "structure-" db-nosync/experiment.xml >expect &&
	grep -q "structure-dwarf.*/rt-sync\"" expect &&
	test_cmp expect actual &&
	grep warning: err-nosync >expect &&
	grep warning: err-bare >actual &&
	test_cmp expect actual
'

test_expect_success 'the wait is below the call of round_end in the loop of barrier_thread, as the .hpcsync files sum it' '
	read LOOP CALL <lines &&
	truth=$(cat meas/*.hpcsync | awk "\$1 == \"sync\" { w += \$4 } END { printf \"%.9f\", w }") &&
	C="//SecCallPathProfileData//L[@l=$LOOP]/C[@l=$CALL]" &&
	I=$(xmllint --xpath "string(//Metric[@n=\"barrier wait (s):Sum (I)\"]/@i)" db/experiment.xml) &&
	E=$(xmllint --xpath "string(//Metric[@n=\"barrier wait (s):Sum (E)\"]/@i)" db/experiment.xml) &&
	got=$(xmllint --xpath "sum($C/M[@n=$I]/@v)" db/experiment.xml) &&
	test_within "$got" "$truth" 0.00001 &&
	W="$C/PF[@n=//Procedure[@n=\"<wait in pthread_barrier_wait>\"]/@i]" &&
	got=$(xmllint --xpath "sum($W/M[@n=$E]/@v)" db/experiment.xml) &&
	test_within "$got" "$truth" 0.00001
'

test_expect_success 'per-phase work per thread within max(1 ms, 5%) of the truth' '
	s=$(cat site) &&
	awk -v s=$s "\$1 == \"phase-thread\" && \$2 == s && \$3 == s { print \$4, \$6 }" \
		db/phases.tsv >work &&
	test_line_count = 2 work &&
	test_within "$(sed -n "s/^0 //p" work)" 0.42 0.021 &&
	test_within "$(sed -n "s/^1 //p" work)" 0.48 0.024
'

test_expect_success 'last arrivals per thread as the program saw them' '
	set -- $(sed -n "s/^last //p" out) &&
	awk "\$1 == \"thread\" && \$2 == $(cat site) { print \$7 }" db/phases.tsv >lasts &&
	test_within "$(sed -n 1p lasts)" $1 1 &&
	test_within "$(sed -n 2p lasts)" $2 1 &&
	set -- $(lasts_right meas $(cat site) 2 out) &&
	test "$2" = 10 && test "$1" -ge 9
'

test_expect_success 'threads.tsv and the viewer show the same per-thread waits as phases.tsv' '
	s=$(cat site) &&
	awk -v s=$s "\$1 == \"thread\" && \$2 == s { print \$3 \",\" \$5 \",\" \$8 \",\" \$7 }" \
		db/phases.tsv >expect &&
	hpcviewer-tui --csv --view phases db |
		awk -F, -v s=$s "\$1 == s && \$3 != \"all\" { print \$3 \",\" \$5 \",\" \$6 \",\" \$7 }" >actual &&
	test_cmp expect actual &&
	cut -f 1,8 db/threads.tsv | grep -v "^#" | tr "\t" , >tsv &&
	cut -d, -f 1,2 expect >expect2 &&
	test_cmp expect2 tsv &&
	grep "pthread_barrier_wait       10       2 " report
'

test_expect_success 'a process tree of two programs: --text names each once, with its threads' '
	cp rt-sync rt-sync-twin &&
	hpcrun -o twin ./rt-sync-twin barrier 3 2 spin 5 >/dev/null &&
	hpcprof -o db-two --text two.txt meas twin 2>err-two &&
	sed -n "/^Programs by/,/^\$/p" two.txt >programs &&
	grep -E " 1 +2  rt-sync\$" programs &&
	grep -E " 1 +3  rt-sync-twin\$" programs &&
	awk "/%/ { s += \$1 } END { print s }" programs >sum &&
	test_within "$(cat sum)" 100 0.02
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi correlates them on its ranks: the database of hpcprof' '
	mpi_as_hpcprof meas twin
'

test_done
