/*
 * report.h - hpcprof --text: the hot procedures, loops and lines of the
 * experiment as a plain-text table, like gprof's flat profile but with
 * loops; inclusive and exclusive values with percentages of the total.
 */
#ifndef HPCPROF_REPORT_H
#define HPCPROF_REPORT_H

#include <stddef.h>

#include "cct.h"

/*
 * Writes the report to path ("-" = standard output), top rows per table,
 * one set of tables per raw metric.  Returns 0 or -1 with hpc_lasterr().
 */
int report_write(const struct experiment *e, const char *path, size_t top);

#endif
