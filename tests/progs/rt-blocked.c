/*
 * rt-blocked.c - a thread blocked in the kernel while others wait for it at
 * a barrier: the hang detector reads its path but must never wake it
 * (hpcrun(5), "Hang reports").  Each mode prints what its blocking calls
 * returned, the same natively and under hpcrun.  Threads 1, 2 and 3 first
 * meet once at the barrier, which makes them its participants.
 *
 *   cc -O2 -g -pthread -o rt-blocked rt-blocked.c
 *
 *   nanosleep S  thread 1 sleeps S s in one nanosleep (sleeps()), then
 *                meets threads 2 and 3 at a barrier of 3
 *   pause        thread 1 calls pause() once (waits_for_a_signal()) while
 *                threads 2 and 3 wait at a barrier of 3: a real hang
 *   pipe S       thread 1 polls a pipe, then reads it; thread 2 reads
 *                another; the main thread writes both after S s; threads
 *                1, 2 and 3 then meet at a barrier of 3 (the lines of
 *                threads 1 and 2 in either order)
 *   sem S        thread 1 waits on a semaphore the main thread posts after
 *                S s, then meets threads 2 and 3 at a barrier of 3
 *   alternate S  for S s thread 1 computes 20 ms, then sleeps 20 ms in
 *                nanosleep, counting the sleeps cut short, then meets
 *                threads 2 and 3 at a barrier of 3
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t bar;
static const char *mode;
static double secs;
static int pipe_a[2], pipe_b[2];
static sem_t sem;

__attribute__((noinline)) static void sleeps(double s)
{
	struct timespec req, rem = { 0, 0 };
	int r;

	req.tv_sec = (time_t)s;
	req.tv_nsec = (long)((s - (double)req.tv_sec) * 1e9);
	r = nanosleep(&req, &rem);
	printf("nanosleep: %d %s, %ld.%09ld s left\n", r, r ? strerror(errno) : "ok",
	       (long)rem.tv_sec, rem.tv_nsec);
}

__attribute__((noinline)) static void waits_for_a_signal(void)
{
	pause();
	printf("pause returned: %s\n", strerror(errno));
}

__attribute__((noinline)) static void polls_then_reads(void)
{
	struct pollfd p = { pipe_a[0], POLLIN, 0 };
	char c = 0;
	int r = poll(&p, 1, -1);
	ssize_t n;

	printf("poll: %d %s\n", r, r < 0 ? strerror(errno) : "ok");
	n = read(pipe_a[0], &c, 1);
	printf("read a: %zd %c\n", n, c);
}

__attribute__((noinline)) static void reads(void)
{
	char c = 0;
	ssize_t n = read(pipe_b[0], &c, 1);

	printf("read b: %zd %s %c\n", n, n < 0 ? strerror(errno) : "ok", c);
}

__attribute__((noinline)) static void waits_on_sem(void)
{
	int r = sem_wait(&sem);

	printf("sem_wait: %d %s\n", r, r ? strerror(errno) : "ok");
}

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static void computes_and_sleeps(double s)
{
	struct timespec start, now, nap = { 0, 20000000 };
	volatile unsigned long x = 0;
	int cut = 0, naps = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		double until = cpu_now() + 0.02;

		while (cpu_now() < until)
			x++;
		cut += nanosleep(&nap, NULL) != 0;
		naps++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) +
		 (double)(now.tv_nsec - start.tv_nsec) / 1e9 < s);
	printf("sleeps cut short: %d%s\n", cut, naps > 1 ? "" : " (too few)");
}

static void *thread(void *arg)
{
	long me = (long)arg;

	pthread_barrier_wait(&bar);	/* the barrier's participants: 1, 2, 3 */
	if (me == 1 && !strcmp(mode, "nanosleep"))
		sleeps(secs);
	else if (me == 1 && !strcmp(mode, "pause"))
		waits_for_a_signal();
	else if (me == 1 && !strcmp(mode, "pipe"))
		polls_then_reads();
	else if (me == 2 && !strcmp(mode, "pipe"))
		reads();
	else if (me == 1 && !strcmp(mode, "sem"))
		waits_on_sem();
	else if (me == 1 && !strcmp(mode, "alternate"))
		computes_and_sleeps(secs);
	fflush(stdout);
	pthread_barrier_wait(&bar);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	struct timespec wait;
	long i;

	if (argc < 2)
		return 2;
	mode = argv[1];
	secs = argc > 2 ? atof(argv[2]) : 1;
	if (pipe(pipe_a) || pipe(pipe_b) || sem_init(&sem, 0, 0))
		return 1;
	pthread_barrier_init(&bar, NULL, 3);
	for (i = 1; i <= 3; i++)
		pthread_create(&t[i], NULL, thread, (void *)i);
	if (!strcmp(mode, "pipe") || !strcmp(mode, "sem")) {
		wait.tv_sec = (time_t)secs;
		wait.tv_nsec = (long)((secs - (double)wait.tv_sec) * 1e9);
		i = nanosleep(&wait, NULL);
		printf("main nanosleep: %ld\n", i);
		fflush(stdout);
		if (write(pipe_a[1], "a", 1) != 1 || write(pipe_b[1], "b", 1) != 1 ||
		    sem_post(&sem))
			return 1;
	}
	for (i = 1; i <= 3; i++)
		pthread_join(t[i], NULL);
	printf("done\n");
	return 0;
}
