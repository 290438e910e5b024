/*
 * rt-wall.c - a server's shape for wall-clock profiling (hpcrun -e
 * REALTIME): an I/O thread that waits in the calls a server waits in,
 * each with a timeout that expires, beside a worker that computes.  Every
 * call is one that a signal handler cuts short with EINTR whatever
 * SA_RESTART says (signal(7)); the program counts those, and what it
 * prints on stdout is the same natively and under hpcrun.  On stderr it
 * says how long, by its own clock, each wait function and the worker
 * took ("wall ms: select S poll P epoll_wait E sem_timedwait T nanosleep
 * N compute C").
 *
 *   cc -O2 -g -pthread -o rt-wall rt-wall.c
 *   rt-wall N MS   the I/O thread makes N rounds of five calls that each
 *                  wait MS ms (select, poll, epoll_wait, sem_timedwait,
 *                  nanosleep, each in its own function); the worker
 *                  computes meanwhile in compute() until the I/O thread
 *                  is done, and main joins both
 *   rt-wall spin T MS        T threads each compute in spin() for MS ms
 *                            of wall time (more threads than CPUs: each
 *                            is preempted as much as it runs)
 *   rt-wall pingpong N       main and a thread hand a turn back and forth
 *                            N times through a mutex and a condition
 *                            variable (a context switch per hand-over)
 *   rt-wall vfork N MS       main vforks N children in turn, each of
 *                            which sleeps MS ms and _exits; main waits in
 *                            vfork meanwhile (the call returns once the
 *                            child is gone)
 * The last three say each thread's wall time on stderr ("thread ms: 0 W0
 * 1 W1 ..."), main's (0) from its start to its last join or child.
 *
 * Ground truth: each wait function blocks about N * MS ms in all (what
 * stderr says, late wake-ups on a busy machine included); compute() runs
 * for the whole of the I/O thread's work; every thread's wall time is its
 * time on the CPU and off it.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int rounds, ms;
static volatile int done;
static int cut[5];
static double spent[6];		/* ms, by the program's own clock */
static sem_t never;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Calls fn(arg) and adds its time to spent[k]. */
#define TIMED(k, call) do { \
	double t0_ = now_ms(); \
	call; \
	spent[k] += now_ms() - t0_; \
} while (0)

__attribute__((noinline)) static void wait_select(void)
{
	struct timeval tv = { 0, ms * 1000 };

	if (select(0, NULL, NULL, NULL, &tv) < 0 && errno == EINTR)
		cut[0]++;
}

__attribute__((noinline)) static void wait_poll(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };

	if (poll(&p, 1, ms) < 0 && errno == EINTR)
		cut[1]++;
}

__attribute__((noinline)) static void wait_epoll(int ep)
{
	struct epoll_event ev;

	if (epoll_wait(ep, &ev, 1, ms) < 0 && errno == EINTR)
		cut[2]++;
}

__attribute__((noinline)) static void wait_sem(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += (long)ms * 1000000;
	t.tv_sec += t.tv_nsec / 1000000000;
	t.tv_nsec %= 1000000000;
	if (sem_timedwait(&never, &t) < 0 && errno == EINTR)
		cut[3]++;
}

__attribute__((noinline)) static void wait_sleep(void)
{
	struct timespec t = { 0, (long)ms * 1000000 };

	if (nanosleep(&t, NULL) < 0 && errno == EINTR)
		cut[4]++;
}

static void *io(void *arg)
{
	int fds[2], ep, i;
	struct epoll_event ev = { .events = EPOLLIN };

	(void)arg;
	if (pipe(fds) || (ep = epoll_create1(0)) < 0)
		exit(2);
	ev.data.fd = fds[0];
	epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev);
	for (i = 0; i < rounds; i++) {
		TIMED(0, wait_select());
		TIMED(1, wait_poll(fds[0]));
		TIMED(2, wait_epoll(ep));
		TIMED(3, wait_sem());
		TIMED(4, wait_sleep());
	}
	done = 1;
	return NULL;
}

__attribute__((noinline)) static double compute(void)
{
	double x = 0;
	long i = 0;

	while (!done)
		x += (double)(++i % 7) * 0.5;
	return x;
}

static void *worker(void *arg)
{
	double r = 0;

	(void)arg;
	TIMED(5, r = compute());
	if (r < 0)
		puts("negative");
	return NULL;
}

