#!/bin/sh
test_description='hpcrun -e REALTIME: wall-clock time on and off the CPU with no signal to a blocked thread: a server'"'"'s waits (select, poll, epoll_wait, sem_timedwait, nanosleep) run to their timeouts as natively, and each is charged the time it blocked'
. "$(dirname "$0")/test-lib.sh"

# tests/progs/rt-wall.c: an I/O thread waits N rounds of five calls of MS
# ms, each in its own function, beside a worker computing in compute();
# stdout counts the calls cut short, stderr says each function's wall
# time by the program's own clock.
test_expect_success 'setup: the test program' '
	cc -O2 -g -pthread -o rt-wall "$TEST_PROGS/rt-wall.c"
'

# Off-CPU time needs perf's trap of context switches (Linux 5.13, kernel
# mode countable: root or perf_event_paranoid <= 1); elsewhere REALTIME
# is the wall-clock timer, which says so.
test_lazy_prereq OFFCPU '
	hpcrun -o probe -e REALTIME true 2>probe.err &&
	! grep -q "REALTIME signals threads while they are blocked" probe.err
'
test_lazy_prereq NO_OFFCPU '
	hpcrun -o probe2 -e REALTIME true 2>probe2.err &&
	grep -q "REALTIME signals threads while they are blocked" probe2.err
'

# ms FOLDED FUNCTION: the REALTIME of the paths through FUNCTION, in ms.
ms() {
	awk -v f="$2" '{ n = split($0, p, ";"); for (i = 1; i <= n; i++) {
		g = p[i]; sub(/ .*/, "", g); if (g == f) { s += $NF; break } } }
		END { printf "%.1f\n", s / 1e6 }' "$1"
}

# measured DIR: rt-wall 10 20 under hpcrun -e REALTIME into DIR; each wait
# function and compute() are charged their own wall time within 10% and
# 10 ms (the worker'"'"'s time on the CPU is sampled every 4 ms).
measured() {
	rm -rf "$1" "$1.d" &&
	hpcrun -o "$1" -e REALTIME ./rt-wall 10 20 >"$1.out" 2>"$1.err" &&
	test_cmp expect "$1.out" &&
	hpcprof -o "$1.d" "$1" >/dev/null 2>&1 &&
	hpcviewer-tui --folded "$1.f" "$1.d" &&
	for pair in select:wait_select poll:wait_poll epoll_wait:wait_epoll \
		    sem_timedwait:wait_sem nanosleep:wait_sleep compute:compute; do
		want=$(true_share "${pair%%:*}" "$1.err") &&
		got=$(ms "$1.f" "${pair#*:}") &&
		echo "${pair#*:}: $got ms, its own clock $want ms" &&
		test_within "$got" "$want" "$(awk -v w="$want" "BEGIN { print w / 10 + 10 }")" ||
		return 1
	done
}

test_expect_success OFFCPU 'no wait is cut short: the program prints what it prints natively' '
	./rt-wall 10 20 >expect 2>/dev/null &&
	echo "cut short: select 0 poll 0 epoll_wait 0 sem_timedwait 0 nanosleep 0" >want &&
	test_cmp want expect &&
	retry 2 measured m
'

test_expect_success OFFCPU 'the whole run is counted: each thread'"'"'s REALTIME is its wall time' '
	total=$(awk "{ s += \$NF } END { printf \"%.1f\", s / 1e6 }" m.f) &&
	wall=$(true_share compute m.err) &&
	test_within "$total" "$(awk -v w="$wall" "BEGIN { print 3 * w }")" \
		"$(awk -v w="$wall" "BEGIN { print 3 * w / 10 + 30 }")"
'

test_expect_success OFFCPU 'with -t the I/O thread'"'"'s trace shows its waits where they were, main its join throughout' '
	hpcrun -o t -t -e REALTIME ./rt-wall 5 20 >out 2>/dev/null &&
	test_cmp expect out &&
	hpcprof -o t.d t >/dev/null 2>&1 &&
	hpcviewer-tui --stdio --view trace t.d >trace &&
	grep "^thread 1 | *[a-z]*\.*|\$" trace &&
	grep "^thread 0 | *\([a-z]\)\1*|\$" trace &&
	for leaf in __select __poll epoll_wait clock_nanosleep; do
		grep -q "^  [a-z] .*  $leaf" trace || return 1
	done
'

# under ROOT DB FOLDED: the REALTIME (ms) of the paths of FOLDED whose first
# frame is ROOT (a thread's start function, or main).
under() {
	awk -v r="$1" '{ f = $0; sub(/;.*/, "", f); sub(/ .*/, "", f);
		if (f == r) s += $NF } END { printf "%.1f\n", s / 1e6 }' "$2"
}

