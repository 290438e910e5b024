#!/bin/sh
test_description='hpcrun --sharing, hpcstruct, hpcprof: rt-sharing patterns and numa end to end (experiment.xml, sharing.tsv, --text)'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/share-lib.sh"

# The labels themselves are t1100's; here the whole tool chain runs on
# real measurements, structure recovered, and every output agrees.
test "$(getconf _NPROCESSORS_ONLN)" -ge 2 && test_set_prereq CPUS2

test_expect_success 'build rt-sharing, measure patterns at 2 threads and numa serial' '
	build_rt_sharing &&
	./rt-sharing patterns 2 >plain &&
	hpcrun -q --sharing -o m2 ./rt-sharing patterns 2 >out &&
	test_cmp plain out &&
	hpcrun -q --sharing -e cpu-clock@f5000 -e page-faults@1 --numa-nodes 0:1 \
		-o ms ./rt-sharing numa serial >/dev/null &&
	hpcstruct m2 >/dev/null 2>&1 && hpcstruct ms >/dev/null 2>&1
'

test_expect_success 'patterns: a valid experiment.xml with the sharing columns; sharing.tsv; the --text sections' '
	hpcprof -o db2 --text report2 m2 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db2/experiment.xml &&
	grep -q "DATA:sharing" db2/experiment.xml &&
	test -s db2/sharing.tsv &&
	grep -q "^Sharing (hpcrun --sharing: [1-9][0-9]* sampled accesses in 2 threads" report2 &&
	grep -q "^False sharing" report2 && grep -q "^NUMA (real topology" report2
'

test_expect_success 'patterns: the true labels survive hpcstruct; counters ranks above padded' '
	test "$(share_label db2 "counters [rt-sharing]")" = false-sharing &&
	test "$(share_label db2 "padded [rt-sharing]")" = private &&
	test "$(share_label db2 alloc_ring)" = producer-consumer &&
	test "$(share_field db2 alloc_latent 4)" = 16,32,48 &&
	sed -n "/^Sharing/,/^False sharing/p" report2 >ranked &&
	c=$(grep -n "counters \[rt-sharing\]" ranked | cut -d: -f1) &&
	p=$(grep -n "padded \[rt-sharing\]" ranked | cut -d: -f1) &&
	test "$c" -lt "$p"
'

test_expect_success CPUS2 'numa serial: the remote share is thread 1s share of the accesses, the advice and the page matrix' '
	hpcprof -o dbs --text reps ms 2>/dev/null &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" dbs/experiment.xml &&
	grep -q "DATA:remote%" dbs/experiment.xml &&
	s=$(share_field dbs alloc_numa 10) &&
	set -- $(thread_split ms) &&
	echo "serial $s (thread 1: $3%)" &&
	awk -v s="$s" -v t="$3" "BEGIN { exit !(s >= t - 2 && s <= t + 2) }" &&
	test "$(share_field dbs alloc_numa 13)" = "initialize in parallel: let each thread first-touch the part it uses" &&
	grep "^NUMA (virtual topology, 2 nodes" reps &&
	grep "^Page x node accesses of alloc_numa " reps
'

test_expect_success 'patterns at 4 threads: -j 1, 2, 3 and 4 write the same database, sharing.tsv and report' '
	hpcrun -q --sharing -o m4 ./rt-sharing patterns 4 >out4 &&
	for j in 1 2 3 4; do
		hpcprof -j $j -o db4-$j --text rep4-$j m4 2>err4-$j &&
		sed "s/db4-$j/DB/" err4-$j >msg4-$j &&
		test_cmp msg4-1 msg4-$j &&
		test_cmp rep4-1 rep4-$j &&
		diff -r db4-1 db4-$j || return 1
	done &&
	grep -q "^Sharing (hpcrun --sharing: [1-9][0-9]* sampled accesses in 4 threads" rep4-1 &&
	test "$(share_label db4-1 "padded [rt-sharing]")" = private
'

test_expect_success HPCPROF_MPI 'and hpcprof-mpi writes it too, on 2 and 3 ranks' '
	mpi_as_hpcprof m4 &&
	MPI_RANKS=3 mpi_as_hpcprof m4
'

test_done
