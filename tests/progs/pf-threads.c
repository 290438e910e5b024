/*
 * pf-threads.c - NTHREADS threads (default 64), each running a few distinct
 * call paths with loops, for hpcprof's benchmark (many thread profiles of
 * one program) and for tests that need several threads.
 *
 * cc -O2 -g -pthread -o threads "$TEST_PROGS/pf-threads.c"
 * Usage: threads [NTHREADS [WORK]]
 */
#include <pthread.h>
#include <stdlib.h>

static volatile double sink;
static long work = 2000000;

__attribute__((noinline)) static double leaf(long n, double x)
{
	double s = 0;

	for (long i = 0; i < n; i++)
		s += x * (double)i;
	return s;
}

__attribute__((noinline)) static double mid(long n, int depth)
{
	double s = 0;

	for (int k = 0; k < 4; k++)
		s += depth ? mid(n / 4, depth - 1) : leaf(n / 4, k + 0.5);
	return s;
}

static void *body(void *arg)
{
	long t = (long)arg;

	sink = mid(work * (1 + t % 3), (int)(t % 4)) + leaf(work, 1.5);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	pthread_t *tid;

	if (argc > 2)
		work = atol(argv[2]);
	if (n < 1 || n > 4096)
		return 2;
	tid = calloc((size_t)n, sizeof(*tid));
	for (long i = 0; i < n; i++)
		pthread_create(&tid[i], NULL, body, (void *)i);
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	return 0;
}
