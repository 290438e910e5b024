/* hpcstruct.c - recover program structure from binaries (issue #4). */
#include <stdlib.h>

#include "error.h"
#include "opts.h"

static const char *const usage[] = {
	"[-o FILE] [-j N] BINARY",
	"[-j N] MEASUREMENT-DIR",
	NULL,
};

static const struct opts_program prog = {
	"hpcstruct", usage,
	"Recover procedures, inlined code, loop nests and statements from an\n"
	"optimized binary and write them as a structure file (hpcstruct(5)).",
};

int main(int argc, char **argv)
{
	const char *output = NULL;
	long jobs = 1;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &output, "FILE",
			   "write the structure to FILE"),
		OPT_INT('j', "jobs", &jobs, "N", "analyze with N threads"),
		OPT_END(),
	};
	int first;

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, 0);
	if (first < 0)
		return 2;
	if (first != argc - 1) {
		hpc_error("expected one binary or measurement directory (see 'hpcstruct --help')");
		return 2;
	}
	hpc_error("'%s': structure recovery is not implemented yet", argv[first]);
	return 1;
}
