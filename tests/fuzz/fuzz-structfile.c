/*
 * fuzz-structfile.c - libFuzzer harness for hpcprof's structure-file reader
 * (hpcprof/structfile.c, the XML of hpcstruct and of HPCToolkit's
 * hpcstruct), what 'hpcprof -S FILE', a measurement directory's structs/
 * and 'hpcprof --dump FILE.hpcstruct' read.
 *
 * Each input is written to a file (the reader takes a path) and read with
 * structfile_read(); every load module it accepts is dumped as text (to
 * /dev/null) and asked, as correlation asks, for the innermost scope of
 * each range's first and last address and for each scope's procedure,
 * and for the instruction class (the mix) at those addresses and at each
 * mix run's last byte.  A refusal (-1) is a correct answer to a bad
 * input; a crash, a sanitizer report, a leak, an exit or a hang is a bug.
 * Run by hand with a file argument, the harness reads that file once:
 *   build-fuzz/bin/fuzz-structfile build-fuzz/artifacts/structfile-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz-file.h"
#include "hpcprof/structfile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	path = fuzz_file_init((*argv)[0], "fuzz.hpcstruct");
	return 0;
}

/* What correlation asks of a structure. */
static void look_up(const struct structure *s)
{
	size_t i;

	for (i = 0; i < s->nranges; i++) {
		structure_lookup(s, s->ranges[i].lo);
		structure_lookup(s, s->ranges[i].hi - 1);
		structure_insn_class(s, s->ranges[i].lo);
		structure_insn_class(s, s->ranges[i].hi - 1);
	}
	for (i = 0; i < s->nmixruns; i++)
		structure_insn_class(s, s->mixruns[i].hi - 1);
	for (i = 0; i < s->nprocs; i++)
		structure_lookup(s, s->procs[i].lo);
	for (i = 0; i < s->nscopes; i++)
		structure_proc_of(s, i);
	structure_lookup(s, 0);
	structure_lookup(s, UINT64_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct structure **v = NULL;
	size_t n = 0, alloc = 0, i;

	fuzz_file_write(path, data, size);
	if (structfile_read(path, &v, &n, &alloc) == 0) {
		for (i = 0; i < n; i++) {
			structure_dump(fuzz_devnull(), v[i]);
			look_up(v[i]);
		}
	}
	for (i = 0; i < n; i++)
		structure_free(v[i]);
	free(v);
	unlink(path);
	return 0;
}
