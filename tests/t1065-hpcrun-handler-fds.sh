#!/bin/sh
test_description='hpcrun -t: the sampling handler opens no file and takes no number of the program'\''s fd table, full to its limit, while traces fill and the tree grows'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq STRACE 'command -v strace'

# rt-fdfull (tests/progs/rt-fdfull.c) fills its table up to a soft
# RLIMIT_NOFILE of 32; a thread closes the last fd and opens /dev/null
# again, over and over, while main walks 2^20 call paths: about 1.5 s of
# CPU, some 20 new tree nodes a sample, 2 MiB of tree (6 arena chunks).
# An open of hpcrun in the program's table at any moment would make that
# open() fail with EMFILE or give another number; with the table full,
# hpcrun's own open there would fail too (a trace cut short).

test_expect_success 'setup: natively every reopen in the full table gets its fd back' '
	cc -O1 -pthread -o rt-fdfull "$TEST_PROGS/rt-fdfull.c" &&
	./rt-fdfull >expect &&
	grep "^every reopen gave fd [0-9]*, none failed$" expect
'

# Each thread's 682-record buffer fills every 0.68 s of it at 1 kHz: the
# writer has the time the other buffer takes to fill to give it back.
test_expect_success PERF_EVENTS 'under hpcrun -t: the same output, no trace cut, no record dropped' '
	hpcrun -t -o full ./rt-fdfull >out 2>err &&
	test_cmp expect out &&
	only_hpcrun_said err &&
	grep -q "^trace-cut: 0$" full/*.log &&
	grep -q "^trace-records-dropped: 0$" full/*.log &&
	grep -q "^write-errors: 0$" full/*.log &&
	n=$(sed -n "s/^trace-records: //p" full/*.log) &&
	test "$n" -gt 1364
'

# The live file grows by chunks the writer maps ahead: after SIGKILL the
# recovered tree holds more nodes (56 bytes each) than the first three
# chunks (64 + 128 + 256 KiB) could.  A writer late with a chunk (a busy
# machine: the program's two threads spin on two CPUs) leaves the tree's
# later chunks in anonymous memory (hpcrun/rt/cct.c, invariant 5), which
# a killed process loses: once in some 40 runs at a load of 4-7, the first
# two chunks alone were recovered.  So retry 2: a live file that cannot
# grow fails both runs.
# killed_tree: rt-fdfull killed under hpcrun -t into k9, its main
# thread's tree recovered past the first three chunks.
killed_tree() {
	rm -rf k9 k9db &&
	{ hpcrun -t -o k9 ./rt-fdfull kill >k9.out 2>k9.err; echo $? >rc; } &&
	echo 137 >rc.expect &&
	test_cmp rc.expect rc &&
	! grep "stopped growing" k9.err &&
	hpcprof -o k9db k9 2>err &&
	grep -q "recovered 1 profile of killed process" err &&
	n=$(hpcprof --dump k9/*-000-*.hpcrun | sed -n "s/^cct //p") &&
	echo "$n nodes recovered" &&
	test "$n" -gt 8300
}

test_expect_success PERF_EVENTS 'SIGKILL: the live file holds the tree, grown by the writer'\''s chunks' '
	retry 2 killed_tree
'

# The program's threads are those that open /dev/null; hpcrun's fd thread
# and writer open the traces and live files.
test_expect_success PERF_EVENTS,STRACE 'no program thread opens a trace or live file (strace -f)' '
	strace -f -qq -e trace=open,openat -e signal=none -o st.log \
		hpcrun -t -o st ./rt-fdfull >out &&
	test_cmp expect out &&
	awk "/\"\\/dev\\/null\"/ { print \$1 }" st.log | sort -u >program &&
	grep -E "\\.(hpctrace|hpcrun-live)\"" st.log | awk "{ print \$1 }" |
		sort -u >opener &&
	test_line_count = 2 program &&
	test -s opener &&
	comm -12 program opener >both &&
	test ! -s both
'

test_done
