/*
 * units.h - the one rule for the unit a metric's values are shown in, used
 * by hpcprof --text and hpcviewer-tui alike.  It is inferred from what a
 * profile and experiment.xml record about the metric (neither has a unit
 * field): its name, its description md (the kernel's event constant), its
 * period ep and its kind v.
 *
 * Rules (hpcrun(5) says how values are recorded):
 *  1. perf's clocks (md PERF_COUNT_SW_CPU_CLOCK or PERF_COUNT_SW_TASK_CLOCK)
 *     count nanoseconds: with ep 1 (frequency mode) each value is
 *     nanoseconds, with ep P > 1 it is samples of P nanoseconds.  They are
 *     shown in seconds: scale ep * 1e-9, unit "s".
 *  2. A name that states its unit ("CPUTIME (sec)") is left alone, and so
 *     are event counts, derived metrics (v="derived": their unit is the
 *     formula's) and coefficients of variation (":CoefVar", a ratio).
 */
#ifndef HPC_UNITS_H
#define HPC_UNITS_H

#include "strbuf.h"

struct unit {
	const char *name;	/* "s" (a static string), or NULL: as recorded */
	double scale;		/* recorded value * scale = shown value */
};

/*
 * The unit of metric name (a database column name such as
 * "perf::cpu-clock:Sum (I)" or a raw metric's name) from its description
 * desc, its period (0 or 1: frequency mode) and its kind valtype ("raw",
 * "derived", ...); desc and valtype may be NULL.
 */
struct unit units_of(const char *name, const char *desc, double period,
		     const char *valtype);

/* Appends name with its unit before the statistic, if any:
 * "perf::cpu-clock (s):Sum (I)", "perf::cpu-clock (s)". */
void units_heading(const char *name, struct unit u, struct strbuf *out);

#endif
