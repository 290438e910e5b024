/*
 * demo.c - the bundled example that 'make demo' profiles.
 *
 *   cc -O2 -g -pthread -o demo demo.c
 *
 * Two threads; the main thread runs a 3-deep loop nest (matrix multiply),
 * the worker a 2-deep stencil and a 1-deep reduction.  Half or more of the
 * samples land in mm's innermost loop (51-61% by perf on our VMs).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 220

static double a[N][N], b[N][N], c[N][N];
static double grid[2][512][512];

__attribute__((noinline)) static void mm(void)
{
	int i, j, k;

	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			for (k = 0; k < N; k++)
				c[i][j] += a[i][k] * b[k][j];
}

__attribute__((noinline)) static void stencil(int t)
{
	double (*in)[512] = grid[t & 1], (*out)[512] = grid[!(t & 1)];
	int i, j;

	for (i = 1; i < 511; i++)
		for (j = 1; j < 511; j++)
			out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j] +
					    in[i][j - 1] + in[i][j + 1]);
}

__attribute__((noinline)) static double reduce(void)
{
	double s = 0;
	int i;

	for (i = 0; i < 512 * 512; i++)
		s += grid[0][i / 512][i % 512];
	return s;
}

static void *worker(void *arg)
{
	double *sum = arg;
	int t;

	for (t = 0; t < 2000; t++) {
		stencil(t);
		*sum += reduce();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 300, r, i, j;
	double sum = 0;
	pthread_t th;

	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			a[i][j] = i + j;
			b[i][j] = i - j;
		}
	grid[0][256][256] = 1e6;
	if (pthread_create(&th, NULL, worker, &sum))
		return 1;
	for (r = 0; r < reps; r++)
		mm();
	pthread_join(th, NULL);
	printf("checksum %g %g\n", c[N / 2][N / 2], sum);
	return 0;
}
