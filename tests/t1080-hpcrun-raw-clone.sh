#!/bin/sh
test_description='hpcrun measures the threads a program makes without pthread_create (a raw clone or clone3, as language runtimes do) from outside, or counts their CPU time when it cannot'
. "$(dirname "$0")/test-lib.sh"

# tests/progs/raw-clone.c prints the truth: each function's share of the
# CPU time ("raw_work P main_work Q"), from each thread's CPU clock.

# shares DIR: the folded paths of DIR's profiles, and per profile its
# leaf functions' seconds ("raw_work=0.50"), one line each, into
# DIR.folded and DIR.threads (kernel frames counted to their caller, as
# share does).
shares() {
	: >"$1.folded" && : >"$1.threads" &&
	for f in "$1"/*.hpcrun; do
		./rt-folded "$f" "$TRASH/raw-clone" raw-clone.nm >p || return 1
		grep -v "^#" p >>"$1.folded" &&
		grep -v "^#" p | awk '{ n = split($1, f, ";"); while (n > 1 && f[n] ~ /^vmlinux\./) n--; s[f[n]] += $NF }
			END { for (k in s) if (s[k] >= 0.02e9) printf "%s=%.2f ", k, s[k] / 1e9; print "" }' \
			>>"$1.threads"
	done
}

# share LEAF FOLDED: percentage of the metric total whose leaf is LEAF.
# The program reads its CPU clock with a system call as it spins: where
# kernel time is counted (hpcrun(1)), that call's kernel frames (module
# vmlinux.HOST) are its caller's time.
share() {
	awk -v leaf="$1" '{ n = split($1, f, ";"); while (n > 1 && f[n] ~ /^vmlinux\./) n--
		t += $NF; if (f[n] == leaf) s += $NF }
		END { printf "%.2f\n", t ? 100 * s / t : -1 }' "$2"
}

# measured HOW N SECONDS: raw-clone HOW N SECONDS measured into HOW/; the
# output as native (but its numbers), exit status 0, nothing on stderr but
# hpcrun's lines (half its time is in the kernel: said where not counted);
# raw_work's share within 5 points of the truth; N + 1 threads, N of them
# raw, none unmeasured; each raw thread a profile of its own with raw_work
# alone.
measured() {
	rm -rf "$1" &&
	hpcrun -o "$1" ./raw-clone "$1" "$2" "$3" >"$1.out" 2>"$1.err" &&
	sed "s/[0-9.]*//g" "$1.out" >"$1.shape" &&
	test_cmp native.shape "$1.shape" &&
	only_hpcrun_said "$1.err" &&
	shares "$1" &&
	cat "$1.threads" &&
	test_within "$(share raw_work "$1.folded")" "$(true_share raw_work "$1.out")" 5 &&
	test_within "$(share main_work "$1.folded")" "$(true_share main_work "$1.out")" 5 &&
	grep -q "^threads: $(($2 + 1))\$" "$1"/*.log &&
	grep -q "^threads-raw: $2\$" "$1"/*.log &&
	grep -q "^threads-unmeasured: 0\$" "$1"/*.log &&
	test "$(grep -c "^raw_work=[0-9.]* \$" "$1.threads")" = "$2" &&
	test "$(grep -c "^main_work=[0-9.]* \$" "$1.threads")" = 1
}

test_expect_success 'setup: test program, nm listing, profile reader' '
	cc -O2 -g -o raw-clone "$TEST_PROGS/raw-clone.c" &&
	nm -S --defined-only raw-clone >raw-clone.nm &&
	./raw-clone clone 1 0.1 >native &&
	sed "s/[0-9.]*//g" native >native.shape &&
	build_rt_folded
'

test_expect_success PERF_EVENTS 'clone(): the raw thread burning half the CPU is measured, main is half, not all' '
	retry 2 measured clone 1 1
'

test_expect_success PERF_EVENTS 'its samples have their call paths: raw_start calls raw_work' '
	grep -q ";raw_start;raw_work " clone.folded
'

test_expect_success PERF_EVENTS 'raw clone3: three threads, each measured as a thread of its own' '
	retry 2 measured clone3 3 0.5
'

test_expect_success PERF_EVENTS 'as Go does: clone3 with TLS blocks of their own' '
	retry 2 measured go 3 0.5
'

test_expect_success PERF_EVENTS 'a raw thread ending with SYS_exit while the others go on: its profile whole' '
	retry 2 measured exit 3 0.6 &&
	grep -q "^raw_work=0\.[1-4][0-9] \$" exit.threads
'

# After a second with the same threads hpcrun's watcher looks every 50 ms,
# not 10 (raw-threads.h): a raw thread made then is found all the same,
# its first 51 ms at most unsampled (5% of its 1.5 s).
test_expect_success PERF_EVENTS 'a raw thread made after 1.5 s of the same threads: measured' '
	retry 2 measured late 1 1.5
'

test_expect_success PERF_EVENTS 'threads of pthread_create are never taken for raw ones' '
	cc -O2 -pthread -o rt-work "$TEST_PROGS/rt-work.c" &&
	hpcrun -o pt ./rt-work many 40 >/dev/null &&
	grep -q "^threads-raw: 0\$" pt/*.log &&
	grep -q "^threads-unmeasured: 0\$" pt/*.log
'

# In a new PID namespace that kept its parent's /proc, as unshare -pf
# without --mount-proc leaves it, /proc's task ids are not gettid's: none
# of the program's threads nor hpcrun's is taken for a raw one.
test_expect_success PERF_EVENTS,PIDNS 'in a PID namespace with its parent'"'"'s /proc: the raw threads, no other' '
	rm -rf ns &&
	hpcrun -o ns unshare -pf ./raw-clone clone3 2 0.5 >ns.out 2>ns.err &&
	! grep "without pthread_create" ns.err &&
	grep -l "^program: .*/raw-clone$" ns/*.log >log && test_line_count = 1 log &&
	grep -q "^process-id: 1$" $(cat log) &&
	grep -q "^threads-raw: 2$" $(cat log) &&
	grep -q "^threads-unmeasured: 0$" $(cat log) &&
	for f in $(grep -l "^program: .*/unshare$" ns/*.log); do
		grep -q "^threads-raw: 0$" $f || return 1
	done
'

# CPUTIME is a timer whose signal would go to the raw thread: it is
# counted instead, its CPU time from /proc/self/task/TID/stat.
counted() {
	rm -rf cpu &&
	hpcrun -e CPUTIME -o cpu ./raw-clone exit 2 0.6 >cpu.out 2>cpu.err &&
	sed "s/[0-9.]*//g" cpu.out >cpu.shape &&
	test_cmp native.shape cpu.shape &&
	cat cpu.err &&
	grep -q "^hpcrun: 2 threads made without pthread_create: [0-9.]* s of CPU not measured\$" cpu.err &&
	s=$(sed -n "s/.*pthread_create: \([0-9.]*\) s.*/\1/p" cpu.err) &&
	test_within "$s" 0.9 0.15 &&
	grep -q "^threads-raw: 2\$" cpu/*.log &&
	grep -q "^threads-unmeasured: 2\$" cpu/*.log &&
	grep -q "^threads-raw-unmeasured-seconds: $s\$" cpu/*.log &&
	ls cpu/*.hpcrun >profiles && test_line_count = 1 profiles
}

test_expect_success 'CPUTIME: raw threads counted with their CPU time, on stderr and in the log' '
	retry 2 counted
'

test_expect_success PIDNS 'CPUTIME in a PID namespace with its parent'"'"'s /proc: their CPU time read all the same' '
	rm -rf cpu-ns &&
	hpcrun -e CPUTIME -o cpu-ns unshare -pf ./raw-clone exit 2 0.6 >/dev/null 2>cpu-ns.err &&
	cat cpu-ns.err &&
	s=$(sed -n "s/.*2 threads made without pthread_create: \([0-9.]*\) s.*/\1/p" cpu-ns.err) &&
	test_within "$s" 0.9 0.15
'

test_done
