/*
 * rt-omp-two.c - a time loop of two OpenMP constructs, each a "#pragma omp
 * parallel for" of its own function: a stencil sweep (SWEEP below) every
 * step, and a copy back (COPY) every fourth step, after the sweep
 * (t3155).  So the phases from the sweep's join run either the sweep's
 * body again (to the sweep's join) or the copy's (to the copy's join):
 * two phase kinds of one start, each with code of its own.
 *
 * Build: cc -O2 -g -fopenmp -o rt-omp-two rt-omp-two.c
 *        clang -O2 -g -fopenmp=libomp -o rt-omp-two rt-omp-two.c
 * Run:   rt-omp-two [STEPS]   (default 8)
 */
#include <stdio.h>
#include <stdlib.h>

#define N 1000000
#define SWEEPS 3

static double a[N], b[N];

__attribute__((noinline)) static void sweep(void)
{
#pragma omp parallel for /* SWEEP */
	for (int i = 1; i < N - 1; i++) {
		double s = 0;

		for (int k = 0; k < SWEEPS; k++)
			s += (a[i - 1] + a[i] + a[i + 1]) / (3 + k);
		b[i] = s;
	}
}

__attribute__((noinline)) static void copy(void)
{
#pragma omp parallel for /* COPY */
	for (int i = 1; i < N - 1; i++)
		a[i] = b[i] * 0.5;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 8;

	for (int i = 0; i < N; i++)
		a[i] = i % 7;
	for (int t = 0; t < steps; t++) {
		sweep();
		if (t % 4 == 3)
			copy();
	}
	printf("steps %d\nvalue %g\n", steps, a[N / 2]);
	return 0;
}
