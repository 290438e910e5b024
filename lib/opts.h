/*
 * opts.h - command-line option parsing with generated --help.
 *
 * A program describes its options once, in a table ending with OPT_END();
 * opts_parse() parses argv against it and prints --help from the same table,
 * so help text is never maintained twice (man pages are checked against
 * --help by tests/t0010-docs-options.sh).
 *
 * Accepted forms: -x, -xVALUE, -x VALUE, bundled flags (-vv), --long,
 * --long=VALUE, --long VALUE, and "--" to end options.  -h/--help and
 * --version are built in: they print to stdout and exit 0, or 1 when
 * stdout cannot be written (opts_flush_stdout).
 */
#ifndef HPC_OPTS_H
#define HPC_OPTS_H

#include <stddef.h>

enum opt_type {
	OPTT_END,
	OPTT_FLAG,	/* int *: set to 1 */
	OPTT_COUNT,	/* int *: incremented (-v -v) */
	OPTT_INT,	/* long *: decimal integer */
	OPTT_STRING,	/* const char **: last one wins */
	OPTT_LIST,	/* struct strlist *: every occurrence appended */
	OPTT_CALLBACK,	/* cb(opt, arg); returns 0 or -1 after hpc_seterr */
};

struct opt {
	enum opt_type type;
	int short_name;		/* 0 = none */
	const char *long_name;	/* NULL = none */
	void *value;
	const char *argh;	/* placeholder in help; NULL = no argument */
	const char *help;
	int (*cb)(const struct opt *opt, const char *arg);
};

#define OPT_END() { OPTT_END, 0, NULL, NULL, NULL, NULL, NULL }
#define OPT_FLAG(s, l, v, h) { OPTT_FLAG, (s), (l), (v), NULL, (h), NULL }
#define OPT_COUNT(s, l, v, h) { OPTT_COUNT, (s), (l), (v), NULL, (h), NULL }
#define OPT_INT(s, l, v, a, h) { OPTT_INT, (s), (l), (v), (a), (h), NULL }
#define OPT_STRING(s, l, v, a, h) { OPTT_STRING, (s), (l), (v), (a), (h), NULL }
#define OPT_LIST(s, l, v, a, h) { OPTT_LIST, (s), (l), (v), (a), (h), NULL }
#define OPT_CALLBACK(s, l, v, a, h, f) \
	{ OPTT_CALLBACK, (s), (l), (v), (a), (h), (f) }

/* A growable list of borrowed strings (pointers into argv). */
struct strlist {
	const char **v;
	size_t n, alloc;
};
void strlist_push(struct strlist *l, const char *s);
/* Frees the array (not the strings). Accepts NULL. */
void strlist_release(struct strlist *l);

struct opts_program {
	const char *name;		/* "hpcstruct" */
	const char *const *usage;	/* NULL-terminated synopsis lines */
	const char *description;	/* paragraph shown under the usage */
};

/* Stop at the first non-option (for launchers: hpcrun OPTS program ARGS). */
#define OPTS_STOP_AT_NONOPT 1

/*
 * Parses argv[1..argc).  Non-option arguments are moved, in order, to the end
 * of argv; returns the index of the first of them (argc when none), or -1
 * after printing "PROG: ..." for a bad option (the caller exits 2).
 */
int opts_parse(int argc, char **argv, const struct opts_program *prog,
	       const struct opt *opts, unsigned flags);

/* Prints the usage lines and option table, as --help does. */
void opts_print_help(const struct opts_program *prog, const struct opt *opts);
/* Prints "PROG (hpctoolkit-c) VERSION", as --version does. */
void opts_print_version(const char *name);
/* Flushes stdout: 0, or -1 after "PROG: 'standard output': cannot write:
 * REASON" when it or an earlier write to it failed (a full disk, a closed
 * pipe, >/dev/full).  For what a program prints before it exits. */
int opts_flush_stdout(void);

#endif
