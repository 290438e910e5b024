/* hpcprof.c - correlate measurements with structure into a database (#5). */
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "dump.h"
#include "opts.h"

static const char *const usage[] = {
	"[options] MEASUREMENT-DIR-OR-PROFILE...",
	"--dump PROFILE.hpcrun|STRUCTURE.hpcstruct...",
	NULL,
};

static const struct opts_program prog = {
	"hpcprof", usage,
	"Correlate measurements with program structure and write an experiment\n"
	"database (hpcprof-database(5)).",
};

int main(int argc, char **argv)
{
	const char *output = NULL, *config = NULL;
	int first, dump = 0;
	struct strlist structs = { 0 }, incdirs = { 0 }, replace = { 0 },
		       metrics = { 0 };
	const struct opt opts[] = {
		OPT_STRING('o', "output", &output, "DBDIR",
			   "write the database to DBDIR"),
		OPT_LIST('S', "structure", &structs, "FILE",
			 "use the structure file FILE (repeatable)"),
		OPT_LIST('I', "include", &incdirs, "DIR",
			 "search DIR for source files (repeatable)"),
		OPT_LIST('R', "replace-path", &replace, "FROM=TO",
			 "rewrite source path prefix FROM to TO (repeatable)"),
		OPT_STRING('M', "metric-config", &config, "FILE",
			   "derived metrics from the XML config FILE"),
		OPT_LIST(0, "metric", &metrics, "NAME=FORMULA",
			 "add a derived metric (repeatable)"),
		OPT_FLAG(0, "dump", &dump,
			 "print each profile or structure file given as text and exit"),
		OPT_END(),
	};

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, 0);
	if (first < 0)
		return 2;
	if (first == argc) {
		hpc_error("no measurement directory given (see 'hpcprof --help')");
		return 2;
	}
	if (dump)
		return dump_inputs(argc - first, argv + first);
	hpc_error("'%s': correlation is not implemented yet", argv[first]);
	return 1;
}
