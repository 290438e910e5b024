/*
 * rt-sync-mpi.c - MPI_Barrier rounds with a known late rank, for the hpcrun
 * synchronization tests.
 *
 * Build: mpicc -O2 -g -o rt-sync-mpi rt-sync-mpi.c
 *
 *   rt-sync-mpi R MS   R rounds: in round r rank r % size sleeps 4*MS ms,
 *                      the others MS ms, then all meet at MPI_Barrier; so
 *                      rank r % size arrives last in round r.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int rank, size, r, rounds = argc > 1 ? atoi(argv[1]) : 10;
	long ms = argc > 2 ? atol(argv[2]) : 10;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (r = 0; r < rounds; r++) {
		long d = r % size == rank ? 4 * ms : ms;
		struct timespec ts = { d / 1000, (d % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("rounds %d ranks %d\n", rounds, size);
	MPI_Finalize();
	return 0;
}
