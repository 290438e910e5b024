/*
 * pf-partial.c - a program half of whose time is in code without unwind
 * information, entered from main through two different functions: the
 * samples there stay partial paths (hpcrun(1): "^Partial") whose
 * outermost frames differ, and hpcprof must put them all under one root.
 * The part built with -DNOCFI has neither unwind tables nor frame
 * pointers, and its outer functions keep locals, so no unwinder guess
 * gets past them; main's part has unwind tables.
 *
 * Build: cc -O2 -g -DNOCFI -fomit-frame-pointer \
 *           -fno-asynchronous-unwind-tables -fno-unwind-tables \
 *           -c -o pf-partial-nocfi.o pf-partial.c &&
 *        cc -O2 -g -o pf-partial pf-partial.c pf-partial-nocfi.o
 */
#include <stdio.h>

extern volatile double partial_sink;
void partial_spin(long n);
void partial_outer_a(long n);
void partial_outer_b(long n);

#ifdef NOCFI
__attribute__((noinline)) void partial_spin(long n)
{
	double s = partial_sink;
	long i;

	for (i = 0; i < n; i++)
		s += (double)i * 0.5;
	partial_sink = s;
}

__attribute__((noinline)) void partial_outer_a(long n)
{
	volatile char pad[256];

	pad[0] = (char)n;
	partial_spin(n + pad[0] - (char)n);
	partial_sink += pad[0];
}

__attribute__((noinline)) void partial_outer_b(long n)
{
	volatile char pad[512];

	pad[0] = (char)n;
	partial_spin(n + pad[0] - (char)n);
	partial_sink += pad[0];
}
#else
volatile double partial_sink;

__attribute__((noinline)) static void full_work(long n)
{
	double s = partial_sink;
	long i;

	for (i = 0; i < n; i++)
		s += (double)i * 0.25;
	partial_sink = s;
}

int main(void)
{
	full_work(100000000L);
	partial_outer_a(50000000L);
	partial_outer_b(50000000L);
	printf("done\n");
	return 0;
}
#endif
