/*
 * rt-mpi-ring.c - an MPI program for t1060: a token goes round the ranks N
 * times, each rank working between passes; rank 0 prints
 * "ring: SIZE ranks, N rounds, token TOKEN" (TOKEN = N * SIZE).
 *
 *   mpicc -O2 -g -o rt-mpi-ring rt-mpi-ring.c
 *   mpirun --oversubscribe -np 2 hpcrun ./rt-mpi-ring 20
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void work(int units)
{
	long i;

	for (i = 0; i < units * 1000000L; i++)
		sink += (double)i * 0.5;
}

int main(int argc, char **argv)
{
	int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 10, r;
	long token = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (r = 0; r < rounds; r++) {
		if (rank == 0) {
			token++;
			work(5);
			if (size > 1) {
				MPI_Send(&token, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(&token, 1, MPI_LONG, size - 1, 0, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			}
		} else {
			MPI_Recv(&token, 1, MPI_LONG, rank - 1, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			token++;
			work(5);
			MPI_Send(&token, 1, MPI_LONG, (rank + 1) % size, 0, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("ring: %d ranks, %d rounds, token %ld\n", size, rounds, token);
	MPI_Finalize();
	return 0;
}
