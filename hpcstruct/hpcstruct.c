/*
 * hpcstruct.c - recover program structure from binaries.
 *
 * Options and exit status only; the work is in analyze.c (one binary) and
 * measdir.c (every binary of a measurement directory).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "error.h"
#include "measdir.h"
#include "opts.h"
#include "strbuf.h"

/* Instructions analyzed per procedure (an interpreter loop is ~100k). */
#define INSN_CAP 1000000L

static const char *const usage[] = {
	"[-q] [-o FILE] [-j N] BINARY",
	"[-q] [-j N] [--all] MEASUREMENT-DIR",
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
	long jobs = 1, max_insns = INSN_CAP;
	int quiet = 0, all = 0;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &output, "FILE",
			   "write the structure to FILE"),
		OPT_INT('j', "jobs", &jobs, "N", "analyze with N threads"),
		OPT_FLAG('q', "quiet", &quiet, "no progress line or notes"),
		OPT_INT(0, "max-insns", &max_insns, "N",
			"analyze at most N instructions per procedure"),
		OPT_FLAG(0, "all", &all,
			 "whole binaries, not only the sampled procedures"),
		OPT_END(),
	};
	struct analyze_opts aopts;
	struct strbuf out = STRBUF_INIT;
	struct stat st;
	const char *arg;
	int first, rc;

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, 0);
	if (first < 0)
		return 2;
	if (first != argc - 1) {
		hpc_error("expected one binary or measurement directory (see 'hpcstruct --help')");
		return 2;
	}
	if (jobs < 1 || jobs > 256) {
		hpc_error("'%ld': the number of jobs must be between 1 and 256", jobs);
		return 2;
	}
	if (max_insns < 1) {
		hpc_error("'%ld': --max-insns must be positive", max_insns);
		return 2;
	}
	arg = argv[first];
	aopts.jobs = (int)jobs;
	aopts.progress = !quiet && isatty(2);
	aopts.insn_cap = (size_t)max_insns;
	aopts.addrs = NULL;
	aopts.naddrs = 0;
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (output) {
			hpc_error("'%s': -o applies to a single binary, not a measurement directory", arg);
			return 2;
		}
		return measdir_run(arg, &aopts, quiet, all) < 0 ? 1 : 0;
	}
	if (output) {
		strbuf_addstr(&out, output);
	} else {	/* BASENAME.hpcstruct in the current directory */
		const char *slash = strrchr(arg, '/');

		strbuf_addf(&out, "%s.hpcstruct", slash ? slash + 1 : arg);
	}
	rc = analyze_binary(arg, out.buf, &aopts);
	if (rc < 0)
		hpc_error("%s", hpc_lasterr());
	strbuf_release(&out);
	return rc < 0 ? 1 : 0;
}
