/* report.c - see report.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "report.h"
#include "strbuf.h"

struct row {
	const struct node *n;
	double incl, excl;
};

static size_t sort_metric;
static int sort_by_incl;

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double u = sort_by_incl ? x->incl : x->excl;
	double v = sort_by_incl ? y->incl : y->excl;

	if (u != v)
		return u > v ? -1 : 1;
	return x->n->id < y->n->id ? -1 : x->n->id > y->n->id;
}

static void collect(const struct node *n, enum node_kind kind, size_t m,
		    struct row **rows, size_t *nrows, size_t *alloc)
{
	for (; n; n = n->next) {
		if (n->kind == kind && n->acc) {
			HPC_GROW(*rows, *nrows + 1, *alloc);
			(*rows)[*nrows].n = n;
			(*rows)[*nrows].incl = accum_sum(n->acc, m, 0);
			(*rows)[*nrows].excl = accum_sum(n->acc, m, 1);
			(*nrows)++;
		}
		collect(n->first, kind, m, rows, nrows, alloc);
	}
}

static const char *proc_of(const struct experiment *e, const struct node *n)
{
	for (; n; n = n->parent)
		if (n->kind == NODE_PROC)
			return e->procs.names[n->proc];
	return "?";
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static double pct(double v, double total)
{
	return total != 0 ? 100.0 * v / total : 0;
}

static void table(FILE *f, const struct experiment *e, size_t m,
		  enum node_kind kind, size_t top, double total)
{
	static const char *const title[] = {
		[NODE_PROC] = "procedures", [NODE_LOOP] = "loops",
		[NODE_STMT] = "lines",
	};
	struct row *rows = NULL;
	size_t nrows = 0, alloc = 0, i;

	collect(e->flat_root->first, kind, m, &rows, &nrows, &alloc);
	sort_metric = m;
	sort_by_incl = kind == NODE_LOOP;
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), cmp_row);
	fprintf(f, "\nTop %s by %s %s:\n", title[kind],
		sort_by_incl ? "inclusive" : "exclusive",
		e->metrics.raw[m].name);
	fprintf(f, "%7s %14s %7s %14s  %s\n", "excl%", "exclusive", "incl%",
		"inclusive", kind == NODE_PROC ? "procedure [file:line]"
					       : "location [procedure]");
	for (i = 0; i < nrows && i < top; i++) {
		const struct node *n = rows[i].n;
		const char *file = base(e->files.names[n->file]);

		fprintf(f, "%6.2f%% %14.6g %6.2f%% %14.6g  ",
			pct(rows[i].excl, total), rows[i].excl,
			pct(rows[i].incl, total), rows[i].incl);
		if (kind == NODE_PROC)
			fprintf(f, "%s [%s:%u]\n", e->procs.names[n->proc],
				file[0] ? file : "?", n->line);
		else
			fprintf(f, "%s%s:%u [%s]\n",
				kind == NODE_LOOP ? "loop at " : "",
				file[0] ? file : "?", n->line, proc_of(e, n));
	}
	if (!nrows)
		fprintf(f, "  (none)\n");
	free(rows);
}

int report_write(const struct experiment *e, const char *path, size_t top)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	size_t m;
	int ret = 0;

	if (!f)
		return hpc_seterr("'%s': %s", path, strerror(errno));
	fprintf(f, "hpcprof report: %s, %zu thread%s\n",
		e->program ? e->program : "?", e->nthreads,
		e->nthreads == 1 ? "" : "s");
	for (m = 0; m < e->metrics.nraw; m++) {
		double total = accum_sum(e->root->acc, m, 0);

		fprintf(f, "\nMetric %s: total %.6g\n", e->metrics.raw[m].name,
			total);
		table(f, e, m, NODE_PROC, top, total);
		table(f, e, m, NODE_LOOP, top, total);
		table(f, e, m, NODE_STMT, top, total);
	}
	if (fflush(f) || ferror(f))
		ret = hpc_seterr("'%s': write error", path);
	if (f != stdout && fclose(f) && !ret)
		ret = hpc_seterr("'%s': %s", path, strerror(errno));
	return ret;
}
