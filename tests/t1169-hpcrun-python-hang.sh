#!/bin/sh
test_description='hpcrun: a hang report gives the Python frames of a missing thread that computes in Python'
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

test_done
