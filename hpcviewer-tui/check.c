/*
 * check.c - the invariants of check.h, each a pass over the model or one
 * view, in time linear in the database.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dataview.h"
#include "error.h"
#include "hashmap.h"
#include "strbuf.h"

/* Broken invariants shown before the rest are only counted. */
#define CHECK_SHOWN 10
/* Bottom-up instances built below level 1: at most this many per scope. */
#define CHECK_INST_PER_SCOPE 8
/* hpcrun's own module, and the share of the total it may hold (inv. 6). */
#define CHECK_OWN_MODULE "libhpcrun.so"
#define CHECK_OWN_SHARE 0.005

struct pair {
	size_t inc, exc;	/* metric indices */
};

struct checker {
	struct browser *b;
	const struct model *m;
	FILE *out;
	struct pair *pairs;
	size_t npairs;
	size_t broken;
	struct strbuf label;
};

/* The allowed rounding error for values of the pair's metric. */
static double slack(const struct checker *c, const struct pair *p)
{
	return 1e-6 * fabs(c->m->total[p->inc]) + 1e-12;
}

static void report(struct checker *c, const char *where, const char *fmt, ...)
	HPC_PRINTF(3, 4);

static void report(struct checker *c, const char *where, const char *fmt, ...)
{
	va_list ap;

	if (c->broken++ >= CHECK_SHOWN)
		return;
	fprintf(c->out, "'%s': %s: ", c->m->dbdir, where);
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fputc('\n', c->out);
}

/* The label of node n in c->label, for messages. */
static const char *label_of(struct checker *c, struct view *v, uint32_t n)
{
	strbuf_reset(&c->label);
	view_label(v, n, &c->label);
	return c->label.buf;
}

/* Invariant 2 on node n of view v. */
static void check_row(struct checker *c, struct view *v, uint32_t n)
{
	size_t k;

	for (k = 0; k < c->npairs; k++) {
		const struct pair *p = &c->pairs[k];
		double i = view_metric_value(v, n, p->inc);
		double e = view_metric_value(v, n, p->exc);

		if (i < e - slack(c, p)) {
			char where[64];

			snprintf(where, sizeof(where), "%s view",
				 view_name(v->kind));
			report(c, where, "'%s': %s %g is below %s %g",
			       label_of(c, v, n), c->m->metrics[p->inc].name, i,
			       c->m->metrics[p->exc].name, e);
		}
	}
}

/* Invariants 3 and 4 at level 1 of v: no row's I above the total, the
 * rows' E adding up to it. */
static void check_level1(struct checker *c, struct view *v)
{
	uint32_t nk, i;
	const uint32_t *kids = view_children(v, 0, &nk);
	double *sum = xcalloc(c->npairs + 1, sizeof(*sum));
	char where[64];
	size_t k;

	snprintf(where, sizeof(where), "%s view", view_name(v->kind));
	for (i = 0; i < nk; i++) {
		for (k = 0; k < c->npairs; k++) {
			const struct pair *p = &c->pairs[k];
			double x = view_metric_value(v, kids[i], p->inc);

			sum[k] += view_metric_value(v, kids[i], p->exc);
			if (x > c->m->total[p->inc] + slack(c, p))
				report(c, where, "'%s': %s %g is above the "
				       "total %g", label_of(c, v, kids[i]),
				       c->m->metrics[p->inc].name, x,
				       c->m->total[p->inc]);
		}
	}
	for (k = 0; k < c->npairs; k++) {
		const struct pair *p = &c->pairs[k];

		if (fabs(sum[k] - c->m->total[p->exc]) > slack(c, p))
			report(c, where, "%s adds up to %g, not the total %g",
			       c->m->metrics[p->exc].name, sum[k],
			       c->m->total[p->exc]);
	}
	free(sum);
}

/* Adds the values of the pairs' inclusive metrics at node n of v to
 * sum[]. */
static void add_inclusive(const struct checker *c, struct view *v,
			  uint32_t n, double *sum)
{
	size_t k;

	for (k = 0; k < c->npairs; k++)
		sum[k] += view_metric_value(v, n, c->pairs[k].inc);
}

