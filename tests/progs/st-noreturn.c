/*
 * st-noreturn.c - calls to a function that never returns, which hpcstruct
 * must find by analysis: die() has no noreturn attribute and no
 * DW_AT_noreturn; it calls fatal(), which calls exit().  The compilers see
 * that too and put unrelated code right after a call to die(); taken as a
 * fall-through, that code made false loops (gcc -O3: a loop at the call's
 * line inside rows(); clang -O2/-O3: a loop around both loops of sums()).
 * Expected structure in // CHECK: comments (tests/lib/check-structure.sh).
 * Build: cc -O3 -g -o st-noreturn st-noreturn.c   (tests use -O0, -O2, -O3)
 */
#include <stdio.h>
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) void fatal(const char *msg, int code)
{
	fprintf(stderr, "st-noreturn: %s\n", msg);
	exit(code);
}

__attribute__((noinline)) void die(int code)
{
	fatal("value out of range", code & 0x7f);
}

__attribute__((noinline)) int rows(const int *a, int n)	// CHECK: loops=3 proc=rows
{
	int s = 0;

	for (int r = 0; r < n; r++) {			// CHECK: loop depth=1 proc=rows
		for (int j = 0; j < n; j++)		// CHECK: loop depth=2 proc=rows
			s ^= a[j] * j;
		if (a[r] > 1000)
			die(a[r]);
		for (int j = 0; j < n; j++)		// CHECK: loop depth=2 proc=rows
			s += a[j] * r;
	}
	return s;
}

__attribute__((noinline)) int sums(const int *a, int n)	// CHECK: loops=2 proc=sums
{
	int s = 0;

	for (int j = 0; j < n; j++)			// CHECK: loop depth=1 proc=sums
		s ^= a[j] * j;
	for (int i = 0; i < n; i++) {			// CHECK: loop depth=1 proc=sums
		if (__builtin_expect(a[i] > 1000, 1))
			die(a[i]);
		s += a[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	int a[16];

	(void)argv;
	for (int i = 0; i < 16; i++)
		a[i] = (i * 7 + argc) % 11;
	sink = rows(a, 16);
	sink = sums(a, 16);
	return 0;
}
