#!/bin/sh
test_description='hpcrun: in a CPython process each C call of the eval function in a path becomes the Python frames it runs, each thread'\''s codes go to its .hpcpy, and --no-python keeps native frames only'
. "$(dirname "$0")/test-lib.sh"

PYENV=${PYENV_ROOT:-$HOME/.pyenv}/versions
# python MINOR: the pyenv build of CPython 3.MINOR, or nothing.
python() {
	ls -d "$PYENV"/3."$1".*/bin/python3."$1" 2>/dev/null | tail -n 1
}
for m in 10 11 12 13; do
	test_lazy_prereq PY3$m "test -x \"\$(python $m)\""
done

# A call chain on two threads: a method of a class (qualified name C.m
# from 3.11 on, m in 3.10) and a threading.Thread target.
cat >fib.py <<\EOF
import threading
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
class C:
    def m(self):
        return fib(21)
def worker():
    for _ in range(12):
        C().m()
t = threading.Thread(target=worker)
t.start()
for _ in range(12):
    fib(21)
t.join()
EOF

# C called from Python calling back into Python: libc's qsort with a
# Python comparator, through ctypes.
cat >sortcb.py <<\EOF
import ctypes, ctypes.util
libc = ctypes.CDLL(ctypes.util.find_library("c"))
CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                       ctypes.POINTER(ctypes.c_int))
def slow_cmp(a, b):
    x = 0
    for i in range(50):
        x += i
    return a[0] - b[0]
def sorter():
    cmp = CMP(slow_cmp)
    for _ in range(3):
        arr = (ctypes.c_int * 3000)(*range(3000, 0, -1))
        libc.qsort(arr, len(arr), 4, cmp)
sorter()
EOF

# A thread a C library starts, calling back into Python (ctypes takes
# the GIL for it: a thread state made on the spot).
cat >cthr.c <<\EOF
/* cc -shared -fPIC -O2 -pthread -o libcthr.so cthr.c */
#include <pthread.h>
static void *run(void *cb) { ((void (*)(void))cb)(); return 0; }
void run_in_thread(void (*cb)(void))
{
	pthread_t t;

	pthread_create(&t, 0, run, (void *)cb);
	pthread_join(t, 0);
}
EOF
cat >cthr.py <<\EOF
import ctypes
lib = ctypes.CDLL("./libcthr.so")
CB = ctypes.CFUNCTYPE(None)
def spin():
    x = 0
    for i in range(3_000_000):
        x += i
def in_c_thread():
    spin()
cb = CB(in_c_thread)
lib.run_in_thread(cb)
EOF

# Heap blocks allocated by a Python function.
cat >alloc.py <<\EOF
def make():
    return [bytearray(4096) for _ in range(200)]
def use(bufs):
    s = 0
    for _ in range(30):
        for b in bufs:
            s += b[100] + len(b)
    return s
def main():
    for _ in range(20):
        use(make())
main()
EOF

