#!/bin/sh
test_description='hpcrun --sharing: programs run exactly as natively (system calls on tracked buffers, their own mprotect and SIGSEGV handler, fork, signals, alternate signal stacks)'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/share-lib.sh"

# run_both NAME CMD...: CMD natively and under hpcrun --sharing (into
# directory NAME): the same output and the same exit status.
run_both() {
	name=$1 && shift &&
	st=0 && { "$@" >plain-$name || st=$?; } 2>/dev/null &&
	hst=0 && { hpcrun -q --sharing -o $name "$@" >out-$name || hst=$?; } 2>/dev/null &&
	echo "$name: exit $st native, $hst under hpcrun" &&
	test "$st" = "$hst" &&
	test_cmp plain-$name out-$name
}

# trap.c hammers a heap block of its own, not its alternate signal stack:
# hpcrun's sample handler runs on the thread's alternate stack as the
# program's own handlers do, so what the stack holds between signals is
# not the program's (the kernel's, natively, after any signal).
test_expect_success 'setup: the test programs' '
	build_rt_sharing &&
	printf "int main(void) { *(volatile int *)0 = 1; return 0; }\n" >null.c &&
	cc -o null null.c &&
	cat >trap.c <<-\EOF &&
	#include <signal.h>
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	static volatile sig_atomic_t n, on_alt;
	static char *alt, *buf;
	static void on_trap(int sig)
	{
		char here;

		(void)sig;
		n++;
		on_alt += &here >= alt && &here < alt + 65536;
	}
	int main(void)
	{
		struct sigaction sa;
		stack_t ss;
		long k, s = 0;

		alt = malloc(65536);
		buf = calloc(1, 65536);
		ss.ss_sp = alt;
		ss.ss_size = 65536;
		ss.ss_flags = 0;
		if (!alt || !buf || sigaltstack(&ss, NULL))
			return 1;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_trap;
		sa.sa_flags = SA_ONSTACK;
		sigaction(SIGTRAP, &sa, NULL);
		sigaction(SIGUSR1, &sa, NULL);
		for (k = 0; k < 20000000; k++)
			s += buf[k & 65535] += 1;
		raise(SIGTRAP);
		__asm__ volatile("int3");
		raise(SIGUSR1);
		printf("traps caught %d, %d on the heap stack, %ld\n", (int)n, (int)on_alt, s);
		return 3;
	}
	EOF
	cc -O1 -o trap trap.c
'

test_expect_success 'syscalls into tracked buffers, own faults, fork: same output and exit status' '
	run_both w ./rt-sharing syscalls
'

test_expect_success 'its own SIGSEGV handler caught both faults on pages it protected itself' '
	grep -q "^syscalls own faults caught 2, page 3$" out-w
'

test_expect_success 'fork: the child ran and wrote its profile, recording no sharing; the parent records on' '
	grep -q "^syscalls child exit 0 read " out-w &&
	ls w/*.hpcrun >profiles && test_line_count = 2 profiles &&
	for f in w/*.hpcshare; do grep -c "^access " "$f" || :; done >counts &&
	sort -n counts >sorted && head -n 1 sorted >least &&
	echo 0 >zero && test_cmp zero least &&
	hpcprof -o dbw w >/dev/null
'

test_expect_success 'a mutex 4 threads wait on in the kernel: the run is the native one, the mutex a sampled object' '
	run_both mx ./rt-sharing patterns 4 &&
	hpcprof -o dbmx mx >/dev/null &&
	test -n "$(share_label dbmx "cell_lock [rt-sharing]")"
'

test_expect_success 'a coroutine on a heap stack, swapcontext saving its mask into static variables' '
	cc -O1 -g -o rt-coroutine "$TEST_PROGS/rt-coroutine.c" &&
	run_both co ./rt-coroutine &&
	hpcrun -q -e cpu-clock@f20000 --sharing -o co2 ./rt-coroutine >out-co2 &&
	test_cmp plain-co out-co2
'

test_expect_success 'its own SIGTRAP and SIGUSR1 handlers, on a heap alternate signal stack, a heap block hammered' '
	run_both tr ./trap &&
	grep -q "^traps caught 3, 3 on the heap stack" out-tr
'

test_expect_success 'a real fault still ends the program by SIGSEGV, its profile written' '
	run_both n ./null &&
	ls n/*.hpcrun
'

test_done
