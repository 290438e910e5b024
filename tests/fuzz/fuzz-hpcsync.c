/*
 * fuzz-hpcsync.c - libFuzzer harness for the reader of hpcrun's
 * synchronization files (lib/hpcsync.c: the .hpcsync beside each profile,
 * which hpcprof reads).
 *
 * Each input is written to a file and read with hpcsync_read(); of a file
 * it accepts, every record's site is looked up as hpcprof does.  A refusal
 * is a correct answer to a bad input; a crash, a sanitizer report, a leak,
 * an exit or a hang is a bug.  Run by hand with a file argument, the
 * harness reads that file once:
 *   build-fuzz/bin/fuzz-hpcsync build-fuzz/artifacts/hpcsync-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz-file.h"
#include "hpcsync.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	path = fuzz_file_init((*argv)[0], "fuzz.hpcsync");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hpcsync *s;
	size_t i;

	fuzz_file_write(path, data, size);
	s = hpcsync_read(path);
	for (i = 0; s && i < s->nsyncs; i++)
		if (!hpcsync_site(s, s->syncs[i].site) ||
		    !hpcsync_is_barrier(hpcsync_site(s, s->syncs[i].site)->kind))
			__builtin_trap();	/* hpcsync.h invariants 1, 2 */
	for (i = 0; s && i < s->nepisodes; i++)
		if (!hpcsync_site(s, s->episodes[i].site))
			__builtin_trap();
	hpcsync_free(s);
	unlink(path);
	return 0;
}
