/*
 * rt-handoff.c - a main thread that hands the work to threads and leaves
 * by pthread_exit, as servers and examples do: the process ends, with
 * status 0, when its last thread ends (glibc then calls exit(0), which
 * flushes stdout).
 *
 * Build: cc -O2 -g -pthread -o rt-handoff rt-handoff.c
 *
 *   rt-handoff T   main starts T workers (at most 8) and leaves; each
 *                  computes about 0.1 s of CPU and prints its result
 *                  (buffered: stdout is a file or pipe); the last worker
 *                  started starts one more thread after main has left,
 *                  which prints "late" when its work is done.
 *
 * Ground truth: T worker lines and "late" on stdout, status 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static unsigned long work(unsigned long seed)
{
	struct timespec t;
	unsigned long x = seed;

	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while (!t.tv_sec && t.tv_nsec < 100000000);
	return x & 0xff;
}

static void *late(void *arg)
{
	(void)work(99);
	(void)arg;
	pthread_mutex_lock(&out);
	printf("late\n");
	pthread_mutex_unlock(&out);
	return NULL;
}

static void *worker(void *arg)
{
	long i = (long)arg;
	pthread_t t;

	if (i < 0 && !pthread_create(&t, NULL, late, NULL))
		pthread_detach(t);
	work((unsigned long)labs(i));
	pthread_mutex_lock(&out);
	printf("worker %ld done\n", labs(i));
	pthread_mutex_unlock(&out);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc == 2 ? atoi(argv[1]) : 0;
	pthread_t t;

	if (n < 1 || n > 8) {
		fprintf(stderr, "usage: rt-handoff T (1 to 8)\n");
		return 2;
	}
	for (long i = 1; i <= n; i++)
		if (pthread_create(&t, NULL, worker, (void *)(i == n ? -i : i)) ||
		    pthread_detach(t))
			return 1;
	pthread_exit(NULL);
}
