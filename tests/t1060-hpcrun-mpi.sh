#!/bin/sh
test_description='hpcrun: all ranks of one MPI launch in one measurement directory, each rank in its file names and profile headers'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq MPI 'command -v mpicc && command -v mpirun'

# ranks DIR: the rank fields of DIR's profile names, one per line.
ranks() {
	ls $1 | sed -n "s/^rt-mpi-ring-\([0-9]*\)-.*\.hpcrun$/\1/p" | sort -u
}

# header DIR RANK KEY: the header value KEY of the main thread of RANK.
header() {
	hpcprof --dump $1/rt-mpi-ring-$2-000-*.hpcrun |
		sed -n "s/^  $3 = \"\(.*\)\"$/\1/p"
}

test_expect_success MPI 'setup: the MPI test program (mpicc)' '
	mpicc -O2 -g -o rt-mpi-ring "$TEST_PROGS/rt-mpi-ring.c" &&
	printf "%s\n" 000000 000001 >two
'

test_expect_success MPI 'mpirun -np 2 hpcrun PROG: one directory, both ranks in it' '
	mkdir run1 && (cd run1 &&
	$MPIRUN 2 hpcrun ../rt-mpi-ring 10 >out 2>err &&
	echo "ring: 2 ranks, 10 rounds, token 20" >expect &&
	test_cmp expect out &&
	ls -d hpctoolkit-* >dirs &&
	echo hpctoolkit-rt-mpi-ring-measurements >expect &&
	test_cmp expect dirs &&
	ranks hpctoolkit-rt-mpi-ring-measurements >got &&
	test_cmp ../two got &&
	ls hpctoolkit-rt-mpi-ring-measurements/*.log >logs &&
	test_line_count = 2 logs &&
	echo "hpcrun: writing the measurements to '\''hpctoolkit-rt-mpi-ring-measurements'\''" >expect &&
	grep "^hpcrun:" err >said &&
	test_cmp expect said)
'

test_expect_success MPI 'each rank is in its profile header (mpi-rank) and the marker names the launch' '
	d=run1/hpctoolkit-rt-mpi-ring-measurements &&
	test "$(header $d 000000 mpi-rank)" = 0 &&
	test "$(header $d 000001 mpi-rank)" = 1 &&
	grep -q "^launch PMIX_NAMESPACE=[^ ]" $d/.hpcrun-launch
'

test_expect_success MPI 'a second launch moves the first aside whole, and takes the plain name' '
	(cd run1 &&
	$MPIRUN 2 hpcrun ../rt-mpi-ring 4 >out 2>err &&
	ls -d hpctoolkit-* >dirs &&
	printf "%s\n" hpctoolkit-rt-mpi-ring-measurements hpctoolkit-rt-mpi-ring-measurements-2 >expect &&
	test_cmp expect dirs &&
	grep -q "^hpcrun: moved the earlier '\''hpctoolkit-rt-mpi-ring-measurements'\'' to '\''hpctoolkit-rt-mpi-ring-measurements-2'\''$" err &&
	for d in hpctoolkit-*; do
		ranks $d >got && test_cmp ../two got &&
		ls $d/*.log >logs && test_line_count = 2 logs || exit 1
	done &&
	test "$(sed -n 1p hpctoolkit-rt-mpi-ring-measurements/.hpcrun-launch)" != \
	     "$(sed -n 1p hpctoolkit-rt-mpi-ring-measurements-2/.hpcrun-launch)")
'

test_expect_success MPI 'with -o DIR every rank writes into DIR' '
	$MPIRUN 3 hpcrun -o given ./rt-mpi-ring 4 >out &&
	ranks given >got &&
	printf "%s\n" 000000 000001 000002 >expect &&
	test_cmp expect got &&
	test "$(header given 000002 mpi-rank)" = 2
'

test_expect_success MPI 'hpcrun mpirun -np 2 PROG: the launcher and both ranks in one directory' '
	hpcrun -o outer mpirun --oversubscribe -np 2 ./rt-mpi-ring 4 >out &&
	ranks outer >got &&
	test_cmp two got &&
	ls outer/*.log >logs &&
	test $(grep -vc "/rt-mpi-ring-" logs) -ge 1
'

test_done
