/* metrics.c - see metrics.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "formula.h"
#include "hashmap.h"
#include "metrics.h"
#include "strbuf.h"

enum { SUM, SUMSQ, MIN, MAX, COUNT };

static const char *const stat_name[NSTATS] = {
	"Sum", "Mean", "Min", "Max", "StdDev", "CoefVar",
};

void metrics_init(struct metrics *m)
{
	memset(m, 0, sizeof(*m));
	m->byname = hmap_new();
}

void metrics_release(struct metrics *m)
{
	size_t i;

	for (i = 0; i < m->nraw; i++) {
		free(m->raw[i].name);
		free(m->raw[i].display);
		free(m->raw[i].description);
	}
	for (i = 0; i < m->nderived; i++) {
		free(m->derived[i].name);
		free(m->derived[i].display);
		free(m->derived[i].text);
		formula_free(m->derived[i].f);
	}
	free(m->raw);
	free(m->derived);
	free(m->mix);
	hmap_free(m->byname);
}

size_t metrics_raw(struct metrics *m, const char *name,
		   const char *description, int integer)
{
	long i = metrics_find(m, name);
	struct raw_metric *r;

	if (i >= 0)
		return (size_t)i;
	HPC_GROW(m->raw, m->nraw + 1, m->raw_alloc);
	r = &m->raw[m->nraw];
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(name);
	r->description = xstrdup(description ? description : "");
	r->integer = integer;
	m->nraw++;
	hmap_put_str(m->byname, name, (void *)(uintptr_t)m->nraw);
	return m->nraw - 1;
}

void metrics_set_display(struct metrics *m, size_t i, const char *display)
{
	if (display && display[0] && !m->raw[i].display)
		m->raw[i].display = xstrdup(display);
}

const char *metrics_raw_label(const struct metrics *m, size_t i)
{
	return m->raw[i].display ? m->raw[i].display : m->raw[i].name;
}

long metrics_find(const struct metrics *m, const char *name)
{
	uintptr_t v = (uintptr_t)hmap_get_str(m->byname, name);

	return (long)v - 1;
}

struct accum *accum_new(const struct metrics *m)
{
	size_t n = 2 * (m->nraw ? m->nraw : 1);
	struct accum *a = xcalloc(1, sizeof(*a) + sizeof(double[5]) * n);

	a->n = n;
	return a;
}

void accum_fold_value(struct accum *a, size_t k, double x)
{
	double *s = a->v[k];

	if (s[COUNT] == 0 || x < s[MIN])
		s[MIN] = x;
	if (s[COUNT] == 0 || x > s[MAX])
		s[MAX] = x;
	s[SUM] += x;
	s[SUMSQ] += x * x;
	s[COUNT] += 1;
}

#define EXACT_BOUND 9007199254740992.0	/* 2^53 */

int accum_exact_value(double x)
{
	return x >= 0 && !signbit(x) && x < EXACT_BOUND && x == trunc(x);
}

void accum_add(struct accum *dst, const struct accum *src, int stats,
	       uint8_t *over)
{
	size_t k;

	for (k = 0; k < src->n; k++) {
		const double *s = src->v[k];
		double *d = dst->v[k];

		if (s[COUNT] == 0)
			continue;
		if (d[COUNT] == 0 || s[MIN] < d[MIN])
			d[MIN] = s[MIN];
		if (d[COUNT] == 0 || s[MAX] > d[MAX])
			d[MAX] = s[MAX];
		d[SUM] += s[SUM];
		d[SUMSQ] += s[SUMSQ];
		d[COUNT] += s[COUNT];
		if (d[SUM] >= EXACT_BOUND ||
		    (stats && d[SUMSQ] >= EXACT_BOUND))
			over[k] = 1;
	}
}

int accum_empty(const struct accum *a)
{
	size_t k;

	for (k = 0; k < a->n; k++)
		if (a->v[k][COUNT] != 0)
			return 0;
	return 1;
}

double accum_sum(const struct accum *a, size_t raw, int ie)
{
	return a ? a->v[2 * raw + ie][SUM] : 0;
}