/* Invariant 1, on the top-down view's level 1 as it is shown. */
static void check_totals(struct checker *c)
{
	const struct model *m = c->m;
	struct view *v = browser_view(c->b, VIEW_TOP_DOWN);
	double *code = xcalloc(c->npairs + 1, sizeof(*code));
	double *phases = xcalloc(c->npairs + 1, sizeof(*phases));
	double *row = xcalloc(c->npairs + 1, sizeof(*row));
	const uint32_t *kids, *pk;
	uint32_t nk, np, i, j;
	size_t k;

	kids = view_children(v, 0, &nk);
	for (i = 0; i < nk; i++) {
		if (v->nodes[kids[i]].kind != SK_PHASES) {
			add_inclusive(c, v, kids[i], code);
			continue;
		}
		add_inclusive(c, v, kids[i], row);
		pk = view_children(v, kids[i], &np);
		for (j = 0; j < np; j++)
			add_inclusive(c, v, pk[j], phases);
	}
	for (k = 0; k < c->npairs; k++) {
		const struct pair *p = &c->pairs[k];
		const char *name = m->metrics[p->inc].name;
		double t = m->total[p->inc], e = slack(c, p);

		if (fabs(code[k] - t) > e)
			report(c, "top-down view", "the root's children add up "
			       "to %s %g, not the total %g", name, code[k], t);
		if (row[k] != 0)
			report(c, "top-down view", "the per-phase profiles' "
			       "row holds %s %g, not nothing", name, row[k]);
		if (phases[k] > t + e)
			report(c, "top-down view", "the per-phase profiles add "
			       "up to %s %g, above the total %g", name,
			       phases[k], t);
		if (fabs(m->total[p->exc] - t) > e)
			report(c, "totals", "%s %g is not %s %g",
			       m->metrics[p->exc].name, m->total[p->exc],
			       name, t);
		if (m->data_root != MODEL_NONE &&
		    model_value(m, m->data_root, p->inc) > t + e)
			report(c, "data view", "the root's %s %g is above the "
			       "total %g", name,
			       model_value(m, m->data_root, p->inc), t);
	}
	free(code);
	free(phases);
	free(row);
}

/* Invariant 2 in the top-down view: its nodes hold their scopes' values
 * (views.h invariant 3), so the model's code scopes are its rows. */
static void check_top_down(struct checker *c)
{
	struct view *v = browser_view(c->b, VIEW_TOP_DOWN);
	const struct model *m = c->m;
	size_t s, k;

	for (s = 1; s < m->nscopes; s++) {
		for (k = 0; k < c->npairs; k++) {
			const struct pair *p = &c->pairs[k];
			double i = model_value(m, (uint32_t)s, p->inc);
			double e = model_value(m, (uint32_t)s, p->exc);

			if (i < e - slack(c, p)) {
				strbuf_reset(&c->label);
				view_scope_label(v, (uint32_t)s, &c->label);
				report(c, "top-down view", "'%s': %s %g is "
				       "below %s %g", c->label.buf,
				       m->metrics[p->inc].name, i,
				       m->metrics[p->exc].name, e);
			}
		}
	}
}

/* Invariants 2 and 3 in the flat view, built whole at creation. */
static void check_flat(struct checker *c)
{
	struct view *v = browser_view(c->b, VIEW_FLAT);
	size_t n;

	for (n = 1; n < v->nnodes; n++)
		check_row(c, v, (uint32_t)n);
	check_level1(c, v);
}

/* Invariants 2 and 4 in the bottom-up view: level by level while the
 * instances stay under the bound of check.h. */
