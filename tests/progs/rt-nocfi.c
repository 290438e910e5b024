/*
 * rt-nocfi.c - code without unwind tables.  Built without frame pointers
 * too, call paths through it cannot be unwound: hpcrun must keep such
 * samples under the "^Partial" root and count them, not drop them.  Built
 * with frame pointers and run as "rt-nocfi thin", the frame-pointer chain
 * leads to main, through two frames without locals (%rbp == %rsp at their
 * calls).
 *
 * Build: cc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables \
 *           -fno-unwind-tables -o rt-nocfi rt-nocfi.c
 */
#include <stdio.h>

static volatile double sink;

__attribute__((noinline)) void nocfi_inner(long n)
{
	double s = sink;
	long i;

	for (i = 0; i < n; i++)
		s += (double)i * 0.5;
	sink = s;
}

__attribute__((noinline)) void nocfi_outer(long n)
{
	volatile char pad[256];

	pad[0] = (char)n;
	nocfi_inner(n + pad[0] - (char)n);
	sink += pad[0];
}

__attribute__((noinline)) void nocfi_thin(long n)
{
	nocfi_inner(n);
	sink += 1;	/* no tail call */
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		nocfi_thin(200000000L);
	else
		nocfi_outer(200000000L);
	printf("done\n");
	return 0;
}
