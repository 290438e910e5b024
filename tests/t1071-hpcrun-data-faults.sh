#!/bin/sh
test_description='hpcrun -e page-faults@1 --data: first-touch faults per object, on the toucher'
. "$(dirname "$0")/test-lib.sh"

# faults FOLDED: the page faults of FOLDED on the heap objects allocated in
# block_of (three calls in main: three allocation paths, three objects).
faults() {
	awk '$2 == "perf::page-faults" && $1 ~ /^\^Heap;main;block_of;\^Access;/ { s += $3 }
	     END { print s + 0 }' "$1"
}

test_expect_success 'setup: test program and profile reader' '
	cc -O2 -g -pthread -o rt-data "$TEST_PROGS/rt-data.c" &&
	nm -S --defined-only rt-data >rt-data.nm &&
	build_rt_folded
'

# The toucher threads run one after the other: thread 1 touches the block
# of 64 pages, 2 that of 128, 3 that of 192 (malloc wrote the first page of
# each: one fault fewer).  A page fault is one sample: exact counts.
test_expect_success PERF_EVENTS 'three blocks of 64, 128, 192 pages: faults 1:2:3, each on its toucher' '
	./rt-data faults >plain &&
	hpcrun -q --data -e page-faults@1 -o pf ./rt-data faults >out &&
	test_cmp plain out &&
	for t in 1 2 3; do
		./rt-folded pf/*-00$t-*.hpcrun "$TRASH/rt-data" rt-data.nm >t$t.folded &&
		grep -q "|Thread;toucher" t$t.folded || return 1
	done &&
	f1=$(faults t1.folded) && f2=$(faults t2.folded) && f3=$(faults t3.folded) &&
	echo "faults $f1 $f2 $f3" &&
	test "$f1" -ge 60 && test "$f1" -le 64 &&
	total=$((f1 + f2 + f3)) &&
	test_within "$(awk "BEGIN { print 100 * $f1 / $total }")" 16.67 3 &&
	test_within "$(awk "BEGIN { print 100 * $f2 / $total }")" 33.33 3 &&
	test_within "$(awk "BEGIN { print 100 * $f3 / $total }")" 50 3 &&
	./rt-folded pf/*-000-*.hpcrun "$TRASH/rt-data" rt-data.nm >t0.folded &&
	test "$(faults t0.folded)" = 0
'

test_expect_success PERF_EVENTS 'the blocks have their bytes and count in the allocating thread only' '
	awk "\$1 == \"^Heap;main;block_of\" && \$2 == \"DATA:bytes\" { print \$3 }" t0.folded |
		sort -n >bytes &&
	printf "262144\n524288\n786432\n" >expect &&
	test_cmp expect bytes &&
	awk "\$1 == \"^Heap;main;block_of\" && \$2 == \"DATA:blocks\" { s += \$3 } END { print s }" \
		t0.folded >blocks &&
	echo 3 >expect &&
	test_cmp expect blocks &&
	! grep "^[^#].* DATA:bytes" t1.folded t2.folded t3.folded
'

test_done
