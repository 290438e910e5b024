/*
 * u-formula.c - unit tests for lib/formula.c (parse, evaluate, print, and
 * the limits on depth and size).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "formula.h"
#include "strbuf.h"
#include "unit.h"

/* Raw metric values the formulas are evaluated on: a=6, b=3, cpu-clock=10. */
static const double raw_values[] = { 6, 3, 10, 0 };

static struct formula *resolve(void *arg, const char *name)
{
	(void)arg;
	if (!strcmp(name, "a"))
		return formula_raw(0);
	if (!strcmp(name, "b"))
		return formula_raw(1);
	if (!strcmp(name, "perf::cpu-clock"))
		return formula_raw(2);
	if (!strcmp(name, "zero") || !strcmp(name, "my metric"))
		return formula_raw(3);
	if (name[0] == '$' && atoi(name + 1) < 4)
		return formula_raw((size_t)atoi(name + 1));
	return NULL;
}

static double raw(void *arg, size_t i)
{
	(void)arg;
	return raw_values[i];
}

static size_t column_of(void *arg, size_t i)
{
	(void)arg;
	return i + 10;
}

/* Parses text and evaluates it; NAN (and a failed check) when it does not parse. */
static double eval(const char *text)
{
	struct formula *f = formula_parse(text, resolve, NULL);
	double v;

	if (!f) {
		unit_fail(__FILE__, __LINE__, "'%s' did not parse: %s", text,
			  hpc_lasterr());
		return NAN;
	}
	v = formula_eval(f, raw, NULL);
	formula_free(f);
	return v;
}

static void arithmetic_and_precedence(void)
{
	CHECK(eval("a+b*2") == 12);
	CHECK(eval("(a+b)*2") == 18);
	CHECK(eval("a-b-1") == 2);		/* left-associative */
	CHECK(eval("a/b/2") == 1);
	CHECK(eval("2^3^2") == 512);		/* right-associative */
	CHECK(eval("-2^2") == -4);		/* minus applies to the power */
	CHECK(eval("2^-1") == 0.5);
	CHECK(eval(" - - a ") == 6);
	CHECK(eval("1.5e1 + .5") == 15.5);
}

static void functions(void)
{
	CHECK(eval("min(a, b, 4)") == 3);
	CHECK(eval("max(a, b, 4)") == 6);
	CHECK(eval("mean(a, b, 0)") == 3);
	CHECK(eval("sdev(2, 4, 4, 4, 5, 5, 7, 9)") == 2);
	CHECK(eval("max(1)") == 1);
}

static void names(void)
{
	CHECK(eval("perf::cpu-clock / b") == 10.0 / 3);	/* dash inside a known name */
	CHECK(eval("a-b") == 3);			/* otherwise dash is minus */
	CHECK(eval("{my metric} + $1") == 3);
	CHECK(eval("$0 * $2") == 60);
}

static void division_by_zero_is_no_value(void)
{
	CHECK(isnan(eval("a/zero")));
	CHECK(isnan(eval("a/(b-b)")));
	CHECK(eval("zero/a") == 0);
}

static void errors_name_what_is_wrong(void)
{
	CHECK(!formula_parse("a + nosuch * other", resolve, NULL));
	CHECK_STR(hpc_lasterr(),
		  "formula 'a + nosuch * other': unknown metric 'nosuch', 'other'");
	CHECK(!formula_parse("a +", resolve, NULL));
	CHECK_STR(hpc_lasterr(), "formula 'a +': unexpected end at offset 3");
	CHECK(!formula_parse("(a", resolve, NULL));
	CHECK_STR(hpc_lasterr(), "formula '(a': expected ')' at offset 2");
	CHECK(!formula_parse("a b", resolve, NULL));
	CHECK_STR(hpc_lasterr(), "formula 'a b': unexpected text at offset 2");
	CHECK(!formula_parse("log(a)", resolve, NULL));
	CHECK_STR(hpc_lasterr(), "formula 'log(a)': unknown function at offset 3");
	CHECK(!formula_parse("{open", resolve, NULL));
	CHECK_STR(hpc_lasterr(), "formula '{open': expected '}' at offset 0");
}

