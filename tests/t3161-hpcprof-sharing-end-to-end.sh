#!/bin/sh
test_description='hpcrun --sharing, hpcstruct, hpcprof: rt-sharing patterns and numa end to end (experiment.xml, sharing.tsv, --text)'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/share-lib.sh"

# The labels themselves are t1100's; here the whole tool chain runs on
# real measurements, structure recovered, and every output agrees.
test "$(getconf _NPROCESSORS_ONLN)" -ge 2 && test_set_prereq CPUS2

# patterns_measured T: rt-sharing patterns on T threads measured in mT
# (retry_budget 4000000 rounds: more in each run of retry after the
# first), its output the plain one, structure recovered.
patterns_measured() {
	rounds=$(retry_budget 4000000) &&
	rm -rf m$1 &&
	./rt-sharing patterns $1 $rounds >plain$1 &&
	hpcrun -q --sharing -o m$1 ./rt-sharing patterns $1 $rounds >out$1 &&
	test_cmp plain$1 out$1 &&
	hpcstruct m$1 >/dev/null 2>&1
}

test_expect_success 'build rt-sharing, measure patterns at 2 threads and numa serial' '
	build_rt_sharing &&
	patterns_measured 2 &&
	hpcrun -q --sharing -e cpu-clock@f5000 -e page-faults@1 --numa-nodes 0:1 \
		-o ms ./rt-sharing numa serial >/dev/null &&
	hpcstruct ms >/dev/null 2>&1
'

test_expect_success 'patterns: a valid experiment.xml with the sharing columns; sharing.tsv; the --text sections' '
	hpcprof -o db2 --text report2 m2 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db2/experiment.xml &&
	grep -q "DATA:sharing" db2/experiment.xml &&
	test -s db2/sharing.tsv &&
	grep -q "^Sharing (hpcrun --sharing: [1-9][0-9]* sampled accesses in 2 threads" report2 &&
	grep -q "^False sharing" report2 && grep -q "^NUMA (real topology" report2
'

# labelled: db2 and report2 of m2 give the true labels, counters ranked
# above padded.  Labels are statistical (t1100): a run after the first
# (retry) measures m2 again, longer.
labelled() {
	if test "$retry_run" -gt 1; then
		patterns_measured 2 && rm -rf db2 &&
		hpcprof -o db2 --text report2 m2 2>err
	fi &&
	test "$(share_label db2 "counters [rt-sharing]")" = false-sharing &&
	test "$(share_label db2 "padded [rt-sharing]")" = private &&
	test "$(share_label db2 alloc_ring)" = producer-consumer &&
	test "$(share_field db2 alloc_latent 4)" = 16,32,48 &&
	sed -n "/^Sharing/,/^False sharing/p" report2 >ranked &&
	c=$(grep -n "counters \[rt-sharing\]" ranked | cut -d: -f1) &&
	p=$(grep -n "padded \[rt-sharing\]" ranked | cut -d: -f1) &&
	test "$c" -lt "$p"
}

test_expect_success 'patterns: the true labels survive hpcstruct; counters ranks above padded' '
	retry 3 labelled
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

# padded4: m4 measured, padded private in its database db4-1 (-j 1,
# report rep4-1, messages msg4-1); a label, so retried.
padded4() {
	patterns_measured 4 &&
	rm -rf db4-1 &&
	hpcprof -j 1 -o db4-1 --text rep4-1 m4 2>err4-1 &&
	sed "s/db4-1/DB/" err4-1 >msg4-1 &&
	test "$(share_label db4-1 "padded [rt-sharing]")" = private
}

test_expect_success 'patterns at 4 threads: -j 1, 2, 3 and 4 write the same database, sharing.tsv and report' '
	retry 3 padded4 &&
	for j in 2 3 4; do
		hpcprof -j $j -o db4-$j --text rep4-$j m4 2>err4-$j &&
		sed "s/db4-$j/DB/" err4-$j >msg4-$j &&
		test_cmp msg4-1 msg4-$j &&
		test_cmp rep4-1 rep4-$j &&
		diff -r db4-1 db4-$j || return 1
	done &&
	grep -q "^Sharing (hpcrun --sharing: [1-9][0-9]* sampled accesses in 4 threads" rep4-1
'

test_expect_success HPCPROF_MPI 'and hpcprof-mpi writes it too, on 2 and 3 ranks' '
	mpi_as_hpcprof m4 &&
	MPI_RANKS=3 mpi_as_hpcprof m4
'

test_done
