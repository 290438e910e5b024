#!/bin/sh
test_description='hpcrun: the hang detector reads the path of a thread blocked in the kernel without waking it (nanosleep, pause, poll, read, sem_wait beside a barrier)'
. "$(dirname "$0")/test-lib.sh"

# tests/progs/rt-blocked.c: thread 1 blocks in the kernel (or alternates
# computing and sleeping) while threads 2 and 3 wait for it at a barrier;
# the program prints what its blocking calls returned.
src="$TEST_PROGS/rt-blocked.c"

# The line of the first statement of src holding text.
line_of() {
	grep -n "$1" "$src" | head -n 1 | cut -d: -f1
}

test_expect_success 'setup: the test program, with and without frame pointers' '
	cc -O2 -g -pthread -o rt-blocked "$src" &&
	cc -O0 -g -pthread -o rt-blocked-O0 "$src"
'

test_expect_success 'a thread sleeping 4 s in nanosleep beside a barrier: the hang is reported with its frames, the sleep runs to its end' '
	./rt-blocked nanosleep 4 >expect &&
	echo "nanosleep: 0 ok, 0.000000000 s left" >first &&
	head -n 1 expect >got && test_cmp first got &&
	hpcrun -o n1 --hang-timeout 0.5 ./rt-blocked nanosleep 4 >out 2>err &&
	test_cmp expect out &&
	grep -q "^hang: barrier$" n1/*.hang &&
	grep -q "^missing: thread 1 tid [0-9]* stuck " n1/*.hang &&
	grep -q "^  frame: [0-9]* sleeps+0x[0-9a-f]* at rt-blocked.c:$(line_of "r = nanosleep") (rt-blocked+0x[0-9a-f]*)$" n1/*.hang &&
	grep -q "^  frame: [0-9]* thread+0x[0-9a-f]* at rt-blocked.c:$(line_of "sleeps(secs)") (rt-blocked+0x[0-9a-f]*)$" n1/*.hang
'

# /proc/self/task/TID/syscall is /proc's TID, which a process made in a
# new PID namespace that kept its parent's /proc does not have.
test_expect_success PIDNS 'the same in a PID namespace with its parent'"'"'s /proc: the frames read all the same' '
	hpcrun -o n2 --hang-timeout 0.5 unshare -pf ./rt-blocked nanosleep 4 >out 2>err &&
	test_cmp expect out &&
	grep -q "^missing: thread 1 tid [0-9]* stuck " n2/*.hang &&
	grep -q "^  frame: [0-9]* sleeps+0x[0-9a-f]* at rt-blocked.c:$(line_of "r = nanosleep") (rt-blocked+0x[0-9a-f]*)$" n2/*.hang
'

test_expect_success 'a thread in pause() beside a barrier: a real hang, reported with the caller of pause at its line; the program still hangs' '
	run_until_report p1 0.5 ./rt-blocked pause &&
	! grep -q "pause returned" out &&
	grep -q "^hang: barrier$" p1/*.hang &&
	grep -q "^missing: thread 1 tid [0-9]* stuck " p1/*.hang &&
	grep -q "^  frame: 0 pause+0x" p1/*.hang &&
	grep -q "^  frame: 1 waits_for_a_signal+0x[0-9a-f]* at rt-blocked.c:$(line_of "	pause()") (rt-blocked+0x[0-9a-f]*)$" p1/*.hang &&
	grep -q "^  frame: 2 thread+0x[0-9a-f]* at rt-blocked.c:$(line_of "waits_for_a_signal();") (rt-blocked+0x[0-9a-f]*)$" p1/*.hang
'

test_expect_success 'the same built with frame pointers (-O0): the whole path, found without the registers of the call' '
	run_until_report p2 0.5 ./rt-blocked-O0 pause &&
	! grep -q "pause returned" out &&
	grep -q "^  frame: 1 waits_for_a_signal+0x[0-9a-f]* at rt-blocked.c:$(line_of "	pause()") (rt-blocked-O0+0x[0-9a-f]*)$" p2/*.hang &&
	grep -q "^  frame: 2 thread+0x[0-9a-f]* at rt-blocked.c:$(line_of "waits_for_a_signal();") (rt-blocked-O0+0x[0-9a-f]*)$" p2/*.hang
'

test_expect_success 'poll and read on pipes, and the main thread sleeping: none cut short by the report' '
	./rt-blocked pipe 3 | sort >expect &&
	grep -q "^poll: 1 ok$" expect && grep -q "^read b: 1 ok b$" expect &&
	grep -q "^main nanosleep: 0$" expect &&
	hpcrun -o r1 --hang-timeout 0.5 ./rt-blocked pipe 3 >out 2>err &&
	sort out >sorted && test_cmp expect sorted &&
	grep -q "^hang: barrier$" r1/*.hang &&
	grep -q "^  frame: [0-9]* polls_then_reads+0x[0-9a-f]* at rt-blocked.c:$(line_of "int r = poll") " r1/*.hang &&
	grep -q "^  frame: [0-9]* reads+0x[0-9a-f]* at rt-blocked.c:$(line_of "n = read(pipe_b") " r1/*.hang
'

test_expect_success 'sem_wait, and the main thread sleeping: not cut short' '
	./rt-blocked sem 3 >expect &&
	grep -q "^sem_wait: 0 ok$" expect &&
	hpcrun -o s1 --hang-timeout 0.5 ./rt-blocked sem 3 >out 2>err &&
	test_cmp expect out
'

# libc.so.6 has no .symtab: its internal functions (the futex wait under
# sem_wait) are named from its detached debug file, found by build ID
# where Debian's libc6-dbg puts it.
test_lazy_prereq LIBC_DBG 'test -d /usr/lib/debug/.build-id && dpkg -s libc6-dbg'

test_expect_success LIBC_DBG 'with libc6-dbg, the frames in libc under sem_wait are named' '
	grep "^  frame: [0-9]* .* (libc.so.6+0x[0-9a-f]*)$" s1/*.hang >libc &&
	test -s libc &&
	! grep "^  frame: [0-9]* ??" libc &&
	grep -q "^  frame: 0 [_a-z]*futex[_a-z]*+0x[0-9a-f]* at futex-internal.c:[0-9]* " libc
'

# Computing half of the time, thread 1 is probed at every tick of the
# detector; a probe that interrupted one of its sleeps would count it.
test_expect_success 'a thread alternating computing and sleeping, probed all along: no sleep cut short' '
	hpcrun -o a1 --hang-timeout 0.5 ./rt-blocked alternate 3 >out 2>err &&
	printf "sleeps cut short: 0\ndone\n" >expect &&
	test_cmp expect out
'

test_done
