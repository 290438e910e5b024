#!/bin/sh
test_description='hpcrun: programs that churn threads (rounds of short-lived threads, a pool that grows and shrinks) keep their output, and every thread is measured, without hpcrun spinning'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq STRACE 'command -v strace'

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

# A child whose stderr its parent reads (subprocess with capture_output,
# a test harness): under -q, threads too short to sample are said in the
# log alone, and the child's stderr is what it wrote itself.
test_expect_success '-q: the unsampled threads in the log only, stderr the program'"'"'s' '
	./rt-churn rounds 5 200 100 >/dev/null 2>native.err &&
	hpcrun -o loud ./rt-churn rounds 5 200 100 >/dev/null 2>loud.err &&
	grep -q "^hpcrun: [0-9]*% of CPU time was in [0-9]* threads that ended before their first sample" loud.err &&
	hpcrun -q -o quiet ./rt-churn rounds 5 200 100 >/dev/null 2>quiet.err &&
	test_cmp native.err quiet.err &&
	grep -q "^warning: [0-9]*% of CPU time was in [0-9]* threads that ended before their first sample" quiet/*.log
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

test_expect_success '--sharing: the same, a sharing record beside main'"'"'s profile and each with records' '
	churn share --sharing rounds 3 100 100 &&
	measured_all share &&
	no_spinning share &&
	grep -l "^thread 0$" share/*.hpcshare >main &&
	test_line_count = 1 main &&
	for f in share/*.hpcshare; do
		test -f "${f%.hpcshare}.hpcrun" &&
		grep -q -e "^thread 0$" -e "^access " -e "^dropped [1-9]" \
			-e "^untracked [1-9]" "$f" || return 1
	done
'

# sharing_buffers TRACE: how many --sharing record buffers (anonymous,
# MAP_NORESERVE, read-write, over 32 MiB) the traced run mapped.
sharing_buffers() {
	sed -n "s/.*mmap(NULL, \([0-9]*\), PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE,.*/\1/p" $1 |
	awk '$1 > 32 * 1048576 { n++ } END { print n + 0 }'
}

test_expect_success STRACE '--sharing: threads that record nothing map no record buffer and open no record file' '
	strace -f -qq -e trace=mmap,openat -o quietshare.trace \
		hpcrun -o quietshare --sharing -e cpu-clock@1000000000 \
		./rt-churn rounds 5 20 100 >quietshare.out 2>quietshare.err &&
	grep -q "^threads-made 100$" quietshare.err &&
	test "$(sharing_buffers quietshare.trace)" = 0 &&
	grep "open.*\.hpcshare\"" quietshare.trace >opens &&
	test_line_count = 1 opens &&
	ls quietshare/*.hpcshare >records &&
	test_line_count = 1 records &&
	grep -q "^thread 0$" quietshare/*.hpcshare &&
	grep -q "^dropped 0$" quietshare/*.hpcshare
'

# trace_records DIR: the records of DIR's traces (32 header bytes, then
# 12 a record), one number.
trace_records() {
	stat -c %s $1/*.hpctrace | awk '{ n += ($1 - 32) / 12 } END { print n }'
}

test_expect_success '-t: the same, a trace beside main'"'"'s profile and each thread'"'"'s with records' '
	churn trace -t rounds 3 100 100 &&
	measured_all trace &&
	no_spinning trace &&
	ls trace/*.hpctrace >traces &&
	ls trace/rt-churn-*-000-*.hpctrace >main &&
	test_line_count = 1 main &&
	for f in $(cat traces); do
		test -f "${f%.hpctrace}.hpcrun" || return 1
	done &&
	for f in $(grep -v -e -000- traces); do
		test $(stat -c %s "$f") -ge $((32 + 2 * 12)) ||
		{ echo "$f: no record but the closing one" >&2; return 1; }
	done &&
	echo "trace-threads: $(wc -l <traces)" >expect &&
	grep "^trace-threads: " trace/*.log >actual &&
	test_cmp expect actual &&
	grep -q "^trace-cut: 0$" trace/*.log &&
	sed -n "s/^trace-records: //p" trace/*.log >expect &&
	trace_records trace >actual &&
	test_cmp expect actual
'

# The view pads thread numbers to one width ("thread 0  |" beside
# "thread 68 |"): a row is counted whatever the width.
test_expect_success '-t: hpcprof and the trace view take threads without a trace as empty, saying nothing' '
	hpcprof -o trace.db trace >/dev/null 2>err &&
	! grep -e "\.hpctrace" -e "\.hpcrun" -e "trace of" err &&
	grep -q "(1 process, 301 threads," err &&
	ls trace.db/traces >files &&
	test $(wc -l <files) = $(wc -l <traces) &&
	hpcviewer-tui --stdio --view trace --width 0 trace.db >view 2>err &&
	! test -s err &&
	grep -c "^thread [0-9]* *|" view >rows &&
	echo $(wc -l <traces) >expect &&
	test_cmp expect rows &&
	hpcviewer-tui --perfetto p.json trace.db 2>err &&
	! test -s err &&
	hpcviewer-tui --firefox f.json trace.db 2>err &&
	! test -s err
'

test_expect_success HPCPROF_MPI '-t: hpcprof-mpi writes the same database, the same traces' '
	mpi_as_hpcprof trace &&
	ls dbm/traces >mpifiles &&
	test_cmp files mpifiles
'

# trace_states TRACE: how many -t thread states (two 8 KiB buffers and
# a path, 20-24 KiB) the traced run mapped.
trace_states() {
	sed -n "s/.*mmap(NULL, \([0-9]*\),.*/\1/p" $1 |
	awk '$1 > 20480 && $1 < 24576 { n++ } END { print n + 0 }'
}

