/*
 * rt-omp-trace.c - OpenMP as people write it, for hpcrun -t: main
 * allocates and initializes a grid, then sweeps it with parallel loops,
 * one of a static schedule and one of a dynamic one, and between sweeps
 * reads the result on its own while the team's other threads wait for
 * the next region.  Prints the result (t3171).
 *
 * Build: clang -O2 -g -fopenmp=libomp -o rt-omp-trace rt-omp-trace.c
 * Run:   rt-omp-trace [SWEEPS]   (default 40)
 */
#include <stdio.h>
#include <stdlib.h>

#define N 1000000

/* The sum of squares of a[0..n): main's reading of the result. */
static double norm2(const double *a, long n)
{
	double s = 0;
	long i;

	for (i = 0; i < n; i++)
		s += a[i] * a[i];
	return s;
}

int main(int argc, char **argv)
{
	int sweeps = argc > 1 ? atoi(argv[1]) : 40, k;
	double *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	double r = 0;
	long i;

	if (!a || !b)
		return 1;
	for (i = 0; i < N; i++) {
		a[i] = (double)(i % 1000) / 1000.0;
		b[i] = 0;
	}
	for (k = 0; k < sweeps; k++) {
#pragma omp parallel for schedule(static)
		for (i = 1; i < N - 1; i++)
			b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
#pragma omp parallel for schedule(dynamic, 1000)
		for (i = 1; i < N - 1; i++)
			a[i] = 0.5 * (a[i] + b[i]);
		r += norm2(a, N);
	}
	printf("%.6e\n", r);
	free(a);
	free(b);
	return 0;
}
