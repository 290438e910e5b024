/*
 * fuzz-hpcrun-fmt.c - libFuzzer harness for the .hpcrun profile reader
 * (lib/hpcrun-fmt-read.c), what hpcprof and 'hpcprof --dump' run on every
 * profile of a measurement directory.
 *
 * Each input is written to a file (the reader takes a path) and read with
 * hpcrun_fmt_read(); a profile it accepts is dumped as text (to /dev/null)
 * and asked for a header value, which walks every record the reader built.
 * A refusal (NULL) is a correct answer to a bad input; a crash, a
 * sanitizer report, a leak, an exit or a hang is a bug.  Run by hand with a
 * file argument, the harness reads that file once:
 *   build-fuzz/bin/fuzz-hpcrun-fmt build-fuzz/artifacts/hpcrun-fmt-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz-file.h"
#include "hpcrun-fmt.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	path = fuzz_file_init((*argv)[0], "fuzz-000000-000-0-0-0.hpcrun");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hpcrun_profile *p;

	fuzz_file_write(path, data, size);
	p = hpcrun_fmt_read(path);
	if (p) {
		hpcrun_fmt_dump(fuzz_devnull(), p);
		hpcrun_profile_header(p, "program-name");
	}
	hpcrun_profile_free(p);
	unlink(path);
	return 0;
}