size_t metrics_ncolumns(const struct metrics *m)
{
	return m->nraw * NSTATS * 2 + m->nderived * 2;
}

size_t metrics_nraw_columns(const struct metrics *m)
{
	return m->nraw * NSTATS * 2;
}

size_t metrics_column(const struct metrics *m, size_t raw, enum mstat s,
		      int ie)
{
	(void)m;
	return (raw * NSTATS + s) * 2 + (size_t)ie;
}

void metrics_column_info(const struct metrics *m, size_t c, long *raw,
			 enum mstat *s, int *ie, long *derived)
{
	size_t nrawcols = m->nraw * NSTATS * 2;

	*ie = (int)(c % 2);
	if (c < nrawcols) {
		*raw = (long)(c / (2 * NSTATS));
		*s = (enum mstat)(c / 2 % NSTATS);
		*derived = -1;
	} else {
		*raw = -1;
		*s = STAT_SUM;
		*derived = (long)((c - nrawcols) / 2);
	}
}

int metrics_column_stored(const struct metrics *m, size_t c)
{
	long raw, derived;
	enum mstat s;
	int ie;

	metrics_column_info(m, c, &raw, &s, &ie, &derived);
	return m->stats || raw < 0 || s == STAT_SUM;
}

char *metrics_column_name(const struct metrics *m, size_t c)
{
	struct strbuf sb = STRBUF_INIT;
	long raw, derived;
	enum mstat s;
	int ie;

	metrics_column_info(m, c, &raw, &s, &ie, &derived);
	if (raw >= 0 && m->raw[raw].display && s == STAT_SUM)
		strbuf_addstr(&sb, m->raw[raw].display);
	else if (raw >= 0)
		strbuf_addf(&sb, "%s:%s", metrics_raw_label(m, (size_t)raw),
			    stat_name[s]);
	else if (m->derived[derived].display)
		strbuf_addstr(&sb, m->derived[derived].display);
	else
		strbuf_addstr(&sb, m->derived[derived].name);
	strbuf_addstr(&sb, ie ? " (E)" : " (I)");
	return strbuf_detach(&sb, NULL);
}

static int stat_value(const struct raw_metric *r, const double *s,
		      enum mstat st, double *out)
{
	double n = (double)(r->nthreads ? r->nthreads : 1), mean, var;

	if (s[COUNT] == 0)
		return 0;
	mean = s[SUM] / n;
	var = s[SUMSQ] / n - mean * mean;
	if (var < 0)
		var = 0;
	switch (st) {
	case STAT_SUM:
		*out = s[SUM];
		break;
	case STAT_MEAN:
		*out = mean;
		break;
	case STAT_MIN:
		*out = s[COUNT] < n && s[MIN] > 0 ? 0 : s[MIN];
		break;
	case STAT_MAX:
		*out = s[COUNT] < n && s[MAX] < 0 ? 0 : s[MAX];
		break;
	case STAT_STDDEV:
		*out = sqrt(var);
		break;
	case STAT_CV:
		if (mean == 0)
			return 0;
		*out = sqrt(var) / mean;
		break;
	default:
		return 0;
	}
	return *out != 0 && isfinite(*out);
}

struct eval_ctx {
	const struct metrics *m;
	const struct accum *a;
	int ie;
};

static double lookup_sum(void *arg, size_t raw)
{
	const struct eval_ctx *x = arg;

	return accum_sum(x->a, raw, x->ie);
}

int metrics_value(const struct metrics *m, const struct accum *a, size_t c,
		  double *out)
{
	long raw, derived;
	enum mstat s;
	int ie;

	if (!a)
		return 0;
	metrics_column_info(m, c, &raw, &s, &ie, &derived);
	if (raw >= 0)
		return stat_value(&m->raw[raw], a->v[2 * raw + ie], s, out);
	{
		struct eval_ctx x = { m, a, ie };

		*out = formula_eval(m->derived[derived].f, lookup_sum, &x);
		return *out != 0 && isfinite(*out);
	}
}
