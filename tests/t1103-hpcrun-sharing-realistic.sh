#!/bin/sh
test_description='hpcrun --sharing + hpcprof: the label of each sharing pattern people write, at 2 and 4 threads'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: share-patterns' '
	cc -O2 -g -fno-optimize-sibling-calls -pthread -o share-patterns \
		"$TEST_PROGS/share-patterns.c"
'

# label DB NAME: the label of the object of sharing.tsv whose name starts
# with NAME.
label() {
	awk -F "	" -v n="$2" '$1 == "object" && index($14, n) == 1 { print $3 }' \
		"$1/sharing.tsv"
}

# expect MODE OBJECT LABEL THREADS: under plain hpcrun --sharing, the
# output is the native one and hpcprof labels OBJECT (the start of its
# name) LABEL.
expect() {
	mode=$1 obj=$2 want=$3 nt=$4
	test_expect_success "$nt threads, $mode: '$obj' is $want" '
		./share-patterns $mode $nt >plain &&
		hpcrun -q --sharing -o m-$mode-$nt ./share-patterns $mode $nt >out &&
		test_cmp plain out &&
		hpcprof -o db-$mode-$nt m-$mode-$nt >/dev/null &&
		label db-$mode-$nt "$obj" >got &&
		echo $want >want &&
		test_cmp want got
	'
}

for t in 2 4; do
	expect heap-counters "alloc_counters " false-sharing $t
	expect global-counters "counters [" false-sharing $t
	expect padded "alloc_padded " private $t
	expect migratory "alloc_record " migratory $t
	expect read-mostly "alloc_table " read-shared $t
	expect queue "alloc_ring " producer-consumer $t
	expect linreg "alloc_lreg_args " false-sharing $t
done

test_expect_success 'main alone before and after the threads shares nothing: the table main fills and reads is no producer-consumer' '
	! grep -q "producer-consumer" db-read-mostly-4/sharing.tsv
'

test_done
