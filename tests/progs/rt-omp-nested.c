/*
 * rt-omp-nested.c - OpenMP regions of known imbalance started by more than
 * one thread at once, with the truth hpcrun's region joins are checked
 * against (t1096).
 *
 * Build: cc -O2 -g -fopenmp -pthread -o rt-omp-nested rt-omp-nested.c
 * Run:   rt-omp-nested nested|pool [REGIONS [UNIT_MS]]   (defaults 20, 10)
 *
 * nested: REGIONS times, an outer team of 2 (OUTER below), each of whose
 *         threads o runs an inner team of 2 (INNER, max active levels 2):
 *         inner thread i spins (1 + i + 2 o) UNIT_MS ms of its CPU time.
 * pool:   two pthreads p of the program's own each run REGIONS regions of
 *         a team of 2 (POOL), at once: thread i spins (1 + i + 2 p) ms.
 *
 * Each thread notes when it is done (CLOCK_MONOTONIC); a thread of the
 * outer team arrives at the outer join when its inner region has ended.
 * It prints, for each construct C (outer, inner; or pool):
 *
 *   construct C LINE   the line of its "#pragma omp parallel"
 *   regions C R        its regions (both teams' for inner and pool)
 *   wait C W           its threads' summed waits at the regions' ends,
 *                      seconds: over every region, each thread's time
 *                      done to the last of its team's
 */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu-spin.h"

static double unit;
static int regions;

/* The summed wait of a team of 2 done at d[0] and d[1]. */
static double wait2(const double *d)
{
	return d[0] > d[1] ? d[0] - d[1] : d[1] - d[0];
}

static int pool_line;
static double pool_wait[2];

static void *pool_thread(void *arg)
{
	int p = (int)(long)arg, line = 0;

	for (int r = 0; r < regions; r++) {
		double done[2];

		line = __LINE__ + 1;
#pragma omp parallel num_threads(2) /* POOL */
		{
			int i = omp_get_thread_num();

			spin((1 + i + 2 * p) * unit);
			done[i] = now(CLOCK_MONOTONIC);
		}
		pool_wait[p] += wait2(done);
	}
	pool_line = line;
	return NULL;
}

static void pool(void)
{
	pthread_t th[2];

	for (long p = 0; p < 2; p++)
		pthread_create(&th[p], NULL, pool_thread, (void *)p);
	for (int p = 0; p < 2; p++)
		pthread_join(th[p], NULL);
	printf("construct pool %d\nregions pool %d\nwait pool %.6f\n",
	       pool_line, 2 * regions, pool_wait[0] + pool_wait[1]);
}

static void nested(void)
{
	double outer_wait = 0, inner_wait[2] = { 0 };
	int outer_line = 0, inner_line = 0;

	omp_set_max_active_levels(2);
	for (int r = 0; r < regions; r++) {
		double end[2];

		outer_line = __LINE__ + 1;
#pragma omp parallel num_threads(2) /* OUTER */
		{
			int o = omp_get_thread_num();
			double done[2];

			inner_line = __LINE__ + 1;
#pragma omp parallel num_threads(2) /* INNER */
			{
				int i = omp_get_thread_num();

				spin((1 + i + 2 * o) * unit);
				done[i] = now(CLOCK_MONOTONIC);
			}
			end[o] = now(CLOCK_MONOTONIC);
			inner_wait[o] += wait2(done);
		}
		outer_wait += wait2(end);
	}
	printf("construct outer %d\nconstruct inner %d\n", outer_line,
	       inner_line);
	printf("regions outer %d\nregions inner %d\n", regions, 2 * regions);
	printf("wait outer %.6f\nwait inner %.6f\n", outer_wait,
	       inner_wait[0] + inner_wait[1]);
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "nested") && strcmp(argv[1], "pool"))) {
		fprintf(stderr, "usage: rt-omp-nested nested|pool [REGIONS [UNIT_MS]]\n");
		return 2;
	}
	regions = argc > 2 ? atoi(argv[2]) : 20;
	unit = (argc > 3 ? atof(argv[3]) : 10) * 1e-3;
	omp_set_dynamic(0);
	if (!strcmp(argv[1], "nested"))
		nested();
	else
		pool();
	return 0;
}