static void check_bottom_up(struct checker *c)
{
	struct view *v = browser_view(c->b, VIEW_BOTTOM_UP);
	size_t bound = CHECK_INST_PER_SCOPE * c->m->nscopes + 4096;
	uint32_t *queue = NULL, nk, i;
	size_t head = 0, nq = 0, alloc = 0, k;

	check_level1(c, v);
	HPC_GROW(queue, 1, alloc);
	queue[nq++] = 0;
	while (head < nq && v->ninst <= bound) {
		uint32_t n = queue[head++];
		const uint32_t *kids = view_children(v, n, &nk);

		for (i = 0; i < nk; i++) {
			uint32_t x = kids[i];

			check_row(c, v, x);
			for (k = 0; k < c->npairs && n; k++) {
				const struct pair *p = &c->pairs[k];
				double e = slack(c, p);

				if (view_metric_value(v, x, p->inc) >
				    view_metric_value(v, n, p->inc) + e ||
				    view_metric_value(v, x, p->exc) >
				    view_metric_value(v, n, p->exc) + e)
					report(c, "bottom-up view", "caller "
					       "'%s': %s or %s above its "
					       "callee's",
					       label_of(c, v, x),
					       c->m->metrics[p->inc].name,
					       c->m->metrics[p->exc].name);
			}
			HPC_GROW(queue, nq + 1, alloc);
			queue[nq++] = x;
		}
	}
	free(queue);
}

struct proc_key {
	uint32_t name, file, lm;
};

/* The procedure's index in keys (added when new). */
static size_t proc_index(struct hmap *keys, uint32_t name, uint32_t file,
			 uint32_t lm)
{
	struct proc_key k;
	void *p;

	memset(&k, 0, sizeof(k));
	k.name = name;
	k.file = file;
	k.lm = lm;
	p = hmap_get(keys, &k, sizeof(k));
	if (!p) {
		p = (void *)(uintptr_t)(hmap_count(keys) + 1);
		hmap_put(keys, &k, sizeof(k), p);
	}
	return (size_t)((uintptr_t)p - 1);
}

/* Invariant 5: per procedure and pair, E in the top-down (summed over the
 * frames outside per-phase profiles), functions and flat views. */
static void check_procedures(struct checker *c)
{
	const struct model *m = c->m;
	struct view *fv = browser_view(c->b, VIEW_FUNCTIONS);
	struct view *flat = browser_view(c->b, VIEW_FLAT);
	struct hmap *keys = hmap_new();
	size_t np = c->npairs, nprocs = 0, alloc = 0, s, k, n;
	double *e[3];			/* top-down, functions, flat */
	uint32_t nk, i, *who = NULL;	/* a frame of each procedure */
	const uint32_t *kids;
	static const char *const view_of[3] = {
		"top-down", "functions", "flat",
	};

	for (s = 1; s < m->nscopes; s++) {
		if (!model_is_frame(m, (uint32_t)s) || m->scopes[s].phase ||
		    proc_index(keys, m->scopes[s].name, m->scopes[s].file,
			       m->scopes[s].lm) < nprocs)
			continue;
		HPC_GROW(who, nprocs + 1, alloc);
		who[nprocs++] = (uint32_t)s;
	}
	for (k = 0; k < 3; k++)
		e[k] = xcalloc(nprocs * np + 1, sizeof(double));
	for (s = 1; s < m->nscopes; s++) {
		if (!model_is_frame(m, (uint32_t)s) || m->scopes[s].phase)
			continue;
		n = proc_index(keys, m->scopes[s].name, m->scopes[s].file,
			       m->scopes[s].lm);
		for (k = 0; k < np; k++)
			e[0][n * np + k] += model_value(m, (uint32_t)s,
							c->pairs[k].exc);
	}
	kids = view_children(fv, 0, &nk);
	for (i = 0; i < nk; i++) {
		const struct scope *sc = &m->scopes[fv->nodes[kids[i]].scope];

		n = proc_index(keys, sc->name, sc->file, sc->lm);
		for (k = 0; k < np && n < nprocs; k++)
			e[1][n * np + k] += view_metric_value(fv, kids[i],
							      c->pairs[k].exc);
	}
	for (i = 1; i < flat->nnodes; i++) {
		const struct vnode *nd = &flat->nodes[i];
		uint32_t lm;

		if (nd->kind != SK_PROC)
			continue;
		lm = flat->nodes[flat->nodes[nd->parent].parent].name;
		n = proc_index(keys, nd->name, nd->file, lm);
		for (k = 0; k < np && n < nprocs; k++)
			e[2][n * np + k] += view_metric_value(flat, i,
							      c->pairs[k].exc);
	}
	if (hmap_count(keys) > nprocs)
		report(c, "functions or flat view", "%zu procedures that the "
		       "top-down view does not have",
		       hmap_count(keys) - nprocs);
	for (n = 0; n < nprocs; n++) {
		for (k = 0; k < np; k++) {
			double t = e[0][n * np + k];
			size_t j;

			for (j = 1; j < 3; j++) {
				if (fabs(e[j][n * np + k] - t) <=
				    slack(c, &c->pairs[k]))
					continue;
				strbuf_reset(&c->label);
				view_scope_label(fv, who[n], &c->label);
				report(c, "procedures", "'%s': %s %g in the %s "
				       "view, %g in the %s view", c->label.buf,
				       m->metrics[c->pairs[k].exc].name,
				       e[j][n * np + k], view_of[j], t,
				       view_of[0]);
			}
		}
	}
	for (k = 0; k < 3; k++)
		free(e[k]);
	free(who);
	hmap_free(keys);
}

