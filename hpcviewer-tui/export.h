/*
 * export.h - the traces (traceview.h) for the timeline viewers people
 * use: Chrome trace-event JSON for ui.perfetto.dev, chrome://tracing and
 * speedscope (export-perfetto.c), and the Gecko profile of the Firefox
 * Profiler, profiler.firefox.com (export-firefox.c).
 *
 * Invariants:
 *  1. Streamed: each thread's records are read once (twice for Firefox,
 *     whose samples need its tables' numbering), in order, and written as
 *     they are read; the memory used is the call path being drawn and,
 *     for Firefox, one index over the experiment's scopes, never the
 *     trace.
 *  2. A slice or sample holds the record's context from its time to the
 *     next record's (hpctrace.h, invariant 1): slices nest as the call
 *     path's frames, outermost first, at most depth levels (0: all);
 *     no activity ends them all and makes no slice (Firefox: a sample
 *     without a stack).
 *  3. Times are microseconds (Chrome) or milliseconds (Firefox) from the
 *     earliest record of any thread, tv->t0, and only the window is
 *     written: a slice open at its start begins there, one open at its
 *     end ends there (Firefox: the sample before the window is the first,
 *     at its start).
 *  4. A wait's frames are slices of category "wait" (Chrome), the rest
 *     "cpu".
 */
#ifndef HPCVIEWER_EXPORT_H
#define HPCVIEWER_EXPORT_H

#include <stdio.h>

struct traceview;

/* About as many events as chrome://tracing opens smoothly; the Perfetto
 * UI takes far more (about 2 GB of JSON in a browser). */
#define EXPORT_CHROME_EVENTS 1000000

/* Writes the Chrome trace-event JSON of tv's window (traceview.h,
 * invariant 5); returns the number of slices, or -1 with hpc_lasterr()
 * set when writing fails. */
long export_perfetto(const struct traceview *tv, size_t depth, FILE *out);

/* Writes the Firefox Profiler's Gecko profile of tv's window; the number
 * of samples, or -1 likewise. */
long export_firefox(const struct traceview *tv, size_t depth, FILE *out);

#endif
