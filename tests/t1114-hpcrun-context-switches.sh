#!/bin/sh
test_description='hpcrun -e context-switches, -e cpu-migrations: where the threads block, at the user call path that entered the kernel'
. "$(dirname "$0")/test-lib.sh"

# tests/progs/rt-cswitch.c: a worker waits N times on a condition
# variable in wait_for_work() while main computes in compute(); stderr
# says main's preemptions in compute().
test_expect_success 'setup: the test program' '
	cc -O2 -g -pthread -o rt-cswitch "$TEST_PROGS/rt-cswitch.c" &&
	echo "waits 20" >expect
'

# The scheduler's events count in kernel mode only (kernel-time.h,
# invariant 7): root, or perf_event_paranoid <= 1.
test_lazy_prereq KERNEL_MODE 'test "$(id -u)" = 0 ||
	test "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1'

# samples FOLDED PATH: the samples of FOLDED's paths that hold the frames
# of PATH ("f;g") in a row, each frame named without its module.
samples() {
	awk -v want="$2" '{ n = split($0, p, ";"); sub(/ [0-9.e+]*$/, "", p[n]);
		path = ""; for (i = 1; i <= n; i++) { g = p[i]; sub(/ .*/, "", g);
			path = path ";" g }
		if (index(path ";", ";" want ";")) s += $NF }
		END { print s + 0 }' "$1"
}

# switched DIR: rt-cswitch 20 10 under -e context-switches@1 into DIR;
# each wait is a sample below pthread_cond_timedwait in wait_for_work(),
# and compute() holds no more than main's preemptions there (none on an
# idle machine; two more for the samples of the switches around
# getrusage).
switched() {
	rm -rf "$1" "$1.d" &&
	hpcrun -o "$1" -e context-switches@1 ./rt-cswitch 20 10 >"$1.out" 2>"$1.err" &&
	test_cmp expect "$1.out" &&
	hpcprof -o "$1.d" "$1" >/dev/null 2>&1 &&
	hpcviewer-tui --folded "$1.f" "$1.d" &&
	waits=$(samples "$1.f" "wait_for_work;pthread_cond_timedwait@@GLIBC_2.3.2") &&
	in_compute=$(samples "$1.f" "main;compute") &&
	preempted=$(true_share preempted "$1.err") &&
	echo "waits: $waits samples; compute: $in_compute, preempted $preempted" &&
	test "$waits" -ge 20 &&
	test "$in_compute" -le $((preempted + 2))
}

test_expect_success KERNEL_MODE 'context-switches: each wait at its call in wait_for_work(), compute() only its preemptions' '
	retry 2 switched cs
'

test_expect_success KERNEL_MODE 'a scheduler'"'"'s event counts no time: the log does not say kernel time is counted' '
	grep -x "kernel-mode: not counted (no event counts time)" cs/*.log &&
	n=$(sed -n "s/^samples-taken: //p" cs/*.log) && test "$n" -ge 20
'

test_expect_success KERNEL_MODE 'cpu-migrations beside cpu-clock: sampled, kernel time counted by cpu-clock' '
	hpcrun -o mg -e cpu-migrations@1 -e cpu-clock ./rt-cswitch 20 10 >mg.out 2>mg.err &&
	test_cmp expect mg.out &&
	grep -x "kernel-mode: counted" mg/*.log
'

test_done
