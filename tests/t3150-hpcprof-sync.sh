#!/bin/sh
test_description='hpcprof puts the synchronization data of .hpcsync files at the waiting sites, per thread, in phases.tsv and --text'
. "$(dirname "$0")/test-lib.sh"

# Columns (hpcprof-database(5)): cycles 0-11, then the waiting-site metrics
# in this order, 12 columns each: barrier wait (s) 12, barrier completion
# (s) 24, barrier episodes 36, last arrivals 48, lock wait (s) 60, lock
# blocked calls 72; Sum (I) first, Sum (E) next.
X() { xmllint --xpath "$1" db/experiment.xml; }
M() { X "$1/M" | tr -d "\n" | sed 's/<M n="\([0-9]*\)" v="\([^"]*\)"\/>/\1=\2\n/g'; }
PF() { echo "//PF[@n=//Procedure[@n=\"$1\"]/@i]"; }

test_expect_success 'a hand-made barrier loop of two threads makes a valid database' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/sync-meas.sh" meas &&
	hpcprof --stats -S meas/prog.hpcstruct -o db --text report meas 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml &&
	test -f db/phases.tsv &&
	grep "wrote" err
'

test_expect_success 'the wait is below the call of pthread_barrier_wait in its loop' '
	C="//SecCallPathProfileData//L[@l=22]/C[@l=23]" &&
	M "$C" | grep -E "^(12|13|24|36|48)=" >actual &&
	printf "12=0.6\n24=0.02\n36=20\n48=10\n" >expect &&
	test_cmp expect actual &&
	M "$C/$(PF "<wait in pthread_barrier_wait>" | cut -c3-)" |
		grep -E "^(12|13)=" >actual &&
	printf "12=0.6\n13=0.6\n" >expect &&
	test_cmp expect actual &&
	M "//SecCallPathProfileData//L[@l=22]" | grep -E "^(12|13)=" >actual &&
	echo 12=0.6 >expect &&
	test_cmp expect actual
'

test_expect_success 'statistics over threads: mean, min and max of the wait' '
	M "//SecCallPathProfileData//L[@l=22]/C[@l=23]" | grep -E "^(14|16|18)=" >actual &&
	printf "14=0.3\n16=0.1\n18=0.5\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'lock wait by waiting context: below the call at line 21' '
	M "//SecCallPathProfileData//PF[@l=20]/C[@l=21]" | grep -E "^(60|72)=" >actual &&
	printf "60=0.25\n72=3\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'per-phase profiles stay out of the totals' '
	M "//SecCallPathProfileData" | grep -E "^(0|12)=" >actual &&
	printf "0=61\n12=0.6\n" >expect &&
	test_cmp expect actual &&
	M "$(PF "<phase after pthread_barrier_wait prog.c:23 [worker]>")" |
		grep -E "^(0|4|6)=" >actual &&
	printf "0=41\n4=20\n6=21\n" >expect &&
	test_cmp expect actual &&
	M "$(PF "<phase from thread start>")" | grep -E "^0=" >actual &&
	echo 0=20 >expect &&
	test_cmp expect actual &&
	M "//SecFlatProfileData" | grep -E "^0=" >actual &&
	echo 0=61 >expect &&
	test_cmp expect actual
'

test_expect_success 'threads.tsv: each thread with its waits, episodes and work' '
	cut -f 1,8- db/threads.tsv >actual &&
	cat >expect <<-\EOF &&
	# thread	sync-wait-s	sync-completion-s	sync-episodes	last-arrivals	phase-work-s	lock-wait-s
	0	0.500000000	0.010000000	10	2	2.100000000	0.250000000
	1	0.100000000	0.010000000	10	8	2.700000000	0.000000000
	EOF
	test_cmp expect actual
'

