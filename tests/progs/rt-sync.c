/*
 * rt-sync.c - barriers, locks and hangs with known truth for the hpcrun
 * synchronization tests; the mode is argv[1].
 *
 * Build: cc -O2 -g -pthread -o rt-sync rt-sync.c
 *        (omp modes: add -fopenmp; with clang -fopenmp=libomp for libomp)
 *
 *   barrier T R MODE MS   T threads (pthreads), R rounds: in round r thread
 *                   r % T works 4*MS ms, the others MS ms, then all meet at
 *                   one pthread barrier (site "round_end").  MODE sleep or
 *                   spin (on the thread's own CPU time).  So thread r % T
 *                   should arrive last in round r; who really did, the
 *                   program sees itself (an atomic count just before the
 *                   barrier): it prints "lastof W0 W1 ..." (the last
 *                   arriver of each round) and "last N0 N1 ..." (rounds
 *                   each thread arrived last).
 *   omp T R MODE MS  the same in an OpenMP parallel region with
 *                   "#pragma omp barrier" (the barrier of the rounds), then
 *                   a static and a dynamic worksharing loop of R*T
 *                   iterations (each MS/4 ms of sleep)
 *   hangafter T R MS the barrier mode (sleeping), then thread 1 never
 *                   arrives at round R + 1 (a hang after episodes of
 *                   known length: about 3 MS of wait each)
 *   hang T           T threads meet at a barrier of T+1; never_arrives()
 *                   sleeps forever instead (the missing thread)
 *   spinhang T       the same, but thread 1 computes forever in
 *                   spins_forever() (a livelock)
 *   deadlock         lock_a_then_b() and lock_b_then_a() in two threads:
 *                   each takes its first mutex, they meet, each takes the
 *                   other's (a lock-order deadlock)
 *   serial T MS      T threads meet at a barrier twice; between, thread 0
 *                   alone spins MS ms of its CPU time in one loop (a serial
 *                   phase that stays in one place)
 *   serialsteps T MS STEP  the same in steps of STEP ms of CPU or of wall
 *                   time, whichever ends first, alternately in serial_step_a()
 *                   and serial_step_b() (a path that moves on any machine)
 *   ompserial MS     two OpenMP regions, between them the main thread
 *                   alone sleeps MS ms
 *   contend R        two threads take one mutex R times, holding it 1 ms
 *                   (lock waits)
 *   many R           2 threads, R barrier episodes with no work (cost)
 *   solo R           one thread, R episodes of a barrier of 1 (the cost of
 *                    the wrapper alone: the real call does not block)
 *   work R US        2 threads, R episodes, each thread spinning US us of
 *                    its CPU time before each (a program with R barriers)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static int nthreads, rounds, spin, ms, hang_after;
static pthread_barrier_t bar;
static int last_count[64], arrived[100000], who_last[100000];

/* Thread me arrives in round r (the truth the program sees). */
static void note_arrival(int r, int me)
{
	if (r < 100000 && __atomic_fetch_add(&arrived[r], 1, __ATOMIC_SEQ_CST) ==
	    nthreads - 1)
		who_last[r] = me;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void work(double msec)
{
	if (spin) {
		double end = cpu_now() + msec / 1e3;
		volatile unsigned x = 0;

		while (cpu_now() < end)
			x++;
	} else {
		struct timespec ts = { (time_t)(msec / 1e3),
				       (long)((msec - 1e3 * (long)(msec / 1e3)) * 1e6) };

		nanosleep(&ts, NULL);
	}
}

__attribute__((noinline)) static void never_arrives(void)
{
	for (;;)
		pause();
}

__attribute__((noinline)) static void round_end(void)
{
	pthread_barrier_wait(&bar);
}

static void *barrier_thread(void *arg)
{
	int me = (int)(long)arg, r;

	for (r = 0; r < rounds; r++) {
		work(r % nthreads == me ? 4.0 * ms : ms);
		note_arrival(r, me);
		round_end();
	}
	if (hang_after && me == 1)
		never_arrives();
	if (hang_after)
		round_end();
	return NULL;
}

static void run_threads(void *(*fn)(void *), int n)
{
	pthread_t t[64];
	int i;

	for (i = 1; i < n; i++)
		pthread_create(&t[i], NULL, fn, (void *)(long)i);
	fn((void *)0);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
}

static void print_last(void)
{
	int i;

	printf("lastof");
	for (i = 0; i < rounds && i < 100000; i++) {
		printf(" %d", who_last[i]);
		last_count[who_last[i]]++;
	}
	printf("\nlast");
	for (i = 0; i < nthreads; i++)
		printf(" %d", last_count[i]);
	printf("\n");
}

#ifdef _OPENMP
static void omp_rounds(void)
{
	long i;

#pragma omp parallel num_threads(nthreads)
	{
		int me = omp_get_thread_num(), r;

		for (r = 0; r < rounds; r++) {
			work(r % nthreads == me ? 4.0 * ms : ms);
			note_arrival(r, me);
#pragma omp barrier
		}
#pragma omp for schedule(static)
		for (i = 0; i < (long)rounds * nthreads; i++)
			work(ms / 4.0);
#pragma omp for schedule(dynamic)
		for (i = 0; i < (long)rounds * nthreads; i++)
			work(ms / 4.0);
	}
}
#endif


__attribute__((noinline)) static void spins_forever(void)
{
	volatile unsigned long x = 0;

	for (;;)
		x++;
}

static void *hang_thread(void *arg)
{
	if ((long)arg == 1 && spin)
		spins_forever();
	if ((long)arg == 1)
		never_arrives();
	round_end();
	return NULL;
}

static pthread_mutex_t ma = PTHREAD_MUTEX_INITIALIZER, mb = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void lock_a_then_b(void)
{
	pthread_mutex_lock(&ma);
	pthread_barrier_wait(&bar);
	pthread_mutex_lock(&mb);
}

__attribute__((noinline)) static void lock_b_then_a(void)
{
	pthread_mutex_lock(&mb);
	pthread_barrier_wait(&bar);
	pthread_mutex_lock(&ma);
}

static void *deadlock_thread(void *arg)
{
	if ((long)arg)
		lock_b_then_a();
	else
		lock_a_then_b();
	return NULL;
}

static void *serial_thread(void *arg)
{
	round_end();
	if ((long)arg == 0)
		work(ms);
	round_end();
	return NULL;
}

static volatile int steps_done[2];

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spins until msec ms of the thread's CPU time or of wall time have
 * passed, whichever first; the CPU time it used, in ms. */
static double work_step(double msec)
{
	double cpu_end = cpu_now() + msec / 1e3, wall_end = wall_now() + msec / 1e3;
	double start = cpu_now();
	volatile unsigned x = 0;

	while (cpu_now() < cpu_end && wall_now() < wall_end)
		x++;
	return (cpu_now() - start) * 1e3;
}

/* Two steps of a serial phase: distinct functions, neither a tail call
 * (each returns through its own frame); the CPU time each used, in ms. */
__attribute__((noinline)) static double serial_step_a(double msec)
{
	double used = work_step(msec);

	steps_done[0]++;
	return used;
}

__attribute__((noinline)) static double serial_step_b(double msec)
{
	double used = work_step(msec);

	steps_done[1]++;
	return used;
}

static int step_ms;

static void *serialsteps_thread(void *arg)
{
	double done;
	long k;

	round_end();
	for (done = 0, k = 0; (long)arg == 0 && done < ms; k++)
		done += k % 2 ? serial_step_b(step_ms) : serial_step_a(step_ms);
	round_end();
	return NULL;
}

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;

static void *contend_thread(void *arg)
{
	int r;

	(void)arg;
	for (r = 0; r < rounds; r++) {
		pthread_mutex_lock(&shared);
		work(1);
		pthread_mutex_unlock(&shared);
		sched_yield();
	}
	return NULL;
}

static void *many_thread(void *arg)
{
	int r;

	(void)arg;
	for (r = 0; r < rounds; r++)
		pthread_barrier_wait(&bar);
	return NULL;
}

/* work R US: ms holds the microseconds */
static void *work_thread(void *arg)
{
	int r;

	(void)arg;
	spin = 1;
	for (r = 0; r < rounds; r++) {
		work(ms / 1000.0);
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "barrier") && argc == 6) {
		nthreads = atoi(argv[2]);
		rounds = atoi(argv[3]);
		spin = !strcmp(argv[4], "spin");
		ms = atoi(argv[5]);
		pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
		run_threads(barrier_thread, nthreads);
		print_last();
		return 0;
	}
#ifdef _OPENMP
	if (!strcmp(mode, "omp") && argc == 6) {
		nthreads = atoi(argv[2]);
		rounds = atoi(argv[3]);
		spin = !strcmp(argv[4], "spin");
		ms = atoi(argv[5]);
		omp_rounds();
		print_last();
		return 0;
	}
	if (!strcmp(mode, "ompserial") && argc == 3) {
		int sum = 0;

		ms = atoi(argv[2]);
#pragma omp parallel num_threads(2) reduction(+:sum)
		sum += 1;
		work(ms);
#pragma omp parallel num_threads(2) reduction(+:sum)
		sum += 1;
		printf("sum %d\n", sum);
		return 0;
	}
#endif
	if (!strcmp(mode, "hangafter") && argc == 5) {
		nthreads = atoi(argv[2]);
		rounds = atoi(argv[3]);
		ms = atoi(argv[4]);
		hang_after = 1;
		pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
		run_threads(barrier_thread, nthreads);
		return 0;
	}
	if ((!strcmp(mode, "hang") || !strcmp(mode, "spinhang")) && argc == 3) {
		nthreads = atoi(argv[2]);
		spin = !strcmp(mode, "spinhang");
		pthread_barrier_init(&bar, NULL, (unsigned)nthreads + 1);
		run_threads(hang_thread, nthreads);
		return 0;
	}
	if (!strcmp(mode, "deadlock")) {
		pthread_barrier_init(&bar, NULL, 2);
		run_threads(deadlock_thread, 2);
		return 0;
	}
	if (!strcmp(mode, "serial") && argc == 4) {
		nthreads = atoi(argv[2]);
		ms = atoi(argv[3]);
		spin = 1;
		pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
		run_threads(serial_thread, nthreads);
		printf("serial done\n");
		return 0;
	}
	if (!strcmp(mode, "serialsteps") && argc == 5) {
		nthreads = atoi(argv[2]);
		ms = atoi(argv[3]);
		step_ms = atoi(argv[4]) > 0 ? atoi(argv[4]) : 1;
		spin = 1;
		pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
		run_threads(serialsteps_thread, nthreads);
		printf("serial done\n");
		return 0;
	}
	if (!strcmp(mode, "contend") && argc == 3) {
		rounds = atoi(argv[2]);
		run_threads(contend_thread, 2);
		printf("contend done\n");
		return 0;
	}
	if (!strcmp(mode, "many") && argc == 3) {
		rounds = atoi(argv[2]);
		pthread_barrier_init(&bar, NULL, 2);
		run_threads(many_thread, 2);
		printf("many done\n");
		return 0;
	}
	if (!strcmp(mode, "solo") && argc == 3) {
		int r;

		rounds = atoi(argv[2]);
		pthread_barrier_init(&bar, NULL, 1);
		for (r = 0; r < rounds; r++)
			pthread_barrier_wait(&bar);
		printf("solo done\n");
		return 0;
	}
	if (!strcmp(mode, "work") && argc == 4) {
		rounds = atoi(argv[2]);
		ms = atoi(argv[3]);
		pthread_barrier_init(&bar, NULL, 2);
		run_threads(work_thread, 2);
		printf("work done\n");
		return 0;
	}
	fprintf(stderr, "usage: rt-sync barrier|omp T R sleep|spin MS | hang T | "
		"deadlock | serial T MS | serialsteps T MS STEP | "
		"ompserial MS | contend R | many R | solo R | "
		"work R US\n");
	return 2;
}
