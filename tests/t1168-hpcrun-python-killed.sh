#!/bin/sh
test_description='hpcrun: a CPython process killed with SIGKILL keeps its Python frames'\'' names: each thread'\''s codes live in its .hpcpy-live, which hpcprof makes the .hpcpy'
. "$(dirname "$0")/test-lib.sh"

. "$TEST_DIRECTORY/lib/python-lib.sh"
export PYTHONDONTWRITEBYTECODE=1

for v in 11 12; do
	test_lazy_prereq PYTHON3_$v "pypath 3.$v"
done

# Two threads, each in a function of its own; each says it is ready
# (its file DIR.a or DIR.b) after a fixed amount of its work, so that it
# has been sampled, then works on: for ever, or with "end" N more rounds.
cat >spin.py <<\EOF
import sys, threading
def spin_a(tag, more):
    x = 0
    for i in range(8_000_000):
        x += i
    open(tag + ".a", "w").close()
    while more is None or more > 0:
        for i in range(1_000_000):
            x += i
        more = None if more is None else more - 1
def spin_b(tag, more):
    y = 0
    for i in range(8_000_000):
        y ^= i
    open(tag + ".b", "w").close()
    while more is None or more > 0:
        for i in range(1_000_000):
            y ^= i
        more = None if more is None else more - 1
more = 2 if sys.argv[2:] == ["end"] else None
t = threading.Thread(target=spin_b, args=(sys.argv[1], more))
t.start()
spin_a(sys.argv[1], more)
t.join()
EOF

# run_killed V DIR: runs spin.py under hpcrun into DIR with CPython V,
# waits (60 s at most) until both threads said they are ready, then kills
# the process with SIGKILL and reaps it.
run_killed() {
	rm -f "$2".a "$2".b
	hpcrun -o "$2" "$(pypath "$1")" spin.py "$2" &
	pid=$!
	_i=0
	while ! { test -f "$2".a && test -f "$2".b; } && [ $_i -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -9 $pid
	wait $pid
	test -f "$2".a && test -f "$2".b
}

for m in 11 12; do
	test_expect_success PYTHON3_$m "3.$m: kill -9 leaves each thread's live code file beside its live tree" '
		run_killed 3.$m k$m &&
		ls k$m/*.hpcrun-live >trees && test_line_count = 2 trees &&
		ls k$m/*.hpcpy-live >codes && test_line_count = 2 codes &&
		! ls k$m/*.hpcpy 2>/dev/null
	'
	test_expect_success PYTHON3_$m "3.$m: hpcprof names the Python frames of the killed threads" '
		hpcprof -o k$m.d k$m 2>err &&
		grep "recovered 2 profiles of killed process" err &&
		! grep "hpcpy" err &&
		ls k$m/*.hpcpy >files && test_line_count = 2 files &&
		! ls k$m/*.hpcpy-live 2>/dev/null &&
		for f in $(cat files); do
			hpcprof --dump $f >/dev/null || return 1
		done &&
		hpcviewer-tui --folded - k$m.d >folded &&
		grep -q "$(pyname 3.$m spin.py spin_a)" folded &&
		grep -q "$(pyname 3.$m spin.py spin_b)" folded &&
		! grep -q "<python code" folded
	'
	test_expect_success PYTHON3_$m "3.$m: at a normal end the .hpcpy is written and no live code file is left" '
		hpcrun -o n$m "$(pypath 3.$m)" spin.py n$m end &&
		ls n$m/*.hpcpy >files && test_line_count = 2 files &&
		! ls n$m/*.hpcpy-live n$m/*.hpcrun-live 2>/dev/null &&
		for f in $(cat files); do
			head -n 2 $f >head && printf "hpcpy 01.00\npython 3 '$m'\n" >expect &&
			test_cmp expect head || return 1
		done &&
		hpcprof -o n$m.d n$m 2>/dev/null &&
		hpcviewer-tui --folded - n$m.d >folded &&
		grep -q "$(pyname 3.$m spin.py spin_a)" folded &&
		grep -q "$(pyname 3.$m spin.py spin_b)" folded
	'
done

test_expect_success PYTHON3_12 'a cut live code file is said in one line; its profile is recovered, its frames named by id' '
	run_killed 3.12 cut &&
	f=$(ls cut/*-001-*.hpcpy-live) &&
	head -c 100 $f >short && cat short >$f &&
	hpcprof -o cut.d cut 2>err &&
	grep "recovered 2 profiles of killed process" err &&
	grep "hpcprof: warning: .$f.: shorter than a live code file.s header: Python frames named by id only" err &&
	test $(grep -c hpcpy-live err) = 1 &&
	ls cut/*.hpcpy >files && test_line_count = 1 files &&
	hpcviewer-tui --folded - cut.d >folded &&
	grep -q "$(pyname 3.12 spin.py spin_a)" folded &&
	grep -q "<python code" folded
'

test_expect_success PYTHON3_12 'a .hpcpy the kill cut short is made again from the live code file' '
	run_killed 3.12 half &&
	f=$(ls half/*-001-*.hpcpy-live) &&
	printf "hpcpy 01.00\npyth" >${f%-live} &&
	hpcprof -o half.d half 2>err &&
	grep "recovered 2 profiles of killed process" err &&
	! grep hpcpy err &&
	! ls half/*.hpcpy-live 2>/dev/null &&
	hpcprof --dump ${f%-live} >/dev/null &&
	hpcviewer-tui --folded - half.d >folded &&
	grep -q "$(pyname 3.12 spin.py spin_b)" folded &&
	! grep -q "<python code" folded
'

# multiprocessing's pool: "with Pool(2)" ends in terminate(), which sends
# SIGTERM to each worker still alive; under hpcrun a worker is then writing
# its end, which the signal waits for (signals.c, THE FATAL SIGNALS 4).
cat >pool.py <<\EOF
import multiprocessing as mp
def f(x):
    s = 0
    for i in range(200_000):
        s += i * x
    return s % 97
if __name__ == "__main__":
    with mp.Pool(2) as p:
        print(sum(p.map(f, range(16))))
EOF

test_expect_success PYTHON3_12 'multiprocessing.Pool terminated: each worker whole, nothing recovered' '
	py=$(pypath 3.12) &&
	"$py" pool.py >native &&
	for r in 1 2 3; do
		rm -rf pool && hpcrun -o pool "$py" pool.py >measured 2>err &&
		test_cmp native measured &&
		! test -s err &&
		ls pool/*.log >logs && test_line_count = 3 logs &&
		! ls pool/*.hpcrun-live pool/*.hpcrun-proc 2>/dev/null &&
		hpcprof -o pool$r.d pool 2>err &&
		! grep -i "recover" err &&
		hpcviewer-tui --folded - pool$r.d >folded &&
		grep -q "$(pyname 3.12 pool.py f)" folded || return 1
	done
'

test_done
