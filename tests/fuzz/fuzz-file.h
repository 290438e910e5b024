/*
 * fuzz-file.h - the fuzz input as a file, for the libFuzzer harnesses whose
 * reader takes a path (every reader of the toolchain does: tests/fuzz/).
 *
 * fuzz_file_init() makes one directory under $TMPDIR (the runner,
 * run-fuzz.sh, points TMPDIR into the build directory) and removes it, with
 * every file in it, when the process exits.  Paths returned stay valid
 * until then.  Errors end the process (hpc_die): a harness that cannot
 * write its input cannot fuzz anything.
 */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Sets the program name, makes the directory (named after the harness,
 * argv0) and initializes libxml2, which the XML readers expect done once.
 * Returns the path of input_name in the directory (fuzz_file_path).
 */
char *fuzz_file_init(const char *argv0, const char *input_name);

/* The path of name inside the directory; the caller frees it. */
char *fuzz_file_path(const char *name);

/* /dev/null open for writing, for what the readers' dumpers print. */
FILE *fuzz_devnull(void);

/* Writes data[0..size) to path (made by fuzz_file_path), replacing it. */
void fuzz_file_write(const char *path, const uint8_t *data, size_t size);

#endif
