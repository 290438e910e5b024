/* pf-split.c - known work split for hpcprof end-to-end tests: one() does a
 * quarter of the work, three() three quarters, each in one loop, 40 times;
 * twice() is inlined into main.  Prints the CPU-time split as it really was.
 * cc -O2 -g -o split "$TEST_PROGS/pf-split.c"
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Prints the true split (CPU time of each call) for the tests to compare. */
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000000;
	double t_one = 0, t_three = 0;

	for (int r = 0; r < 40; r++) {
		double t0 = cpu_seconds(), t1, t2;

		one(twice(n) / 2);
		t1 = cpu_seconds();
		three(n);
		t2 = cpu_seconds();
		t_one += t1 - t0;
		t_three += t2 - t1;
	}
	printf("three %.2f one %.2f\n", 100 * t_three / (t_one + t_three),
	       100 * t_one / (t_one + t_three));
	return 0;
}
