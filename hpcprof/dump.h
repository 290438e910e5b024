/*
 * dump.h - hpcprof --dump: print the inputs hpcprof reads (.hpcrun profiles,
 * structure files, .hpctrace traces, a measurement's or a database's, and
 * .hpcpy Python code files with their line tables decoded)
 * as stable text, for debugging and tests.
 */
#ifndef HPCPROF_DUMP_H
#define HPCPROF_DUMP_H

/*
 * Dumps each of paths[0..n) to stdout; a file that cannot be read is
 * reported (naming it) and skipped.  Returns the exit status: 0, or 1 when
 * any file failed.
 */
int dump_inputs(int n, char **paths);

#endif
