/*
 * formula.h - derived-metric expressions: built from MathML (hpcprof's
 * config.c) or parsed from infix text (hpcprof --metric 'CPI=cycles/
 * instructions', the viewer's derived columns), evaluated on the values a
 * caller supplies for each "raw" reference (metric or column index).
 *
 * Infix grammar: + - * / ^ (right-associative), unary minus, parentheses,
 * numbers, functions min() max() mean() sdev() with one or more arguments,
 * and metric names: letters, digits, _ : . @ (and - when the whole word is a
 * known metric, e.g. perf::cpu-clock), or any text inside { }.  $N names raw
 * metric N (the resolver is asked for "$N").  Names are resolved when
 * parsing; every unknown one is reported.
 * Division by zero yields NaN, which the writer treats as "no value".
 *
 * Limits, so that parsing and every walk over a formula (copy, free,
 * evaluate, print: all recursive) stay within a small stack, and a formula
 * stays small however the metrics it names were defined (a=$0+$0, b=a+a,
 * c=b+b, ... would double at each step):
 *  1. Depth: at most FORMULA_MAX_DEPTH levels.  Each parenthesis, function
 *     call, unary minus and right side of ^ opens a level while parsing,
 *     and in the formula built each operator is a level above its operands,
 *     including each one of a chain like a+b+c (which is ((a+b)+c)) and
 *     those of the derived metrics it names.
 *  2. Size: at most FORMULA_MAX_NODES nodes (operators and operands), the
 *     formulas of the metrics it names included.
 * formula_parse() refuses anything beyond them with one message.
 */
#ifndef HPC_FORMULA_H
#define HPC_FORMULA_H

#include <stddef.h>

struct strbuf;

#define FORMULA_MAX_DEPTH 256
#define FORMULA_MAX_NODES 65536

enum formula_op {
	F_NUM, F_RAW, F_NEG, F_ADD, F_SUB, F_MUL, F_DIV, F_POW, F_MIN, F_MAX,
	F_MEAN, F_SDEV,
};

struct formula {
	enum formula_op op;
	double num;		/* F_NUM */
	size_t raw;		/* F_RAW */
	struct formula **args;	/* others */
	size_t nargs;
	unsigned depth;		/* levels of operators below: 0 for a leaf */
	size_t nodes;		/* nodes in this subtree, itself included */
};

/*
 * Resolves a metric name to a new subtree (a raw reference or a copy of a
 * derived formula); returns NULL when the name is unknown.
 */
typedef struct formula *(*formula_resolver)(void *arg, const char *name);

/*
 * Parses text; NULL with hpc_lasterr() ("formula 'TEXT': unknown metric
 * 'x'", syntax errors and the limits above with their offset; TEXT cut to
 * its first 60 bytes and "..." when longer).
 */
struct formula *formula_parse(const char *text, formula_resolver resolve,
			      void *arg);

struct formula *formula_number(double v);
struct formula *formula_raw(size_t raw);
/* Takes ownership of args[0..n) (the array is copied). */
struct formula *formula_apply(enum formula_op op, struct formula **args,
			      size_t n);
struct formula *formula_copy(const struct formula *f);
void formula_free(struct formula *f);

double formula_eval(const struct formula *f,
		    double (*raw)(void *arg, size_t raw), void *arg);

/* Appends f in infix, raw metric r written as "$" column_of(r). */
void formula_print(struct strbuf *sb, const struct formula *f,
		   size_t (*column_of)(void *arg, size_t raw), void *arg);

#endif