#define MAX_THREADS 16

static double thread_ms[MAX_THREADS + 1];
static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cond = PTHREAD_COND_INITIALIZER;
static int turn;

__attribute__((noinline)) static double spin(double until)
{
	double x = 0;
	long i = 0;

	while (now_ms() < until)
		for (int k = 0; k < 1000; k++)
			x += (double)(++i % 7) * 0.5;
	return x;
}

static void *spinner(void *arg)
{
	long k = (long)arg;
	double t0 = now_ms();

	if (spin(t0 + ms) < 0)
		puts("negative");
	thread_ms[k] = now_ms() - t0;
	return NULL;
}

/* Hands the turn to the other side (want: the turn it waits for). */
__attribute__((noinline)) static void hand_over(int mine, int want)
{
	pthread_mutex_lock(&turn_lock);
	turn = mine;
	pthread_cond_signal(&turn_cond);
	while (turn != want)
		pthread_cond_wait(&turn_cond, &turn_lock);
	pthread_mutex_unlock(&turn_lock);
}

static void *ponger(void *arg)
{
	double t0 = now_ms();
	int i;

	(void)arg;
	hand_over(2, 1);
	for (i = 0; i < rounds; i++)
		hand_over(0, i + 1 < rounds ? 1 : 0);
	thread_ms[1] = now_ms() - t0;
	return NULL;
}

/* rt-wall spin T MS, pingpong N, vfork N MS: threads' wall times on
 * stderr. */
static int threads_mode(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	double t0 = now_ms();
	int n, i;

	if (!strcmp(argv[1], "spin") && argc == 4) {
		n = atoi(argv[2]);
		ms = atoi(argv[3]);
		if (n < 1 || n > MAX_THREADS)
			return 2;
		for (i = 0; i < n; i++)
			pthread_create(&t[i], NULL, spinner, (void *)(long)(i + 1));
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		printf("%d threads spun\n", n);
	} else if (!strcmp(argv[1], "pingpong") && argc == 3) {
		n = 1;
		rounds = atoi(argv[2]);
		pthread_create(&t[0], NULL, ponger, NULL);
		pthread_mutex_lock(&turn_lock);
		while (turn != 2)
			pthread_cond_wait(&turn_cond, &turn_lock);
		pthread_mutex_unlock(&turn_lock);
		for (i = 0; i < rounds; i++)
			hand_over(1, 0);
		pthread_join(t[0], NULL);
		printf("%d round trips\n", rounds);
	} else if (!strcmp(argv[1], "vfork") && argc == 4) {
		n = 0;
		rounds = atoi(argv[2]);
		ms = atoi(argv[3]);
		for (i = 0; i < rounds; i++) {
			pid_t pid = vfork();

			if (pid == 0) {
				struct timespec t = { 0, (long)ms * 1000000 };

				nanosleep(&t, NULL);
				_exit(0);
			}
			if (pid < 0 || waitpid(pid, NULL, 0) != pid)
				return 1;
		}
		printf("%d children\n", rounds);
	} else {
		return 2;
	}
	thread_ms[0] = now_ms() - t0;
	fprintf(stderr, "thread ms:");
	for (i = 0; i <= n; i++)
		fprintf(stderr, " %d %.1f", i, thread_ms[i]);
	fprintf(stderr, "\n");
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc >= 3 && (!strcmp(argv[1], "spin") || !strcmp(argv[1], "pingpong") ||
			  !strcmp(argv[1], "vfork"))) {
		int r = threads_mode(argc, argv);

		fflush(stdout);		/* main stays the first frame */
		return r;
	}
	if (argc != 3)
		return 2;
	rounds = atoi(argv[1]);
	ms = atoi(argv[2]);
	sem_init(&never, 0, 0);
	pthread_create(&a, NULL, io, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("cut short: select %d poll %d epoll_wait %d sem_timedwait %d nanosleep %d\n",
	       cut[0], cut[1], cut[2], cut[3], cut[4]);
	fprintf(stderr, "wall ms: select %.1f poll %.1f epoll_wait %.1f "
		"sem_timedwait %.1f nanosleep %.1f compute %.1f\n", spent[0],
		spent[1], spent[2], spent[3], spent[4], spent[5]);
	return 0;
}
