/*
 * fuzz-hpctrace.c - libFuzzer harness for the reader of call-path traces
 * (lib/hpctrace-read.c: hpcrun's .hpctrace files and a database's
 * traces/N.hpctrace, which the viewer maps and searches).
 *
 * Each input is written to a file and opened with hpctrace_open(); every
 * record of the unchecked trace is searched for (hpctrace.h, invariant 2:
 * a search ends on a record of the file), then the trace is checked with
 * ids above 1000 unknown, and of the records it keeps every one is read
 * and searched for: they are in time order, so the binary search finds
 * each one's time.
 * A refusal is a correct answer to a bad input; a crash, a sanitizer
 * report, a leak, an exit or a hang is a bug.  Run by hand with a file
 * argument, the harness reads that file once:
 *   build-fuzz/bin/fuzz-hpctrace build-fuzz/artifacts/hpctrace-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz-file.h"
#include "hpctrace.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	path = fuzz_file_init((*argv)[0], "fuzz.hpctrace");
	return 0;
}

static int known(uint32_t id, void *arg)
{
	(void)arg;
	return id <= 1000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hpctrace *t;
	uint64_t i, prev = 0;

	fuzz_file_write(path, data, size);
	t = hpctrace_open(path);
	for (i = 0; t && i < t->nrecords; i++) {
		uint64_t at = hpctrace_find(t, hpctrace_get(t, i).time);

		if (at != UINT64_MAX && at >= t->nrecords)
			__builtin_trap();
	}
	if (t)
		hpctrace_check(t, known, NULL);
	for (i = 0; t && i < t->nrecords; i++) {
		struct hpctrace_rec r = hpctrace_get(t, i);
		uint64_t at = hpctrace_find(t, r.time);

		if (r.time < prev || at == UINT64_MAX ||
		    hpctrace_get(t, at).time != r.time || at < i ||
		    (r.id != HPCTRACE_ID_NONE && (r.id & HPCTRACE_ID_MASK) > 1000))
			__builtin_trap();
		prev = r.time;
	}
	hpctrace_close(t);
	unlink(path);
	return 0;
}
