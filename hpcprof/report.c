/* report.c - see report.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datatree.h"
#include "error.h"
#include "mix.h"
#include "outfile.h"
#include "report.h"
#include "strbuf.h"
#include "units.h"

struct row {
	const struct node *n;
	double incl, excl;
};

/*
 * What one metric's tables show (units.h, the viewer's rule): its label
 * with its unit, "perf::cpu-clock (s)", and its values in that unit, each
 * recorded value times u.scale.
 */
struct shown {
	const char *label;
	struct unit u;
};

/* A value column's heading with the unit: "exclusive (s)". */
static void value_heading(FILE *f, const char *what, const struct shown *s)
{
	char buf[64];

	if (s->u.name)
		snprintf(buf, sizeof(buf), "%s (%s)", what, s->u.name);
	else
		snprintf(buf, sizeof(buf), "%s", what);
	fprintf(f, " %14s", buf);
}

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

/*
 * Where a procedure, loop or line is: "file.c:12", or for code without
 * line information (stripped binaries) "libfoo.so.1+0x1234", its address
 * in its module, so that nested loops stay apart.
 */
static void place(FILE *f, const struct experiment *e, const struct node *n)
{
	const char *file = base(e->files.names[n->file]);

	if (n->line)
		fprintf(f, "%s:%u", file[0] ? file : "?", n->line);
	else
		fprintf(f, "%s+0x%" PRIx64, base(e->lms.names[n->lm]), n->vma);
}

static void table(FILE *f, const struct experiment *e, size_t m,
		  const struct shown *s, enum node_kind kind, size_t top,
		  double total)
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
		sort_by_incl ? "inclusive" : "exclusive", s->label);
	fprintf(f, "%7s", "excl%");
	value_heading(f, "exclusive", s);
	fprintf(f, " %7s", "incl%");
	value_heading(f, "inclusive", s);
	fprintf(f, "  %s\n", kind == NODE_PROC ?
		"procedure [file:line] in module" :
		"location [procedure] in module");
	for (i = 0; i < nrows && i < top; i++) {
		const struct node *n = rows[i].n;

		fprintf(f, "%6.2f%% %14.6g %6.2f%% %14.6g  ",
			pct(rows[i].excl, total), rows[i].excl * s->u.scale,
			pct(rows[i].incl, total), rows[i].incl * s->u.scale);
		if (kind == NODE_PROC) {
			fprintf(f, "%s [", e->procs.names[n->proc]);
			place(f, e, n);
			fputc(']', f);
		} else {
			fputs(kind == NODE_LOOP ? "loop at " : "", f);
			place(f, e, n);
			fprintf(f, " [%s]", proc_of(e, n));
		}
		fprintf(f, " in %s\n", base(e->lms.names[n->lm]));
	}
	if (!nrows)
		fprintf(f, "  (none)\n");
	free(rows);
}

/*
 * The instruction mix (mix.h) of the top procedures by exclusive value of
 * measured metric m: each group's share of the procedure's own value, its
 * samples at that group's instructions over all its samples (the flat
 * procedure sums every context).  Procedures without exclusive value have
 * no mix and are left out.
 */
static void mix_table(FILE *f, const struct experiment *e, size_t m,
		      const struct shown *s, size_t top)
{
	const struct metrics *mt = &e->metrics;
	struct row *rows = NULL;
	size_t nrows = 0, alloc = 0, i, g;

	if (m >= mt->nmix || mt->mix[m] < 0)
		return;
	collect(e->flat_root->first, NODE_PROC, m, &rows, &nrows, &alloc);
	sort_metric = m;
	sort_by_incl = 0;
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), cmp_row);
	fprintf(f, "\nInstruction mix of the top procedures (%% of exclusive "
		"%s):\n", s->label);
	value_heading(f, "exclusive", s);
	for (g = 0; g < MIX_NGROUPS; g++)
		fprintf(f, " %6s%%", mix_group_names[g]);
	fprintf(f, "  procedure [file:line] in module\n");
	for (i = 0; i < nrows && i < top && rows[i].excl > 0; i++) {
		const struct node *n = rows[i].n;

		fprintf(f, " %14.6g", rows[i].excl * s->u.scale);
		for (g = 0; g < MIX_NGROUPS; g++)
			fprintf(f, " %6.2f%%",
				pct(accum_sum(n->acc, (size_t)mt->mix[m] + g,
					      1), rows[i].excl));
		fprintf(f, "  %s [", e->procs.names[n->proc]);
		place(f, e, n);
		fprintf(f, "] in %s\n", base(e->lms.names[n->lm]));
	}
	if (!i)
		fprintf(f, "  (none)\n");
	free(rows);
}

static int cmp_program(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->incl != y->incl)
		return x->incl > y->incl ? -1 : 1;
	return x->n->id < y->n->id ? -1 : x->n->id > y->n->id;
}

/* Each program's share: its processes' calling contexts summed. */
static void programs(FILE *f, const struct experiment *e, size_t m,
		     const struct shown *s, double total)
{
	struct row *rows = xcalloc(e->nprograms, sizeof(*rows));
	size_t i, k;

	for (i = 0; i < e->nprograms; i++) {
		rows[i].n = e->programs[i].node;
		rows[i].incl = accum_sum(rows[i].n->acc, m, 0);
	}
	qsort(rows, e->nprograms, sizeof(*rows), cmp_program);
	fprintf(f, "\nPrograms by inclusive %s (each summed over its "
		"processes):\n", s->label);
	fprintf(f, "%7s", "incl%");
	value_heading(f, "inclusive", s);
	fprintf(f, " %9s %7s  %s\n", "processes", "threads", "program");
	for (i = 0; i < e->nprograms; i++) {
		for (k = 0; e->programs[k].node != rows[i].n; k++)
			;
		fprintf(f, "%6.2f%% %14.6g %9zu %7zu  %s\n",
			pct(rows[i].incl, total), rows[i].incl * s->u.scale,
			e->programs[k].nprocs, e->programs[k].nthreads,
			e->programs[k].name);
	}
	free(rows);
}

