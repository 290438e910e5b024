/* dump.c - see dump.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "error.h"
#include "hpcrun-fmt.h"
#include "infile.h"
#include "structfile.h"

#define INPUT "a profile or structure file"

/*
 * 0 when path is to be read as a structure file (it starts with '<'), 1
 * as a profile (anything else: the profile reader names what is wrong),
 * -1 with hpc_lasterr() set when it is empty or not a regular file: a FIFO
 * or /dev/zero is refused here, before either reader waits on it.
 */
static int is_profile(const char *path)
{
	char first;
	uint64_t size;
	int fd = infile_open(path, UINT64_MAX, INPUT, &size);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = read(fd, &first, 1);
	close(fd);
	if (got < 0)
		return hpc_seterr("'%s': %s", path, strerror(errno));
	if (!size || !got)
		return hpc_seterr("'%s': empty file, not %s", path, INPUT);
	return first != '<';
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

int dump_inputs(int n, char **paths)
{
	int i, status = 0;

	for (i = 0; i < n; i++) {
		if (n > 1)
			printf("%s# %s\n", i ? "\n" : "", paths[i]);
		int kind = is_profile(paths[i]);

		if (kind < 0 || (kind ? dump_profile
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
