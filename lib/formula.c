/* formula.c - see formula.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "formula.h"
#include "strbuf.h"

struct formula *formula_number(double v)
{
	struct formula *f = xcalloc(1, sizeof(*f));

	f->op = F_NUM;
	f->num = v;
	f->nodes = 1;
	return f;
}

struct formula *formula_raw(size_t raw)
{
	struct formula *f = xcalloc(1, sizeof(*f));

	f->op = F_RAW;
	f->raw = raw;
	f->nodes = 1;
	return f;
}

struct formula *formula_apply(enum formula_op op, struct formula **args,
			      size_t n)
{
	struct formula *f = xcalloc(1, sizeof(*f));
	size_t i;

	f->op = op;
	f->args = xcalloc(n ? n : 1, sizeof(*f->args));
	memcpy(f->args, args, n * sizeof(*args));
	f->nargs = n;
	f->nodes = 1;
	for (i = 0; i < n; i++) {
		if (args[i]->depth + 1 > f->depth)
			f->depth = args[i]->depth + 1;
		f->nodes += args[i]->nodes;
	}
	return f;
}

struct formula *formula_copy(const struct formula *f)
{
	struct formula *c = xcalloc(1, sizeof(*c));
	size_t i;

	*c = *f;
	if (f->nargs) {
		c->args = xcalloc(f->nargs, sizeof(*c->args));
		for (i = 0; i < f->nargs; i++)
			c->args[i] = formula_copy(f->args[i]);
	} else {
		c->args = NULL;
	}
	return c;
}

void formula_free(struct formula *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nargs; i++)
		formula_free(f->args[i]);
	free(f->args);
	free(f);
}

double formula_eval(const struct formula *f,
		    double (*raw)(void *arg, size_t raw), void *arg)
{
	double a, b, s, ss;
	size_t i;

	switch (f->op) {
	case F_NUM:
		return f->num;
	case F_RAW:
		return raw(arg, f->raw);
	case F_NEG:
		return -formula_eval(f->args[0], raw, arg);
	case F_ADD: case F_SUB: case F_MUL: case F_DIV: case F_POW:
		a = formula_eval(f->args[0], raw, arg);
		b = formula_eval(f->args[1], raw, arg);
		if (f->op == F_ADD)
			return a + b;
		if (f->op == F_SUB)
			return a - b;
		if (f->op == F_MUL)
			return a * b;
		if (f->op == F_DIV)
			return b == 0 ? NAN : a / b;
		return pow(a, b);
	case F_MIN: case F_MAX:
		a = formula_eval(f->args[0], raw, arg);
		for (i = 1; i < f->nargs; i++) {
			b = formula_eval(f->args[i], raw, arg);
			if (f->op == F_MIN ? b < a : b > a)
				a = b;
		}
		return a;
	case F_MEAN: case F_SDEV:
		s = ss = 0;
		for (i = 0; i < f->nargs; i++) {
			b = formula_eval(f->args[i], raw, arg);
			s += b;
			ss += b * b;
		}
		a = s / (double)f->nargs;
		if (f->op == F_MEAN)
			return a;
		b = ss / (double)f->nargs - a * a;
		return sqrt(b > 0 ? b : 0);
	}
	return NAN;
}

static const char *const fn_name[] = {
	[F_MIN] = "min", [F_MAX] = "max", [F_MEAN] = "mean", [F_SDEV] = "sdev",
};

void formula_print(struct strbuf *sb, const struct formula *f,
		   size_t (*column_of)(void *arg, size_t raw), void *arg)
{
	static const char ops[] = { [F_ADD] = '+', [F_SUB] = '-',
				    [F_MUL] = '*', [F_DIV] = '/',
				    [F_POW] = '^' };
	size_t i;

	switch (f->op) {
	case F_NUM:
		strbuf_addf(sb, "%.17g", f->num);
		break;
	case F_RAW:
		strbuf_addf(sb, "$%zu", column_of(arg, f->raw));
		break;
	case F_NEG:	/* (-X): as a base of ^, -X would read as -(X^...) */
		strbuf_addstr(sb, "(-");
		formula_print(sb, f->args[0], column_of, arg);
		strbuf_addch(sb, ')');
		break;
	case F_ADD: case F_SUB: case F_MUL: case F_DIV: case F_POW:
		strbuf_addch(sb, '(');
		formula_print(sb, f->args[0], column_of, arg);
		strbuf_addf(sb, " %c ", ops[f->op]);
		formula_print(sb, f->args[1], column_of, arg);
		strbuf_addch(sb, ')');
		break;
	default:
		strbuf_addf(sb, "%s(", fn_name[f->op]);
		for (i = 0; i < f->nargs; i++) {
			if (i)
				strbuf_addstr(sb, ", ");
			formula_print(sb, f->args[i], column_of, arg);
		}
		strbuf_addch(sb, ')');
		break;
	}
}