static void print_and_copy(void)
{
	struct formula *f = formula_parse("-(a+b)*min(2,b)^0.5", resolve, NULL);
	struct formula *g;
	struct strbuf sb = STRBUF_INIT;

	CHECK(f != NULL);
	if (!f)
		return;
	formula_print(&sb, f, column_of, NULL);
	CHECK_STR(sb.buf, "((-($10 + $11)) * (min(2, $11) ^ 0.5))");
	g = formula_copy(f);
	formula_free(f);
	strbuf_reset(&sb);
	formula_print(&sb, g, column_of, NULL);
	CHECK_STR(sb.buf, "((-($10 + $11)) * (min(2, $11) ^ 0.5))");
	CHECK(fabs(formula_eval(g, raw, NULL) + 9 * sqrt(2)) < 1e-12);
	formula_free(g);
	formula_free(NULL);
	strbuf_release(&sb);
}

/*
 * A negation as the base of ^ prints in parentheses of its own: printed
 * as -(X) ^ 0 it read back as -(X ^ 0), -1 where the formula is 1 (found
 * by fuzz-formula in CI).
 */
static size_t same_column(void *arg, size_t i)
{
	(void)arg;
	return i;
}

static void negated_base_reads_back(void)
{
	struct formula *f = formula_parse("(--b^a)^0 + (-a)^2", resolve, NULL);
	struct formula *g;
	struct strbuf sb = STRBUF_INIT;

	CHECK(f != NULL);
	if (!f)
		return;
	formula_print(&sb, f, same_column, NULL);
	CHECK_STR(sb.buf, "(((-(-($1 ^ $0))) ^ 0) + ((-$0) ^ 2))");
	g = formula_parse(sb.buf, resolve, NULL);
	CHECK(g != NULL);
	if (g) {
		CHECK(formula_eval(f, raw, NULL) == 37);
		CHECK(formula_eval(g, raw, NULL) == 37);
		CHECK(g->depth == f->depth && g->nodes == f->nodes);
	}
	formula_free(f);
	formula_free(g);
	strbuf_release(&sb);
}

/*
 * Derived metrics named in a formula come as copies of their own formulas:
 * d0=a+a, d1=d0+d0, d2=d1+d1, ... doubles at each step, and the size limit
 * stops it (d14 has 65535 nodes, d15 would have 131071).
 */
static struct formula *derived[32];
static size_t nderived, resolver_calls;

static struct formula *resolve_derived(void *arg, const char *name)
{
	size_t i;

	(void)arg;
	resolver_calls++;
	if (name[0] == 'd') {
		i = (size_t)atoi(name + 1);
		return i < nderived ? formula_copy(derived[i]) : NULL;
	}
	return resolve(arg, name);
}

/* text made of pre, n times rep, mid, n times post (caller frees). */
static char *repeat(const char *pre, const char *rep, size_t n,
		    const char *mid, const char *post)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addstr(&sb, pre);
	for (i = 0; i < n; i++)
		strbuf_addstr(&sb, rep);
	strbuf_addstr(&sb, mid);
	for (i = 0; post && i < n; i++)
		strbuf_addstr(&sb, post);
	return strbuf_detach(&sb, NULL);
}

/* Parses and evaluates the text made by repeat(). */
static double eval_repeat(const char *pre, const char *rep, size_t n,
			  const char *mid, const char *post)
{
	char *text = repeat(pre, rep, n, mid, post);
	double v = eval(text);

	free(text);
	return v;
}

/*
 * Parses the text made by repeat(), expecting it refused as nested too deep
 * at offset, with the message quoting the text's first 60 bytes.
 */
static void too_deep_at(const char *pre, const char *rep, size_t n,
			const char *mid, const char *post, int offset)
{
	char *text = repeat(pre, rep, n, mid, post);
	struct formula *f = formula_parse(text, resolve_derived, NULL);
	struct strbuf expect = STRBUF_INIT;

	CHECK(f == NULL);
	formula_free(f);
	strbuf_addf(&expect, "formula '%.60s...': nested deeper than 256 "
		    "levels at offset %d", text, offset);
	CHECK_STR(hpc_lasterr(), expect.buf);
	strbuf_release(&expect);
	free(text);
}

/*
 * The issue #13 crashes: 60,000 parentheses, 120,000 minus signs and a
 * 40,000-long ^ chain overflowed the stack; 256 levels of each parse.
 */
