/*
 * rt-omp-truth.c - an OpenMP program of known imbalance that prints the
 * truth hpcrun's barrier measurement is checked against (t1094).
 *
 * Build: cc -O2 -g -fopenmp -o rt-omp-truth rt-omp-truth.c
 *        clang -O2 -g -fopenmp=libomp -o rt-omp-truth rt-omp-truth.c
 * Run:   rt-omp-truth [REGIONS [UNIT_MS]]   (defaults 20 and 10)
 *
 * Four threads run REGIONS parallel regions of the one construct marked
 * CONSTRUCT below; in each, thread t spins (t + 1) * UNIT_MS ms of its own
 * CPU time (CLOCK_THREAD_CPUTIME_ID), notes when it is done
 * (CLOCK_MONOTONIC) and meets the others at the region's end.  It prints:
 *
 *   construct LINE        the line of the "#pragma omp parallel"
 *   regions R
 *   work W0 W1 W2 W3      each thread's spinning, CPU seconds
 *   wait W0 W1 W2 W3      each thread's wait at the regions' ends, seconds:
 *                         the sum over regions of the last thread's time
 *                         done minus its own
 *   last N0 N1 N2 N3      the regions each thread was done last in
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu-spin.h"

#define T 4

int main(int argc, char **argv)
{
	int regions = argc > 1 ? atoi(argv[1]) : 20;
	double unit = (argc > 2 ? atof(argv[2]) : 10) * 1e-3;
	double work[T] = { 0 }, wait[T] = { 0 }, done[T];
	int last[T] = { 0 }, line = 0;

	omp_set_dynamic(0);
	for (int r = 0; r < regions; r++) {
		double max = 0;
		int who = 0;

		line = __LINE__ + 1;
#pragma omp parallel num_threads(T) /* CONSTRUCT */
		{
			int t = omp_get_thread_num();
			double c = now(CLOCK_THREAD_CPUTIME_ID);

			spin((t + 1) * unit);
			work[t] += now(CLOCK_THREAD_CPUTIME_ID) - c;
			done[t] = now(CLOCK_MONOTONIC);
		}
		for (int t = 0; t < T; t++)
			if (done[t] > max) {
				max = done[t];
				who = t;
			}
		for (int t = 0; t < T; t++)
			wait[t] += max - done[t];
		last[who]++;
	}
	printf("construct %d\nregions %d\nwork", line, regions);
	for (int t = 0; t < T; t++)
		printf(" %.6f", work[t]);
	printf("\nwait");
	for (int t = 0; t < T; t++)
		printf(" %.6f", wait[t]);
	printf("\nlast");
	for (int t = 0; t < T; t++)
		printf(" %d", last[t]);
	printf("\n");
	return 0;
}
