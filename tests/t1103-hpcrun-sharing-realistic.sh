#!/bin/sh
test_description='hpcrun --sharing + hpcprof: the label of each sharing pattern people write, at 2 and 4 threads'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/share-lib.sh"

test_expect_success 'setup: share-patterns, share-queues, heap-shift.so' '
	for p in share-patterns share-queues; do
		cc -O2 -g -fno-optimize-sibling-calls -pthread -o $p \
			"$TEST_PROGS/$p.c" || return 1
	done &&
	cc -O2 -shared -fPIC -o heap-shift.so "$TEST_PROGS/heap-shift.c"
'

# shifted CMD...: CMD, the heap blocks of the program it runs moved
# $heap_shift bytes by heap-shift.so when that is set
# (tests/progs/heap-shift.c); hpcrun keeps the user's LD_PRELOAD after
# its runtime.  The sanitizer build's hpcrun would refuse a library
# preloaded before ASan's; heap-shift.so allocates one block and
# intercepts nothing.
shifted() {
	if test -n "$heap_shift"; then
		HEAP_SHIFT=$heap_shift \
		LD_PRELOAD="$PWD/heap-shift.so${LD_PRELOAD:+:$LD_PRELOAD}" \
		ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0" "$@"
	else
		"$@"
	fi
}

# label DB NAME: the label of the object of sharing.tsv whose name starts
# with NAME.
label() {
	awk -F "	" -v n="$2" '$1 == "object" && index($14, n) == 1 { print $3 }' \
		"$1/sharing.tsv"
}

# measured MODE OBJECT LABEL THREADS: one run of ./$prog (share-patterns
# or share-queues) under plain hpcrun --sharing, each thread working
# retry_budget 400 ms of its CPU time; its output is the native one (one
# line that depends only on MODE and THREADS, as the program says) and
# hpcprof labels OBJECT (the start of its name) LABEL, or its threads
# seldom ran at once (share_unproven).
measured() {
	ms=$(retry_budget 400) &&
	rm -rf m-$1-$4 db-$1-$4 unproven-$1-$4 &&
	echo "$1 $4 threads: $4 worked" >plain &&
	shifted hpcrun -q --sharing -o m-$1-$4 ./$prog $1 $4 $ms >out &&
	test_cmp plain out &&
	hpcprof -o db-$1-$4 m-$1-$4 >/dev/null &&
	label db-$1-$4 "$2" >got &&
	echo $3 >want &&
	{ test_cmp want got ||
	  { share_unproven m-$1-$4 got && : >unproven-$1-$4; }; }
}

# proven MODE THREADS: the last run of MODE at THREADS showed its label,
# not the absence of evidence (share_unproven); else says so.
proven() {
	test ! -f unproven-$1-$2 || {
		echo "$1 at $2 threads: its threads seldom ran at once, nothing to check"
		return 1
	}
}

# expect MODE OBJECT LABEL THREADS: measured, in up to three runs, each
# twice as long in CPU time as the one before.  Labels are statistical
# (sharing.h, invariant 3): a run in which one thread's samples fall
# short gives a lesser label (private for a queue whose consumer was seen
# too little), and only accesses another thread's sample lies near count:
# on a busy machine its threads' few samples seldom meet.  An object's
# label pools the evidence of all its lines, so a large object whose
# every line is seen a few times gets its label too.
expect() {
	mode=$1 obj=$2 want=$3 nt=$4
	test_expect_success "$nt threads, $mode: '$obj' is $want${5:+ $5}" '
		retry 3 measured $mode "$obj" $want $nt
	'
}

prog=share-patterns
for t in 2 4; do
	expect heap-counters "alloc_counters " false-sharing $t
	expect global-counters "counters [" false-sharing $t
	expect padded "alloc_padded " private $t
	expect migratory "alloc_record " migratory $t
	expect read-mostly "alloc_table " read-shared $t
	expect queue "alloc_ring " producer-consumer $t
	expect linreg "alloc_lreg_args " false-sharing $t
	expect big-table "alloc_big_table " read-shared $t
	expect mqueue "alloc_queue " producer-consumer $t
	expect handoff "alloc_handoff " migratory $t
	expect pingpong "alloc_buffer " producer-consumer $t
done

# A truth must not hang on where the heap puts an object (issue #34): a
# test program line-aligns a block whose label would change with its
# placement.  heap-shift.so moves a program's heap blocks; each shift
# moves a block carved after it by as many bytes under hpcrun.
test_expect_success 'heap-shift.so moves a block 16, 32 and 48 bytes within its line under hpcrun' '
	cat >where.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	int main(void)
	{
		printf("%d\n", (int)((unsigned long)malloc(40) % 64));
		return 0;
	}
	EOF
	cc -o where where.c &&
	at0=$(heap_shift=0 shifted hpcrun -q --sharing -o w0 ./where) &&
	for s in 16 32 48; do
		at=$(heap_shift=$s shifted hpcrun -q --sharing -o w$s ./where) &&
		echo "shift $s: at $at, unshifted $at0" &&
		test $(((at - at0 - s) % 64)) = 0 || return 1
	done
'

# Phoenix's 56-byte structs from 16 bytes past a line are private at 2
# threads (each thread's written fields on lines of their own): the
# program line-aligns them, so their truth is false sharing wherever the
# heap is, which the other shifts check.
for heap_shift in 16 32 48; do
	expect linreg "alloc_lreg_args " false-sharing 2 "at heap shift $heap_shift"
done
heap_shift=

