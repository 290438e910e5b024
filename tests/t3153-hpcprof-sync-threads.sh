#!/bin/sh
test_description='hpcprof -j N correlates synchronization measurements on N threads into the database of adding them in order'
. "$(dirname "$0")/test-lib.sh"

X() { xmllint --xpath "$1" "$DB/experiment.xml"; }

# meas DIR BAD: an MPI program of 3 ranks (processes 40-42) of 4 threads,
# the code of sync-meas.sh (prog.hpcstruct: pthread_barrier_wait called at
# line 23, compute at line 24).  Thread T of rank P: 30+T cycles at line
# 24 under ^Primary, 20+T in the phase after the barrier and 10 in the one
# from start (the phase from start only, for a thread without .hpcsync:
# 235 and 143 cycles in all); its .hpcsync numbers the barrier site P + 1 (one site of the
# experiment: the same call), waits 0.0625 (T + 1) + 0.5 P s there over 10
# episodes, arriving last in 2 + T; even threads wait 0.25 s for a mutex
# (site 9) in 3 of 5 calls; thread 0 also waits in MPI_Barrier (site 5, no
# call path: one site per process) 0.125 (P + 1) s.  Thread 3 of rank 1
# has no .hpcsync; with BAD, thread 1 of rank 2's names node 99, which its
# profile lacks.
meas() {
	mkdir "$1" &&
	for P in 0 1 2; do
		for T in 0 1 2 3; do
			stem=$1/prog-000000-00$T-0-4$P-0 &&
			./mkprofile $stem.hpcrun <<-EOF &&
			header program-name prog
			header process-id 4$P
			header mpi-rank $P
			lm 1 /nonexistent/prog
			metric cycles int
			thread $T
			node 2 0 0 ^Primary
			node 4 2 1 2025
			node 6 2 1 2014
			node 7 2 1 2008
			node 8 0 0 ^Phases 
			node 10 8 0 S000000$((P + 1))
			node 12 10 1 2025
			node 14 8 0 S0000000
			node 16 14 1 2005
			value 4 0 3$T
			value 12 0 2$T
			value 16 0 10
			EOF
			if [ $P$T = 13 ]; then
				continue
			fi
			node=6 &&
			if [ -n "$2" ] && [ $P$T = 21 ]; then
				node=99
			fi &&
			{
				echo "hpcsync: 1" &&
				echo "thread: $T" &&
				echo "rank: $P" &&
				echo "clock: 0 10 same-host" &&
				echo "site $((P + 1)) barrier 0x7f00 $node 4" &&
				echo "site 9 mutex 0x6010 7 0" &&
				echo "site 5 mpi-barrier 0x44 0 3" &&
				awk -v T=$T -v P=$P "BEGIN {
					printf \"sync %d 10 %.9f 0.010000000 %d 2,8\\n\",
						P + 1, 0.0625 * (T + 1) + 0.5 * P, 2 + T
					if (T % 2 == 0)
						print \"lock 9 5 3 0.250000000\"
					if (T == 0)
						printf \"sync 5 2 %.9f 0 0 -\\n\", 0.125 * (P + 1)
					printf \"phase 0 %d 1 0.125000000 0.125000000\\n\", P + 1
					printf \"phase %d %d 9 %.9f 2.500000000\\n\", P + 1, P + 1, 2 + 0.25 * T
					printf \"episode %d 0 1000 3000 2000 %d 100 150\\n\", P + 1, T
					if (T == 0)
						printf \"episode 5 0 %d %d 0 -1 200 250\\n\", 5000 + 100 * P, 6000
					printf \"episodes: %d 10\\n\", T == 0 ? 2 : 1
				}"
			} >$stem.hpcsync || return 1
		done
	done
}

test_expect_success 'synthetic synchronization measurements: 12 threads of 3 ranks' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/sync-meas.sh" one &&
	cp one/prog.hpcstruct . &&
	meas good "" &&
	meas bad yes
'

test_expect_success '-j 1, 2, 3, 5 and 12 write the same database' '
	IN=good && same_db 0 1 2 3 5 12
'

test_expect_success 'the sites of the threads are the experiment'"'"'s, whatever rank numbered them' '
	IN=good && DB=db-good-1 &&
	grep "^site	" $DB/phases.tsv | cut -f 2,3 >actual &&
	cat >expect <<-\EOT &&
	1	barrier
	2	mutex
	3	mpi-barrier
	4	mpi-barrier
	5	mpi-barrier
	EOT
	test_cmp expect actual &&
	awk -F"\t" "\$1 == \"thread\" && \$2 == 1 { n++; w += \$5 } END { printf \"%d %.4f\\n\", n, w }" \
		$DB/phases.tsv >actual &&
	echo "11 7.1250" >expect &&
	test_cmp expect actual
'

test_expect_success 'waits and per-phase profiles in the tree: every thread once' '
	IN=good && DB=db-good-1 &&
	W=$(X "string(//Metric[@n=\"barrier wait (s):Sum (I)\"]/@i)") &&
	got=$(X "sum(//SecCallPathProfileData/PF/M[@n=$W]/@v)") &&
	test_within "$got" 7.875 0.000001 &&
	C=$(X "string(//Metric[@n=\"cycles:Sum (I)\"]/@i)") &&
	for p in "after pthread_barrier_wait prog.c:23 [worker]:235" \
		"from thread start:143"; do
		n="<phase ${p%:*}>" &&
		X "count(//Procedure[@n=\"$n\"])" >n &&
		echo 1 >n1 && test_cmp n1 n &&
		P="//SecCallPathProfileData/PF[@n=//Procedure[@n=\"$n\"]/@i]" &&
		test "$(X "string($P/M[@n=$C]/@v)")" = ${p##*:} || return 1
	done &&
	grep -c "	-	-	-	-	-	-$" $DB/threads.tsv >n &&
	test_cmp n1 n
'

test_expect_success 'a file that does not fit its profile: one line, in order, whatever -j' '
	IN=bad && same_db 1 1 2 3 12 &&
	grep "node 99" msg-bad-1 >lines &&
	test_line_count = 1 lines &&
	grep -q "prog-000000-001-0-42-0.hpcsync.*synchronization data of this thread ignored" lines &&
	grep -c "	-	-	-	-	-	-$" $DB/threads.tsv >n &&
	echo 2 >two && test_cmp two n
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi correlates them on 2, 3 and 5 ranks: the database of hpcprof' '
	for n in 2 3 5; do
		MPI_RANKS=$n mpi_as_hpcprof -S prog.hpcstruct good || return 1
	done
'

# Thread 1 of rank 2 (profile 6 of 12) is rank 1's of 3, rank 2's of 5.
test_expect_success HPCPROF_MPI 'a file that does not fit its profile on another rank: said by rank 0, in order, status 1' '
	for n in 2 3 5; do
		MPI_RANKS=$n mpi_as_hpcprof -S prog.hpcstruct bad &&
		grep -q "prog-000000-001-0-42-0.hpcsync.*synchronization data of this thread ignored" errm ||
		return 1
	done
'

test_done
