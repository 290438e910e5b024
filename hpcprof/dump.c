/* dump.c - see dump.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "error.h"
#include "hpcrun-fmt.h"
#include "structfile.h"

/* A profile starts with the magic; anything else is tried as XML. */
static int is_profile(const char *path)
{
	char magic[sizeof(HPCRUN_FMT_MAGIC) - 1];
	FILE *f = fopen(path, "rb");
	int yes;

	if (!f)
		return 1;	/* let the reader report the error */
	yes = fread(magic, 1, sizeof(magic), f) != sizeof(magic) ||
	      !memcmp(magic, HPCRUN_FMT_MAGIC, sizeof(magic)) ||
	      magic[0] != '<';
	fclose(f);
	return yes;
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

	if (structfile_read(path, &v, &n, &alloc))
		return -1;
	for (i = 0; i < n; i++) {
		structure_dump(stdout, v[i]);
		structure_free(v[i]);
	}
	free(v);
	return 0;
}

int dump_inputs(int n, char **paths)
{
	int i, status = 0;

	for (i = 0; i < n; i++) {
		if (n > 1)
			printf("%s# %s\n", i ? "\n" : "", paths[i]);
		if ((is_profile(paths[i]) ? dump_profile
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
