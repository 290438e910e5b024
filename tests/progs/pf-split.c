/*
 * pf-split.c - known work split for hpcprof end-to-end tests: one() does a
 * quarter of the work, three() three quarters, each in one loop, alternating
 * 40 times (so a slow spell of a shared machine hits both alike); twice() is
 * inlined into main and does no measurable work.
 * cc -O2 -g -o split "$TEST_PROGS/pf-split.c"
 */
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void one(long n)
{
	double s = 0;

	for (long i = 0; i < n; i++)	/* CHECK: loop, 25% */
		s += (double)i * 0.5;
	sink = s;
}

__attribute__((noinline)) static void three(long n)
{
	double s = 0;

	for (long i = 0; i < 3 * n; i++)	/* CHECK: loop, 75% */
		s += (double)i * 0.5;
	sink = s;
}

static inline long twice(long n)
{
	return 2 * n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000000;

	for (int r = 0; r < 40; r++) {
		one(twice(n) / 2);
		three(n);
	}
	return 0;
}
