#!/bin/sh
test_description='hpcrun --sharing + hpcprof: the Phoenix false-sharing patterns the published detectors were measured on, at 16 threads on whatever cores there are'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/share-lib.sh"

# The truth of each object is in its program's header comment; Predator
# and Sheriff found these patterns in Phoenix (docs/BENCHMARKS.md).  16
# threads on 2 cores: each thread runs in slices, so a label needs the
# samples of two threads on a line within SHARE_WINDOW_NS of each other.

test_expect_success 'setup: phoenix-histogram, phoenix-word-count, share-patterns' '
	for p in phoenix-histogram phoenix-word-count share-patterns; do
		cc -O2 -g -fno-optimize-sibling-calls -pthread -o $p \
			"$TEST_PROGS/$p.c" || return 1
	done
'

# measured NAME OBJECT LABEL CMD...: under plain hpcrun --sharing, CMD
# with each thread working retry_budget 50 ms of its CPU time (what 16
# threads on 2 idle cores get of 400 ms) prints its native output and
# hpcprof labels the allocation path whose first frame is OBJECT LABEL,
# or its threads seldom ran at once (share_unproven).
measured() {
	name=$1 obj=$2 want=$3
	shift 3
	ms=$(retry_budget 50) &&
	rm -rf m-$name db-$name &&
	"$@" $ms >plain-$name &&
	hpcrun -q --sharing -o m-$name "$@" $ms >out-$name &&
	test_cmp plain-$name out-$name &&
	hpcprof -o db-$name m-$name >/dev/null &&
	share_label db-$name $obj >got &&
	echo $want >want &&
	{ test_cmp want got || share_unproven m-$name got; }
}

# expect NAME OBJECT LABEL CMD...: measured, in up to three runs, each
# twice as long as the one before (labels are statistical: t1103).
expect() {
	test_expect_success "16 threads, $1: '$2' is $3" '
		retry 3 measured '"$*"'
	'
}

expect histogram alloc_hist_args false-sharing ./phoenix-histogram packed 16
expect histogram-padded alloc_hist_padded private ./phoenix-histogram padded 16
expect word_count alloc_wc_counts false-sharing ./phoenix-word-count 16
expect counters alloc_counters false-sharing ./share-patterns heap-counters 16
expect padded alloc_padded private ./share-patterns padded 16
expect linear_regression alloc_lreg_args false-sharing ./share-patterns linreg 16
expect migratory alloc_record migratory ./share-patterns migratory 16
expect read-mostly alloc_table read-shared ./share-patterns read-mostly 16
expect queue alloc_ring producer-consumer ./share-patterns queue 16

test_expect_success 'all 16 threads and main are in each measurement' '
	for n in histogram word_count linear_regression; do
		test $(ls m-$n/*.hpcshare | wc -l) = 17 || return 1
	done
'

test_done
