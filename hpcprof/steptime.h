/*
 * steptime.h - the wall and CPU time of each of hpcprof's steps, on
 * standard error when HPCPROF_TIMES is set (hpcprof(1), ENVIRONMENT), so
 * that the part of a run that does not shrink with -j can be measured
 * (bench/hpcprof-serial.sh).
 *
 * Invariants:
 *  1. Without HPCPROF_TIMES nothing is measured or printed: one getenv at
 *     the first call.
 *  2. A step is the time since the previous steptime_mark (or the first
 *     call, which starts the clock and prints nothing): "hpcprof: step
 *     NAME: W s wall, C s CPU" with C the CPU time of every thread of the
 *     process over the step, so C / W is how many threads it kept busy.
 *  3. Only the thread that runs hpcprof_run marks steps.
 */
#ifndef HPCPROF_STEPTIME_H
#define HPCPROF_STEPTIME_H

/* Ends the step called name (NULL: starts the clock). */
void steptime_mark(const char *name);

#endif
