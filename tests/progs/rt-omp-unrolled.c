/*
 * rt-omp-unrolled.c - a smoothing time loop as people write it: each step
 * calls smooth(), whose one "#pragma omp parallel for" (CONSTRUCT below)
 * is a parallel region, in a loop of STEPS steps, a constant trip count
 * the compiler unrolls, copying the region's call STEPS times (t3154).
 *
 * Build: cc -O2 -g -fopenmp -o rt-omp-unrolled rt-omp-unrolled.c
 *        clang -O2 -g -fopenmp=libomp -o rt-omp-unrolled rt-omp-unrolled.c
 * Run:   rt-omp-unrolled [ROUNDS]   (default 1)
 *
 * ROUNDS times STEPS regions of the one construct run; it prints
 * "regions R", the regions it ran.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 1000000
#define STEPS 6

static double a[N], b[N];

static void smooth(double *restrict to, const double *restrict from)
{
#pragma omp parallel for /* CONSTRUCT */
	for (int i = 1; i < N - 1; i++)
		to[i] = (from[i - 1] + from[i] + from[i + 1]) / 3;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < N; i++)
		a[i] = i % 7;
	for (int r = 0; r < rounds; r++)
		for (int t = 0; t < STEPS; t++)
			smooth(t & 1 ? a : b, t & 1 ? b : a);
	printf("regions %d\nvalue %g\n", rounds * STEPS, a[N / 2]);
	return 0;
}
