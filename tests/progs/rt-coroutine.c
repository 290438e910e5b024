/*
 * rt-coroutine.c - a coroutine on a stack allocated with malloc
 * (makecontext/swapcontext), for hpcrun --sharing: the block is a stack a
 * thread runs on, which must never stay protected.  Prints a total that
 * does not depend on timing.
 *
 *   cc -O1 -g -o rt-coroutine rt-coroutine.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

static ucontext_t main_uc, co_uc;
static long total;

__attribute__((noinline)) static long deep(int n, volatile char *scratch)
{
	volatile char buf[512];
	int i;

	for (i = 0; i < 512; i++)
		buf[i] = (char)(n + i);
	(void)scratch;
	return n ? deep(n - 1, buf) + buf[7] : buf[3];
}

static void body(void)
{
	for (;;) {
		total += deep(100, NULL);
		swapcontext(&co_uc, &main_uc);
	}
}

__attribute__((noinline)) static char *alloc_costack(void)
{
	return malloc(256 << 10);
}

int main(void)
{
	char *stack = alloc_costack();
	int i;

	getcontext(&co_uc);
	co_uc.uc_stack.ss_sp = stack;
	co_uc.uc_stack.ss_size = 256 << 10;
	co_uc.uc_link = &main_uc;
	makecontext(&co_uc, body, 0);
	for (i = 0; i < 20000; i++)
		swapcontext(&main_uc, &co_uc);
	printf("total %ld\n", total);
	return 0;
}
