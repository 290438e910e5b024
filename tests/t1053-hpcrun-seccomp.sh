#!/bin/sh
test_description='hpcrun: a program that installs a seccomp filter after its start runs on as natively, measured until then, in every mode'
. "$(dirname "$0")/test-lib.sh"

# rt-seccomp kills itself (SIGSYS, status 159) at any system call its
# filter leaves out, so any call of hpcrun's past the filter shows.
test_expect_success 'setup: the program, and its output natively' '
	cc -O2 -g -pthread -o rt-seccomp "$TEST_PROGS/rt-seccomp.c" &&
	for how in tsync prctl strict fork exec fail; do
		./rt-seccomp $how >"native-$how" || return 1
	done &&
	grep "^sums" native-strict
'

# sealed HOW N OPTS...: N runs of rt-seccomp HOW under hpcrun OPTS, each
# as natively (stdout, status 0), with one line on stderr saying where
# the measurement ended, a log that ended there, and the profiles of main,
# both workers and, for strict, the worker that filtered itself (threads
# started after the filter are not measured).
sealed() {
	how=$1 n=$2 threads=4
	test "$how" = strict && threads=5
	shift 2
	i=0
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		rm -rf "m-$how" &&
		{ hpcrun -o "m-$how" "$@" ./rt-seccomp $how >out 2>err; got=$?; } &&
		echo "$how $* run $i: status $got" && cat err &&
		test "$got" = 0 &&
		test_cmp "native-$how" out &&
		grep -q "^hpcrun: rt-seccomp (process [0-9]*) installs a seccomp filter: measured until then, not after; see hpcrun(1)\$" err &&
		test_line_count = 1 err &&
		grep -q "^end: seccomp\$" "m-$how"/*.log &&
		ls "m-$how"/*.log >logs && test_line_count = 1 logs &&
		ls "m-$how"/*.hpcrun >files && test_line_count = "$threads" files || return 1
	done
}

test_expect_success 'a filter on every thread at once (TSYNC): as natively' '
	sealed tsync 3
'

test_expect_success 'a filter on main alone, then a thread that inherits it: as natively' '
	sealed prctl 2
'

test_expect_success 'a worker in strict mode (read, write, exit): as natively' '
	sealed strict 2
'

test_expect_success 'a fork after the filter: the child is not measured, and runs as natively' '
	sealed fork 2 &&
	ls m-fork/*.log >logs && test_line_count = 1 logs
'

test_expect_success 'an exec after the filter: the new image runs unmeasured, as natively' '
	sealed exec 2
'

for opts in --data --sharing -t "-e REALTIME" "--hang-timeout 10"; do
	test_expect_success "the same under $opts" "
		sealed tsync 2 $opts &&
		sealed strict 1 $opts
	"
done

test_expect_success 'what was measured before the filter is a database' '
	sealed tsync 1 &&
	hpcprof -o db m-tsync 2>err &&
	grep -q "wrote .db. (1 process, 4 threads" err
'

test_expect_success 'a filter that fails (EFAULT): measurement goes on in new files' '
	rm -rf m-fail &&
	hpcrun -o m-fail ./rt-seccomp fail >out 2>err &&
	test_cmp native-fail out &&
	ls m-fail/*.log >logs && test_line_count = 2 logs &&
	grep -l "^end: seccomp\$" m-fail/*.log >first && test_line_count = 1 first &&
	grep -l "^seccomp failed (Bad address): measurement goes on in new files\$" \
		m-fail/*.log >second && test_line_count = 1 second &&
	grep -q "^end: exit\$" $(cat second) &&
	hpcprof -o db-fail m-fail 2>err &&
	grep -q "wrote .db-fail. (1 process, 8 threads" err
'

# Python sandboxes itself through ctypes, which reaches prctl through a
# handle of libc's own (dlsym): a filter that allows everything but
# perf_event_open (ENOSYS).
. "$TEST_DIRECTORY/lib/python-lib.sh"
pyenv_prereqs 3.12
cat >sandbox.py <<\EOF_PY
import ctypes, ctypes.util, struct
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
def stmt(code, k, jt=0, jf=0):
    return struct.pack("HBBI", code, jt, jf, k)
prog = (stmt(0x20, 0) +                       # ld [nr]
        stmt(0x15, 298, 0, 1) +               # jeq perf_event_open
        stmt(0x06, 0x00050000 | 38) +         # ret ERRNO(ENOSYS)
        stmt(0x06, 0x7fff0000))               # ret ALLOW
buf = ctypes.create_string_buffer(prog)
class Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
fp = Fprog(len(prog) // 8, ctypes.addressof(buf))
assert libc.prctl(38, 1, 0, 0, 0) == 0        # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.byref(fp), 0, 0) == 0, ctypes.get_errno()
print(sum(i * i for i in range(300000)))
EOF_PY

test_expect_success PY312 'Python through ctypes (a handle of libc): the measurement ends at the filter' '
	"$(pypath 3.12)" sandbox.py >expect &&
	rm -rf m-py &&
	hpcrun -o m-py "$(pypath 3.12)" sandbox.py >out 2>err &&
	test_cmp expect out &&
	grep -q "^hpcrun: sandbox.py (process [0-9]*) installs a seccomp filter" err &&
	grep -q "^end: seccomp\$" m-py/*.log
'

test_done