/*
 * Recursive-descent parser over text; errors collected, unknowns listed.
 * Only parentheses and function calls recurse: depth counts those open at
 * p->s.  Minus signs and ^ chains are parsed with loops (parse_unary), and
 * the operators they make, like all others, are levels of the tree, which
 * made() bounds; nodes counts the nodes made so far.  After the first error
 * the parse winds down: no name is resolved, no operator made and no loop
 * goes on, so a refused formula costs no more than an accepted one.
 */
struct parser {
	const char *s, *text;
	formula_resolver resolve;
	void *arg;
	struct strbuf unknown;
	int syntax_error;
	unsigned depth;
	size_t nodes;
};

/* A limit of formula.h as text, for messages. */
#define LIMIT_TEXT(n) #n
#define LIMIT(n) LIMIT_TEXT(n)
#define TOO_DEEP "nested deeper than " LIMIT(FORMULA_MAX_DEPTH) " levels"

/* Formula text as messages quote it: long text cut to its first 60 bytes. */
#define QUOTED_MAX 64
#define QUOTED_CUT 60
#define QUOTED_FMT "formula '%.*s%s'"
#define QUOTED_ARGS(t) \
	strlen(t) > QUOTED_MAX ? QUOTED_CUT : (int)strlen(t), (t), \
	strlen(t) > QUOTED_MAX ? "..." : ""

static struct formula *parse_expr(struct parser *p);

