/*
 * cpu-spin.h - the clock reads and the CPU-time spin that the test
 * programs with known truth share (rt-omp-truth.c, rt-omp-nested.c):
 * included by each, compiled with it (no library of their own).
 */
#ifndef TESTS_CPU_SPIN_H
#define TESTS_CPU_SPIN_H

#include <time.h>

/* Clock c in seconds. */
static inline double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Spins s seconds of the calling thread's CPU time. */
static inline void spin(double s)
{
	double end = now(CLOCK_THREAD_CPUTIME_ID) + s;
	volatile unsigned long x = 0;

	while (now(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
	(void)x;
}

#endif
