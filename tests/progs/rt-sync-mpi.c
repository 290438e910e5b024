/*
 * rt-sync-mpi.c - MPI_Barrier rounds with a known late rank, for the hpcrun
 * synchronization tests.
 *
 * Build: mpicc -O2 -g -o rt-sync-mpi rt-sync-mpi.c
 *
 *   rt-sync-mpi R MS   R rounds: in round r rank r % size sleeps 4*MS ms,
 *                      the others MS ms, then all meet at MPI_Barrier; so
 *                      rank r % size arrives last in round r.
 *   rt-sync-mpi R MS truth   the same, and each rank notes its arrival
 *                      time (CLOCK_MONOTONIC: the test's ranks share one
 *                      host) before each barrier; after the rounds the
 *                      ranks gather them and each prints "truth RANK
 *                      WAIT-S LASTS": its summed wait until the last
 *                      arrival, and the rounds it arrived last.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int rank, size, r, rounds = argc > 1 ? atoi(argv[1]) : 10;
	long ms = argc > 2 ? atol(argv[2]) : 10;
	int truth = argc > 3 && !strcmp(argv[3], "truth");
	double *arr = calloc((size_t)rounds, sizeof(double)), *all;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (r = 0; r < rounds; r++) {
		long d = r % size == rank ? 4 * ms : ms;
		struct timespec ts = { d / 1000, (d % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		arr[r] = now();
		MPI_Barrier(MPI_COMM_WORLD);
	}
	all = calloc((size_t)rounds * (size_t)size, sizeof(double));
	if (truth) {
		double wait = 0;
		int lasts = 0, k;

		MPI_Allgather(arr, rounds, MPI_DOUBLE, all, rounds, MPI_DOUBLE,
			      MPI_COMM_WORLD);
		for (r = 0; r < rounds; r++) {
			double last = arr[r];

			for (k = 0; k < size; k++)
				if (all[k * rounds + r] > last)
					last = all[k * rounds + r];
			wait += last - arr[r];
			lasts += last == arr[r];
		}
		printf("truth %d %.6f %d\n", rank, wait, lasts);
		fflush(stdout);
	}
	if (rank == 0)
		printf("rounds %d ranks %d\n", rounds, size);
	MPI_Finalize();
	free(arr);
	free(all);
	return 0;
}