/* Invariant 6: the flat view's row of hpcrun's module, and every data
 * object naming it, at most CHECK_OWN_SHARE of the total. */
static void check_own(struct checker *c)
{
	struct view *v = browser_view(c->b, VIEW_FLAT);
	const struct model *m = c->m;
	uint32_t nk, i;
	const uint32_t *kids = view_children(v, 0, &nk);
	size_t s, k;

	for (k = 0; k < c->npairs; k++) {
		const struct pair *p = &c->pairs[k];
		double most = CHECK_OWN_SHARE * fabs(m->total[p->inc]) +
			      slack(c, p);

		for (i = 0; i < nk; i++) {
			double x = view_metric_value(v, kids[i], p->inc);

			if (x > most &&
			    !strcmp(label_of(c, v, kids[i]), CHECK_OWN_MODULE))
				report(c, "flat view", "'%s': %s %g is above "
				       "%g%% of the total %g: hpcrun's own "
				       "frames", CHECK_OWN_MODULE,
				       m->metrics[p->inc].name, x,
				       100 * CHECK_OWN_SHARE, m->total[p->inc]);
		}
		if (m->data_root == MODEL_NONE)
			continue;
		for (s = m->data_root; s < m->nscopes_all; s++) {
			double x = model_value(m, (uint32_t)s, p->inc);

			if (x <= most || !dataview_is_object(m->scopes[s].kind))
				continue;
			strbuf_reset(&c->label);
			dataview_label(m, (uint32_t)s, &c->label);
			if (strstr(c->label.buf, "[" CHECK_OWN_MODULE "]"))
				report(c, "data view", "'%s': %s %g is above "
				       "%g%% of the total %g: hpcrun's own "
				       "object", c->label.buf,
				       m->metrics[p->inc].name, x,
				       100 * CHECK_OWN_SHARE, m->total[p->inc]);
		}
	}
}

size_t check_views(struct browser *b, FILE *out)
{
	struct checker c;
	size_t i, alloc = 0;

	memset(&c, 0, sizeof(c));
	c.b = b;
	c.m = b->m;
	c.out = out;
	strbuf_init(&c.label);
	for (i = 0; i < c.m->nmetrics; i++) {
		const struct model_metric *mi = &c.m->metrics[i];
		int p = mi->partner;

		if (mi->type != MT_INCLUSIVE || !mi->additive || p < 0 ||
		    c.m->metrics[p].type != MT_EXCLUSIVE ||
		    !c.m->metrics[p].additive)
			continue;
		HPC_GROW(c.pairs, c.npairs + 1, alloc);
		c.pairs[c.npairs].inc = i;
		c.pairs[c.npairs++].exc = (size_t)p;
	}
	if (c.npairs) {
		check_totals(&c);
		check_top_down(&c);
		check_flat(&c);
		check_bottom_up(&c);
		check_level1(&c, browser_view(b, VIEW_FUNCTIONS));
		check_procedures(&c);
		check_own(&c);
	}
	if (c.broken > CHECK_SHOWN)
		fprintf(out, "'%s': %zu more\n", c.m->dbdir,
			c.broken - CHECK_SHOWN);
	free(c.pairs);
	strbuf_release(&c.label);
	return c.broken;
}
