/*
 * rt-churn.c - programs that churn threads, as servers, build tools and
 * task runtimes do: many short-lived threads, and a thread pool that grows
 * under load and shrinks when idle.  For the hpcrun thread-churn test
 * (t1041) and bench/hpcrun-thread-churn.sh.
 *
 * Build: cc -O2 -g -pthread -o rt-churn rt-churn.c
 *
 *   rounds R N US   R rounds: N threads made at once, each spinning US
 *                   microseconds of its CPU time, then all joined (a
 *                   fork-join program without a pool; rounds 1 2000 100
 *                   is 2000 threads at once)
 *   pool R N US     a pool of at most N detached workers: R bursts of 4N
 *                   tasks of US microseconds each; a task queued with no
 *                   idle worker makes a new one, a worker idle for 2 ms
 *                   exits, and 20 ms between bursts let the pool shrink to
 *                   nothing (the next burst grows it again)
 *
 * Output: stdout "sum X", a checksum of every task's result, the same in
 * every run of the same arguments; stderr "threads-made K", the threads
 * the program made (the pool's count depends on scheduling).  Every
 * thread made has ended when the program exits.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu-spin.h"

static double task_s;

/* A task's result: a hash of its number (the work's deterministic part),
 * then US microseconds of CPU time. */
static uint64_t task(uint64_t id)
{
	uint64_t h = 1469598103934665603ULL ^ id;
	int i;

	for (i = 0; i < 64; i++)
		h = (h ^ (h >> 29)) * 1099511628211ULL;
	spin(task_s);
	return h;
}

/* ---- rounds ---- */

struct job {
	uint64_t id, result;
};

static void *round_thread(void *p)
{
	struct job *j = p;

	j->result = task(j->id);
	return NULL;
}

static int rounds(long r, long n)
{
	struct job *jobs = calloc((size_t)n, sizeof(*jobs));
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	uint64_t sum = 0;
	long k, i;
	int err;

	if (!jobs || !t)
		return 1;
	for (k = 0; k < r; k++) {
		for (i = 0; i < n; i++) {
			jobs[i].id = (uint64_t)(k * n + i);
			if ((err = pthread_create(&t[i], NULL, round_thread, &jobs[i]))) {
				fprintf(stderr, "rt-churn: pthread_create: %s\n", strerror(err));
				return 1;
			}
		}
		for (i = 0; i < n; i++) {
			pthread_join(t[i], NULL);
			sum += jobs[i].result;
		}
	}
	printf("sum %016llx\n", (unsigned long long)sum);
	fprintf(stderr, "threads-made %ld\n", r * n);
	free(jobs);
	free(t);
	return 0;
}

/* ---- pool ---- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER, quiet = PTHREAD_COND_INITIALIZER;
static uint64_t *queue, sum;
static long qhead, qtail, idle, live, made, pending;

static void *worker(void *unused)
{
	struct timespec until;
	uint64_t id, h;

	(void)unused;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (qhead == qtail) {
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 2000000;
			if (until.tv_nsec >= 1000000000) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000;
			}
			idle++;
			int rc = pthread_cond_timedwait(&work, &mu, &until);
			idle--;
			if (rc == ETIMEDOUT && qhead == qtail)
				goto retire;
		}
		id = queue[qhead++];
		pthread_mutex_unlock(&mu);
		h = task(id);
		pthread_mutex_lock(&mu);
		sum += h;
		if (--pending == 0)
			pthread_cond_broadcast(&quiet);
	}
retire:
	if (--live == 0)
		pthread_cond_broadcast(&quiet);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static int pool(long r, long n)
{
	pthread_attr_t attr;
	struct timespec gap = { 0, 20000000 };
	long k, i;
	int err;

	queue = calloc((size_t)(r * 4 * n), sizeof(*queue));
	if (!queue)
		return 1;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (k = 0; k < r; k++) {
		for (i = 0; i < 4 * n; i++) {
			pthread_t t;

			pthread_mutex_lock(&mu);
			queue[qtail++] = (uint64_t)(k * 4 * n + i);
			pending++;
			if (idle > qtail - qhead - 1 || live >= n) {
				pthread_cond_signal(&work);
			} else {
				live++;
				made++;
				if ((err = pthread_create(&t, &attr, worker, NULL))) {
					fprintf(stderr, "rt-churn: pthread_create: %s\n",
						strerror(err));
					return 1;
				}
			}
			pthread_mutex_unlock(&mu);
		}
		pthread_mutex_lock(&mu);
		while (pending)
			pthread_cond_wait(&quiet, &mu);
		pthread_mutex_unlock(&mu);
		nanosleep(&gap, NULL);
	}
	pthread_mutex_lock(&mu);
	while (live)
		pthread_cond_wait(&quiet, &mu);
	pthread_mutex_unlock(&mu);
	printf("sum %016llx\n", (unsigned long long)sum);
	fprintf(stderr, "threads-made %ld\n", made);
	return 0;
}

int main(int argc, char **argv)
{
	long r, n;

	if (argc != 5 || (strcmp(argv[1], "rounds") && strcmp(argv[1], "pool"))) {
		fprintf(stderr, "usage: rt-churn rounds|pool R N US\n");
		return 2;
	}
	r = atol(argv[2]);
	n = atol(argv[3]);
	task_s = atof(argv[4]) * 1e-6;
	if (r < 1 || n < 1)
		return 2;
	return !strcmp(argv[1], "rounds") ? rounds(r, n) : pool(r, n);
}
