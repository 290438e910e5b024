#!/bin/sh
test_description='hpcrun: a wrapped function looked up in a library'\''s own handle is the wrapper (ctypes, plugin loaders); RTLD_NEXT and RTLD_DEFAULT answer as without hpcrun'
. "$(dirname "$0")/test-lib.sh"

. "$TEST_DIRECTORY/lib/python-lib.sh"
pyenv_prereqs 3.12

test_expect_success 'setup: the program and its two libraries' '
	cc -shared -fPIC -DPART_A -o librt-dlsym-a.so "$TEST_PROGS/rt-dlsym.c" &&
	cc -shared -fPIC -DPART_B -o librt-dlsym-b.so "$TEST_PROGS/rt-dlsym.c" &&
	cc -O2 -g -pthread -o rt-dlsym "$TEST_PROGS/rt-dlsym.c" -L. \
		-Wl,--no-as-needed -lrt-dlsym-a -lrt-dlsym-b -Wl,-rpath,"\$ORIGIN" &&
	./rt-dlsym >expect &&
	printf "who: b\ndefault is by name: 1\n" >want && test_cmp want expect
'

# measured EXPECT THREADS DB CMD...: CMD under hpcrun prints EXPECT and
# nothing on stderr, and its log has THREADS threads, none of them raw;
# the database DB made of it, folded into "folded".
measured() {
	want=$1 threads=$2 db=$3
	shift 3
	rm -rf m &&
	hpcrun -o m "$@" >out 2>err &&
	test_cmp "$want" out &&
	! test -s err &&
	grep -q "^threads: $threads\$" m/*.log &&
	grep -q "^threads-raw: 0\$" m/*.log &&
	hpcprof -o "$db" m 2>/dev/null &&
	hpcviewer-tui --folded folded "$db"
}

test_expect_success 'a thread made by the pthread_create of dlsym(libc handle) is measured as any other' '
	measured expect 2 db ./rt-dlsym &&
	grep -q "^compute;" folded
'

test_expect_success 'RTLD_NEXT from a library and RTLD_DEFAULT, under --data and -t too' '
	for opts in --data -t; do
		rm -rf m &&
		hpcrun -o m $opts ./rt-dlsym >out &&
		test_cmp expect out || return 1
	done
'

# Python's ctypes reaches libc's functions through a handle of its own.
cat >cthreads.py <<\EOF_PY
import ctypes, ctypes.util
libc = ctypes.CDLL(ctypes.util.find_library("c"))
FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)

def started_from_c(arg):
    s = 0
    for i in range(1500000):
        s += i & 7
    return None

fn = FN(started_from_c)
tids = [ctypes.c_ulong() for _ in range(2)]
for t in tids:
    assert libc.pthread_create(ctypes.byref(t), None, fn, None) == 0
for t in tids:
    libc.pthread_join(t, None)
print("joined")
EOF_PY

test_expect_success PY312 'threads that ctypes starts with libc.pthread_create: measured, Python frames under the callback' '
	echo joined >want &&
	measured want 3 pydb "$(pypath 3.12)" cthreads.py &&
	grep -q "cthreads.py:5 started_from_c [0-9]*\$" folded
'

test_done
