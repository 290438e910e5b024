/*
 * python-argv.h - the name a Python interpreter's process is measured by:
 * the script it runs, or the module of -m (hpcrun(1), Python programs).
 * The launcher names the process it starts so; libhpcrun.so names so an
 * interpreter that the program execs (subprocess, multiprocessing's spawn
 * and forkserver workers take -c and keep the interpreter's name).
 *
 * Invariants:
 *  1. Async-signal-safe and allocation-free (linked into libhpcrun.so):
 *     it reads its arguments only, and the name it gives points into
 *     them.
 *  2. Interpreters are named python, then a version of digits and dots,
 *     then a build's letters (d, t, m, dm, td) or -dbg.
 */
#ifndef HPC_PYTHON_ARGV_H
#define HPC_PYTHON_ARGV_H

#include <stddef.h>

/*
 * When path (the executable) is a Python interpreter and argv (argv[0]
 * its own name, NULL-ended) runs a script or -m MODULE, the base name of
 * the script (a directory's own name for "dir/") or the module: *len
 * bytes at the result.  NULL to keep the program's own name: -c, -, no
 * script, or not Python.
 */
const char *hpc_python_program(const char *path, char *const *argv, size_t *len);

#endif
