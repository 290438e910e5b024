/* hpcrun.c - launch a program under the sampling runtime (#3). */
#include <stdlib.h>

#include "error.h"
#include "opts.h"

static const char *const usage[] = {
	"[options] PROGRAM [ARGS...]",
	NULL,
};

static const struct opts_program prog = {
	"hpcrun", usage,
	"Run PROGRAM with the sampling runtime preloaded and write a measurement\n"
	"directory (hpcrun(5)).",
};

int main(int argc, char **argv)
{
	struct strlist events = { 0 };
	const char *outdir = NULL;
	int no_unwind = 0, list = 0, verbose = 0;
	const struct opt opts[] = {
		OPT_LIST('e', "event", &events, "EVENT[@PERIOD|@fFREQ]",
			 "sample EVENT (repeatable)"),
		OPT_STRING('o', "output", &outdir, "DIR",
			   "write the measurement directory DIR"),
		OPT_FLAG(0, "no-unwind", &no_unwind, "record leaf addresses only"),
		OPT_FLAG('L', "list-events", &list, "list the events and exit"),
		OPT_COUNT('v', "verbose", &verbose, "say more"),
		OPT_END(),
	};
	int first;

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, OPTS_STOP_AT_NONOPT);
	if (first < 0)
		return 2;
	if (first == argc) {
		hpc_error("no program given (see 'hpcrun --help')");
		return 2;
	}
	hpc_error("'%s': measurement is not implemented yet", argv[first]);
	return 1;
}
