/*
 * fuzz-hpcpy.c - libFuzzer harness for the reader of hpcrun's Python code
 * files (lib/hpcpy-read.c: the .hpcpy beside each profile, which hpcprof
 * reads) and the line-table decoder hpcprof runs on each code
 * (lib/pyline.c).
 *
 * Each input is written to a file and read with hpcpy_read(), and as a
 * live code file (.hpcpy-live, which hpcprof makes a .hpcpy when it
 * recovers a killed process) with hpcpy_live_read(); of a file either
 * accepts, every code is written as a .hpcpy and read back the same
 * (hpcpy.h: read(write(x)) = x), and its line table decoded as hpcprof
 * does, the ranges checked (pyline.h, invariant 1).  A refusal is a correct answer
 * to a bad input; a crash, a sanitizer report, a leak, an exit or a hang
 * is a bug.  Run by hand with a file argument, the harness reads that file
 * once:
 *   build-fuzz/bin/fuzz-hpcpy build-fuzz/artifacts/hpcpy-crash-1234
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-file.h"
#include "hpcpy.h"
#include "pyline.h"
#include "textrec.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *path, *again;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	path = fuzz_file_init((*argv)[0], "fuzz.hpcpy");
	again = fuzz_file_path("again.hpcpy");
	return 0;
}

static int same(const struct hpcpy_code *a, const struct hpcpy_code *b)
{
	return a->id == b->id && a->firstlineno == b->firstlineno &&
	       a->ncode == b->ncode && a->qualname_len == b->qualname_len &&
	       !memcmp(a->qualname, b->qualname, a->qualname_len) &&
	       a->filename_len == b->filename_len &&
	       !memcmp(a->filename, b->filename, a->filename_len) &&
	       a->linetable_len == b->linetable_len &&
	       !memcmp(a->linetable, b->linetable, a->linetable_len);
}

static void decode(const struct hpcpy *p, const struct hpcpy_code *c)
{
	struct pyline_range *r;
	long n = pyline_decode(p->major, p->minor, c->linetable,
			       c->linetable_len, c->firstlineno, c->ncode, &r);
	long i;

	for (i = 0; i < n; i++)
		if (r[i].start >= r[i].end ||
		    (c->ncode && r[i].end > c->ncode) ||
		    (i && r[i - 1].end > r[i].start))
			__builtin_trap();
	free(r);
}

/* p, read from the input, written as a .hpcpy and read back the same. */
static void round_trip(const struct hpcpy *p)
{
	struct hpcpy *q;
	struct textrec_out o;
	size_t i;
	int fd;

	fd = open(again, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		__builtin_trap();
	textrec_out_init(&o, fd);
	hpcpy_write_head(&o, p->major, p->minor);
	for (i = 0; i < p->ncodes; i++) {
		hpcpy_write_code(&o, &p->codes[i]);
		decode(p, &p->codes[i]);
	}
	if (textrec_flush(&o) || close(fd))
		__builtin_trap();
	q = hpcpy_read(again);
	if (!q || q->ncodes != p->ncodes || q->major != p->major ||
	    q->minor != p->minor)
		__builtin_trap();
	for (i = 0; i < p->ncodes; i++)
		if (!same(&p->codes[i], &q->codes[i]))
			__builtin_trap();
	hpcpy_free(q);
	unlink(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hpcpy *p;

	fuzz_file_write(path, data, size);
	p = hpcpy_read(path);
	if (p)
		round_trip(p);
	hpcpy_free(p);
	p = hpcpy_live_read(path);
	if (p)
		round_trip(p);
	hpcpy_free(p);
	unlink(path);
	return 0;
}
