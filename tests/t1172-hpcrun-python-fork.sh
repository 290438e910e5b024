#!/bin/sh
test_description='hpcrun: a CPython 3.12+ program whose only thread forks sees one thread, as without hpcrun: no "multi-threaded" DeprecationWarning on its stderr, its children and the threads it starts after the fork measured with their Python frames'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/python-lib.sh"

pyenv_prereqs 3.10 3.11 3.12 3.13

# A pre-fork server as people write one: the parent forks its workers,
# each works and exits with its number, the parent reaps them; then it
# starts a thread of its own to sum up, as a supervisor would.  Its
# forks are in __main__, where the default filters show the warning 3.12
# gives a fork of a multi-threaded process.
cat >prefork.py <<\EOF
import os, sys, threading

def work(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

def serve(worker):
    work(200000)
    os._exit(worker)

def supervise(out):
    out.append(work(1500000))

def main():
    pids = []
    for w in range(4):
        pid = os.fork()
        if pid == 0:
            serve(w)
        pids.append(pid)
    codes = sorted(os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids)
    out = []
    t = threading.Thread(target=supervise, args=(out,))
    t.start()
    t.join()
    print("workers", codes, "sum", out[0])

main()
EOF

for v in 3.12 3.13; do
	m=$(echo "$v" | tr -d .)
	test_expect_success PY$m "$v: the forks run under hpcrun as without it, stderr too" '
		"$(pypath '$v')" prefork.py >expect 2>expect.err &&
		hpcrun -o m'$m' "$(pypath '$v')" prefork.py >out 2>err &&
		test_cmp expect out &&
		test_cmp expect.err err
	'

	test_expect_success PY$m "$v: hpcrun stood aside at each fork, and came back" '
		parent=$(grep -l "^own-threads-paused: 4\$" m'$m'/*.log) &&
		test $(echo "$parent" | wc -l) = 1 &&
		test $(ls m'$m'/*.log | wc -l) = 5
	'

	# 3.13 runs the after-fork hooks in the parent before its count: a
	# hook that imports a C extension (dlopen) made hpcrun's threads
	# again before the count, and the warning came.
	test_expect_success PY$m "$v: an after-fork hook that loads C extensions: stderr as without hpcrun" '
		cat >hook.py <<-\EOF &&
		import os
		def hook():
		    import ctypes, json, _decimal
		    ctypes.CDLL("libm.so.6")
		os.register_at_fork(after_in_parent=hook)
		child = os.fork() or os._exit(0)
		status = os.waitpid(child, 0)[1]
		print("forked, the child exited", os.waitstatus_to_exitcode(status))
		EOF
		"$(pypath '$v')" hook.py >expect 2>expect.err &&
		hpcrun -o h'$m' "$(pypath '$v')" hook.py >out 2>err &&
		test_cmp expect out &&
		test_cmp expect.err err
	'

	test_expect_success PY$m "$v: the thread started after the forks, and the workers, have their Python frames" '
		hpcprof -o d'$m' m'$m' >/dev/null 2>&1 &&
		hpcviewer-tui --folded folded'$m' d'$m' &&
		grep "prefork.py:[0-9]* supervise;prefork.py:[0-9]* work " folded'$m' &&
		grep "prefork.py:[0-9]* serve;prefork.py:[0-9]* work " folded'$m'
	'
done

test_expect_success PY311 "3.11, which counts no threads at a fork: hpcrun does not stand aside" '
	"$(pypath 3.11)" prefork.py >expect &&
	hpcrun -o m311 "$(pypath 3.11)" prefork.py >out &&
	test_cmp expect out &&
	! grep -l "^own-threads-paused: [1-9]" m311/*.log
'

# A thread, then a fork right after its join: CPython's join returns once
# the thread's Python work is over, while the thread may still be writing
# its profile as it ends.  The child, which has no such thread, must not
# wait for it at its end (it waited a second before).  On 3.12 and 3.13
# hpcrun stands aside at each of the forks: it waits for the ended
# thread to go, where it found it still a task and stayed (3.12: at
# every fork, and the "multi-threaded" warning came where natively it
# seldom does).
cat >joinfork.py <<\EOF
import os, threading

def work():
    s = 0
    for i in range(300000):
        s += i
    return s

for round in range(6):
    t = threading.Thread(target=work)
    t.start()
    t.join()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
print("forked 6")
EOF

for v in 3.10 3.11 3.12 3.13; do
	m=$(echo "$v" | tr -d .)
	test_expect_success PY$m "$v: a child forked right after a join waits for none of the parent's threads at its end" '
		hpcrun -o j'$m' "$(pypath '$v')" joinfork.py >out &&
		echo "forked 6" >expect &&
		test_cmp expect out &&
		test $(ls j'$m'/*.log | wc -l) = 7 &&
		parent=$(grep -l "^threads: 7\$" j'$m'/*.log) &&
		test $(echo "$parent" | wc -l) = 1 &&
		case '$v' in
		3.1[23]) grep "^own-threads-paused: 6\$" $parent ;;
		*) grep "^own-threads-paused: 0\$" $parent ;;
		esac &&
		for f in $(grep -L "^threads: 7\$" j'$m'/*.log); do
			grep -q "^end-wait-ms: 0\$" "$f" || return 1
		done
	'
done

test_done
