/* hpcprof.c - correlate measurements with structure into a database. */
#include <stddef.h>

#include "dump.h"
#include "error.h"
#include "opts.h"
#include "run.h"

static const char *const usage[] = {
	"[options] MEASUREMENT-DIR-OR-PROFILE...",
	"--dump PROFILE.hpcrun|STRUCTURE.hpcstruct|TRACE.hpctrace...",
	NULL,
};

static const struct opts_program prog = {
	"hpcprof", usage,
	"Correlate measurements with program structure and write an experiment\n"
	"database (hpcprof-database(5)); hpcrun's synchronization files (.hpcsync)\n"
	"add barrier and lock waits, phases and per-phase profiles (phases.tsv).",
};

/* Each -I names a directory: a mistyped one would silently find nothing. */
int main(int argc, char **argv)
{
	struct hpcprof_options o = { 0 };
	struct hpcprof_args a = { 0 };
	int first, dump = 0, status;
	const struct opt opts[] = {
		HPCPROF_INPUT_OPTS(o, a),
		OPT_STRING(0, "text", &o.text, "FILE",
			   "also write a text report of the hot spots (data objects, sharing, NUMA, barriers and phases) to FILE (- = stdout)"),
		OPT_INT(0, "top", &o.top, "N",
			"rows per table of the text report (default 20)"),
		OPT_FLAG(0, "all-locks", &o.all_locks,
			 "keep the MPI runtime's own lock waits in phases.tsv and the text report"),
		OPT_STRING('j', "jobs", &a.jobs, "N",
			"correlate on N threads (default: its CPUs, at most 16)"),
		OPT_FLAG(0, "dump", &dump,
			 "print each profile, structure file or trace given as text and exit"),
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
	if (hpcprof_args_apply(&o, &a, argv + first, argc - first))
		return 2;
	status = hpcprof_run(&o);
	hpcprof_args_release(&a);
	return status;
}
