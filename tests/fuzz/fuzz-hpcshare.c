/*
 * fuzz-hpcshare.c - libFuzzer harness for the reader of hpcrun's sharing
 * files (lib/hpcshare.c: the .hpcshare beside each profile, which hpcprof
 * reads).
 *
 * Each input is written to a file and read with hpcshare_read(); of a file
 * it accepts, hpcshare.h's invariants are checked.  A refusal is a correct
 * answer to a bad input; a crash, a sanitizer report, a leak, an exit or a
 * hang is a bug.  Run by hand with a file argument, the harness reads that
 * file once:
 *   build-fuzz/bin/fuzz-hpcshare build-fuzz/artifacts/hpcshare-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz-file.h"
#include "hpcshare.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	path = fuzz_file_init((*argv)[0], "fuzz.hpcshare");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hpcshare *s;
	size_t i;

	fuzz_file_write(path, data, size);
	s = hpcshare_read(path);
	for (i = 0; s && i < s->naccesses; i++) {
		const struct hpcshare_access *a = &s->accesses[i];

		if (a->obj >= s->nobjs ||
		    a->offset >= s->objs[a->obj].bytes || a->size > 64 ||
		    (i && a->time < s->accesses[i - 1].time))
			__builtin_trap();	/* hpcshare.h invariants 1, 2 */
		(void)hpcshare_cpu_node(s, a->cpu);
	}
	hpcshare_free(s);
	unlink(path);
	return 0;
}