# paths DIR: every node of every profile of DIR as its path, root first,
# one label a frame: py:QUALNAME (the code's name in the .hpcpy files),
# libc, or native (runs of other native frames made one).
paths() {
	cat "$1"/*.hpcpy >codes 2>/dev/null || : >codes
	for f in "$1"/*.hpcrun; do
		hpcprof --dump "$f" || return 1
	done | awk '
	BEGIN {
		while ((getline line <"codes") > 0) {
			split(line, w, " ")
			if (w[1] == "code")
				name[substr(w[2], 3)] = w[5]
		}
	}
	$1 == "loadmap" { split("", lmname) }
	$1 == "lm" { p = $NF; gsub(/"/, "", p); lmname[$2] = p }
	$1 == "node" {
		a = $8
		gsub(/"/, "", a)
		if (lmname[$6] == "[python]")
			l = "py:" name[substr(a, 3, length(a) - 8)]
		else if (lmname[$6] ~ /\/libc\.so/)
			l = "libc"
		else if ($6 == 0)
			l = "root"
		else
			l = "native"
		path[$2] = ($4 == 0 ? "" : path[$4] " ") l
		print path[$2]
	}' | sed "s/\(native \)*native/native/g"
}

# eval_outside FOLDED: the paths of FOLDED with a native frame of the eval
# function outside (before) their first Python frame: an eval frame that
# took an outer call's frames, shifting them.
eval_outside() {
	awk -F";" '{ for (p = 1; p <= NF && $p !~ /\.py:[0-9]/; p++) ;
		for (i = 1; i < p && p <= NF; i++)
			if ($i ~ /^_PyEval_EvalFrameDefault /) { print; next } }' "$1"
}

for m in 10 11 12 13; do
	qual=C.m
	test $m = 10 && qual=m
	test_expect_success PY3$m "3.$m: the .hpcpy files name fib, $qual and the thread's target" '
		hpcrun -o fib$m "$(python '$m')" fib.py &&
		ls fib$m/*.hpcpy >files && test_line_count = 2 files &&
		for f in $(cat files); do
			head -n 2 $f >head && printf "hpcpy 01.00\npython 3 '$m'\n" >expect &&
			test_cmp expect head || return 1
		done &&
		cat fib$m/*.hpcpy | awk "\$1 == \"code\" && \$6 ~ /fib.py\$/ { print \$5 }" |
			sort -u >names &&
		printf "%s\n" "<module>" '$qual' fib worker | sort >expect &&
		test_cmp expect names
	'
	test_expect_success PY3$m "3.$m: Python frames nest as the calls do, on both threads" '
		paths fib'$m' >p &&
		grep -q "^root root native py:<module> \(native \)\{0,1\}py:fib" p &&
		grep -q "py:worker \(native \)\{0,1\}py:'$qual' \(native \)\{0,1\}py:fib" p &&
		grep "^root root native py:<module>" p | grep -v -q "py:worker" &&
		! grep -q "py: \|py:$" p &&
		grep -q "^python-threads: 2$" fib'$m'/*.log
	'
	test_expect_success PY3$m "3.$m: a call in its first or last instructions shifts no frame" '
		hpcrun -e cpu-clock@f5000 -o edge$m "$(python '$m')" fib.py &&
		hpcprof -o edge$m.d edge$m >/dev/null 2>&1 &&
		hpcviewer-tui --folded edge$m.f edge$m.d &&
		grep -q "fib.py:[0-9]* fib" edge$m.f &&
		eval_outside edge$m.f >outside &&
		test_line_count = 0 outside
	'
	test_expect_success PY3$m "3.$m: qsort sits between the Python caller and the Python comparator" '
		hpcrun -o sort$m "$(python '$m')" sortcb.py &&
		paths sort'$m' >p &&
		grep -q "py:sorter \(native \)\{0,1\}\(libc \)*libc \(libc \|native \)*py:slow_cmp" p &&
		! grep -q "py:slow_cmp.*libc" p
	'
	test_expect_success PY3$m "3.$m: a thread a C library starts has its Python frames" '
		{ test -f libcthr.so ||
		  cc -shared -fPIC -O2 -pthread -o libcthr.so cthr.c; } &&
		hpcrun -o cthr$m "$(python '$m')" cthr.py &&
		paths cthr'$m' >p &&
		grep -q "^root root native py:in_c_thread \(native \)\{0,1\}py:spin" p
	'
done

# A function whose locals take long to free at its return, called from
# Python and (through map) from C.
cat >drops.py <<\EOF
def build(k=0):
    rows = [{"k": i, "v": [i, str(i)]} for i in range(60000)]
    return len(rows)
def caller():
    t = 0
    for _ in range(15):
        t += build()
    return t
def caller_c():
    return sum(map(build, range(15)))
print(caller(), caller_c())
EOF

# 3.11 on, a returning frame is unlinked before its locals are freed (in
# 3.11 by code inlined into the eval function, which calls
# _PyFrame_Clear); found on the data stack, it is the freeing's.  3.11
# frees a function called from C (map) after its eval call returned, in
# the C caller: there no eval frame is left to take it.
for m in 11 12 13; do
	test_expect_success PY3$m "3.$m: the freeing of a function's locals at its return is the function's" '
		"$(python '$m')" drops.py >expect &&
		hpcrun -o drops$m "$(python '$m')" drops.py >out &&
		test_cmp expect out &&
		hpcstruct drops$m >/dev/null &&
		hpcprof -o drops$m.d drops$m >/dev/null &&
		hpcviewer-tui --folded - drops$m.d >folded &&
		pop="\(_PyEval_\{0,1\}FrameClearAndPop\|_PyFrame_Clear\) [^;]*;.*_dealloc" &&
		grep "drops.py:[0-9]* caller;drops.py:[0-9]* build;$pop" folded &&
		{ test '$m' = 11 ||
		  grep "drops.py:[0-9]* caller_c;.*;drops.py:[0-9]* build;$pop" folded; } &&
		! grep "drops.py:[0-9]* caller;$pop" folded &&
		! grep "_PyEval_EvalFrameDefault [^;]*;$pop" folded
	'
done

# folded_of MINOR NAME: NAME.py run natively and under hpcrun on CPython
# 3.MINOR, the same output, its folded stacks in folded.
folded_of() {
	"$(python $1)" $2.py >expect &&
	hpcrun -o $2$1 "$(python $1)" $2.py >out &&
	test_cmp expect out &&
	hpcprof -o $2$1.d $2$1 >/dev/null &&
	hpcviewer-tui --folded - $2$1.d >folded
}

# A generator resumed from C (sum): each eval frame takes the C call
# anchored in its own stack frame, so a sample taken while the generator's
# call starts or ends never hands the caller's frames to the generator's
# eval frame (a caller shown twice, or below gen_iternext).
cat >gen.py <<\EOF
def numbers(n):
    for i in range(n):
        yield i * 3 % 7
def consume():
    total = 0
    for _ in range(400):
        total += sum(numbers(10000))
    return total
print(consume())
EOF
for m in 11 12 13; do
	test_expect_success PY3$m "3.$m: a generator resumed from C holds its own frames only" '
		folded_of '$m' gen &&
		grep -q "gen.py:[0-9]* consume;.*gen_iternext[^;]*;.*gen.py:1 numbers" folded &&
		! grep "gen_iternext.*gen.py:[0-9]* \(<module>\|consume\)" folded &&
		! grep "gen.py:1 <module>.*gen.py:1 <module>" folded &&
		! grep "numbers;.*builtin_sum" folded
	'
done

# A generator resumed inside the eval loop (for x in gen()): 3.12 links
# and unlinks its frame in stores the compiler orders either way with the
# current frame's, so for some instructions the chain ends at the
# generator's frame (python-frames.c, THE TORN LINK): 2-4% of the samples
# had no Python frame at all.
cat >forgen.py <<\EOF
def numbers(n):
    for i in range(n):
        yield i
def loop():
    for _ in range(300):
        for x in numbers(20000):
            pass
loop()
print("done")
EOF
for m in 11 12 13; do
	test_expect_success PY3$m "3.$m: a loop over a generator keeps every Python frame of every sample" '
		folded_of '$m' forgen &&
		grep -q "forgen.py:[0-9]* loop;\(.*;\)\{0,1\}forgen.py:1 numbers" folded &&
		grep "pyrun_file.*PyEval_EvalCode" folded >in-script &&
		! grep -v "forgen.py:[0-9]* " in-script
	'
done

# Sub-interpreters: a thread runs in one interpreter at a time, with a
# thread state in each; the frames of both are in its paths, each under
# its own eval frame.
cat >sub.py <<\EOF
import threading
try:
    import _interpreters as interps
except ImportError:
    import _xxsubinterpreters as interps
CODE = """
def sub_work(n):
    s = 0
    for i in range(n):
        s += i % 9
    return s
sub_work(1500000)
"""
def run_sub():
    iid = interps.create()
    interps.run_string(iid, CODE)
    interps.destroy(iid)
def in_thread():
    run_sub()
t = threading.Thread(target=in_thread)
t.start()
run_sub()
t.join()
print("ok")
EOF
for m in 12 13; do
	test_expect_success PY3$m "3.$m: a sub-interpreter's frames sit under the call that runs them" '
		folded_of '$m' sub &&
		grep -q "sub.py:1 <module>;sub.py:[0-9]* run_sub;.*;<string>:[0-9]* sub_work" folded &&
		grep -q "sub.py:[0-9]* in_thread;sub.py:[0-9]* run_sub;.*;<string>:[0-9]* sub_work" folded &&
		! grep "sub_work" folded | grep -v "run_sub;"
	'
done

test_expect_success PY312 '--data: a block allocated in Python hangs under its Python path' '
	hpcrun --data -o data "$(python 12)" alloc.py &&
	paths data >p &&
	grep -q "^root native py:<module> py:main py:make" p
'

# deep_most: the most frames of deep() a path of p has, and of those, the
# paths that reach <module>.
deep_most() {
	awk "{ n = gsub(/py:deep( |\$)/, \"\"); if (n > most) { most = n; m = 0 }
	       if (n == most && /py:<module>/) m++ }
	     END { print most, m + 0 }" p
}

test_expect_success PY312 'a chain of 6000 Python frames is whole, the program unharmed' '
	cat >deep.py <<-\EOF &&
	import sys
	sys.setrecursionlimit(20000)
	def deep(n):
	    if n == 0:
	        return sum(i * i for i in range(3_000_000))
	    return deep(n - 1) + 1
	print(deep(6000))
	EOF
	"$(python 12)" deep.py >expect &&
	hpcrun -q -o deep "$(python 12)" deep.py >out &&
	test_cmp expect out &&
	paths deep >p &&
	set -- $(deep_most) && test $1 = 6001 && test $2 -ge 1
'

# Past RT_MAX_FRAMES (8192) a path keeps its innermost frames and is
# partial: no cut path pretends to reach <module>.
test_expect_success PY312 'a chain longer than a path can be is cut and partial' '
	sed "s/deep(6000)/deep(9000)/" deep.py >deep9.py &&
	"$(python 12)" deep9.py >expect &&
	hpcrun -q -o deep9 "$(python 12)" deep9.py >out &&
	test_cmp expect out &&
	paths deep9 >p &&
	set -- $(deep_most) && test $1 -ge 8000 && test $1 -le 8192 &&
	test $2 = 0 &&
	grep "^samples-partial: [1-9]" deep9/*.log
'

test_expect_success PY310 'a handler slower than its samples come records leaves alone, the program unharmed' '
	"$(python 10)" deep.py >expect &&
	hpcrun -q -e cpu-clock@f5000 -o behind "$(python 10)" deep.py >out &&
	test_cmp expect out &&
	grep "^samples-behind: [1-9]" behind/*.log
'

test_expect_success PY312 'code made anew with the same content is copied once' '
	cat >churn.py <<-\EOF &&
	src = "def f{0}(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\nr = f{0}(20000)\n"
	for k in range(2000):
	    g = {}
	    exec(compile(src.format(k % 20), "gen.py", "exec"), g)
	EOF
	hpcrun -q -e cpu-clock@f4000 -o churn "$(python 12)" churn.py &&
	awk "\$1 == \"code\" { print \$2 }" churn/*.hpcpy | sort >ids &&
	sort -u ids >uniq && test_cmp uniq ids &&
	awk "\$1 == \"code\" && \$6 == \"gen.py\" && \$5 ~ /^f/ { print \$5 }" churn/*.hpcpy |
		sort -u >names &&
	test_line_count -ge 15 names
'

test_expect_success PY312 '--no-python: native frames only, no .hpcpy, no [python] module' '
	hpcrun --no-python -o off "$(python 12)" fib.py &&
	! ls off/*.hpcpy &&
	for f in off/*.hpcrun; do
		hpcprof --dump $f >dump &&
		! grep -q "\[python\]" dump || return 1
	done &&
	! grep -q "^python-" off/*.log
'

test_expect_success PY312 'a CPython process takes a signal a sample, as --no-stack-copy' '
	grep -q "^stack-copy: 0$" fib12/*.log &&
	grep -q "^stack-copy: [1-9]" off/*.log ||
	grep -q "^event: CPUTIME" off/*.log
'

test_expect_success 'a process without Python: no [python] module, no .hpcpy' '
	hpcrun -o native sh -c "i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done" &&
	! ls native/*.hpcpy &&
	for f in native/*.hpcrun; do
		hpcprof --dump $f >dump &&
		! grep -q "\[python\]" dump || return 1
	done
'

test_done
