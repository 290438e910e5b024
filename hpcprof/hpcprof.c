/* hpcprof.c - correlate measurements with structure into a database (#5). */
#include <stdlib.h>

#include "dump.h"
#include "error.h"
#include "opts.h"
#include "run.h"

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
	struct hpcprof_options o = { 0 };
	struct strlist structs = { 0 }, incdirs = { 0 }, replace = { 0 },
		       metrics = { 0 };
	int first, dump = 0, status;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &o.output, "DBDIR",
			   "write the database to DBDIR"),
		OPT_LIST('S', "structure", &structs, "FILE",
			 "use the structure file FILE (repeatable)"),
		OPT_LIST('I', "include", &incdirs, "DIR",
			 "search DIR for source files (repeatable)"),
		OPT_LIST('R', "replace-path", &replace, "FROM=TO",
			 "rewrite source path prefix FROM to TO (repeatable)"),
		OPT_STRING('M', "metric-config", &o.config, "FILE",
			   "derived metrics from the XML config FILE"),
		OPT_LIST(0, "metric", &metrics, "NAME=FORMULA",
			 "add a derived metric (repeatable)"),
		OPT_STRING(0, "text", &o.text, "FILE",
			   "also write a text report of the hot spots to FILE (- = stdout)"),
		OPT_INT(0, "top", &o.top, "N",
			"rows per table of the text report (default 20)"),
		OPT_FLAG(0, "dump", &dump,
			 "print each profile or structure file given as text and exit"),
		OPT_END(),
	};

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, 0);
	if (first < 0)
		return 2;
	if (first == argc && !(o.config && !dump)) {
		hpc_error("no measurement directory given (see 'hpcprof --help')");
		return 2;
	}
	if (dump)
		return dump_inputs(argc - first, argv + first);
	o.inputs = (const char *const *)argv + first;
	o.ninputs = (size_t)(argc - first);
	o.structs = structs.v;
	o.nstructs = structs.n;
	o.include = incdirs.v;
	o.ninclude = incdirs.n;
	o.replace = replace.v;
	o.nreplace = replace.n;
	o.formulas = metrics.v;
	o.nformulas = metrics.n;
	status = hpcprof_run(&o);
	strlist_release(&structs);
	strlist_release(&incdirs);
	strlist_release(&replace);
	strlist_release(&metrics);
	return status;
}
