/*
 * infile.h - open an input file only when it is a regular file of bounded
 * size, so that no reader blocks on a FIFO, reads a device forever or
 * swallows a file larger than its format can sensibly be.
 *
 * The file is opened with O_NONBLOCK (opening a FIFO then returns at once
 * instead of waiting for a writer; a regular file ignores the flag) and
 * checked with fstat() on the open descriptor, so nothing can be swapped
 * in between the check and the read.  O_NONBLOCK is cleared again before
 * the descriptor is handed out.
 *
 * Each function takes what, the kind of file its caller expects with its
 * article ("a profile", "a structure file"), and sets hpc_lasterr() to one
 * line naming the file:
 *     'PATH': No such file or directory        (any open() error, strerror)
 *     'PATH': is a directory, not a structure file
 *     'PATH': not a regular file (a FIFO), not a structure file
 *     'PATH': larger than a structure file may be (4294967296 bytes)
 */
#ifndef HPC_INFILE_H
#define HPC_INFILE_H

#include <stdint.h>
#include <stdio.h>

struct strbuf;

/* The largest source file hpcprof copies and the viewer shows. */
#define INFILE_MAX_SOURCE ((uint64_t)256 << 20)

/*
 * A read-only, close-on-exec descriptor of the regular file at path, whose
 * size (at most max_bytes) is stored in *size when size is not NULL; or -1
 * with hpc_lasterr() set.  The caller closes it.
 */
int infile_open(const char *path, uint64_t max_bytes, const char *what,
		uint64_t *size);

/* The same as a stdio stream ("rb"); NULL with hpc_lasterr() set. */
FILE *infile_fopen(const char *path, uint64_t max_bytes, const char *what);

/*
 * Appends the whole file to sb.  Reads no more than max_bytes even when the
 * file grows meanwhile (then it is refused as too large).  0, or -1 with
 * hpc_lasterr() set.
 */
int infile_read(const char *path, uint64_t max_bytes, const char *what,
		struct strbuf *sb);

#endif
