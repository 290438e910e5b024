#!/bin/sh
test_description='hpcrun --sharing: programs run as without it (system calls on watched buffers, their own mprotect and SIGSEGV handler, fork)'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/share-lib.sh"

test_expect_success 'setup: the test programs' '
	build_rt_sharing &&
	./rt-sharing syscalls >plain &&
	printf "int main(void) { *(volatile int *)0 = 1; return 0; }\n" >null.c &&
	cc -o null null.c &&
	cat >trap.c <<-\EOF &&
	#include <signal.h>
	#include <stdio.h>
	static volatile sig_atomic_t n;
	static void on_trap(int sig) { (void)sig; n++; }
	int main(void)
	{
		signal(SIGTRAP, on_trap);
		raise(SIGTRAP);
		__asm__ volatile("int3");
		printf("traps caught %d\n", (int)n);
		return 0;
	}
	EOF
	cc -o trap trap.c && ./trap >plain-trap
'

test_expect_success 'syscalls with watched buffers: same output and exit status, the kernel met protected pages' '
	hpcrun -q --sharing --watch iobuf,alloc_iobuf -o w ./rt-sharing syscalls >out &&
	test_cmp plain out &&
	grep -q "^sharing-faults: [1-9]" w/*.log &&
	grep -q "^sharing-pins-opened: [1-9]" w/*.log &&
	share_check w
'

test_expect_success 'the same with the objects chosen by their samples' '
	hpcrun -q --sharing -o h ./rt-sharing syscalls >out &&
	test_cmp plain out
'

test_expect_success 'its own SIGSEGV handler caught both faults on pages it protected itself' '
	grep -q "^syscalls own faults caught 2, page 3$" out
'

test_expect_success 'fork: the child ran and wrote its profile; the parent records on' '
	grep -q "^syscalls child exit 0 read " out &&
	ls w/*.hpcrun >profiles && test_line_count = 2 profiles &&
	ls w/*.hpcshare >shares && test_line_count = 1 shares
'

test_expect_success 'a watched mutex: 4 threads wait on it in the kernel, the run is the plain one' '
	./rt-sharing patterns 4 >plain4 &&
	hpcrun -q --sharing --sharing-rate 1000 --watch "cell*" -o mx ./rt-sharing patterns 4 >out4 &&
	test_cmp plain4 out4 &&
	share_flat mx >flat &&
	grep -q " cell_lock " flat
'

test_expect_success 'a coroutine on a heap stack, and swapcontext saving its mask into static variables' '
	cc -O1 -g -o rt-coroutine "$TEST_PROGS/rt-coroutine.c" &&
	./rt-coroutine >plain-co &&
	k=0 &&
	for w in "" "--watch alloc_costack" "--sharing-rate 1000/64"; do
		k=$((k + 1)) &&
		hpcrun -q --sharing $w -o co$k ./rt-coroutine >out-co &&
		test_cmp plain-co out-co &&
		grep -q "^sharing-stacks-left: 1$" co$k/*.log || exit 1
	done
'

test_expect_success 'its own SIGTRAP handler sees its raise and its int3' '
	hpcrun -q --sharing --watch iobuf -o tr ./trap >out-trap &&
	test_cmp plain-trap out-trap &&
	grep -q "^traps caught 2$" out-trap
'

test_expect_success 'a real fault still ends the program by SIGSEGV, its profile written' '
	plain=0 && { ./null || plain=$?; } 2>/dev/null &&
	st=0 && { hpcrun -q --sharing -o n ./null || st=$?; } 2>/dev/null &&
	test "$plain" = 139 && test "$st" = 139 &&
	ls n/*.hpcrun
'

test_done
