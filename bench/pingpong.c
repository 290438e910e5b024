/*
 * pingpong.c - two threads that hand a turn back and forth through a
 * mutex and a condition variable: a context switch per hand-over, the
 * worst case for hpcrun -e REALTIME's sample per switch
 * (bench/hpcrun-realtime-cost.sh).
 *
 *   pingpong N   N round trips
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int turn, n;

static void *pong(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		while (turn != 1)
			pthread_cond_wait(&c, &m);
		turn = 0;
		pthread_cond_signal(&c);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int i;

	if (argc != 2)
		return 2;
	n = atoi(argv[1]);
	pthread_create(&t, NULL, pong, NULL);
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		turn = 1;
		pthread_cond_signal(&c);
		while (turn != 0)
			pthread_cond_wait(&c, &m);
		pthread_mutex_unlock(&m);
	}
	pthread_join(t, NULL);
	printf("%d round trips\n", n);
	return 0;
}
