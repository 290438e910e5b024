/*
 * fuzz-formula.c - libFuzzer harness for the derived-metric formula parser
 * (lib/formula.c: 'hpcprof --metric NAME=FORMULA', -M COMPUTE text, the
 * viewer's derived columns).
 *
 * Each input is the text of one formula.  Names resolve as in hpcprof:
 * a, b, perf::cpu-clock and $0..$7 are measured metrics, and deep and big
 * are derived metrics whose formulas come as copies (deep is 200 levels,
 * big 6,385 terms, so a few references reach the limits of formula.h).  A
 * formula the parser accepts is evaluated, copied, printed, and its
 * printed text parsed again: that must give a formula of the same depth,
 * size and value (formula_print writes the database's formulas).  A
 * refusal is a correct answer; a crash, a sanitizer report, a leak, a hang
 * or a printed formula that does not read back is a bug.  Run by hand with
 * a file argument, the harness parses that file's text once:
 *   build-fuzz/bin/fuzz-formula build-fuzz/artifacts/formula-crash-1234
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/common_interface_defs.h>

#include "error.h"
#include "formula.h"
#include "strbuf.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NRAW 8

static struct formula *deep, *big;

static struct formula *resolve(void *arg, const char *name)
{
	static const char *const raws[] = { "a", "b", "perf::cpu-clock" };
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(raws) / sizeof(raws[0]); i++)
		if (!strcmp(name, raws[i]))
			return formula_raw(i);
	if (name[0] == '$' && name[1] >= '0' && name[1] < '0' + NRAW &&
	    !name[2])
		return formula_raw((size_t)(name[1] - '0'));
	if (!strcmp(name, "deep"))
		return formula_copy(deep);
	if (!strcmp(name, "big"))
		return formula_copy(big);
	return NULL;
}

static double value_of(void *arg, size_t raw)
{
	(void)arg;
	return (double)raw * 1.5 - 2;
}

static size_t column_of(void *arg, size_t raw)
{
	(void)arg;
	return raw;
}

/* text made of n copies of unit between first and last (caller frees). */
static char *repeat(const char *first, const char *unit, size_t n,
		    const char *last)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, first);
	while (n--)
		strbuf_addstr(&sb, unit);
	strbuf_addstr(&sb, last);
	return strbuf_detach(&sb, NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *text;

	(void)argc;
	hpc_set_progname((*argv)[0]);
	text = repeat("a", "-b", 199, "");		/* 200 levels, 399 nodes */
	deep = formula_parse(text, resolve, NULL);
	free(text);
	text = repeat("mean(deep", ", deep", 15, ")");	/* 6,385 nodes */
	big = formula_parse(text, resolve, NULL);
	free(text);
	if (!deep || !big)
		hpc_die(1, "the harness's own formulas: %s", hpc_lasterr());
	return 0;
}

static void fail(const char *what, const char *text)
{
	struct strbuf msg = STRBUF_INIT;

	/* stderr may be closed (-close_fd_mask=2); reports are not */
	strbuf_addf(&msg, "fuzz-formula: %s: '%s'", what, text);
	__sanitizer_report_error_summary(msg.buf);
	abort();
}

static void check(const struct formula *f)
{
	struct strbuf sb = STRBUF_INIT;
	struct formula *c = formula_copy(f), *g;
	double v = formula_eval(f, value_of, NULL), w;

	formula_print(&sb, c, column_of, NULL);
	formula_free(c);
	g = formula_parse(sb.buf, resolve, NULL);
	if (!g)
		fail("its printed text does not parse", sb.buf);
	w = formula_eval(g, value_of, NULL);
	if (g->depth != f->depth || g->nodes != f->nodes ||
	    (v != w && !(isnan(v) && isnan(w))))
		fail("its printed text parses to another formula", sb.buf);
	formula_free(g);
	strbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	struct formula *f = formula_parse(text, resolve, NULL);

	if (f)
		check(f);
	formula_free(f);
	free(text);
	return 0;
}