# threads_add_up NAME MODE...: rt-wall MODE on one CPU (taskset -c 0) under
# hpcrun -e REALTIME into NAME: main'"'"'s REALTIME is its wall time and the
# threads'"'"' (first frame $ROOT) the sum of theirs, within 10% and 10 ms.
threads_add_up() {
	name=$1
	shift
	rm -rf "$name" "$name.d" &&
	taskset -c 0 hpcrun -o "$name" -e REALTIME ./rt-wall "$@" >"$name.out" 2>"$name.err" &&
	hpcprof -o "$name.d" "$name" >/dev/null 2>&1 &&
	hpcviewer-tui --folded "$name.f" "$name.d" &&
	sed "s/^thread ms: //" "$name.err" | tr " " "\n" | paste - - >"$name.walls" &&
	main=$(awk "\$1 == 0 { print \$2 }" "$name.walls") &&
	rest=$(awk "\$1 > 0 { s += \$2 } END { print s }" "$name.walls") &&
	got=$(under main "$name.f") && echo "main: $got ms, wall $main ms" &&
	test_within "$got" "$main" "$(awk -v w="$main" "BEGIN { print w / 10 + 10 }")" &&
	got=$(under "$ROOT" "$name.f") && echo "$ROOT: $got ms, wall $rest ms" &&
	test_within "$got" "$rest" "$(awk -v w="$rest" "BEGIN { print w / 10 + 10 }")"
}

test_lazy_prereq TASKSET 'command -v taskset'

test_expect_success OFFCPU,TASKSET 'three threads spinning on one CPU: each is charged its time preempted too' '
	ROOT=spinner retry 2 threads_add_up spin spin 3 300
'

test_expect_success OFFCPU,TASKSET 'a ping-pong through a condition variable on one CPU: both sides add up' '
	ROOT=ponger retry 2 threads_add_up pp pingpong 20000
'

test_expect_success OFFCPU 'a parent waiting in vfork: the wait under main, at __vfork (the return address in a register)' '
	hpcrun -o vf -e REALTIME ./rt-wall vfork 3 100 >out 2>vf.err &&
	echo "3 children" >want && test_cmp want out &&
	hpcprof -o vf.d vf >/dev/null 2>&1 &&
	hpcviewer-tui --folded vf.f vf.d &&
	waited=$(awk "/^main;.*__vfork / { s += \$NF } END { printf \"%.1f\", s / 1e6 }" vf.f) &&
	wall=$(sed -n "s/^thread ms: 0 //p" vf.err) &&
	echo "__vfork under main: $waited ms, main'"'"'s wall $wall ms" &&
	test_within "$waited" "$wall" "$(awk -v w="$wall" "BEGIN { print w / 10 + 10 }")" &&
	! grep "partial" vf.f
'

test_expect_success OFFCPU 'hpcrun -L lists REALTIME as a timer and perf'"'"'s context switches' '
	hpcrun -L >list &&
	grep -q "^REALTIME  *timer + perf  *available  *every 4000 us on the CPU, and at each context switch$" list
'

test_expect_success NO_OFFCPU 'hpcrun -L lists REALTIME as a wall-clock timer, and why' '
	hpcrun -L >list &&
	grep -q "^REALTIME  *POSIX timer  *available  *every 4000 us of wall-clock time (no perf trap of context switches)$" list
'

test_expect_success NO_OFFCPU 'without perf'"'"'s trap of context switches, REALTIME says once that it cuts calls short' '
	hpcrun -o w -e REALTIME ./rt-wall 2 20 >out 2>err &&
	test $(grep -c "REALTIME signals threads while they are blocked" err) = 1
'

# An ordinary user where perf_event_paranoid is 2 or more cannot count
# the kernel, where context switches are: the fallback, said once.
test_lazy_prereq AS_NOBODY '
	test "$(id -u)" = 0 && command -v setpriv &&
	test "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2
'

test_expect_success AS_NOBODY 'an ordinary user gets the wall-clock timer, said once, with why' '
	mkdir nobody && chmod 777 nobody && cp rt-wall nobody/ &&
	(cd nobody && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$HPC_BUILD/bin/hpcrun" -o m -e REALTIME ./rt-wall 2 20 >out 2>err) &&
	test $(grep -c "REALTIME signals threads while they are blocked" nobody/err) = 1 &&
	grep -q "no perf trap of context switches here (perf_event_paranoid=[0-9]*)" nobody/err &&
	grep -q "^cut short: select [0-9]* poll" nobody/out &&
	(cd nobody && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$HPC_BUILD/bin/hpcrun" -L >list) &&
	grep -q "^REALTIME  *POSIX timer .* (no perf trap of context switches)$" nobody/list
'

test_done
