/*
 * steptime.c - hpcprof's steps timed (steptime.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "error.h"
#include "steptime.h"

static int enabled = -1;
static double last_wall, last_cpu;

static double seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void steptime_mark(const char *name)
{
	double wall, cpu;

	if (enabled < 0)
		enabled = getenv("HPCPROF_TIMES") != NULL;
	if (!enabled)
		return;
	wall = seconds(CLOCK_MONOTONIC);
	cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
	if (name)
		fprintf(stderr, "%s: step %s: %.3f s wall, %.3f s CPU\n",
			hpc_progname(), name, wall - last_wall, cpu - last_cpu);
	last_wall = wall;
	last_cpu = cpu;
}
