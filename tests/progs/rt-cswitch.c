/*
 * rt-cswitch.c - where a program's threads block, for hpcrun -e
 * context-switches: a worker that waits for work on a condition variable
 * in wait_for_work(), each wait running to its timeout, beside main
 * computing in compute() until the worker is done.
 *
 *   cc -O2 -g -pthread -o rt-cswitch rt-cswitch.c
 *   rt-cswitch N MS   the worker waits N times, MS ms each; stdout says
 *                     "waits N" when all ran to their timeouts, stderr
 *                     "preempted P": main's switches in compute()
 *
 * Ground truth: the worker is switched out once per wait (at least N
 * times), always inside pthread_cond_timedwait called from
 * wait_for_work(); main never blocks in compute(), so its switches there
 * are only the P preemptions by other tasks (getrusage's involuntary
 * context switches of the thread: none on an idle machine).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static int done;

/* Waits n times, ms each, for work that never comes; the waits that ran
 * to their timeout. */
static __attribute__((noinline, noclone)) int wait_for_work(int n, long ms)
{
	struct timespec t;
	int i, timeouts = 0;

	pthread_mutex_lock(&lock);
	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += ms * 1000000L;
		t.tv_sec += t.tv_nsec / 1000000000L;
		t.tv_nsec %= 1000000000L;
		while (pthread_cond_timedwait(&work, &lock, &t) != ETIMEDOUT)
			;
		timeouts++;
	}
	pthread_mutex_unlock(&lock);
	return timeouts;
}

static int nwaits;
static long wait_ms;

static void *worker(void *arg)
{
	int *timeouts = arg;

	*timeouts = wait_for_work(nwaits, wait_ms);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Computes until the worker is done, without a system call. */
static __attribute__((noinline, noclone)) double compute(void)
{
	volatile double x = 1.0;
	unsigned long i;

	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		for (i = 0; i < 100000; i++)
			x = x * 1.0000001 + 1e-9;
	return x;
}

/* The calling thread's involuntary context switches so far. */
static long preempted(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nivcsw;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int timeouts = 0;
	long p0;

	if (argc != 3) {
		fprintf(stderr, "usage: rt-cswitch N MS\n");
		return 2;
	}
	nwaits = atoi(argv[1]);
	wait_ms = atol(argv[2]);
	if (pthread_create(&t, NULL, worker, &timeouts))
		return 1;
	p0 = preempted();
	compute();
	fprintf(stderr, "preempted %ld\n", preempted() - p0);
	pthread_join(t, NULL);
	printf("waits %d\n", timeouts);
	return 0;
}
