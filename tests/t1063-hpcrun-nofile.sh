#!/bin/sh
test_description='hpcrun: a program with RLIMIT_NOFILE lowered to 4 gets fd 3 from every open(), as without hpcrun; a full table costs hpcrun no file'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: test program; natively every open gives fd 3' '
	cc -O2 -pthread -o rt-nofile "$TEST_PROGS/rt-nofile.c" &&
	./rt-nofile 1500 >out &&
	echo "fd 3 in 1500 of 1500 opens" >expect &&
	test_cmp expect out &&
	./rt-nofile hold >out &&
	echo "with a thread running, open gave fd 3" >hold.expect &&
	test_cmp hold.expect out
'

# Each thread start opened its ring event, and each thread end its profile,
# in the program's fd table for a moment: an open() of the program at that
# moment got EMFILE (2-12 times in 2000 rounds, every run).  Now hpcrun's
# fds of a thread's start and end are opened in hpcrun's own table
# (fd-gate.c, THE PRIVATE TABLE).
test_expect_success PERF_EVENTS 'thread starts and ends never take the program'\''s fd 3: 2 x 1500 opens' '
	for i in 1 2; do
		hpcrun -o ring$i ./rt-nofile 1500 >out &&
		test_cmp expect out &&
		grep -q "^threads: 1501$" ring$i/*.log || exit 1
	done
'

test_expect_success 'CPUTIME (timers; the profiles'\'' files): 1500 opens, all fd 3' '
	hpcrun -e CPUTIME -o timer ./rt-nofile 1500 >out &&
	test_cmp expect out &&
	grep -q "^threads: 1501$" timer/*.log
'

# A perf event with a signal per sample keeps a fd; placed at 3/4 of the
# soft limit, it took fd 3 itself once the program had lowered the limit
# to 4, and the program'\''s open() failed every time.
test_expect_success PERF_EVENTS 'a thread'\''s perf fd (signal per sample) stays above a soft limit of 4' '
	hpcrun --no-stack-copy -o held ./rt-nofile hold >out &&
	test_cmp hold.expect out &&
	grep -q "^threads: 2$" held/*.log &&
	grep -q "^sampling-stopped: 0$" held/*.log
'

# At the common soft limit of 1024 (the hard one higher) that fd went at
# 768, 3/4 of it: a pool that filled its table and freed its top numbers
# lost them to its workers' perf fds (EMFILE 3 of 4).  It goes above the
# soft limit now.
test_expect_success PERF_EVENTS 'a pool filling its table to a soft limit of 1024: every worker opens its file, in every mode' '
	./rt-nofile pool >pool.expect &&
	echo "pool: 4 of 4 opened, numbers 1020-1023" >expect && test_cmp expect pool.expect &&
	for mode in "" --no-stack-copy -e\ REALTIME -e\ CPUTIME; do
		rm -rf pool && hpcrun $mode -o pool ./rt-nofile pool >out &&
		test_cmp expect out &&
		grep -q "^threads: 5$" pool/*.log || return 1
	done
'

# A program that exits with its table full under a soft RLIMIT_NOFILE
# equal to the hard one (nothing to lift) lost its log, "Too many open
# files: log lost", and the kernel's symbols: both were opened in its
# table.  They are written on a fd thread now, as the profiles are.
test_expect_success 'a full table at soft = hard limit: the log written, nothing said lost' '
	./rt-nofile full >full.expect &&
	echo "full: open refused (Too many open files), a thread ran" >expect &&
	test_cmp expect full.expect &&
	hpcrun -o full ./rt-nofile full >out 2>err &&
	test_cmp expect out &&
	! grep "lost" err &&
	sh -c "ulimit -n 1024 && exec hpcrun -o full-sh ./rt-nofile full" >out 2>err &&
	test_cmp expect out &&
	! grep "lost" err &&
	for d in full full-sh; do
		ls $d/*.log >logs && test_line_count = 1 logs &&
		grep -q "^end: exit$" $d/*.log &&
		grep -q "^threads: 2$" $d/*.log &&
		grep -q "^write-errors: 0$" $d/*.log &&
		ls $d/*.hpcrun >files && test_line_count = 2 files || return 1
	done
'

test_done
