/*
 * run.h - hpcprof's pipeline: find the inputs, read structure and profiles,
 * correlate, compute metrics, write the database (what main() calls).
 */
#ifndef HPCPROF_RUN_H
#define HPCPROF_RUN_H

#include <stddef.h>

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
};

/* Runs hpcprof; returns the exit status (messages already printed). */
int hpcprof_run(const struct hpcprof_options *o);

#endif