test_expect_success STRACE '-t: threads that record nothing create no trace file; the states of threads that ended are reused' '
	strace -f -qq -e trace=open,openat,mmap -o quiettrace.trace \
		hpcrun -o quiettrace -t -e cpu-clock@1000000000 \
		./rt-churn rounds 5 20 100 >quiettrace.out 2>quiettrace.err &&
	grep -q "^threads-made 100$" quiettrace.err &&
	grep "open.*\.hpctrace\"" quiettrace.trace >opens &&
	test $(wc -l <opens) -ge 1 &&
	! grep -v -e "-000-[^\"]*\.hpctrace\"" opens &&
	ls quiettrace/*.hpctrace >traces &&
	test_line_count = 1 traces &&
	grep -q "^trace-threads: 1$" quiettrace/*.log &&
	n=$(trace_states quiettrace.trace) &&
	test "$n" -ge 2 &&
	test "$n" -le 21
'

# live_creates TRACE: how many live files the traced run created.
live_creates() {
	grep -c "open.*\.hpcrun-live\", O_RDWR|O_CREAT|O_EXCL" $1
}

test_expect_success STRACE 'a thread takes a finished thread'"'"'s live file: live files made only for the threads alive at once' '
	strace -f -qq -e trace=open,openat,unlink,unlinkat,rename,renameat2 -o pool.trace \
		hpcrun -o pooled ./rt-churn rounds 5 20 100 >pooled.out 2>pooled.err &&
	grep -q "^threads-made 100$" pooled.err &&
	ls pooled/*.hpcrun >profiles &&
	test_line_count = 101 profiles &&
	! ls pooled/*.hpcrun-live 2>/dev/null &&
	test "$(live_creates pool.trace)" -le 25 &&
	test "$(grep -c "renameat2(.*\.hpcrun-live\", .*\.hpcrun-live\", RENAME_NOREPLACE" pool.trace)" -ge 75 &&
	! grep "renameat2.*= -1" pool.trace &&
	test "$(grep -c "unlink.*\.hpcrun-live\"" pool.trace)" -le 25
'

# free_file FILE: does FILE start with a magic of 16 zero bytes (a free
# live file, hpcrun-live.h)?
free_file() {
	cmp -s -n 16 "$1" /dev/zero
}

# all_stopped PID: waits until every thread of PID has stopped or ended (a
# SIGSTOP reaches each thread on its way, after kill has returned; one in
# a disk write takes it when the write ends); fails when one still runs
# after 20 s, so that no listing is made of a process still running.
all_stopped() {
	_w=0 && while grep -qv "^[0-9]* ([^)]*) [tTZX]" /proc/$1/task/*/stat 2>/dev/null; do
		test $_w -lt 2000 || { echo "threads of $1 still running after 20 s" >&2; return 1; }
		sleep 0.01; _w=$((_w + 1))
	done
}

