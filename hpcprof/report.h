/*
 * report.h - hpcprof --text: the hot procedures, loops and lines of the
 * experiment as a plain-text table, like gprof's flat profile but with
 * loops; inclusive and exclusive values with percentages of the total,
 * in the unit the viewer shows (units.h: perf's clocks in seconds), named
 * in the headings.
 * An experiment of several programs first gets a table of the programs,
 * each summed over its processes.
 */
#ifndef HPCPROF_REPORT_H
#define HPCPROF_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "experiment.h"
#include "strbuf.h"

/*
 * Opens the report file path, before the work, so that a bad path stops
 * hpcprof early: "-" is standard output; a symbolic link is refused (never
 * written through).  Returns the stream, or NULL with hpc_lasterr().
 */
FILE *report_open(const char *path);

/*
 * Writes the report to f (from report_open(path)), top rows per table, one
 * set of tables per raw metric, each capability's after the code's, then
 * each capability's sections (capability.h: report_metric, report; cap[c]
 * the run's state of capability c), and closes f.  Returns 0 or -1 with
 * hpc_lasterr() naming path.
 */
int report_write(const struct experiment *e, void *const *cap, FILE *f,
		 const char *path, size_t top);

/* Closes f (NULL accepted) unwritten; 0, or -1 on a write error. */
int report_close(FILE *f, const char *path);

/* Appends "[N programs, ]N processes, N threads" to sb. */
void report_counts(const struct experiment *e, struct strbuf *sb);

#endif
