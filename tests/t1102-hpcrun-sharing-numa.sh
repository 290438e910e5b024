#!/bin/sh
test_description='hpcrun --sharing: first touches from page-fault samples and remote accesses on a virtual 2-node topology'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/share-lib.sh"

test "$(getconf _NPROCESSORS_ONLN)" -ge 2 && test_set_prereq CPUS2

# First touches are the samples of -e page-faults@1 (every fault, with
# its address); the accesses are the cpu-clock samples.  The serial case:
# thread 0 first-touches every page (node 0), so exactly the accesses of
# thread 1 (pinned to CPU 1, node 1) are remote.  How many each thread
# makes depends on how the scheduler runs them, not on hpcrun, so the
# remote share must be thread 1's share of the block's sampled accesses
# (thread_split, share-lib.sh).  The parallel case: each thread touches
# its half first and reads only it: 0% remote, but for a page a sample
# placed on the wrong side of the page-fault/sample race.

EVENTS="-e cpu-clock@f5000 -e page-faults@1"

test_expect_success CPUS2 'setup: the test program' '
	build_rt_sharing &&
	./rt-sharing numa serial >plain-serial &&
	./rt-sharing numa parallel >plain-parallel
'

for m in serial parallel; do
test_expect_success CPUS2 "numa $m: same output, the topology lines, first touches recorded" '
	hpcrun -q --sharing $EVENTS --numa-nodes 0:1 -o '$m' ./rt-sharing numa '$m' >out &&
	test_cmp plain-'$m' out &&
	for f in '$m'/*.hpcshare; do
		grep -q "^topology virtual 2$" "$f" && grep -q "^node 0 0$" "$f" &&
		grep -q "^node 1 1$" "$f" || return 1
	done &&
	cat '$m'/*.hpcshare | awk "\$1 == \"access\" && \$8 == 1" >first &&
	test "$(wc -l <first)" -ge 500 &&
	hpcprof -o db'$m' --text rep'$m' '$m' >/dev/null
'
done

test_expect_success CPUS2 'numa serial: thread 0 first-touched the pages; the remote share is thread 1s share of the accesses' '
	for f in serial/*.hpcshare; do
		t=$(awk "\$1 == \"thread\" { print \$2 }" "$f") &&
		n=$(awk "\$1 == \"access\" && \$8 == 1" "$f" | wc -l) &&
		echo "thread $t: $n first touches" &&
		{ test "$t" = 0 || test "$n" -le 5; } || return 1
	done &&
	test "$(share_field dbserial alloc_numa 12)" = 0 &&
	set -- $(thread_split serial) &&
	pct=$(share_field dbserial alloc_numa 10) &&
	echo "thread 0: $1, thread 1: $2 accesses ($3%); remote $pct%" &&
	test "$1" -ge 200 && test "$2" -ge 200 &&
	awk -v s="$pct" -v t="$3" "BEGIN { exit !(s >= t - 2 && s <= t + 2) }" &&
	test "$(share_field dbserial alloc_numa 13)" = "initialize in parallel: let each thread first-touch the part it uses" &&
	grep "^Page x node accesses of alloc_numa " repserial
'

test_expect_success CPUS2 'numa parallel: each thread touched its half first; almost no access is remote' '
	for f in parallel/*.hpcshare; do
		awk "\$1 == \"access\" && \$8 == 1" "$f" | wc -l
	done >touches &&
	cat touches &&
	awk "\$1 < 200 { exit 1 }" touches &&
	pct=$(share_field dbparallel alloc_numa 10) &&
	echo "remote $pct%" &&
	awk -v p="$pct" "BEGIN { exit !(p < 2) }" &&
	test "$(share_field dbparallel alloc_numa 13)" = "local: no change"
'

test_expect_success 'without --numa-nodes the real topology is written' '
	test -f rt-sharing || build_rt_sharing &&
	hpcrun -q --sharing -o real ./rt-sharing numa parallel >out &&
	f=$(ls real/*.hpcshare | head -n 1) &&
	n=$(awk "\$1 == \"topology\" && \$2 == \"real\" { print \$3 }" "$f") &&
	test "$n" -ge 1 &&
	test "$(grep -c "^node " "$f")" = "$n"
'

test_done