static void nesting_is_bounded(void)
{
	CHECK(eval_repeat("", "(", 256, "a", ")") == 6);
	too_deep_at("", "(", 257, "a", ")", 256);
	too_deep_at("", "(", 60000, "$0", ")", 256);
	CHECK(eval_repeat("", "-", 256, "a", NULL) == 6);
	CHECK(eval_repeat("", "-", 255, "a", NULL) == -6);
	too_deep_at("", "-", 257, "a", NULL, 256);
	too_deep_at("", "-", 120000, "$0", NULL, 256);
	CHECK(eval_repeat("", "1^", 256, "1", NULL) == 1);
	too_deep_at("", "1^", 257, "1", NULL, 513);
	too_deep_at("", "2^", 40000, "2", NULL, 513);
	/* function calls open levels like parentheses */
	CHECK(eval_repeat("", "max(", 256, "a", ")") == 6);
	too_deep_at("", "max(", 257, "a", ")", 1027);
}

/*
 * Every operator is a level of the tree, those of a left-associative chain
 * included: 1+1+...+1 is ((1+1)+1)+..., as deep as it is long, and copy,
 * free, eval and print recurse that deep.
 */
static void chains_are_levels(void)
{
	char *text = repeat("1", "+1", 256, "", NULL);
	struct formula *f = formula_parse(text, resolve, NULL), *g;
	struct strbuf sb = STRBUF_INIT;

	CHECK(f && f->depth == 256 && f->nodes == 513);
	if (f) {
		CHECK(formula_eval(f, raw, NULL) == 257);
		/* what formula_print writes parses again (the database's
		 * formulas for the viewer) */
		formula_print(&sb, f, column_of, NULL);
		g = formula_parse(sb.buf, resolve, NULL);
		CHECK(g && g->depth == 256 && formula_eval(g, raw, NULL) == 257);
		formula_free(g);
	}
	formula_free(f);
	strbuf_release(&sb);
	free(text);
	too_deep_at("1", "+1", 257, "", NULL, 515);
	too_deep_at("a", "*a", 60000, "", NULL, 515);
	/* MathML's unary minus: one level of parentheses and one operator */
	CHECK(eval_repeat("", "-(", 256, "a", ")") == 6);
	too_deep_at("", "-(", 257, "a", ")", 513);
}

static void size_is_bounded(void)
{
	char text[32];
	struct formula *f;

	derived[nderived++] = formula_parse("a + a", resolve_derived, NULL);
	for (;;) {
		snprintf(text, sizeof(text), "d%zu + d%zu", nderived - 1,
			 nderived - 1);
		f = formula_parse(text, resolve_derived, NULL);
		if (!f)
			break;
		derived[nderived++] = f;
	}
	CHECK_INT(nderived, 15);
	CHECK_INT(derived[14]->nodes, 65535);
	CHECK_INT(derived[14]->depth, 15);
	CHECK_STR(hpc_lasterr(), "formula 'd14 + d14': more than 65536 terms with the metrics it names expanded at offset 9");
	/* once refused, no more names are looked up */
	resolver_calls = 0;
	CHECK(!formula_parse("d14 + d14 + d14 + min(d14, d14) + a",
			     resolve_derived, NULL));
	CHECK_INT(resolver_calls, 2);
	resolver_calls = 0;
	too_deep_at("", "(", 257, "a", ") + d1", 256);
	CHECK_INT(resolver_calls, 0);
	while (nderived)
		formula_free(derived[--nderived]);
}

int main(void)
{
	unit_run("arithmetic and precedence", arithmetic_and_precedence);
	unit_run("min, max, mean, sdev", functions);
	unit_run("metric names: dashes, braces, $N", names);
	unit_run("division by zero gives no value", division_by_zero_is_no_value);
	unit_run("errors name what is wrong", errors_name_what_is_wrong);
	unit_run("print and copy", print_and_copy);
	unit_run("a negated base of ^ reads back", negated_base_reads_back);
	unit_run("nesting is bounded (issue #13)", nesting_is_bounded);
	unit_run("each operator of a chain is a level", chains_are_levels);
	unit_run("size is bounded, derived metrics included", size_is_bounded);
	return unit_done();
}
