/*
 * launch-python.h - what the launcher does for Python programs: it finds
 * the interpreter a pyenv shim would run, and names a measurement by the
 * script an interpreter runs (hpcrun(1), PYTHON).
 *
 * Invariants:
 *  1. A pyenv shim (a bash script ending in `exec "PYENV" exec "$program"
 *     "$@"`, as `pyenv rehash` writes them) is never measured itself: its
 *     pyenv runs some eighty short shell processes before it execs the
 *     interpreter, and they would be the measurement's first programs.
 *     The launcher asks the shim's own pyenv, unmeasured, what it would
 *     run (`pyenv version-name`, then `pyenv which`, the two steps of
 *     `pyenv exec`), sets the environment `pyenv exec` sets (PYENV_ROOT,
 *     PYENV_VERSION, the version's bin directory first in PATH) and
 *     launches that program.  pyenv's exec hooks are not run.
 *  2. When pyenv cannot say (no such command in the selected version, a
 *     broken installation), or what it names is itself a shim, the shim
 *     is launched as given, so pyenv prints its own message and the exit
 *     status is its own.
 *  3. The same holds for a script whose first line is `#!/usr/bin/env
 *     NAME` with NAME a shim on PATH, or `#!SHIM`: the interpreter is
 *     launched on the script, as the kernel would have done.
 *  4. A Python interpreter (python, python3, python3.12, python3.13t, ...)
 *     running a script names the measurement by the script's base name,
 *     `-m MODULE` by the module; `-c`, `-` or no script keep the
 *     interpreter's name.  The launcher passes the name to the runtime
 *     (HPCRUN_PROGRAM, with its own pid, which the program keeps), which
 *     names that process's profiles by it.
 */
#ifndef HPC_LAUNCH_PYTHON_H
#define HPC_LAUNCH_PYTHON_H

struct strbuf;

/*
 * Looks name up on PATH as execvp(3) would, saying nothing: 0 with the
 * path in out, 126 when found but not executable, 127 when not found.
 * A name with a '/' is taken as it is (errno then says why it is not
 * run).
 */
int launch_which(const char *name, struct strbuf *out);

/*
 * Invariants 1-3: when *path (to be run with arguments *argv) is a pyenv
 * shim, or a script whose interpreter is one, puts the program pyenv
 * would run into path and a new argument vector into *argv (malloc'd,
 * never freed: the launcher execs it), sets pyenv's environment and
 * returns 1; 0 when there is nothing to resolve.  With verbose, says what
 * it resolved.
 */
int launch_pyenv_resolve(struct strbuf *path, char ***argv, int verbose);

/*
 * Invariant 4: the name that the program at path run with argv (argv[0]
 * its own name) is measured by: a malloc'd script or module name, or NULL
 * to keep the program's own.  Caller frees.
 */
char *launch_python_program(const char *path, char *const *argv);

#endif
