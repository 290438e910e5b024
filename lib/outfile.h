/*
 * outfile.h - open a file that a tool writes a report or picture to
 * (hpcprof --text, hpcviewer-tui --folded and --flame-graph).
 *
 * Invariants:
 *  1. "-" is standard output.
 *  2. Any other path is created or truncated with O_NOFOLLOW: a symbolic
 *     link in its place is refused, never written through, and a
 *     dangling link's target is never created, so a link planted where
 *     the output goes cannot send it elsewhere.
 *  3. Errors are one line naming the file in hpc_lasterr():
 *         'PATH': is a symbolic link; not written through
 *         'PATH': Permission denied            (any open() error, strerror)
 */
#ifndef HPC_OUTFILE_H
#define HPC_OUTFILE_H

#include <stdio.h>

/*
 * The stream to write path to, or NULL with hpc_lasterr() set.  Close it
 * with fclose() unless it is stdout.
 */
FILE *outfile_open(const char *path);

#endif
