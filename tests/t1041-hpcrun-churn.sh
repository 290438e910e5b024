#!/bin/sh
test_description='hpcrun: programs that churn threads (rounds of short-lived threads, a pool that grows and shrinks) keep their output, and every thread is measured, without hpcrun spinning'
. "$(dirname "$0")/test-lib.sh"

# churn DIR OPTS ARGS...: runs "rt-churn ARGS" without, then with hpcrun
# -o DIR OPTS and the sched_yield counter preloaded; the same stdout, exit
# status 0; DIR.err holds the program's stderr and hpcrun's, DIR.yield the
# count.  (A SANITIZE=1 launcher is told not to mind a library preloaded
# before its ASan runtime.)
churn() {
	dir=$1 opts=$2
	shift 2
	./rt-churn "$@" >$dir.plain &&
	RT_YIELD_COUNT_FILE=$TRASH/$dir.yield LD_PRELOAD=$TRASH/rt-yield-count.so \
	ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0 \
		hpcrun -o $dir $opts ./rt-churn "$@" >$dir.out 2>$dir.err &&
	test_cmp $dir.plain $dir.out
}

# measured_all DIR: every thread the program made and its main thread
# have a profile, counted in the log; none unmeasured, no write failed, no
# live file left.
measured_all() {
	made=$(sed -n "s/^threads-made //p" $1.err) &&
	test -n "$made" &&
	grep -q "^threads: $((made + 1))$" $1/*.log &&
	grep -q "^threads-unmeasured: 0$" $1/*.log &&
	grep -q "^write-errors: 0$" $1/*.log &&
	ls $1/*.hpcrun >profiles &&
	test_line_count = $((made + 1)) profiles &&
	! ls $1/*.hpcrun-live 2>/dev/null
}

# no_spinning DIR: hpcrun's waits slept (futex.h): fewer sched_yield calls
# than threads (with waiters spinning, thread start and exit alone made
# hundreds per thread; --data's and --sharing's object map still yields
# now and then when its writers meet, more often on a busy machine).
no_spinning() {
	made=$(sed -n "s/^threads-made //p" $1.err) &&
	yields=$(sed -n "s/^sched_yield //p" $1.yield) &&
	test -n "$yields" &&
	test "$yields" -lt "$made"
}

test_expect_success 'setup: churning program, sched_yield counter' '
	cc -O2 -g -pthread -o rt-churn "$TEST_PROGS/rt-churn.c" &&
	cc -O2 -shared -fPIC -o rt-yield-count.so "$TEST_PROGS/rt-yield-count.c"
'

test_expect_success 'rounds of 100 short threads: output the same, every thread measured, no spinning' '
	churn rounds "" rounds 5 100 100 &&
	measured_all rounds &&
	no_spinning rounds
'

test_expect_success '400 threads at once: every thread measured, no spinning' '
	churn once "" rounds 1 400 100 &&
	measured_all once &&
	no_spinning once
'

test_expect_success 'a pool that grows and shrinks: output the same, every thread measured' '
	churn pool "" pool 4 32 100 &&
	measured_all pool &&
	no_spinning pool
'

test_expect_success 'without synchronization measurement (--no-sync): the same' '
	churn nosync --no-sync rounds 3 100 100 &&
	measured_all nosync &&
	no_spinning nosync
'

test_expect_success 'signal-per-sample events (--no-stack-copy): the same' '
	churn signal --no-stack-copy rounds 3 100 100 &&
	measured_all signal &&
	no_spinning signal
'

test_expect_success '--data: the same' '
	churn data --data rounds 3 100 100 &&
	measured_all data &&
	no_spinning data
'

test_expect_success '--sharing: the same, a sharing record beside every profile' '
	churn share --sharing rounds 3 100 100 &&
	measured_all share &&
	no_spinning share &&
	ls share/*.hpcshare >records &&
	test_line_count = $(cat profiles | wc -l) records
'

# sharing_buffers TRACE: how many --sharing record buffers (anonymous,
# MAP_NORESERVE, read-write, over 32 MiB) the traced run mapped.
sharing_buffers() {
	sed -n "s/.*mmap(NULL, \([0-9]*\), PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE,.*/\1/p" $1 |
	awk '$1 > 32 * 1048576 { n++ } END { print n + 0 }'
}

test_expect_success STRACE '--sharing: threads that record nothing map no record buffer, and each writes its record' '
	strace -f -qq -e trace=mmap -o quietshare.trace \
		hpcrun -o quietshare --sharing -e cpu-clock@1000000000 \
		./rt-churn rounds 5 20 100 >quietshare.out 2>quietshare.err &&
	grep -q "^threads-made 100$" quietshare.err &&
	test "$(sharing_buffers quietshare.trace)" = 0 &&
	ls quietshare/*.hpcshare >records &&
	test_line_count = 101 records &&
	grep -L "^dropped 0$" quietshare/*.hpcshare >dirty &&
	test_line_count = 0 dirty
'

test_done
