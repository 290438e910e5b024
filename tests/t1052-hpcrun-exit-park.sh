#!/bin/sh
test_description='hpcrun: at exit and _exit the program'\''s other threads are held while the end is written, so a program whose threads touch what its exit freed ends as natively'
. "$(dirname "$0")/test-lib.sh"

. "$TEST_DIRECTORY/lib/python-lib.sh"
pyenv_prereqs 3.10 3.12

test_expect_success 'setup: the test program' '
	cc -O2 -g -pthread -o rt-exit-race "$TEST_PROGS/rt-exit-race.c"
'

# ends HOW STATUS END OPTS...: 5 runs of rt-exit-race HOW 4 under hpcrun
# OPTS, threads busy printing and allocating: each ends with STATUS, says
# "ending" alone on stderr, and its log, ended by END, holds every
# thread, held.
ends() {
	how=$1 want=$2 end=$3
	shift 3
	for i in 1 2 3 4 5; do
		rm -rf "m-$how" &&
		{ hpcrun -o "m-$how" "$@" ./rt-exit-race "$how" 4 >/dev/null 2>err; got=$?; } &&
		echo "$how run $i: status $got" &&
		test "$got" = "$want" &&
		echo ending >expect && test_cmp expect err &&
		grep -q "^end: $end\$" "m-$how"/*.log &&
		grep -q "^end-parked: 4\$" "m-$how"/*.log &&
		ls "m-$how"/*.hpcrun >files && test_line_count = 5 files || return 1
	done
}

test_expect_success 'exit with threads busy in stdio and malloc: status kept, every thread written' '
	ends exit 3 exit
'

test_expect_success '_exit: the same' '
	ends _exit 4 _exit
'

test_expect_success 'return from main, --data and -t: the same' '
	ends return 5 exit --data -t
'

# Daemon threads still running Python when the main thread ends: CPython
# 3.10's wait for the interpreter lock wakes every 5 ms and reads the
# interpreter Py_FinalizeEx freed, so an end that takes longer crashed it.
cat >daemons.py <<\EOF
import threading, time
def busy():
    while True:
        sum(i for i in range(1000))
for _ in range(3):
    threading.Thread(target=busy, daemon=True).start()
time.sleep(0.2)
print("bye")
EOF

# daemons V OPTS...: 10 runs of daemons.py on CPython V under hpcrun OPTS,
# each as natively: "bye", status 0, nothing on stderr.  (The daemon
# threads that reach the lock's check of the end first leave by
# pthread_exit, as natively: the others are held.)
daemons() {
	py=$(pypath "$1")
	shift
	echo bye >expect &&
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rm -rf d &&
		{ hpcrun -o d "$@" "$py" daemons.py >out 2>err; got=$?; } &&
		echo "run $i: status $got" &&
		test "$got" = 0 && test_cmp expect out && test_line_count = 0 err ||
		return 1
	done
}

test_expect_success PY310 '3.10: daemon threads running Python at exit: no crash' '
	daemons 3.10
'

test_expect_success PY310 '3.10: the same with --no-python (ring buffers to drain at the end)' '
	daemons 3.10 --no-python
'

test_expect_success PY312 '3.12: the same' '
	daemons 3.12
'

test_done
