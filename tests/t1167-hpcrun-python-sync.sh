#!/bin/sh
test_description='hpcrun: the sync sites of threads running Python carry their Python frames: hpcprof and the phases view name the Python lines that waited on a Lock, a Queue and a Barrier, one site per Python path, and say which waits are for the GIL'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/python-lib.sh"

pyenv_prereqs 3.11 3.12 3.13

# A worker pool as people write one: main feeds a queue.Queue, workers
# count items in a dict under a threading.Lock (held across a sleep, so
# the others wait for it), and all meet at a threading.Barrier between
# the two phases.  Each waiting call is marked with what waits there.
cat >pool.py <<\EOF
import queue, threading, time

NWORKERS = 4
counts = {}
lock = threading.Lock()
q = queue.Queue()
barrier = threading.Barrier(NWORKERS + 1)

def count(key):
    lock.acquire()  # WAIT lock
    try:
        time.sleep(0.002)
        counts[key] = counts.get(key, 0) + 1
    finally:
        lock.release()

def worker(me):
    for phase in range(2):
        while True:
            item = q.get()  # WAIT queue
            if item is None:
                break
            count(item % 3)
        time.sleep(0.01 * me)
        barrier.wait()  # WAIT barrier

def feed():
    for phase in range(2):
        for i in range(40):
            q.put(i)
            time.sleep(0.001)
        for _ in range(NWORKERS):
            q.put(None)
        barrier.wait()  # WAIT feeder

threads = [threading.Thread(target=worker, args=(i,)) for i in range(NWORKERS)]
for t in threads:
    t.start()
feed()
for t in threads:
    t.join()
print(sum(counts.values()))
EOF

# line WHAT: the line of pool.py marked "WAIT WHAT"
line() {
	grep -n "# WAIT $1\$" pool.py | cut -d: -f1
}

for v in 3.11 3.12 3.13; do
	m=$(echo "$v" | tr -d .)
	test_expect_success PY$m "$v: the pool runs under hpcrun as without it" '
		"$(pypath '$v')" pool.py >expect &&
		hpcrun -o m'$m' "$(pypath '$v')" pool.py >out &&
		test_cmp expect out &&
		hpcprof -o d'$m' --text text'$m' m'$m' >/dev/null 2>&1 &&
		hpcviewer-tui --stdio --view phases --width 0 d'$m' >view'$m'
	'

	test_expect_success PY$m "$v: the lock, the queue and the barrier waits are named by their Python lines" '
		grep " at pool.py:$(line lock) \[pool.py:[0-9]* count\]$" view'$m' &&
		grep " at pool.py:$(line queue) \[pool.py:[0-9]* worker\]$" view'$m' &&
		grep " at pool.py:$(line barrier) \[pool.py:[0-9]* worker\]$" view'$m' &&
		grep " at pool.py:$(line feeder) \[pool.py:[0-9]* feed\]$" view'$m'
	'

	test_expect_success PY$m "$v: one Python path is one site, its waits blocked calls of every worker" '
		grep -c "sem_wait at pool.py:$(line lock) " view'$m' >n &&
		echo 1 >one && test_cmp one n &&
		awk -v at="sem_wait at pool.py:$(line lock) " "
			index(\$0, at) { on = 1; next }
			on && /^ *[0-9.]+ +[0-9]+ +[0-9]+ +thread / { n++; next }
			{ on = 0 }
			END { exit !(n >= 3) }" view'$m'
	'

	test_expect_success PY$m "$v: the sync output of hpcprof --text names them too" '
		grep -q "pool.py:$(line lock) \[pool.py:[0-9]* count\]" text'$m' &&
		grep -q "pool.py:$(line barrier) \[pool.py:[0-9]* worker\]" text'$m'
	'
done

# Two threads computing in Python at once take turns with the GIL: each
# waits for it in the interpreter's take_gil while the other runs, and
# the main thread joins them (a sem_wait, no GIL wait).
cat >gil.py <<\EOF
import threading

def spin(n):
    x = 0
    for i in range(n):
        x += i * i
    return x

threads = [threading.Thread(target=spin, args=(4000000,)) for _ in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()  # JOIN
print("done")
EOF

for v in 3.11 3.12 3.13; do
	m=$(echo "$v" | tr -d .)
	test_expect_success PY$m "$v: a wait for the GIL is labelled so, a join is not" '
		hpcrun -o g'$m' "$(pypath '$v')" gil.py >out &&
		echo done >expect && test_cmp expect out &&
		hpcprof -o gd'$m' --text gtext'$m' g'$m' >/dev/null 2>&1 &&
		hpcviewer-tui --stdio --view phases --width 0 gd'$m' >gview'$m' &&
		grep "^ *[0-9.]* *[0-9]* *[0-9]*  pthread_cond_wait at gil.py:[0-9]* \[gil.py:[0-9]* spin\] (GIL wait)$" gview'$m' &&
		grep "^ *[0-9.]* *[0-9]* *[0-9]*  sem_wait at gil.py:$(grep -n "# JOIN" gil.py | cut -d: -f1) \[gil.py:1 <module>\]$" gview'$m' &&
		! grep "sem_wait at .*(GIL wait)" gview'$m' &&
		grep -q "gil.py:[0-9]* \[gil.py:[0-9]* spin\] (GIL wait)" gtext'$m'
	'
done

test_done
