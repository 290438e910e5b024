#!/bin/sh
test_description='hpcrun: a program that dlopens libpython after start has Python frames on every thread, the main one and one started before the dlopen (taking and releasing the GIL round after round), its output unchanged'
. "$(dirname "$0")/test-lib.sh"
. "$SRC_ROOT/tests/lib/python-lib.sh"

# libpython V: the libpython of pyenv's CPython V, or nothing and status 1
libpython() {
	p=$(pypath "$1") &&
	test -f "${p%/bin/*}/lib/libpython$1.so.1.0" &&
	echo "${p%/bin/*}/lib/libpython$1.so.1.0"
}
for v in 3.11 3.12 3.13; do
	test_lazy_prereq "PY$(echo $v | tr -d .)" "libpython $v >/dev/null"
done

# An embedder, as R's reticulate or a plugin host: a worker thread spins
# in C, sampled since its start; then the main thread loads libpython
# and runs hot_main, and the worker, already running, takes the GIL
# (PyGILState_Ensure) and runs hot_worker; with a second argument R, in
# R rounds of its own, each a PyGILState_Ensure, a call of hot_worker(R)
# and a PyGILState_Release (which frees the thread's state), as a C
# library's thread calling back into Python does.
cat >embed.c <<\PROG
/* cc -O1 -g -pthread -o embed embed.c -ldl */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int (*run)(const char *);
static int (*ensure)(void);
static void (*release)(int);
static int ready, go, rounds = 1;
static volatile unsigned long sink;

static void *worker(void *arg)
{
	char call[64];
	int g, r;

	(void)arg;
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		sink++;
	snprintf(call, sizeof(call), "hot_worker(%d)", rounds);
	for (r = 0; r < rounds; r++) {
		g = ensure();
		run(call);
		release(g);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	void (*init)(void), (*restore)(void *);
	void *h, *ts, *(*save)(void);
	pthread_t t;

	if (argc != 2 && argc != 3)
		return 2;
	if (argc == 3)
		rounds = atoi(argv[2]);
	pthread_create(&t, NULL, worker, NULL);
	while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		sink++;
	h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	init = (void (*)(void))dlsym(h, "Py_Initialize");
	run = (int (*)(const char *))dlsym(h, "PyRun_SimpleString");
	ensure = (int (*)(void))dlsym(h, "PyGILState_Ensure");
	release = (void (*)(int))dlsym(h, "PyGILState_Release");
	save = (void *(*)(void))dlsym(h, "PyEval_SaveThread");
	restore = (void (*)(void *))dlsym(h, "PyEval_RestoreThread");
	init();
	run("exec(compile(open('prog.py').read(), 'prog.py', 'exec'))");
	run("hot_main()");
	ts = save();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	restore(ts);
	return 0;
}
PROG
cat >prog.py <<\PROG
def spin(n):
    x = 0
    for i in range(n):
        x += i % 7
    return x
def hot_main():
    print("main", spin(4_000_000))
def hot_worker(rounds=1):
    print("worker", spin(4_000_000 // rounds))
PROG

# share FOLDED THREAD PATH: the percentage of the samples of THREAD (the
# outermost frame: main, or worker for the worker thread) running Python
# (under PyRun_SimpleStringFlags) whose stack matches the regular
# expression PATH
share() {
	awk -v t="$2" -v p="$3" '
		index($0, t ";") == 1 && /;PyRun_SimpleStringFlags / {
			all += $NF
			if ($0 ~ p)
				got += $NF
		}
		END { printf "%d\n", all ? 100 * got / all : 0 }' "$1"
}

test_expect_success 'the embedder builds' '
	cc -O1 -g -pthread -o embed embed.c -ldl
'

for v in 3.11 3.12 3.13; do
	m=${v#3.}
	test_expect_success PY3$m "$v: the same output and status as without hpcrun" '
		./embed "$(libpython '$v')" >expect &&
		hpcrun -o e$m ./embed "$(libpython '$v')" >out 2>err &&
		test_cmp expect out &&
		test_cmp /dev/null err
	'
	test_expect_success PY3$m "$v: both threads left their rings at the dlopen" '
		grep "^python-threads-switched: 2$" e$m/*.log &&
		grep "^python-threads: 2$" e$m/*.log
	'
	test_expect_success PY3$m "$v: hot_main on the main thread, hot_worker on the worker, most of their Python time" '
		hpcprof -o e$m.d e$m >/dev/null 2>&1 &&
		hpcviewer-tui --folded folded e$m.d &&
		main=$(share folded main ";prog\.py:[0-9]+ hot_main;prog\.py:[0-9]+ spin") &&
		worker=$(share folded worker ";prog\.py:[0-9]+ hot_worker;prog\.py:[0-9]+ spin") &&
		echo "main $main% worker $worker%" &&
		test $main -ge 80 && test $worker -ge 80 &&
		! grep -q "^worker;.*hot_main\|^main;.*hot_worker" folded
	'
done

# PyGILState_Release frees the thread's state, its memory still naming the
# thread; the next round's PyGILState_Ensure makes another.  The frames
# are those of the state in use: before, only the first round's (an
# eighth of the worker's Python time) had them.
for v in 3.11 3.12 3.13; do
	m=${v#3.}
	test_expect_success PY3$m "$v: 8 rounds of PyGILState_Ensure and Release on the worker: hot_worker in each" '
		./embed "$(libpython '$v')" 8 >expect &&
		hpcrun -o r$m ./embed "$(libpython '$v')" 8 >out 2>err &&
		test_cmp expect out &&
		hpcprof -o r$m.d r$m >/dev/null 2>&1 &&
		hpcviewer-tui --folded rfolded r$m.d &&
		worker=$(share rfolded worker ";prog\.py:[0-9]+ hot_worker;prog\.py:[0-9]+ spin") &&
		echo "worker $worker%" &&
		test $worker -ge 80
	'
done

test_expect_success PY312 '--no-python: no interpreter, no switch, native frames only' '
	hpcrun --no-python -o off ./embed "$(libpython 3.12)" >out &&
	./embed "$(libpython 3.12)" >expect &&
	test_cmp expect out &&
	grep "^python" off/*.log >py.log &&
	echo "python: off" >py.expect &&
	test_cmp py.expect py.log &&
	hpcprof -o off.d off >/dev/null 2>&1 &&
	hpcviewer-tui --folded off.folded off.d &&
	grep -q "^worker;" off.folded &&
	! grep -q "prog\.py:" off.folded
'

test_done
