#!/bin/sh
test_description='hpcrun: a "stalled" report when every thread waits without a timeout on a private object, and none while one sleeps, reads, waits with a timeout or on a shared object'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/python-lib.sh"

pyenv_prereqs 3.11 3.12 3.13

# tests/progs/rt-stall.c: a pool of workers waiting on a condition for
# tasks, the main thread on another for a result.
src="$TEST_PROGS/rt-stall.c"

# line_of TEXT [FILE]: the line of FILE (rt-stall.c) holding TEXT, once
line_of() {
	grep -nF "$1" "${2:-$src}" | head -n 1 | cut -d: -f1
}

# within T FILE: every wait of FILE's stalled report lasted T + 2 s at
# most: the report came within 2 s of the timeout
within() {
	sed -n "s/^stalled: .* for \([0-9.]*\) s at .*/\1/p" "$2" >waits &&
	test -s waits &&
	awk -v t="$1" "\$1 < t || \$1 > t + 2 { bad = 1 } END { exit bad }" waits
}

test_expect_success 'setup: the test program' '
	cc -O2 -g -pthread -o rt-stall "$src"
'

test_expect_success 'C: 4 workers wait for tasks, main for a result none produces: stalled, each wait named at its line' '
	run_until_report p1 1 ./rt-stall pool &&
	ls p1/*.hang >files && test_line_count = 1 files &&
	grep -c "^hang: " p1/*.hang >n && echo 1 >one && test_cmp one n &&
	grep -q "^hang: stalled$" p1/*.hang &&
	grep -q "^note: every thread waits for another: a deadlock, unless a signal handler or another process releases one$" p1/*.hang &&
	grep "^stalled: thread [1-4] tid [0-9]* in pthread_cond_wait 0x[0-9a-f]* for [0-9.]* s at worker+0x[0-9a-f]* at rt-stall.c:$(line_of "waits for a task") " p1/*.hang >workers &&
	test_line_count = 4 workers &&
	grep -q "^stalled: thread 0 tid [0-9]* in pthread_cond_wait 0x[0-9a-f]* for [0-9.]* s at main+0x[0-9a-f]* at rt-stall.c:$(line_of "main waits for the result") " p1/*.hang &&
	grep -q "^  frame: [0-9]* main+0x[0-9a-f]* at rt-stall.c:$(line_of "main waits for the result") " p1/*.hang &&
	within 1 p1/*.hang &&
	grep -q "^hpcrun: hang: stalled$" err
'

test_expect_success 'C: 4 workers wait for tasks, main joins them: stalled, main in pthread_join at its line' '
	run_until_report j1 1 ./rt-stall join &&
	grep -q "^hang: stalled$" j1/*.hang &&
	grep "^stalled: thread [1-4] tid [0-9]* in pthread_cond_wait " j1/*.hang >workers &&
	test_line_count = 4 workers &&
	grep -q "^stalled: thread 0 tid [0-9]* in pthread_join 0x[0-9a-f]* for [0-9.]* s at main+0x[0-9a-f]* at rt-stall.c:$(line_of "main joins a worker") " j1/*.hang &&
	within 1 j1/*.hang
'

test_expect_success '--hang-action=abort does not act on a stall: the program is still there after the report' '
	run_until_report p2 1 --hang-action=abort ./rt-stall pool &&
	grep -q "^hang: stalled$" p2/*.hang &&
	! grep -q "aborting" err
'

# no_report MODE: rt-stall MODE 3 under hpcrun with a timeout of 1 s:
# its output and exit status are the native ones, and no hang report
no_report() {
	./rt-stall $1 3 >expect &&
	hpcrun -o "n-$1" --hang-timeout 1 --hang-action=abort ./rt-stall $1 3 >out 2>err &&
	test_cmp expect out &&
	! ls "n-$1"/*.hang 2>/dev/null &&
	! grep -q "^hpcrun: hang:" err
}

test_expect_success 'a thread in nanosleep beside others waiting on conditions: no report, the program ends as natively' '
	no_report sleep &&
	grep -q "^nanosleep: 0$" out
'

test_expect_success 'a thread in read() on a pipe a child process writes: no report' '
	no_report read &&
	grep -q "^read: 1 x$" out
'

test_expect_success 'a thread in sem_timedwait: no report' '
	no_report semtimed
'

test_expect_success 'a thread in pthread_cond_timedwait: no report' '
	no_report condtimed
'

test_expect_success 'main in sem_wait on a process-shared semaphore a child process posts: no report' '
	no_report pshared &&
	grep -q "^sem_wait: 0$" out
'

# Two threads take two threading.Lock in opposite order, each holding one
# and blocked on the other; the main thread joins them.
cat >dl.py <<\EOF
import threading

lock_a = threading.Lock()
lock_b = threading.Lock()
both = threading.Barrier(2)

def worker_ab():
    with lock_a:
        both.wait()
        with lock_b:  # worker_ab blocks here
            pass

def worker_ba():
    with lock_b:
        both.wait()
        with lock_a:  # worker_ba blocks here
            pass

threads = [threading.Thread(target=f) for f in (worker_ab, worker_ba)]
for t in threads:
    t.start()
print("started", flush=True)
for t in threads:
    t.join()  # main joins here
print("never")
EOF

# A thread takes a lock with a timeout, then one waits for an event with
# a timeout, then one waits for a multiprocessing.Lock (a named
# semaphore) that a child process holds for 3 s; the main thread joins
# each in turn.
cat >timed.py <<\EOF
import multiprocessing, threading, time

held = threading.Lock()
held.acquire()
mp = multiprocessing.get_context("fork")
shared = mp.Lock()
taken = mp.Event()

def holder():
    with shared:
        taken.set()
        time.sleep(3)

def timed_lock():
    print("acquire:", held.acquire(timeout=3), flush=True)

def timed_event():
    print("wait:", threading.Event().wait(3), flush=True)

def shared_lock():
    with shared:  # waits for the child
        print("shared: taken", flush=True)

for f in (timed_lock, timed_event):
    t = threading.Thread(target=f)
    t.start()
    t.join()
child = mp.Process(target=holder)
child.start()
taken.wait()
t = threading.Thread(target=shared_lock)
t.start()
t.join()
child.join()
print("exit:", child.exitcode)
EOF

# frame FUNC TEXT [FILE]: the pattern of a frame line of FILE's (dl.py)
# Python function FUNC at its line holding TEXT
frame() {
	f=${3:-dl.py}
	echo "^  frame: [0-9]* $f:$(grep -n "^def $1(" "$f" | cut -d: -f1) $1 at $f:$(line_of "$2" "$f") (python code 0x[0-9a-f]*)$"
}

for v in 3.11 3.12 3.13; do
	m=$(echo "$v" | tr -d .)
	test_expect_success PY$m "$v: two threads deadlocked on threading.Lock, main in join: stalled, each at its with line" '
		run_until_report y'$m' 1 "$(pypath '$v')" dl.py &&
		echo started >expect && test_cmp expect out &&
		grep -q "^hang: stalled$" y'$m'/*.hang &&
		grep "^stalled: thread [0-2] tid [0-9]* in sem_wait " y'$m'/*.hang >waits &&
		test_line_count = 3 waits &&
		grep -q "$(frame worker_ab "worker_ab blocks here")" y'$m'/*.hang &&
		grep -q "$(frame worker_ba "worker_ba blocks here")" y'$m'/*.hang &&
		grep -q "^  frame: [0-9]* dl.py:1 <module> at dl.py:$(line_of "main joins here" dl.py) (python code" y'$m'/*.hang &&
		grep -q "^  frame: [0-9]* threading.py:[0-9]* Thread.join at threading.py:[0-9]* (python code" y'$m'/*.hang &&
		within 1 y'$m'/*.hang
	'

	test_expect_success PY$m "$v: timed lock and event waits, a multiprocessing.Lock held by a child: no report, output as natively" '
		"$(pypath '$v')" timed.py >expect &&
		hpcrun -o t'$m' --hang-timeout 1 --hang-action=abort "$(pypath '$v')" timed.py >out 2>err &&
		test_cmp expect out &&
		! ls t'$m'/*.hang 2>/dev/null
	'
done

test_done
