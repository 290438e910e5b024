#!/bin/sh
test_description='hpcrun --sharing, hpcprof: every object of rt-sharing patterns gets its true label (2 threads, 4 threads on 2 CPUs), the latent case is predicted, NUMA remote shares of rt-sharing numa'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/share-lib.sh"

# The truth (tests/progs/rt-sharing.c, the contract of issue #16):
# alloc_private private, table read-shared, counters false-sharing, padded
# private, alloc_ring producer-consumer, cell migratory, flag write-shared,
# alloc_latent private with latent false sharing predicted.
test_lazy_prereq SHARING 'test -f "$TEST_PROGS/rt-sharing.c" &&
	hpcrun --help 2>&1 | grep -q -- --sharing'

# label DB NAME: the label of the object NAME of sharing.tsv (a heap
# object: the allocation paths whose leaf function is NAME, their labels
# once each: alloc_private is two paths, from main and from a thread).
label() {
	awk -F'\t' -v n="$2" '$1 == "object" && ($13 == n || index($13, n " ") == 1) { print $3 }' $1/sharing.tsv |
		sort -u | paste -sd, -
}
# field DB NAME COLUMN
field() {
	awk -F'\t' -v n="$2" -v c=$3 '$1 == "object" && ($13 == n || index($13, n " ") == 1) { print $c }' $1/sharing.tsv
}

truth() {
	cat <<-\EOT
	alloc_private private
	table [rt-sharing] read-shared
	counters [rt-sharing] false-sharing
	padded [rt-sharing] private
	alloc_ring producer-consumer
	cell [rt-sharing] migratory
	flag [rt-sharing] write-shared
	alloc_latent private
	EOT
}

# check DB: every object its true label.
check() {
	truth | while read -r line; do
		name=${line% *} want=${line##* }
		got=$(label $1 "$name")
		echo "$name $got"
		test "$got" = "$want" || { echo "want $want" >&2; return 1; }
	done
}

WATCH="table,counters,padded,cell,flag,alloc_*"

test_expect_success SHARING 'build rt-sharing' '
	build_rt_sharing
'

test_expect_success SHARING 'patterns, 2 threads: every label is the truth' '
	./rt-sharing patterns 2 >plain &&
	hpcrun --sharing --watch "$WATCH" -o m2 ./rt-sharing patterns 2 >out &&
	test_cmp plain out &&
	hpcstruct m2 >/dev/null 2>&1 &&
	hpcprof -o db2 --text report2 m2 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db2/experiment.xml &&
	check db2 >labels
'

test_expect_success SHARING 'patterns, 2 threads: no false sharing in padded, alloc_latent predicted' '
	test "$(label db2 "padded [rt-sharing]")" = private &&
	test "$(field db2 alloc_latent 4)" = 16,32,48 &&
	grep "^  alloc_latent .*: false sharing at alignment" report2 &&
	sed -n "/^False sharing/,/^Latent/p" report2 >fs &&
	grep "^counters \[rt-sharing\]: static, start 0x" fs &&
	test_must_fail grep "^padded" fs &&
	test_must_fail grep "^alloc_latent" fs
'

test_expect_success SHARING 'patterns, 4 threads on 2 CPUs: every label is the truth' '
	hpcrun --sharing --watch "$WATCH" -o m4 ./rt-sharing patterns 4 >out &&
	./rt-sharing patterns 4 >plain && test_cmp plain out &&
	hpcstruct m4 >/dev/null 2>&1 &&
	hpcprof -o db4 m4 2>err &&
	check db4 >labels &&
	test "$(field db4 "counters [rt-sharing]" 5)" -ge 2 &&
	test "$(field db4 alloc_latent 4)" = 16,32,48
'

# numa serial: the remote accesses are thread 1's (share-lib.sh,
# thread_split), however the scheduler divided the work.
test_expect_success SHARING 'numa serial: the remote share is thread 1s share of the accesses; parallel: almost none' '
	hpcrun --sharing --watch alloc_numa --numa-nodes 0:1 -o ms ./rt-sharing numa serial >/dev/null &&
	hpcrun --sharing --watch alloc_numa --numa-nodes 0:1 -o mp ./rt-sharing numa parallel >/dev/null &&
	hpcstruct ms >/dev/null 2>&1 && hpcstruct mp >/dev/null 2>&1 &&
	hpcprof -o dbs --text reps ms 2>/dev/null &&
	hpcprof -o dbp mp 2>/dev/null &&
	s=$(field dbs alloc_numa 9) && p=$(field dbp alloc_numa 9) &&
	set -- $(thread_split ms) &&
	echo "serial $s (thread 1: $3%) parallel $p" &&
	test "$1" -ge 200 && test "$2" -ge 200 &&
	awk -v s="$s" -v t="$3" -v p="$p" "BEGIN { exit !(s >= t - 2 && s <= t + 2 && p < 10) }" &&
	test "$(field dbs alloc_numa 12)" = "initialize in parallel: let each thread first-touch the part it uses" &&
	grep "^Page x node accesses of alloc_numa " reps
'

test_done