# The same shapes as people write them (share-queues.c): a work queue of
# pointers to records malloc'd by producers and freed by consumers (the
# allocator's accesses to them are its own, not the program's), a
# lock-free ring of structs, a double buffer, a record of balances under
# a lock, a lookup table, per-thread statistics packed in an array.
prog=share-queues
expect ptrqueue "alloc_job " producer-consumer 2
expect ptrqueue "alloc_job " producer-consumer 4
expect ptrqueue2 "alloc_job " producer-consumer 4
for t in 2 4; do
	expect sring "alloc_sring " producer-consumer $t
	expect dbuf "alloc_dbuf " producer-consumer $t
	expect account "alloc_accounts " migratory $t
	expect lut "alloc_lut " read-shared $t
	expect stats "alloc_stats " false-sharing $t
done

# pooled DB NAME: "pooled" when DB's sharing.tsv says the label of the
# object whose name starts with NAME is pooled from all its lines.
pooled() {
	awk -F "	" -v n="$2" '$1 == "object" && index($14, n) == 1 { id[$2] = 1 }
		$1 == "pooled" && ($2 in id) { print "pooled" }' "$1/sharing.tsv"
}

test_expect_success 'a 4 MB table no line of which is labelled alone: its label says it is pooled' '
	! proven big-table 4 || {
	echo pooled >want &&
	pooled db-big-table-4 "alloc_big_table " >got &&
	test_cmp want got &&
	hpcprof -o db-text --text report m-big-table-4 >/dev/null &&
	grep -q "^read-shared .*alloc_big_table .*(pooled)$" report &&
	hpcviewer-tui --detail alloc_big_table db-big-table-4 >detail &&
	grep -q "^sharing: read-shared (pooled from all its lines), " detail
	}
'

test_expect_success 'per-thread counters keep their false-sharing line: their label is not pooled' '
	! proven heap-counters 4 || {
	pooled db-heap-counters-4 "alloc_counters " >got &&
	test ! -s got &&
	grep -q "^line	" db-heap-counters-4/sharing.tsv
	}
'

test_expect_success 'main alone before and after the threads shares nothing: the table main fills and reads is no producer-consumer' '
	! grep -q "producer-consumer" db-read-mostly-4/sharing.tsv
'

# --watch names the per-thread counter block (8 bytes a thread) below
# --data-min-bytes: tracked all the same, its true label, ranked first.
test_expect_success 'without --watch a counter block below --data-min-bytes is no object' '
	hpcrun -q --sharing --data-min-bytes 1024 -o m-small ./share-patterns heap-counters 4 >out &&
	hpcprof -o db-small m-small >/dev/null &&
	label db-small "alloc_counters " >got &&
	test ! -s got
'

# watched: one run of share-patterns heap-counters 4 under --watch, each
# thread working retry_budget 400 ms of its CPU time.  Its label is
# statistical, as expect's are: a run in which the writes of only one
# thread were sampled twice reads as one writer among readers
# (producer-consumer); a longer run gathers the evidence.
watched() {
	ms=$(retry_budget 400) &&
	rm -rf m-watch db-watch &&
	echo "heap-counters 4 threads: 4 worked" >plain &&
	hpcrun -q --sharing --data-min-bytes 1024 --watch "alloc_*ounters" \
		-o m-watch ./share-patterns heap-counters 4 $ms >out 2>err &&
	test_cmp plain out &&
	test ! -s err &&
	grep -q "^watched [0-9]" m-watch/*.hpcshare &&
	grep -q "^sharing-watch: alloc_\*ounters$" m-watch/*.log &&
	hpcprof -o db-watch --text report m-watch >/dev/null &&
	label db-watch "alloc_counters " >got &&
	echo false-sharing >want &&
	test_cmp want got
}

test_expect_success '--watch alloc_counters: the block is tracked, false sharing, ranked first' '
	retry 3 watched &&
	grep "^object" db-watch/sharing.tsv | head -n 1 | cut -f14 >first &&
	grep -q "^alloc_counters " first &&
	id=$(grep "^object" db-watch/sharing.tsv | head -n 1 | cut -f2) &&
	grep -qx "watched	$id" db-watch/sharing.tsv &&
	sed -n "/^label /{n;p;}" report >row &&
	grep -q "^false-sharing .*alloc_counters .*(watched)$" row
'

test_expect_success 'a --watch glob that matches nothing says so in one line' '
	hpcrun -q --sharing --watch alloc_counters,no_such_fn_zz -o m-none \
		./share-patterns heap-counters 2 >out 2>err &&
	cat err &&
	test_line_count = 1 err &&
	grep -q "^hpcrun: warning: --watch .no_such_fn_zz.: no variable or function of share-patterns matches$" err &&
	grep -q "^sharing-watch-unmatched: no_such_fn_zz$" m-none/*.log
'

test_expect_success '--sharing-rate is refused in one line naming -e cpu-clock@fN' '
	test_must_fail hpcrun --sharing --sharing-rate 100 ./share-patterns padded 2 >out 2>err &&
	test_line_count = 1 err &&
	grep -q "sharing-rate.*-e cpu-clock@fN" err &&
	test ! -s out
'

test_expect_success 'bad --watch globs are refused in one line; --watch needs --sharing' '
	for g in "a[b" "a,,b" "," "a b"; do
		test_must_fail hpcrun --sharing --watch "$g" ./share-patterns padded 2 2>err &&
		test_line_count = 1 err &&
		grep -q "^hpcrun: option .--watch.: " err || return 1
	done &&
	test_must_fail hpcrun --watch alloc_counters ./share-patterns padded 2 2>err &&
	grep -q "needs --sharing" err
'

test_done