static void skip_ws(struct parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

static void syntax(struct parser *p, const char *what)
{
	if (!p->syntax_error)
		hpc_seterr(QUOTED_FMT ": %s at offset %d",
			   QUOTED_ARGS(p->text), what, (int)(p->s - p->text));
	p->syntax_error = 1;
}

/* Opens a level of parentheses; 0 (said) when there are too many. */
static int enter(struct parser *p)
{
	if (p->depth == FORMULA_MAX_DEPTH) {
		syntax(p, TOO_DEEP);
		return 0;
	}
	p->depth++;
	return 1;
}

/* Counts f, a new node or a resolved subtree, against the limits. */
static struct formula *made(struct parser *p, struct formula *f, size_t nodes)
{
	p->nodes += nodes;
	if (f->depth > FORMULA_MAX_DEPTH)
		syntax(p, TOO_DEEP);
	else if (p->nodes > FORMULA_MAX_NODES)
		syntax(p, "more than " LIMIT(FORMULA_MAX_NODES) " terms "
			  "with the metrics it names expanded");
	return f;
}

static struct formula *number(struct parser *p, double v)
{
	return made(p, formula_number(v), 1);
}

/* The operator node over args[0..n), or after an error a number. */
static struct formula *apply(struct parser *p, enum formula_op op,
			     struct formula **args, size_t n)
{
	size_t i;

	if (p->syntax_error) {
		for (i = 0; i < n; i++)
			formula_free(args[i]);
		return number(p, 0);
	}
	return made(p, formula_apply(op, args, n), 1);
}

/* The resolver's subtree for name, or NULL (also after an error). */
static struct formula *lookup(struct parser *p, const char *name)
{
	struct formula *f = p->syntax_error ? NULL : p->resolve(p->arg, name);

	return f ? made(p, f, f->nodes) : NULL;
}

static int name_char(int c, int dash)
{
	return isalnum(c) || c == '_' || c == ':' || c == '.' || c == '@' ||
	       (dash && c == '-');
}

static struct formula *resolve_name(struct parser *p, const char *name)
{
	struct formula *f = lookup(p, name);

	if (!f) {
		if (!p->syntax_error)
			strbuf_addf(&p->unknown, "%s'%s'",
				    p->unknown.len ? ", " : "", name);
		f = number(p, 0);
	}
	return f;
}

static struct formula *parse_name(struct parser *p)
{
	const char *start = p->s, *end = p->s;
	struct formula *f;
	char *name;

	while (name_char((unsigned char)*end, 1))
		end++;
	name = xstrndup(start, (size_t)(end - start));
	f = strchr(name, '-') ? lookup(p, name) : NULL;
	if (f) {
		p->s = end;
		free(name);
		return f;
	}
	free(name);
	end = start;
	while (name_char((unsigned char)*end, 0))
		end++;
	name = xstrndup(start, (size_t)(end - start));
	p->s = end;
	skip_ws(p);
	if (*p->s == '(') {
		static const char *const fns[] = { "min", "max", "mean", "sdev" };
		static const enum formula_op fop[] = { F_MIN, F_MAX, F_MEAN,
						       F_SDEV };
		struct formula *args[64];
		size_t n = 0, i;
		int which = -1;

		for (i = 0; i < 4; i++)
			if (!strcmp(name, fns[i]))
				which = (int)i;
		free(name);
		if (which < 0) {
			syntax(p, "unknown function");
			return number(p, 0);
		}
		if (!enter(p))
			return number(p, 0);
		p->s++;
		do {
			skip_ws(p);
			if (n == 64) {
				syntax(p, "too many arguments");
				break;
			}
			args[n++] = parse_expr(p);
			skip_ws(p);
		} while (!p->syntax_error && *p->s == ',' && p->s++);
		if (*p->s != ')')
			syntax(p, "expected ')'");
		else
			p->s++;
		p->depth--;
		return apply(p, fop[which], args, n);
	}
	f = resolve_name(p, name);
	free(name);
	return f;
}

static struct formula *parse_primary(struct parser *p)
{
	struct formula *f;
	char *end;

	skip_ws(p);
	if (*p->s == '(') {
		if (!enter(p))
			return number(p, 0);
		p->s++;
		f = parse_expr(p);
		skip_ws(p);
		if (*p->s != ')')
			syntax(p, "expected ')'");
		else
			p->s++;
		p->depth--;
		return f;
	}
	if (*p->s == '{') {
		const char *close = strchr(p->s, '}');
		char *name;

		if (!close) {
			syntax(p, "expected '}'");
			return number(p, 0);
		}
		name = xstrndup(p->s + 1, (size_t)(close - p->s - 1));
		p->s = close + 1;
		f = resolve_name(p, name);
		free(name);
		return f;
	}
	if (*p->s == '$' && isdigit((unsigned char)p->s[1])) {
		char name[32];
		size_t k = 0;

		p->s++;
		while (isdigit((unsigned char)*p->s) && k < sizeof(name) - 2)
			name[k++] = *p->s++;
		name[k] = 0;
		memmove(name + 1, name, k + 1);
		name[0] = '$';
		return resolve_name(p, name);
	}
	if (isdigit((unsigned char)*p->s) || *p->s == '.') {
		double v;

		errno = 0;
		v = strtod(p->s, &end);
		if (end == p->s || errno) {
			syntax(p, "bad number");
			return number(p, 0);
		}
		p->s = end;
		return number(p, v);
	}
	if (name_char((unsigned char)*p->s, 0))
		return parse_name(p);
	syntax(p, *p->s ? "unexpected character" : "unexpected end");
	return number(p, 0);
}

/* One operand of a ^ chain: its base and the minus signs before it. */
struct power_link {
	struct formula *base;
	unsigned minus;
};

static struct formula *negate(struct parser *p, struct formula *f,
			      unsigned minus)
{
	while (minus--)
		f = apply(p, F_NEG, &f, 1);
	return f;
}

/*
 * unary := '-'* primary ('^' unary)?, with loops: each operand's minus
 * signs are counted and a ^ chain collected, then the nodes are made from
 * the right (^ is right-associative and binds tighter than the minus
 * before it: -2^2 is -(2^2)).  levels, the operators of this unary, stops
 * the loops at the depth limit.
 */
static struct formula *parse_unary(struct parser *p)
{
	struct power_link *chain = NULL;
	size_t n = 0, alloc = 0;
	unsigned levels = 0;
	struct formula *f, *a[2];

	for (;;) {
		HPC_GROW(chain, n + 1, alloc);
		chain[n].minus = 0;
		for (skip_ws(p); *p->s == '-'; skip_ws(p)) {
			if (levels++ == FORMULA_MAX_DEPTH) {
				syntax(p, TOO_DEEP);
				break;
			}
			chain[n].minus++;
			p->s++;
		}
		chain[n++].base = parse_primary(p);
		skip_ws(p);
		if (p->syntax_error || *p->s != '^')
			break;
		if (levels++ == FORMULA_MAX_DEPTH) {
			syntax(p, TOO_DEEP);
			break;
		}
		p->s++;
	}
	n--;
	f = negate(p, chain[n].base, chain[n].minus);
	while (n--) {
		a[0] = chain[n].base;
		a[1] = f;
		f = negate(p, apply(p, F_POW, a, 2), chain[n].minus);
	}
	free(chain);
	return f;
}

static struct formula *parse_term(struct parser *p)
{
	struct formula *f = parse_unary(p);

	for (;;) {
		struct formula *a[2];
		char c;

		skip_ws(p);
		c = *p->s;
		if (p->syntax_error || (c != '*' && c != '/'))
			return f;
		p->s++;
		a[0] = f;
		a[1] = parse_unary(p);
		f = apply(p, c == '*' ? F_MUL : F_DIV, a, 2);
	}
}

static struct formula *parse_expr(struct parser *p)
{
	struct formula *f = parse_term(p);

	for (;;) {
		struct formula *a[2];
		char c;

		skip_ws(p);
		c = *p->s;
		if (p->syntax_error || (c != '+' && c != '-'))
			return f;
		p->s++;
		a[0] = f;
		a[1] = parse_term(p);
		f = apply(p, c == '+' ? F_ADD : F_SUB, a, 2);
	}
}

struct formula *formula_parse(const char *text, formula_resolver resolve,
			      void *arg)
{
	struct parser p = { text, text, resolve, arg, STRBUF_INIT, 0, 0, 0 };
	struct formula *f = parse_expr(&p);

	skip_ws(&p);
	if (*p.s && !p.syntax_error)
		syntax(&p, "unexpected text");
	if (!p.syntax_error && p.unknown.len)
		hpc_seterr(QUOTED_FMT ": unknown metric %s", QUOTED_ARGS(text),
			   p.unknown.buf);
	if (p.syntax_error || p.unknown.len) {
		formula_free(f);
		f = NULL;
	}
	strbuf_release(&p.unknown);
	return f;
}
