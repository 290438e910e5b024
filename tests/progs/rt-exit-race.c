/*
 * rt-exit-race.c - a program whose threads are still busy when main ends
 * the process, as servers, pools and daemon threads often are: hpcrun must
 * write the end and let the program end as natively (its status, no
 * crash, no hang).
 *
 * Build: cc -O2 -g -pthread -o rt-exit-race rt-exit-race.c
 *
 *   rt-exit-race HOW T   T threads (at most 16) loop: each formats lines
 *                        to stdout (the stream's lock taken and let go),
 *                        allocates and frees; once each has looped, main
 *                        prints "ending" on stderr and ends by HOW: exit
 *                        (status 3), _exit (status 4) or return (status 5)
 *
 * Ground truth: the status above; stdout (sent to /dev/null by the tests)
 * is whatever the threads printed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16

static volatile int looped[MAX_THREADS];

static void *worker(void *arg)
{
	int i = (int)(long)arg;
	unsigned long n = 0;

	for (;;) {
		char *p = malloc(64 + n % 512);

		if (p) {
			memset(p, (int)n, 64);
			printf("thread %d line %lu %d\n", i, n, p[1]);
			free(p);
		}
		if (++n == 1000)
			looped[i] = 1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int n, i;

	if (argc != 3 || (n = atoi(argv[2])) < 1 || n > MAX_THREADS) {
		fprintf(stderr, "usage: rt-exit-race exit|_exit|return T\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, worker, (void *)(long)i))
			return 1;
	for (i = 0; i < n; i++)
		while (!looped[i])
			usleep(1000);
	fprintf(stderr, "ending\n");
	if (!strcmp(argv[1], "exit"))
		exit(3);
	if (!strcmp(argv[1], "_exit"))
		_exit(4);
	return 5;
}
