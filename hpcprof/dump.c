/* dump.c - see dump.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "error.h"
#include "hpcpy.h"
#include "hpcrun-fmt.h"
#include "hpctrace.h"
#include "infile.h"
#include "pyline.h"
#include "structfile.h"

#define INPUT "a profile or structure file"

enum input_kind { STRUCTURE, PROFILE, TRACE, PYTHON };

/*
 * STRUCTURE when path is to be read as a structure file (it starts with
 * '<'), TRACE as a trace (it starts with the trace magic), PYTHON as a
 * Python code file (it starts with "hpcpy "), PROFILE as a
 * profile (anything else: the profile reader names what is wrong); -1
 * with hpc_lasterr() set when it is empty or not a regular file: a FIFO
 * or /dev/zero is refused here, before any reader waits on it.
 */
static int input_kind(const char *path)
{
	char head[sizeof(HPCTRACE_MAGIC) - 1];
	uint64_t size;
	int fd = infile_open(path, UINT64_MAX, INPUT, &size);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = read(fd, head, sizeof(head));
	close(fd);
	if (got < 0)
		return hpc_seterr("'%s': %s", path, strerror(errno));
	if (!size || !got)
		return hpc_seterr("'%s': empty file, not %s", path, INPUT);
	if (head[0] == '<')
		return STRUCTURE;
	if (got >= (ssize_t)sizeof(HPCPY_MAGIC) &&
	    !memcmp(head, HPCPY_MAGIC " ", sizeof(HPCPY_MAGIC)))
		return PYTHON;
	return got == (ssize_t)sizeof(head) &&
	       !memcmp(head, HPCTRACE_MAGIC, sizeof(head)) ? TRACE : PROFILE;
}

static int dump_profile(const char *path)
{
	struct hpcrun_profile *p = hpcrun_fmt_read(path);

	if (!p)
		return -1;
	hpcrun_fmt_dump(stdout, p);
	hpcrun_profile_free(p);
	return 0;
}

static int dump_structure(const char *path)
{
	struct structure **v = NULL;
	size_t n = 0, alloc = 0, i;

	int ret = structfile_read(path, &v, &n, &alloc);

	for (i = 0; i < n; i++) {
		structure_dump(stdout, v[i]);
		structure_free(v[i]);
	}
	free(v);	/* grown even when the read failed */
	return ret;
}

/* A line a record: "TIME ID", ID "-" for no activity, "wID" a wait;
 * what is wrong with the records after the kept ones, as an error. */
static int dump_trace(const char *path)
{
	struct hpctrace *t = hpctrace_open(path);
	uint64_t i;
	int ret;

	if (!t)
		return -1;
	ret = hpctrace_check(t, NULL, NULL);
	printf("trace %s records %" PRIu64 "\n", HPCTRACE_VERSION,
	       t->nrecords);
	for (i = 0; i < t->nrecords; i++) {
		struct hpctrace_rec r = hpctrace_get(t, i);

		if (r.id == HPCTRACE_ID_NONE)
			printf("%" PRIu64 " -\n", r.time);
		else
			printf("%" PRIu64 " %s%" PRIu32 "\n", r.time,
			       r.id & HPCTRACE_ID_WAIT ? "w" : "",
			       r.id & HPCTRACE_ID_MASK);
	}
	if (t->problem) {
		hpc_seterr("%s", t->problem);
		ret = -1;
	}
	hpctrace_close(t);
	return ret;
}

/* Each code as hpcprof names it, then its line table's ranges decoded,
 * "START-END LINE" in bytecode bytes (LINE "-": none). */
static int dump_python(const char *path)
{
	struct hpcpy *p = hpcpy_read(path);
	size_t i;

	if (!p)
		return -1;
	printf("hpcpy %s python %d.%d codes %zu\n", HPCPY_VERSION, p->major,
	       p->minor, p->ncodes);
	for (i = 0; i < p->ncodes; i++) {
		const struct hpcpy_code *c = &p->codes[i];
		const char *base = strrchr(c->filename, '/');
		struct pyline_range *r;
		long k, nr = pyline_decode(p->major, p->minor, c->linetable,
					   c->linetable_len, c->firstlineno,
					   c->ncode, &r);

		printf("code 0x%" PRIx64 " %s:%" PRIu32 " %s ncode %" PRIu32
		       " file %s\n", c->id, base ? base + 1 : c->filename,
		       c->firstlineno, c->qualname, c->ncode, c->filename);
		for (k = 0; k < nr; k++) {
			printf("  %" PRIu32 "-%" PRIu32, r[k].start, r[k].end);
			if (r[k].line < 0)
				printf(" -\n");
			else
				printf(" %" PRId32 "\n", r[k].line);
		}
		free(r);
	}
	hpcpy_free(p);
	return 0;
}

int dump_inputs(int n, char **paths)
{
	int i, status = 0;

	for (i = 0; i < n; i++) {
		if (n > 1)
			printf("%s# %s\n", i ? "\n" : "", paths[i]);
		int kind = input_kind(paths[i]);

		if (kind < 0 || (kind == TRACE ? dump_trace
				 : kind == PYTHON ? dump_python
				 : kind == PROFILE ? dump_profile
				 : dump_structure)(paths[i])) {
			hpc_error("%s", hpc_lasterr());
			status = 1;
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		hpc_error("write error on standard output");
		status = 1;
	}
	return status;
}
