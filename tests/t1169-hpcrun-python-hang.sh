#!/bin/sh
test_description='hpcrun: a hang report gives the Python frames of a missing thread that computes in Python, or is blocked in the kernel'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/python-lib.sh"

pyenv_prereqs 3.11 3.12 3.13

# Two threads meet at a pthread barrier called through ctypes (from the
# process's scope, so through hpcrun's wrapper); the worker first loops
# in Python for 2.5 s, long past the timeout: a "late" report, its path
# the Python loop.
cat >spin.py <<\EOF
import ctypes, threading, time

libc = ctypes.CDLL(None)
bar = ctypes.create_string_buffer(128)
libc.pthread_barrier_init(bar, None, 2)

def spin(seconds):
    end = time.monotonic() + seconds
    x = 0
    while time.monotonic() < end:
        x += 1
    return x

def worker():
    spin(2.5)
    libc.pthread_barrier_wait(bar)

t = threading.Thread(target=worker)
t.start()
libc.pthread_barrier_wait(bar)
t.join()
print("met")
EOF

# def NAME [FILE]: the first line of function NAME of FILE (spin.py)
def() {
	grep -n "^def $1(" "${2:-spin.py}" | cut -d: -f1
}

# at TEXT [FILE]: the line of FILE (spin.py) holding TEXT, once
at() {
	grep -nF "$1" "${2:-spin.py}" | cut -d: -f1
}

for v in 3.11 3.12 3.13; do
	m=$(echo "$v" | tr -d .)
	test_expect_success PY$m "$v: the late thread's frames name its Python loop and callers" '
		hpcrun -o h'$m' --hang-timeout 0.5 "$(pypath '$v')" spin.py >out 2>err &&
		echo met >expect && test_cmp expect out &&
		grep -q "^hang: late$" h'$m'/*.hang &&
		grep "^  frame: " h'$m'/*.hang >frames &&
		grep -q "^  frame: [0-9]* spin.py:$(def spin) spin at spin.py:[0-9]* (python code 0x[0-9a-f]*)$" frames &&
		grep -q "^  frame: [0-9]* spin.py:$(def worker) worker at spin.py:$(at "spin(2.5)") (python code 0x[0-9a-f]*)$" frames &&
		grep -q "^  frame: [0-9]* threading.py:[0-9]* Thread.run at threading.py:[0-9]* (python code" frames &&
		! grep -q "_PyEval_EvalFrameDefault" frames
	'
done

# Two threads take two locks in opposite order, each holding one and
# blocked on the other in sem_wait (a threading.Lock), and a third sleeps
# in clock_nanosleep (time.sleep); none reaches the pthread barrier the
# main thread waits at: a barrier hang whose three missing threads are
# blocked in the kernel, read from the hang detector's thread.
cat >lock.py <<\EOF
import ctypes, threading, time

libc = ctypes.CDLL(None)
bar = ctypes.create_string_buffer(128)
libc.pthread_barrier_init(bar, None, 4)
lock_a = threading.Lock()
lock_b = threading.Lock()
both = threading.Barrier(2)

def take_b():
    with lock_b:  # worker_ab blocks here
        return 1

def take_a():
    with lock_a:  # worker_ba blocks here
        return 2

def worker_ab():
    with lock_a:
        both.wait()
        take_b()  # worker_ab calls
    libc.pthread_barrier_wait(bar)

def worker_ba():
    with lock_b:
        both.wait()
        take_a()  # worker_ba calls
    libc.pthread_barrier_wait(bar)

def sleeper():
    time.sleep(100)  # sleeper sleeps here
    libc.pthread_barrier_wait(bar)

threads = [threading.Thread(target=f, daemon=True)
           for f in (worker_ab, worker_ba, sleeper)]
for t in threads:
    t.start()
print("started", flush=True)
libc.pthread_barrier_wait(bar)
print("never")
EOF

# frame THREAD FUNC TEXT: a line of frames (the missing thread, then its
# frame) for THREAD's frame in lock.py's function FUNC at the line holding
# TEXT, as a pattern
frame() {
	echo "^$1   frame: [0-9]* lock.py:$(def "$2" lock.py) $2 at lock.py:$(at "$3" lock.py) (python code 0x[0-9a-f]*)$"
}

for v in 3.11 3.12 3.13; do
	m=$(echo "$v" | tr -d .)
	test_expect_success PY$m "$v: blocked threads: each one's Python frames at its blocking line, the program as it runs natively" '
		st=0 && timeout -s KILL 3 "$(pypath '$v')" lock.py >expect || st=$? &&
		test $st = 137 &&
		run_until_report b'$m' 2 "$(pypath '$v')" lock.py &&
		test_cmp expect out &&
		grep -q "^hang: barrier$" b'$m'/*.hang &&
		grep -c "^missing: thread [123] tid [0-9]* stuck " b'$m'/*.hang >n &&
		echo 3 >three && test_cmp three n &&
		! grep -q "Python frames changed while read" b'$m'/*.hang &&
		awk "/^missing: thread/ { t = \$3 } /^  frame: / { print t, \$0 }" \
			b'$m'/*.hang >frames &&
		grep -q "$(frame 1 take_b "worker_ab blocks here")" frames &&
		grep -q "$(frame 1 worker_ab "worker_ab calls")" frames &&
		grep -q "$(frame 2 take_a "worker_ba blocks here")" frames &&
		grep -q "$(frame 2 worker_ba "worker_ba calls")" frames &&
		grep -q "$(frame 3 sleeper "sleeper sleeps here")" frames &&
		grep -q "^3   frame: [0-9]* clock_nanosleep+" frames &&
		grep -q "Thread.run at threading.py:[0-9]* (python code" frames &&
		! grep -q "_PyEval_EvalFrameDefault" frames
	'
done

test_done
