/* u-formula.c - unit tests for lib/formula.c (parse, evaluate, print). */
#include <math.h>
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
	CHECK_STR(sb.buf, "(-(($10 + $11)) * (min(2, $11) ^ 0.5))");
	g = formula_copy(f);
	formula_free(f);
	strbuf_reset(&sb);
	formula_print(&sb, g, column_of, NULL);
	CHECK_STR(sb.buf, "(-(($10 + $11)) * (min(2, $11) ^ 0.5))");
	CHECK(fabs(formula_eval(g, raw, NULL) + 9 * sqrt(2)) < 1e-12);
	formula_free(g);
	formula_free(NULL);
	strbuf_release(&sb);
}

int main(void)
{
	unit_run("arithmetic and precedence", arithmetic_and_precedence);
	unit_run("min, max, mean, sdev", functions);
	unit_run("metric names: dashes, braces, $N", names);
	unit_run("division by zero gives no value", division_by_zero_is_no_value);
	unit_run("errors name what is wrong", errors_name_what_is_wrong);
	unit_run("print and copy", print_and_copy);
	return unit_done();
}