test_expect_success 'thread-values.tsv holds each thread wait at the site' '
	node=$(X "string(//SecCallPathProfileData//L[@l=22]/C[@l=23]/@i)") &&
	awk -v n=$node "\$1 == n && \$3 == 12 { print \$2, \$4 }" \
		db/thread-values.tsv | sort >actual &&
	printf "0 0.5\n1 0.10000000000000001\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'phases.tsv: sites with load-balance efficiency and imbalance gain' '
	grep "^site" db/phases.tsv | cut -f 2-4,7-19 >actual &&
	printf "1\tbarrier\tpthread_barrier_wait\t2\t2\t10\t0.600000000\t0.020000000\t10\t4.800000000\t0.888889\t0.300000000\t0\t0\t0.000000000\tprog.c:23 [worker]\n" >expect &&
	printf "2\tmutex\tpthread_mutex_lock\t0\t1\t0\t0.000000000\t0.000000000\t0\t0.000000000\t0.000000\t0.000000000\t5\t3\t0.250000000\tprog.c:21 [worker]\n" >>expect &&
	test_cmp expect actual &&
	site_node=$(grep "^site	1" db/phases.tsv | cut -f 6) &&
	test "$site_node" = "$(X "string(//SecCallPathProfileData//L[@l=22]/C[@l=23]/@i)")"
'

test_expect_success 'phases.tsv: per thread, phase kinds and the kept episodes' '
	grep "^thread" db/phases.tsv >actual &&
	cat >expect <<-\EOF &&
	thread	1	0	10	0.500000000	0.010000000	2	2.100000000	8,2	0	0	0.000000000
	thread	1	1	10	0.100000000	0.010000000	8	2.700000000	2,8	0	0	0.000000000
	thread	2	0	0	0.000000000	0.000000000	0	0.000000000	-	5	3	0.250000000
	EOF
	test_cmp expect actual &&
	grep "^phase	" db/phases.tsv | cut -f 2,3,5- >actual &&
	printf "0\t1\t2\t1\t0.400000000\t0.400000000\t0.666667\n1\t1\t2\t9\t4.400000000\t5.000000000\t0.916667\n" >expect &&
	test_cmp expect actual &&
	phase_node=$(grep "^phase	1	1" db/phases.tsv | cut -f 4) &&
	test "$phase_node" = "$(X "string($(PF "<phase after pthread_barrier_wait prog.c:23 [worker]>")/@i)")" &&
	grep "^episode" db/phases.tsv >actual &&
	cat >expect <<-\EOF &&
	episode	1	0	0	0.000001000	0.000000100	0	0
	episode	1	0	1	0.000000000	0.000000250	1	1
	episode	1	1	0	0.000000000	0.000000300	1	1
	episode	1	1	1	0.000001000	0.000000190	0	0
	EOF
	test_cmp expect actual
'

test_expect_success 'hpcprof --text has a Barriers and phases table' '
	sed -n "/^Barriers and phases/,\$p" report >actual &&
	grep -x "    1 pthread_barrier_wait       10       2     0.600000     0.020000   0.889     0.300000     t1 x8  prog.c:23 \[worker\]" actual &&
	grep -x "    1       0       10     0.500000     2.100000         2" actual &&
	grep -x "    1       1       10     0.100000     2.700000         8" actual &&
	grep -x "    2 pthread_mutex_lock   0x0000000000006010          5          3     0.250000  prog.c:21 \[worker\]" actual &&
	! grep "^Metric lock wait" report >/dev/null || grep "^Metric lock wait (s): total 0.25" report
'

test_expect_success 'without .hpcsync files: no phases.tsv, threads.tsv as before' '
	mkdir plain && cp meas/*.hpcrun plain/ &&
	hpcprof -S meas/prog.hpcstruct -o db-plain plain 2>err &&
	! test -e db-plain/phases.tsv &&
	head -n 1 db-plain/threads.tsv >actual &&
	printf "# thread\tprofile\tidentity\tprogram\tprocess\trank\tthread-id\n" >expect &&
	test_cmp expect actual &&
	! grep -q "barrier" db-plain/experiment.xml
'

test_expect_success 'hpcprof -j 2 writes the database of -j 1, byte for byte (with and without .hpcsync)' '
	hpcprof -j 1 -S meas/prog.hpcstruct -o db1 --text j1.txt meas 2>err1 &&
	hpcprof -j 2 -S meas/prog.hpcstruct -o db2 --text j2.txt meas 2>err2 &&
	test -f db1/phases.tsv &&
	diff -r db1 db2 &&
	test_cmp j1.txt j2.txt &&
	test_cmp report j1.txt &&
	hpcprof -j 1 -S meas/prog.hpcstruct -o dbp1 plain 2>err1 &&
	hpcprof -j 2 -S meas/prog.hpcstruct -o dbp2 plain 2>err2 &&
	diff -r dbp1 dbp2 &&
	test_cmp db-plain/experiment.xml dbp2/experiment.xml
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi: measurements with .hpcsync files correlated on its ranks, the database of hpcprof' '
	mpi_as_hpcprof -S meas/prog.hpcstruct meas
'

test_expect_success 'setup: the barrier loop with phases kept by kind' '
	sh "$TEST_DIRECTORY/lib/sync-meas.sh" kinds kinds &&
	hpcprof -S meas/prog.hpcstruct -o db-kinds kinds 2>err
'

test_expect_success 'each phase kind of one start has a per-phase profile of its own, named from and to' '
	K() { echo "<phase from pthread_barrier_wait prog.c:23 [worker] to pthread_barrier_wait prog.c:$1 [worker]>"; } &&
	X() { xmllint --xpath "$1" db-kinds/experiment.xml; } &&
	M "$(PF "$(K 23)")" | grep -E "^0=" >actual &&
	echo 0=21 >expect &&
	test_cmp expect actual &&
	M "$(PF "$(K 21)")" | grep -E "^0=" >actual &&
	echo 0=10 >expect &&
	test_cmp expect actual &&
	M "$(PF "<phase after pthread_barrier_wait prog.c:23 [worker]>")" |
		grep -E "^0=" >actual &&
	echo 0=10 >expect &&
	test_cmp expect actual &&
	site=$(grep "^site	.*prog.c:21 \[worker\]$" db-kinds/phases.tsv | grep barrier | cut -f 2) &&
	test "$(grep "^phase	1	1	" db-kinds/phases.tsv | cut -f 4)" = "$(X "string($(PF "$(K 23)")/@i)")" &&
	test "$(grep "^phase	1	$site	" db-kinds/phases.tsv | cut -f 4)" = "$(X "string($(PF "$(K 21)")/@i)")"
'

test_expect_success 'hpcprof -j 2 and phases kept by kind: the database of -j 1' '
	hpcprof -j 2 -S meas/prog.hpcstruct -o db-kinds2 kinds 2>err &&
	diff -r db-kinds db-kinds2
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi: phases kept by kind, the database of hpcprof' '
	mpi_as_hpcprof -S meas/prog.hpcstruct kinds
'

test_done
