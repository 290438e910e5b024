#!/bin/sh
test_description='hpcrun -e context-switches, -e cpu-migrations: where the threads block, at the user call path that entered the kernel; where kernel mode is not counted, one line says they record nothing'
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
# A user the kernel refuses kernel mode, to run as.
test_lazy_prereq AS_NOBODY 'test "$(id -u)" = 0 && command -v setpriv &&
	test "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2'

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
	! grep "records nothing" "$1.err" &&
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
	! grep "records nothing" mg.err &&
	grep -x "kernel-mode: counted" mg/*.log
'

# said DIR ERR WHY: the one line on stderr and in the log, nothing
# sampled.
said() {
	grep "records nothing" "$2" >line &&
	test_line_count = 1 line &&
	grep -x "hpcrun: warning: event .context-switches. counts in kernel mode only, not counted here ($3): it records nothing; see hpcrun(1)" line &&
	sed "s/^hpcrun: //" line >expect-log &&
	grep "records nothing" "$1"/*.log >actual-log &&
	test_cmp expect-log actual-log &&
	grep -x "samples-taken: 0" "$1"/*.log
}

test_expect_success '--no-kernel: context-switches records nothing, said once at start' '
	hpcrun --no-kernel -o nk -e context-switches@1 ./rt-cswitch 20 10 >nk.out 2>nk.err &&
	test_cmp expect nk.out &&
	said nk nk.err --no-kernel
'

test_expect_success '-q: the line in the log only' '
	hpcrun -q --no-kernel -o nkq -e context-switches ./rt-cswitch 20 10 >nkq.out 2>nkq.err &&
	! grep "records nothing" nkq.err &&
	grep "records nothing" nkq/*.log
'

test_expect_success AS_NOBODY 'a user the kernel refuses (perf_event_paranoid >= 2): the line names the setting' '
	mkdir nb && chmod 777 nb && cp rt-cswitch nb/ &&
	(cd nb && setpriv --reuid=65534 --regid=65534 --clear-groups \
		hpcrun -o m -e context-switches@1 ./rt-cswitch 20 10 >out 2>err) &&
	test_cmp expect nb/out &&
	said nb/m nb/err "perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)"
'

test_done
