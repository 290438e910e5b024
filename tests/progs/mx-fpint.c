/* mx-fpint.c - known instruction mix for the instruction-mix tests: fp()
 * is one loop of floating-point arithmetic (a chain of dependent
 * multiply-adds, so its time is spent at FP instructions), ints() one loop
 * of integer and memory work (loads, stores, xor, shifts, multiplies;
 * no FP at all).  Each is called ROUNDS times; the program prints the
 * CPU-time share each really had, the truth the fused FP share of the
 * whole program must match (fp() is all FP, ints() none).
 * cc -O2 -g -o mx-fpint "$TEST_PROGS/mx-fpint.c"
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 20
#define WORDS 4096

static volatile double dsink;
static volatile unsigned long isink;
static unsigned long words[WORDS];

/* A multiply-add on each of four accumulators, written so that no
 * register copies are needed (x = x * a + b is mulsd, addsd); 32 of them
 * make the loop body: 256 FP instructions around 3 of loop control (a
 * sample lands on the loop control more often than 3 in 259, after the
 * FP instruction it follows; the longer body keeps that small). */
#define STEP8 STEP STEP STEP STEP STEP STEP STEP STEP
#define STEP \
	x0 = x0 * a + b; \
	x1 = x1 * a - b; \
	x2 = x2 * b + a; \
	x3 = x3 * b - a;

__attribute__((noinline)) static void fp(long n, double a, double b)
{
	double x0 = 1.0, x1 = 2.0, x2 = 3.0, x3 = 4.0;

	for (long i = 0; i < n; i++) {	/* CHECK: loop, FP */
		STEP8 STEP8 STEP8 STEP8
	}
	dsink = x0 + x1 + x2 + x3;
}

__attribute__((noinline)) static void ints(long n)
{
	unsigned long h = 0x9e3779b97f4a7c15UL;

	for (long i = 0; i < n; i++) {	/* CHECK: loop, integer and memory */
		unsigned long *w = &words[(h >> 7) % WORDS];

		h ^= *w;
		h = (h << 13 | h >> 51) * 0xff51afd7ed558ccdUL;
		*w = h;
	}
	isink = h;
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* argv[1]: iterations of fp() per round; ints() does 32 times as many. */
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 250000;
	double t_fp = 0, t_int = 0;

	for (int r = 0; r < ROUNDS; r++) {
		double t0 = cpu_seconds(), t1, t2;

		fp(n, 0.999999, 1e-7);
		t1 = cpu_seconds();
		ints(32 * n);
		t2 = cpu_seconds();
		t_fp += t1 - t0;
		t_int += t2 - t1;
	}
	printf("fp %.2f int %.2f\n", 100 * t_fp / (t_fp + t_int),
	       100 * t_int / (t_fp + t_int));
	return 0;
}
