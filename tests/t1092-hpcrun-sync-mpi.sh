#!/bin/sh
test_description='hpcrun: MPI_Barrier through PMPI in Open MPI programs of 2 to 4 ranks'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/sync-lib.sh"

test_lazy_prereq MPI 'command -v mpicc && command -v mpirun'

test_expect_success MPI 'setup: the MPI test program' '
	mpicc -O2 -g -o rt-sync-mpi "$TEST_PROGS/rt-sync-mpi.c"
'

# rt-sync-mpi R MS: in round r rank r % size sleeps 4 MS, the others MS.
for n in 2 4; do
test_expect_success MPI "$n ranks: each rank has its MPI_Barrier site and episodes; the late rank arrives last" '
	mkdir r'$n' && (cd r'$n' &&
	$MPIRUN '$n' hpcrun -o m ../rt-sync-mpi 12 15 >out 2>err &&
	echo "rounds 12 ranks '$n'" >expect && test_cmp expect out) &&
	ls r'$n'/m/*-000-*.hpcsync >files && test_line_count = '$n' files &&
	for f in r'$n'/m/*-000-*.hpcsync; do
		site=$(sed -n "s/^site \([0-9]*\) mpi-barrier .*/\1/p" $f) &&
		grep -q "^site $site mpi-barrier 0x[0-9a-f]* [1-9][0-9]* '$n'$" $f &&
		grep -q "^sync $site 12 [0-9.]* 0.000000000 0 -$" $f || exit 1
	done &&
	set -- $(mpi_lasts_right r'$n'/m '$n') && test "$2" = 12 && test "$1" -ge 11
'
done

# rt-sync-mpi R MS truth: the program's own arrival times give each rank's
# wait until the last arrival and how often it was last ("truth" lines);
# rank r is the late one in rounds r, r + N, ..., so 20 / N rounds each.
for n in 2 4; do
test_expect_success MPI "$n ranks: a clock offset per rank (same host); hpcprof's wait per rank within max(10 ms, 10%) of the truth, the late rank last" '
	mkdir c'$n' && (cd c'$n' &&
	$MPIRUN '$n' hpcrun -o m ../rt-sync-mpi 20 15 truth >out 2>err &&
	hpcprof -o db --text text m 2>perr) &&
	grep -h "^clock: " c'$n'/m/*-000-*.hpcsync >clocks &&
	test_line_count = '$n' clocks &&
	! grep -qv "^clock: -\{0,1\}[0-9]* [0-9]* same-host$" clocks &&
	grep -q "^clock: 0 0 same-host$" c'$n'/m/*-000000-000-*.hpcsync &&
	sed -n "/^Per thread at each barrier:/,/^$/p" c'$n'/text >per &&
	for r in $(seq 0 $(('$n' - 1))); do
		t=$(sed -n "s/^truth $r \([0-9.]*\) .*/\1/p" c'$n'/out) &&
		got=$(sed -n "s/^ *[0-9]*  *rank $r thread 0  *20  *\([0-9.]*\) .*/\1/p" per) &&
		echo "rank $r truth $t hpcprof $got" &&
		awk -v t="$t" -v g="$got" "BEGIN { d = g - t; if (d < 0) d = -d;
			e = t / 10; if (e < 0.010) e = 0.010; exit !(g != \"\" && d <= e) }" || exit 1
	done &&
	sed -n "s/^ *[0-9]*  *rank [0-9]* thread 0  *20  *[0-9.]*  *[0-9.]*  *\([0-9]*\)$/\1/p" per >lasts &&
	test_line_count = '$n' lasts &&
	awk -v e=$((20 / '$n')) "{ ok += \$1 < e ? \$1 : e } END { exit !(ok >= 18) }" lasts
'
done

test_expect_success 'a program without MPI runs with the MPI_Barrier wrapper unused' '
	cc -O2 -pthread -o rt-sync "$TEST_PROGS/rt-sync.c" &&
	hpcrun -o nompi ./rt-sync barrier 2 2 sleep 1 >out &&
	! grep -q mpi-barrier nompi/*.hpcsync
'

# Each rank of rt-sync-mpi has its main thread and the runtime's helper
# threads, so a rank is "rank R thread T"; a program without MPI keeps
# "thread N".
test_expect_success MPI 'hpcprof --text and the phases view name ranks as ranks' '
	(cd r4 && hpcprof -o db --text text m 2>err) &&
	sed -n "/^Per thread at each barrier:/,/^$/p" r4/text >per &&
	for r in 0 1 2 3; do
		grep -q "^ *[0-9]*  *rank $r thread 0 " per || exit 1
	done &&
	! grep -q "^ *[0-9][0-9]*  *[0-9][0-9]*  *[0-9]" per &&
	hpcviewer-tui --stdio --view phases r4/db >view &&
	for r in 0 1 2 3; do
		grep -q "    rank $r thread 0\( \|$\)" view || exit 1
	done &&
	hpcviewer-tui --csv --view phases r4/db >csv &&
	grep -q "^[0-9]*,mpi-barrier,rank 3 thread 0," csv
'

# Open MPI's progress threads and MPI_Init wait on PMIx and libevent
# locks: the runtime's, left out unless --all-locks (hpcprof(1)).
test_expect_success MPI 'the lock table leaves the MPI runtime out; --all-locks shows it' '
	sed -n "/^Lock waits/,\$p" r4/text >locks &&
	! grep -Eq "libpmix|libevent|mca_|PMIx_" locks &&
	grep -q "^  ([1-9][0-9]* lock sites* of the MPI runtime left out, [0-9.]* s wait; hpcprof --all-locks shows them)$" locks &&
	grep -q "^hidden-locks	[1-9][0-9]*	[0-9.]*$" r4/db/phases.tsv &&
	! grep "^site	" r4/db/phases.tsv | grep -Eq "libpmix|libevent|mca_|PMIx_" &&
	hpcviewer-tui --stdio --view phases r4/db >pview &&
	grep -q "lock sites* of the MPI runtime left out: hpcprof --all-locks" pview &&
	(cd r4 && hpcprof --all-locks -o dball --text all.txt m 2>err) &&
	sed -n "/^Lock waits/,\$p" r4/all.txt >all &&
	grep -Eq "libpmix|libevent" all &&
	! grep -q "left out" all &&
	! grep -q "^hidden-locks" r4/dball/phases.tsv &&
	n=$(sed -n "s/^hidden-locks	\([0-9]*\)	.*/\1/p" r4/db/phases.tsv) &&
	test $(grep -c "^site	" r4/dball/phases.tsv) = $(($(grep -c "^site	" r4/db/phases.tsv) + n))
'

test_expect_success 'without MPI, threads keep their numbers' '
	hpcprof -o nompi-db --text nompi.txt nompi 2>err &&
	grep -q "^ *[0-9]*  *0  *[0-9]" nompi.txt &&
	! grep -q "rank" nompi.txt &&
	hpcviewer-tui --stdio --view phases nompi-db >view &&
	grep -q "    thread 0" view &&
	! grep -q rank view
'

test_done
