/*
 * fuzz-kallsyms.c - libFuzzer harness for hpcprof's reader of kernel symbol
 * lists (hpcprof/kallsyms.c: a measurement directory's
 * kernel_symbols/vmlinux.HASH, XZ-compressed or plain kallsyms text).
 *
 * Each input is written to a file (the reader takes a path), asked whether
 * it is a list and read with kallsyms_read() as hpcprof reads it; a list it accepts is asked to name
 * a few kernel addresses, as correlation asks for each kernel sample.  A
 * refusal (NULL) is a correct answer to a bad input; a crash, a sanitizer
 * report, a leak, an exit or a hang is a bug.  Run by hand with a file
 * argument, the harness reads that file once:
 *   build-fuzz/bin/fuzz-kallsyms build-fuzz/artifacts/kallsyms-crash-1234
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz-file.h"
#include "hpcprof/kallsyms.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	path = fuzz_file_init((*argv)[0], "vmlinux.0");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t addrs[] = {
		0, 0xffffffff81000000, 0xffffffff81000010, 0xffffffffc0a01000,
		UINT64_MAX,
	};
	struct kallsyms *ks;
	uint64_t start;
	size_t i;

	fuzz_file_write(path, data, size);
	/* hpcprof asks this first; the harness reads every input anyway, as
	 * if it lay in kernel_symbols/ */
	kallsyms_is_list(path);
	ks = kallsyms_read(path);
	for (i = 0; ks && i < sizeof(addrs) / sizeof(addrs[0]); i++)
		kallsyms_lookup(ks, addrs[i], &start);
	kallsyms_free(ks);
	unlink(path);
	return 0;
}