/* "N thing" or "N things" ("N processes" for "process"). */
static void count(struct strbuf *sb, size_t n, const char *thing)
{
	strbuf_addf(sb, "%zu %s%s", n, thing,
		    n == 1 ? "" : thing[strlen(thing) - 1] == 's' ? "es" : "s");
}

void report_counts(const struct experiment *e, struct strbuf *sb)
{
	size_t i, nprocs = 0;

	for (i = 0; i < e->nprograms; i++)
		nprocs += e->programs[i].nprocs;
	if (e->nprograms > 1) {
		count(sb, e->nprograms, "program");
		strbuf_addstr(sb, ", ");
	}
	count(sb, nprocs, "process");
	strbuf_addstr(sb, ", ");
	count(sb, e->nthreads, "thread");
}

FILE *report_open(const char *path)
{
	return outfile_open(path);
}

/* Is metric m, with a total of 0, one a capability leaves out (a kind of
 * synchronization the program did not use)? */
static int hidden(void *const *cap, size_t m)
{
	size_t c;

	for (c = 0; c < NCAPS; c++)
		if (prof_capabilities[c]->report_hides &&
		    prof_capabilities[c]->report_hides(cap[c], m))
			return 1;
	return 0;
}

/*
 * The kernel's share of the CPU time, as the logs gave it (hpcrun(5), The
 * log), when it is at least 5% and 10 ms (hpcrun says it then too):
 * counted under the calls that entered the kernel, or not measured, and
 * why.
 */
static void kernel_time(FILE *f, const struct experiment *e)
{
	uint64_t all = e->cpu_user_ns + e->cpu_system_ns;
	uint64_t lost = e->kernel_unmeasured_ns;
	uint64_t sys = lost ? lost : e->cpu_system_ns;

	if (sys < 10000000 || sys * 100 < all * 5)
		return;
	fprintf(f, "kernel time: %.0f%% of CPU time was in the kernel (%.*f s "
		"of system time), ", 100.0 * (double)sys / (double)all,
		sys < 995000000 ? 2 : 1, (double)sys * 1e-9);
	if (lost)
		fprintf(f, "not measured: %s; see hpcrun(1)\n",
			e->kernel_why[0] ? e->kernel_why : "not counted");
	else
		fprintf(f, "measured under the calls that entered it (%" PRIu64
			" samples with a kernel leaf)\n", e->samples_kernel);
}

int report_write(const struct experiment *e, void *const *cap, FILE *f,
		 const char *path, size_t top)
{
	struct strbuf sb = STRBUF_INIT;
	size_t m, c;

	report_counts(e, &sb);
	fprintf(f, "hpcprof report: %s, %s\n", e->program ? e->program : "?",
		sb.buf);
	if (e->samples_in_hpcrun)
		fprintf(f, "hpcrun's own cost: %.2f%% of the samples (%" PRIu64
			" of %" PRIu64 ") were taken in hpcrun's code and are "
			"not in this profile\n",
			e->samples_taken ? 100.0 * (double)e->samples_in_hpcrun /
					   (double)e->samples_taken : 100.0,
			e->samples_in_hpcrun, e->samples_taken);
	kernel_time(f, e);
	if (e->samples_partial)
		fprintf(f, "partial call paths: %" PRIu64 " samples (%.2f%%) "
			"could not be unwound to their start and are under "
			"'" PARTIAL_ROOT_NAME "'\n", e->samples_partial,
			e->samples_recorded ? 100.0 * (double)e->samples_partial /
					      (double)e->samples_recorded : 100.0);
	strbuf_reset(&sb);
	for (m = 0; m < mix_measured(&e->metrics); m++) {
		const struct raw_metric *r = &e->metrics.raw[m];
		double total = accum_sum(e->root->acc, m, 0);
		struct shown s;

		if (total == 0 && hidden(cap, m))
			continue;
		s.u = units_of(r->name, r->description, (double)r->period,
			       "raw");
		units_heading(metrics_raw_label(&e->metrics, m), s.u, &sb);
		s.label = sb.buf;
		fprintf(f, "\nMetric %s: total %.6g\n", s.label,
			total * s.u.scale);
		if (e->nprograms > 1)
			programs(f, e, m, &s, total);
		table(f, e, m, &s, NODE_PROC, top, total);
		mix_table(f, e, m, &s, top);
		table(f, e, m, &s, NODE_LOOP, top, total);
		table(f, e, m, &s, NODE_STMT, top, total);
		for (c = 0; c < NCAPS; c++)
			if (prof_capabilities[c]->report_metric)
				prof_capabilities[c]->report_metric(
					f, e, m, s.label, s.u.scale, top);
		strbuf_reset(&sb);
	}
	strbuf_release(&sb);
	for (c = NCAPS; c-- > 0;)
		if (prof_capabilities[c]->report)
			prof_capabilities[c]->report(cap[c], e, f, top);
	return report_close(f, path);
}

int report_close(FILE *f, const char *path)
{
	int ret = 0;

	if (!f)
		return 0;
	if (fflush(f) || ferror(f))
		ret = hpc_seterr("'%s': write error: %s", path,
				 strerror(errno));
	if (f != stdout && fclose(f) && !ret)
		ret = hpc_seterr("'%s': %s", path, strerror(errno));
	return ret;
}
