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
	return f;
}

struct formula *formula_raw(size_t raw)
{
	struct formula *f = xcalloc(1, sizeof(*f));

	f->op = F_RAW;
	f->raw = raw;
	return f;
}

struct formula *formula_apply(enum formula_op op, struct formula **args,
			      size_t n)
{
	struct formula *f = xcalloc(1, sizeof(*f));

	f->op = op;
	f->args = xcalloc(n ? n : 1, sizeof(*f->args));
	memcpy(f->args, args, n * sizeof(*args));
	f->nargs = n;
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
	case F_NEG:
		strbuf_addstr(sb, "-(");
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

/* Recursive-descent parser over text; errors collected, unknowns listed. */
struct parser {
	const char *s, *text;
	formula_resolver resolve;
	void *arg;
	struct strbuf unknown;
	int syntax_error;
};

static struct formula *parse_expr(struct parser *p);

static void skip_ws(struct parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

static void syntax(struct parser *p, const char *what)
{
	if (!p->syntax_error)
		hpc_seterr("formula '%s': %s at offset %d", p->text, what,
			   (int)(p->s - p->text));
	p->syntax_error = 1;
}

static int name_char(int c, int dash)
{
	return isalnum(c) || c == '_' || c == ':' || c == '.' || c == '@' ||
	       (dash && c == '-');
}

static struct formula *resolve_name(struct parser *p, const char *name)
{
	struct formula *f = p->resolve(p->arg, name);

	if (!f) {
		strbuf_addf(&p->unknown, "%s'%s'", p->unknown.len ? ", " : "",
			    name);
		f = formula_number(0);
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
	f = strchr(name, '-') ? p->resolve(p->arg, name) : NULL;
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
			return formula_number(0);
		}
		p->s++;
		do {
			skip_ws(p);
			if (n == 64) {
				syntax(p, "too many arguments");
				break;
			}
			args[n++] = parse_expr(p);
			skip_ws(p);
		} while (*p->s == ',' && p->s++);
		if (*p->s != ')')
			syntax(p, "expected ')'");
		else
			p->s++;
		return formula_apply(fop[which], args, n);
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
		p->s++;
		f = parse_expr(p);
		skip_ws(p);
		if (*p->s != ')')
			syntax(p, "expected ')'");
		else
			p->s++;
		return f;
	}
	if (*p->s == '{') {
		const char *close = strchr(p->s, '}');
		char *name;

		if (!close) {
			syntax(p, "expected '}'");
			return formula_number(0);
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
			return formula_number(0);
		}
		p->s = end;
		return formula_number(v);
	}
	if (name_char((unsigned char)*p->s, 0))
		return parse_name(p);
	syntax(p, *p->s ? "unexpected character" : "unexpected end");
	return formula_number(0);
}

static struct formula *parse_unary(struct parser *p)
{
	struct formula *f;

	skip_ws(p);
	if (*p->s == '-') {
		p->s++;
		f = parse_unary(p);
		return formula_apply(F_NEG, &f, 1);
	}
	f = parse_primary(p);
	skip_ws(p);
	if (*p->s == '^') {
		struct formula *a[2];

		p->s++;
		a[0] = f;
		a[1] = parse_unary(p);
		return formula_apply(F_POW, a, 2);
	}
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
		if (c != '*' && c != '/')
			return f;
		p->s++;
		a[0] = f;
		a[1] = parse_unary(p);
		f = formula_apply(c == '*' ? F_MUL : F_DIV, a, 2);
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
		if (c != '+' && c != '-')
			return f;
		p->s++;
		a[0] = f;
		a[1] = parse_term(p);
		f = formula_apply(c == '+' ? F_ADD : F_SUB, a, 2);
	}
}

struct formula *formula_parse(const char *text, formula_resolver resolve,
			      void *arg)
{
	struct parser p = { text, text, resolve, arg, STRBUF_INIT, 0 };
	struct formula *f = parse_expr(&p);

	skip_ws(&p);
	if (*p.s && !p.syntax_error)
		syntax(&p, "unexpected text");
	if (!p.syntax_error && p.unknown.len)
		hpc_seterr("formula '%s': unknown metric %s", text,
			   p.unknown.buf);
	if (p.syntax_error || p.unknown.len) {
		formula_free(f);
		f = NULL;
	}
	strbuf_release(&p.unknown);
	return f;
}
