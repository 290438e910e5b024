/*
 * run.h - hpcprof's pipeline: find the inputs, read structure and profiles,
 * correlate, compute metrics, write the database (what main() calls).
 */
#ifndef HPCPROF_RUN_H
#define HPCPROF_RUN_H

#include <stddef.h>

#include "opts.h"

struct experiment;
struct prof_input;

struct hpcprof_options {
	const char *const *inputs;	size_t ninputs;	/* dirs or profiles */
	const char *output;		/* NULL: hpctoolkit-PROG-database */
	const char *const *structs;	size_t nstructs;	/* -S */
	const char *const *include;	size_t ninclude;	/* -I */
	const char *const *replace;	size_t nreplace;	/* -R FROM=TO */
	const char *config;		/* -M */
	const char *const *formulas;	size_t nformulas;	/* --metric */
	const char *text;		/* --text: report file, "-" stdout */
	long top;			/* rows per report table */
	int all_locks;			/* --all-locks (phases.h inv. 7) */
	int stats;			/* --stats (metrics.h) */
	unsigned jobs;			/* threads; 0: par_default_threads() */
	/* hpcprof-mpi: adds the profiles instead of par_correlate (same
	 * contract: PAR_ONE_THREAD on every rank, and the one that is not
	 * reader_only adds them on one thread); with reader_only set,
	 * nothing is written or said after the profiles are registered
	 * (its ranks but 0). */
	long (*correlate)(struct experiment *e, const struct prof_input *in,
			  size_t n, unsigned jobs);
	int reader_only;
	/* hpcprof-mpi: called on every rank after each measurement
	 * directory's recovery of killed processes' live files, which only
	 * the rank that is not reader_only does and says (one recovery, one
	 * message): the others wait here until it is done.  NULL: none. */
	void (*recovered)(void);
};

/*
 * The command line hpcprof and hpcprof-mpi share: the options' targets
 * (HPCPROF_INPUT_OPTS, plus -j in jobs), checked and moved into a struct
 * hpcprof_options by hpcprof_args_apply.
 */
struct hpcprof_args {
	struct strlist structs, incdirs, replace, metrics;
	const char *jobs;	/* -j as given (1 to 1024), or NULL */
};

/* Entries of an opts.h table for o (struct hpcprof_options) and a (struct
 * hpcprof_args): output, structure files, source paths, derived metrics. */
#define HPCPROF_INPUT_OPTS(o, a)					\
	OPT_STRING('o', "output", &(o).output, "DBDIR",			\
		   "write the database to DBDIR"),			\
	OPT_LIST('S', "structure", &(a).structs, "FILE",		\
		 "use the structure file FILE (repeatable)"),		\
	OPT_LIST('I', "include", &(a).incdirs, "DIR",			\
		 "search DIR for source files (repeatable)"),		\
	OPT_LIST('R', "replace-path", &(a).replace, "FROM=TO",		\
		 "rewrite source path prefix FROM to TO (repeatable)"),	\
	OPT_STRING('M', "metric-config", &(o).config, "FILE",		\
		   "derived metrics from the XML config FILE"),		\
	OPT_LIST(0, "metric", &(a).metrics, "NAME=FORMULA",		\
		 "add a derived metric (repeatable)"),			\
	OPT_FLAG(0, "stats", &(o).stats,				\
		 "also store each metric's Mean, Min, Max, StdDev and CoefVar over threads")

/*
 * Checks a (-j from 0 to 1024, every -I a directory) and points o at it
 * and at the n inputs; 0, or -1 after one message (exit status 2).
 */
int hpcprof_args_apply(struct hpcprof_options *o,
		       const struct hpcprof_args *a, char **inputs, int n);
void hpcprof_args_release(struct hpcprof_args *a);

/* Runs hpcprof; returns the exit status (messages already printed). */
int hpcprof_run(const struct hpcprof_options *o);

#endif