# A thread stopped while its profile was being written has both a .hpcrun,
# cut short, and its tree in its live file: hpcprof recovers it too, so
# the message counts the listed trees and maybe such threads, each a
# profile marked recovered.
test_expect_success 'kill -9 mid-churn: the running threads recovered, no free file taken for a thread' '
	hpcrun -o k9 ./rt-churn rounds 1000000 20 200 >k9.out 2>k9.err &
	pid=$! &&
	_i=0 && while [ "$(ls k9 2>/dev/null | grep -c "\.hpcrun$")" -lt 100 ] && [ $_i -lt 300 ]; do
		sleep 0.1; _i=$((_i + 1)); done &&
	# stopped at a moment the pool holds a free file
	_i=0 && while :; do
		kill -STOP $pid || return 1
		all_stopped $pid || { kill -9 $pid; return 1; }
		for f in k9/*.hpcrun-live; do
			! free_file "$f" || echo "$f"; done >free
		{ test -s free || test $_i -ge 200; } && break
		kill -CONT $pid && sleep 0.02 && _i=$((_i + 1)) || return 1
	done &&
	for f in k9/*.hpcrun-live; do
		free_file "$f" || test -e "${f%-live}" || echo "${f%-live}"; done >trees &&
	ls k9/*.hpcrun >before &&
	{ kill -9 $pid; wait $pid; test $? = 137; } &&
	test -s free && test -s trees &&
	hpcprof -o k9db k9 2>err &&
	n=$(wc -l <trees) &&
	m=$(sed -n "s/.*: recovered \([0-9]*\) profiles\{0,1\} of killed process $pid (rt-churn)$/\1/p" err) &&
	{ test "${m:-0}" -ge "$n" && ! grep "not recovered" err ||
	  { echo "listed trees:"; cat trees; echo "hpcprof:"; cat err; false; }; } &&
	! ls k9/*.hpcrun-live k9/*.hpcrun-proc 2>/dev/null &&
	ls k9/*.hpcrun >after &&
	sort before trees >expect &&
	test_cmp expect after &&
	for p in k9/*.hpcrun; do
		hpcprof --dump "$p" >dump || exit 1
		if grep -q "hpcrun-recovered = \"killed\"" dump; then echo "$p"; fi
	done >recovered &&
	test_line_count = "$m" recovered &&
	for p in $(cat trees); do
		grep -qx "$p" recovered || exit 1
	done
'

# A thread per small task, as a program that starts one for each job:
# each of main's 500 threads runs about 0.4 ms, shorter than a sample
# period, then main does the same work itself.  The threads take no
# sample, and the end says what share of the process's CPU time they had
# (under half: the work is split in two, but the system time of each
# thread's start and end under hpcrun is the process's too).  Threads that run 50 ms each
# all take samples: none is counted.
cat >task-threads.c <<\EOF
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile double sink;
static long iters;
static void work(long n)
{
	double x = 0;

	for (long i = 0; i < n; i++)
		x += i * 0.5;
	sink = x;
}
static void *task(void *a)
{
	(void)a;
	work(iters);
	return NULL;
}
int main(int argc, char **argv)
{
	int n = atoi(argv[1]);

	iters = atol(argv[2]);
	for (int i = 0; i < n; i++) {
		pthread_t t;

		pthread_create(&t, NULL, task, NULL);
		pthread_join(t, NULL);
	}
	if (argc > 3 && !strcmp(argv[3], "fork")) {	/* a child, no threads */
		pid_t c = fork();

		if (c == 0) {
			work(iters * 10);
			_exit(0);
		}
		waitpid(c, NULL, 0);
	}
	work(iters * n);
	puts("done");
	return 0;
}
EOF

test_expect_success 'a thread per small task: their unsampled share of CPU time is said' '
	cc -O1 -pthread -o task-threads task-threads.c &&
	hpcrun -o tasks ./task-threads 500 100000 >out 2>err &&
	echo done >expect && test_cmp expect out &&
	only_hpcrun_said err &&
	sed -n "s/^hpcrun: \([0-9]*\)% of CPU time was in \([0-9]*\) threads that ended before their first sample (.* s), not measured; see hpcrun(1)$/\1 \2/p" err >said &&
	test_line_count = 1 said &&
	read pct n <said &&
	test "$n" -ge 490 && test "$n" -le 500 &&
	test "$pct" -ge 5 && test "$pct" -le 70 &&
	grep -q "^threads-unsampled: $n$" tasks/*.log &&
	grep -q "^warning: $pct% of CPU time was in $n threads" tasks/*.log
'

# A fork child starts its counts afresh: the parent's short threads are
# the parent's, said once, with the parent's share.
test_expect_success 'a fork child after short threads: its log counts none of them' '
	hpcrun -o fork-tasks ./task-threads 500 300000 fork >out 2>err &&
	echo done >expect && test_cmp expect out &&
	ls fork-tasks/*.log >logs && test_line_count = 2 logs &&
	grep -l "^threads-unsampled: 0$" fork-tasks/*.log >child &&
	test_line_count = 1 child &&
	grep "first sample" err >said &&
	test_line_count = 1 said &&
	grep -q "% of CPU time was in 50[0-9] threads\|% of CPU time was in 49[0-9] threads" said
'

test_expect_success 'threads of 50 ms each: none ends unsampled, nothing said' '
	hpcrun -o long-tasks ./task-threads 4 50000000 >out 2>err &&
	echo done >expect && test_cmp expect out &&
	! grep "first sample" err &&
	grep -q "^threads-unsampled: 0$" long-tasks/*.log
'

test_done
