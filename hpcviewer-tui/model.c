/*
 * model.c - stream experiment.xml (libxml2 xmlTextReader) into the compact
 * scope tree of model.h.
 *
 * The file is read by the policy of xmlread.h (a regular file, nothing
 * fetched, no entity expanded, elements at most 2^20 deep); the first
 * error stops the load with "'FILE': line N: message".  Only the
 * first profile section is loaded (a SecCallPathProfile when present before
 * any other); later sections are skipped.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "formula.h"
#include "hashmap.h"
#include "infile.h"
#include "dataview.h"
#include "model.h"
#include "strbuf.h"
#include "textrec.h"
#include "threadname.h"
#include "xmlread.h"

struct loader {
	struct model *m;
	struct xmlread *x;
	xmlTextReaderPtr r;		/* x->r */
	const char *file;
	struct hmap *metric_ids;	/* Metric i -> index + 1 */
	struct hmap *lm_tab, *file_tab, *proc_tab;	/* i -> strs index + 1 */
	struct hmap *root_procs;	/* i of Procedures with f="2" -> 1 */
	uint32_t *stack;		/* open scopes */
	uint32_t *last;			/* last child of each open scope */
	uint32_t root_last;
	size_t depth, stack_alloc;
	int loaded;			/* a data section has been read */
	int have_root_vals;		/* <M> directly in the data section */
	char **view_frm;		/* [nmetrics]: MetricFormula t="view" */
	size_t view_frm_alloc;
};

static uint32_t intern(struct model *m, const char *s)
{
	void *v = hmap_get_str(m->str_index, s);

	if (v)
		return (uint32_t)((uintptr_t)v - 1);
	HPC_GROW(m->strs, m->nstrs + 1, m->strs_alloc);
	m->strs[m->nstrs] = xstrdup(s);
	hmap_put_str(m->str_index, s, (void *)(uintptr_t)(m->nstrs + 1));
	return (uint32_t)m->nstrs++;
}

static uint32_t new_scope(struct model *m, uint32_t parent, int kind)
{
	struct scope *s;
	uint32_t idx = (uint32_t)m->nscopes;

	HPC_GROW(m->scopes, m->nscopes + 1, m->scopes_alloc);
	s = &m->scopes[m->nscopes++];
	memset(s, 0, sizeof(*s));
	s->parent = parent;
	s->first_child = s->next_sibling = MODEL_NONE;
	s->kind = (uint8_t)kind;
	s->val_start = (uint32_t)m->nvals;
	return idx;
}

/* The attribute value, or NULL; valid until the reader moves on. */
static const char *attr(struct loader *ld, const char *name)
{
	return xmlread_attr(ld->x, name);
}

static int loader_err(struct loader *ld, const char *fmt, const char *arg)
{
	return xmlread_fail(ld->x, NULL, fmt, arg);
}

/* Resolves a name that may be an id in a header table. */
static uint32_t resolve(struct loader *ld, struct hmap *tab, const char *v)
{
	void *p;

	if (!v)
		return 0;
	p = hmap_get_str(tab, v);
	if (p)
		return (uint32_t)((uintptr_t)p - 1);
	return intern(ld->m, v);
}

static int table_entry(struct loader *ld, struct hmap *tab)
{
	const char *i = attr(ld, "i");
	uint32_t s;

	if (!i)
		return loader_err(ld, "%s without an 'i' attribute",
				  (const char *)xmlTextReaderConstName(ld->r));
	s = intern(ld->m, attr(ld, "n") ? attr(ld, "n") : "");
	hmap_put_str(tab, i, (void *)(uintptr_t)(s + 1));
	return 0;
}

/* model.h, struct model_metric: is a metric of this name and description
 * a percentage ("...fp_share (I)" of "100 * {A} / {B}", "DATA:remote%")? */
static int is_percent(const char *name, const char *md)
{
	return (md && !strncmp(md, "100 *", 5)) || strchr(name, '%');
}

/* -2 - the id a partner attribute names, or -1 for none. */
static int partner_id(const char *v)
{
	char *end;
	long id;

	if (!v)
		return -1;
	errno = 0;
	id = strtol(v, &end, 10);
	return errno || end == v || *end || id < 0 || id > INT_MAX - 2 ? -1 :
	       -2 - (int)id;
}

static int metric_entry(struct loader *ld)
{
	struct model *m = ld->m;
	struct model_metric *mm;
	const char *i = attr(ld, "i"), *n = attr(ld, "n"), *t, *v;
	size_t alloc = m->nmetrics;

	if (!i || !n)
		return loader_err(ld, "%s without 'i' or 'n'", "Metric");
	if (hmap_get_str(ld->metric_ids, i))
		return loader_err(ld, "metric id '%s' defined twice", i);
	HPC_GROW(m->metrics, m->nmetrics + 1, alloc);
	mm = &m->metrics[m->nmetrics];
	mm->name = xstrdup(n);
	mm->id = xstrdup(i);
	t = attr(ld, "t");
	mm->type = !t ? MT_NIL : !strcmp(t, "inclusive") ? MT_INCLUSIVE :
		   !strcmp(t, "exclusive") ? MT_EXCLUSIVE : MT_NIL;
	/* partner holds an id for now, -2 - id; resolved after the table (an
	 * id that is not a metric's, or no number, is no partner) */
	mm->partner = partner_id(attr(ld, "partner"));
	v = attr(ld, "show");
	mm->show = v ? atoi(v) : 1;
	v = attr(ld, "show-percent");
	mm->show_percent = v ? atoi(v) : 1;
	/* Statistics (v="final", "derived") are not sums of their parts. */
	v = attr(ld, "v");
	mm->additive = !v || !strcmp(v, "raw") || !strcmp(v, "derived-incr");
	mm->percent = is_percent(mm->name, attr(ld, "md"));
	t = attr(ld, "ep");
	mm->unit = units_of(mm->name, attr(ld, "md"),
			    t ? strtod(t, NULL) : 1, v);
	mm->view = NULL;
	hmap_put_str(ld->metric_ids, i, (void *)(uintptr_t)(m->nmetrics + 1));
	HPC_GROW(ld->view_frm, m->nmetrics + 1, ld->view_frm_alloc);
	ld->view_frm[m->nmetrics] = NULL;
	m->nmetrics++;
	return 0;
}

/* A MetricFormula inside the last Metric: keeps the view formula's text. */
static int metric_formula(struct loader *ld)
{
	const char *t = attr(ld, "t"), *frm = attr(ld, "frm");
	size_t last = ld->m->nmetrics - 1;

	if (!ld->m->nmetrics || !t || !frm || strcmp(t, "view"))
		return 0;
	free(ld->view_frm[last]);
	ld->view_frm[last] = xstrdup(frm);
	return 0;
}

/* formula_resolver: "$ID" is the metric whose i is ID, when it is
 * additive (a sum over scopes). */
static struct formula *resolve_additive(void *arg, const char *name)
{
	struct loader *ld = arg;
	void *p = name[0] == '$' ? hmap_get_str(ld->metric_ids, name + 1) :
		  NULL;
	size_t mi;

	if (!p)
		return NULL;
	mi = (size_t)((uintptr_t)p - 1);
	return ld->m->metrics[mi].additive ? formula_raw(mi) : NULL;
}

/* struct model_metric view: the view formulas of derived metrics that
 * views summing scopes can compute; one they cannot (a statistic named, a
 * grammar this reader does not know) leaves those rows without a value. */
static void parse_view_formulas(struct loader *ld)
{
	struct model *m = ld->m;
	size_t i;

	for (i = 0; i < m->nmetrics; i++) {
		if (m->metrics[i].additive || !ld->view_frm[i])
			continue;
		m->metrics[i].view = formula_parse(ld->view_frm[i],
						   resolve_additive, ld);
	}
}

static void resolve_partners(struct loader *ld)
{
	struct model *m = ld->m;
	size_t i;
	char buf[32];

	for (i = 0; i < m->nmetrics; i++) {
		void *p;

		if (m->metrics[i].partner == -1)
			continue;
		snprintf(buf, sizeof(buf), "%d", -2 - m->metrics[i].partner);
		p = hmap_get_str(ld->metric_ids, buf);
		m->metrics[i].partner = p ? (int)((uintptr_t)p - 1) : -1;
	}
}

static int add_value(struct loader *ld)
{
	struct model *m = ld->m;
	const char *n = attr(ld, "n"), *v = attr(ld, "v");
	uint32_t s = ld->depth ? ld->stack[ld->depth - 1] : 0;
	struct scope *sc = &m->scopes[s];
	void *mi;
	char *end;
	double d;

	if (!n || !v)
		return loader_err(ld, "%s without 'n' or 'v'", "M");
	mi = hmap_get_str(ld->metric_ids, n);
	if (!mi)
		return loader_err(ld, "value for undefined metric '%s'", n);
	errno = 0;
	d = strtod(v, &end);
	if (end == v || *end || errno == ERANGE)
		return loader_err(ld, "bad metric value '%s'", v);
	if (!ld->depth)
		ld->have_root_vals = 1;
	if (sc->val_start + sc->nval != m->nvals) {
		/* values after child scopes: move this scope's run to the end */
		uint32_t k, start = (uint32_t)m->nvals;

		HPC_GROW(m->vals, m->nvals + sc->nval, m->vals_alloc);
		for (k = 0; k < sc->nval; k++)
			m->vals[m->nvals++] = m->vals[sc->val_start + k];
		sc->val_start = start;
	}
	if (sc->nval == UINT16_MAX)
		return loader_err(ld, "too many values for one scope%s", "");
	HPC_GROW(m->vals, m->nvals + 1, m->vals_alloc);
	/* in database units until finish_values() */
	m->vals[m->nvals].metric = (uint32_t)((uintptr_t)mi - 1);
	m->vals[m->nvals].v = d;
	m->nvals++;
	sc->nval++;
	return 0;
}

static int scope_kind_of(const char *el, struct loader *ld)
{
	if (!strcmp(el, "PF") || !strcmp(el, "P"))
		return SK_PROC;
	if (!strcmp(el, "Pr")) {
		const char *a = attr(ld, "a");
		return a && !strcmp(a, "1") ? SK_INLINE : SK_PROC;
	}
	if (!strcmp(el, "A")) {
		const char *n = attr(ld, "n");
		return n && *n ? SK_INLINE : SK_ALIEN_SITE;
	}
	if (!strcmp(el, "L"))
		return SK_LOOP;
	if (!strcmp(el, "S"))
		return SK_STMT;
	if (!strcmp(el, "C"))
		return SK_CALL;
	if (!strcmp(el, "F"))
		return SK_FILE;
	if (!strcmp(el, "LM"))
		return SK_MODULE;
	return -1;
}

/* The first address in a v attribute ("0x4f0", or HPCToolkit's
 * "{[0x4f0-0x4f8)}"), 0 when there is none or it does not fit. */
static uint32_t scope_addr(const char *v)
{
	const char *x = v ? strstr(v, "0x") : NULL;
	unsigned long long a = x ? strtoull(x, NULL, 16) : 0;

	return a <= UINT32_MAX ? (uint32_t)a : 0;
}

static int open_scope(struct loader *ld, int kind)
{
	struct model *m = ld->m;
	uint32_t parent = ld->depth ? ld->stack[ld->depth - 1] : 0;
	uint32_t idx = new_scope(m, parent, kind), prev;
	struct scope *s = &m->scopes[idx], *p = &m->scopes[parent];
	const char *n = attr(ld, "n"), *f = attr(ld, "f"), *lm = attr(ld, "lm");
	const char *l = attr(ld, "l");

	if (kind == SK_PROC || kind == SK_INLINE)
		s->name = resolve(ld, ld->proc_tab, n);
	else if (kind == SK_FILE) {
		s->name = resolve(ld, ld->file_tab, n);
		f = n;
	} else if (kind == SK_MODULE) {
		s->name = resolve(ld, ld->lm_tab, n);
		lm = n;
	} else if (n)
		s->name = intern(m, n);
	s->file = f ? resolve(ld, ld->file_tab, f) : p->file;
	s->lm = lm ? resolve(ld, ld->lm_tab, lm) : p->lm;
	s->line = l ? (uint32_t)strtoul(l, NULL, 10) : 0;
	s->addr = scope_addr(attr(ld, "v"));
	if (attr(ld, "i"))
		s->id = (uint32_t)strtoul(attr(ld, "i"), NULL, 10);
	if (!ld->depth && m->data_root != MODEL_NONE)
		return loader_err(ld, "%s", "a scope after the data tree (it "
				  "must be the last top-level PF)");
	if (!ld->depth && kind == SK_PROC && n &&
	    hmap_get_str(ld->root_procs, n)) {
		/* invariant 7: not linked below the root */
		s->kind = SK_DATA;
		m->data_root = idx;
		goto opened;
	}
	/* append as the last child (tails kept beside the open-scope stack) */
	prev = ld->depth ? ld->last[ld->depth - 1] : ld->root_last;
	if (prev == MODEL_NONE)
		p->first_child = idx;
	else
		m->scopes[prev].next_sibling = idx;
	if (ld->depth)
		ld->last[ld->depth - 1] = idx;
	else
		ld->root_last = idx;
opened:
	if (ld->depth + 1 > ld->stack_alloc) {
		size_t alloc = ld->stack_alloc;

		HPC_GROW(ld->stack, ld->depth + 1, ld->stack_alloc);
		HPC_GROW(ld->last, ld->depth + 1, alloc);
	}
	ld->stack[ld->depth] = idx;
	ld->last[ld->depth++] = MODEL_NONE;
	return 0;
}

static int check_version(struct loader *ld)
{
	const char *v = attr(ld, "version");
	char *end;
	long major;

	if (!v)
		return loader_err(ld, "%s", "HPCToolkitExperiment without a version");
	major = strtol(v, &end, 10);
	if (end == v || major != 2 || (*end && *end != '.'))
		return loader_err(ld, "experiment version %s is not supported "
				  "(expected 2.x)", v);
	return 0;
}

/* Data section element: a scope or a value. */
static int data_element(struct loader *ld, const char *el, int empty)
{
	int kind;

	if (!strcmp(el, "M"))
		return add_value(ld);
	kind = scope_kind_of(el, ld);
	if (kind < 0)
		return loader_err(ld, "unexpected element <%s> in profile data", el);
	if (open_scope(ld, kind) < 0)
		return -1;
	if (empty)
		ld->depth--;
	return 0;
}

static int header_element(struct loader *ld, const char *el)
{
	if (!strcmp(el, "Metric"))
		return metric_entry(ld);
	if (!strcmp(el, "MetricFormula"))
		return metric_formula(ld);
	if (!strcmp(el, "LoadModule"))
		return table_entry(ld, ld->lm_tab);
	if (!strcmp(el, "File"))
		return table_entry(ld, ld->file_tab);
	if (!strcmp(el, "Procedure")) {
		const char *f = attr(ld, "f"), *i = attr(ld, "i");

		if (f && i && !strcmp(f, "2"))
			hmap_put_str(ld->root_procs, i, (void *)1);
		return table_entry(ld, ld->proc_tab);
	}
	return 0;
}

enum lstate { L_START, L_DOC, L_SECTION, L_DATA };

static int run_reader(struct loader *ld)
{
	enum lstate st = L_START;
	int ret;
	size_t data_depth = 0;

	while ((ret = xmlread_next(ld->x)) == 1) {
		int type = xmlTextReaderNodeType(ld->r);
		const char *el = (const char *)xmlTextReaderConstName(ld->r);
		int empty = xmlTextReaderIsEmptyElement(ld->r);

		if (type == XML_READER_TYPE_END_ELEMENT) {
			if (st == L_DATA) {
				if (ld->depth > data_depth)
					ld->depth--;
				else
					st = L_SECTION;
			} else if (st == L_SECTION &&
				   (!strcmp(el, "SecCallPathProfile") ||
				    !strcmp(el, "SecFlatProfile"))) {
				st = L_DOC;
			}
			continue;
		}
		if (type != XML_READER_TYPE_ELEMENT)
			continue;
		switch (st) {
		case L_START:
			if (strcmp(el, "HPCToolkitExperiment"))
				return loader_err(ld, "root element <%s> is not "
						  "<HPCToolkitExperiment>", el);
			if (check_version(ld) < 0)
				return -1;
			st = L_DOC;
			break;
		case L_DOC:
			if (!strcmp(el, "Header")) {
				const char *n = attr(ld, "n");
				if (n && !ld->m->title)
					ld->m->title = xstrdup(n);
			} else if (!strcmp(el, "SecCallPathProfile") ||
				   !strcmp(el, "SecFlatProfile")) {
				if (ld->loaded) {
					if (xmlread_skip(ld->x) < 0)
						return -1;
					/* Next() moved to the following node;
					 * process it on the next Read(). */
					continue;
				}
				if (!empty)
					st = L_SECTION;
			}
			break;
		case L_SECTION:
			if (!strcmp(el, "SecCallPathProfileData") ||
			    !strcmp(el, "SecFlatProfileData")) {
				ld->loaded = 1;
				resolve_partners(ld);
				parse_view_formulas(ld);
				data_depth = 0;
				ld->depth = 0;
				if (!empty)
					st = L_DATA;
			} else if (header_element(ld, el) < 0) {
				return -1;
			}
			break;
		case L_DATA:
			if (data_element(ld, el, empty) < 0)
				return -1;
			break;
		}
	}
	if (ret < 0)
		return -1;
	if (st == L_START)
		return loader_err(ld, "%s", "empty document");
	if (!ld->loaded)
		return loader_err(ld, "%s", "no profile section in the experiment");
	return 0;
}

static double dense_value(void *arg, size_t met)
{
	return ((const double *)arg)[met];
}

/*
 * Invariant 4, once every value is read: each scope gets the values of
 * the derived metrics with a view formula that the database leaves out
 * (hpcprof writes a derived metric once, as its formula, hpcprof-database(5))
 * from the scope's own values, as hpcprof computes them (the formula over
 * database units: the same double); a value the database holds is kept.
 * Then every value is scaled to its shown unit.
 */
static int finish_values(struct loader *ld)
{
	struct model *m = ld->m;
	size_t nmet = m->nmetrics ? m->nmetrics : 1, s, met, nview = 0;
	double *dense = xcalloc(nmet, sizeof(*dense));
	unsigned char *has = xcalloc(nmet, 1);
	struct scope_val *out = NULL;
	size_t nout = 0, alloc = 0;
	int ret = 0;

	for (met = 0; met < m->nmetrics; met++)
		nview += m->metrics[met].view != NULL;
	for (s = 0; s < m->nscopes && !ret; s++) {
		struct scope *sc = &m->scopes[s];
		size_t start = nout, k;

		HPC_GROW(out, nout + sc->nval + nview, alloc);
		for (k = 0; k < sc->nval; k++) {
			const struct scope_val *v = &m->vals[sc->val_start + k];

			dense[v->metric] = v->v;
			has[v->metric] = 1;
			out[nout++] = *v;
		}
		for (met = 0; nview && sc->nval && met < m->nmetrics; met++) {
			double x;

			if (!m->metrics[met].view || has[met])
				continue;
			x = formula_eval(m->metrics[met].view, dense_value,
					 dense);
			if (x != 0 && isfinite(x))
				out[nout++] = (struct scope_val){
					(uint32_t)met, x };
		}
		for (k = 0; k < sc->nval; k++) {
			dense[m->vals[sc->val_start + k].metric] = 0;
			has[m->vals[sc->val_start + k].metric] = 0;
		}
		if (nout - start > UINT16_MAX)
			ret = loader_err(ld, "too many values for one scope%s",
					 "");
		sc->val_start = (uint32_t)start;
		sc->nval = (uint16_t)(nout - start);
	}
	free(dense);
	free(has);
	free(m->vals);
	m->vals = out;
	m->nvals = nout;
	m->vals_alloc = alloc;
	for (s = 0; s < nout; s++)
		out[s].v *= m->metrics[out[s].metric].unit.scale;
	return ret;
}

static void compute_totals(struct model *m, int have_root_vals)
{
	size_t i, s;
	uint32_t c;

	m->total = xcalloc(m->nmetrics ? m->nmetrics : 1, sizeof(double));
	for (i = 0; i < m->nmetrics; i++) {
		double t = 0;

		if (have_root_vals) {
			m->total[i] = model_value(m, 0, i);
			continue;
		}
		if (m->metrics[i].type != MT_EXCLUSIVE) {
			for (c = m->scopes[0].first_child; c != MODEL_NONE;
			     c = m->scopes[c].next_sibling)
				if (!m->scopes[c].phase)
					t += model_value(m, c, i);
		} else {
			for (s = 1; s < m->nscopes; s++)
				if (model_is_frame(m, (uint32_t)s) &&
				    !m->scopes[s].phase)
					t += model_value(m, (uint32_t)s, i);
		}
		m->total[i] = t;
	}
	/* an exclusive metric's total is its inclusive partner's */
	for (i = 0; i < m->nmetrics && !have_root_vals; i++) {
		int p = m->metrics[i].partner;

		if (m->metrics[i].type == MT_EXCLUSIVE && p >= 0 &&
		    m->metrics[p].type == MT_INCLUSIVE)
			m->total[i] = m->total[p];
	}
	/* a derived metric's total is its formula over the totals */
	for (i = 0; i < m->nmetrics && !have_root_vals; i++)
		if (m->metrics[i].view)
			m->total[i] = model_derive(m, i, m->total);
}

struct derive_at {
	const struct model *m;
	const double *vals;
};

/* The database value of metric raw (formulas are over database units). */
static double derive_raw(void *arg, size_t raw)
{
	const struct derive_at *at = arg;

	return at->vals[raw] / at->m->metrics[raw].unit.scale;
}

double model_derive(const struct model *m, size_t met, const double *vals)
{
	struct derive_at at = { m, vals };
	double x = formula_eval(m->metrics[met].view, derive_raw, &at);

	return isfinite(x) ? x * m->metrics[met].unit.scale : 0;
}

/* The file name of a path: "/usr/lib/libc.so.6" -> "libc.so.6". */
static const char *file_part(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Does a file name look like a shared object's ("libc.so.6",
 * "libm-2.31.so")? */
static int shared_object_name(const char *s)
{
	const char *so;

	for (so = strstr(s, ".so"); so; so = strstr(so + 1, ".so"))
		if (so[3] == '\0' || so[3] == '.')
			return 1;
	return 0;
}

/*
 * The library a procedure's name ends with, HPCToolkit's "NAME [LIBNAME]":
 * the length of NAME, or 0 when the name has no such suffix.  LIBNAME is
 * the module's file name, or a shared object's name without spaces (a
 * module measured through a symbolic link: libc.so.6 for libc-2.31.so);
 * demangled suffixes such as " [clone .cold]" are kept.  hpcprof's
 * names of code without a symbol ("<unknown> 0x1026 [prog]") name their
 * module whatever it is: their suffix goes only where the module is a
 * library by its file name, whose label shows it anyway, and marks
 * nothing.
 */
static size_t library_suffix(const char *name, const char *lmfile)
{
	size_t len = strlen(name);
	const char *open = strrchr(name, '[');
	char *lib;
	int ok;

	if (!open || open < name + 2 || open[-1] != ' ' || name[len - 1] != ']')
		return 0;
	lib = xstrndup(open + 1, (size_t)(name + len - 1 - (open + 1)));
	if (name[0] == '<')
		ok = !strcmp(lib, lmfile) && shared_object_name(lmfile);
	else
		ok = !strcmp(lib, lmfile) ||
		     (!strchr(lib, ' ') && shared_object_name(lib));
	free(lib);
	return ok ? (size_t)(open - 1 - name) : 0;
}

/*
 * Invariant 6: procedure frames keep their bare name, and a load module
 * is a library when its file name is a shared object's or a procedure's
 * name carried it as "NAME [LIBNAME]".
 */
static void library_names(struct model *m)
{
	size_t s, nlm = m->nstrs;

	m->lm_library = xcalloc(nlm ? nlm : 1, 1);
	m->nlm_library = nlm;
	for (s = 1; s < m->nscopes; s++) {
		struct scope *sc = &m->scopes[s];
		const char *lmfile = file_part(m->strs[sc->lm]);
		size_t keep;

		if (sc->kind != SK_PROC)
			continue;
		if (shared_object_name(lmfile))
			m->lm_library[sc->lm] = 1;
		keep = library_suffix(m->strs[sc->name], lmfile);
		if (keep) {
			char *bare = xstrndup(m->strs[sc->name], keep);

			sc->name = intern(m, bare);
			free(bare);
			m->lm_library[sc->lm] = 1;
		}
	}
}

int model_lm_is_library(const struct model *m, uint32_t lm)
{
	return lm && m->lm_library && lm < m->nlm_library &&
	       m->lm_library[lm];
}

static char *experiment_path(const char *path, char **dbdir)
{
	struct stat st;
	struct strbuf sb = STRBUF_INIT;

	if (stat(path, &st) < 0) {
		hpc_seterr("'%s': %s", path, strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		strbuf_addf(&sb, "%s/experiment.xml", path);
		if (stat(sb.buf, &st) < 0) {
			hpc_seterr("'%s': not a database (no experiment.xml)", path);
			strbuf_release(&sb);
			return NULL;
		}
		*dbdir = xstrdup(path);
		return strbuf_detach(&sb, NULL);
	} else {
		const char *slash = strrchr(path, '/');

		*dbdir = slash ? xstrndup(path, (size_t)(slash - path) + !(slash - path))
			       : xstrdup(".");
		return xstrdup(path);
	}
}

/* Invariant 8: the per-phase profiles' scopes. */
static void mark_phases(struct model *m)
{
	size_t s;

	for (s = 1; s < m->nscopes; s++) {
		const struct scope *sc = &m->scopes[s];

		m->scopes[s].phase = sc->parent != MODEL_NONE &&
			(m->scopes[sc->parent].phase ||
			 (sc->parent == 0 && sc->kind == SK_PROC &&
			  !strcmp(model_str(m, sc->lm), "<phases>")));
	}
}

struct model *model_load(const char *path)
{
	struct loader ld;
	struct model *m;
	char *file;
	int ret;
	size_t i;

	m = xcalloc(1, sizeof(*m));
	file = experiment_path(path, &m->dbdir);
	if (!file) {
		free(m);
		return NULL;
	}
	memset(&ld, 0, sizeof(ld));
	ld.m = m;
	ld.root_last = MODEL_NONE;
	ld.file = file;
	m->str_index = hmap_new();
	intern(m, "");
	new_scope(m, MODEL_NONE, SK_ROOT);
	ld.metric_ids = hmap_new();
	ld.lm_tab = hmap_new();
	ld.file_tab = hmap_new();
	ld.proc_tab = hmap_new();
	ld.root_procs = hmap_new();
	m->data_root = MODEL_NONE;
	/* Deep call paths load: xmlread_experiment allows 2^20 levels,
	 * 3 a call (PF > C > PF). */
	ld.x = xmlread_open(file, &xmlread_experiment);
	if (!ld.x) {
		ret = -1;
	} else {
		ld.r = ld.x->r;
		ret = run_reader(&ld);
		if (!ret)
			ret = finish_values(&ld);
		xmlread_close(ld.x);
	}
	hmap_free(ld.metric_ids);
	hmap_free(ld.lm_tab);
	hmap_free(ld.file_tab);
	hmap_free(ld.proc_tab);
	hmap_free(ld.root_procs);
	free(ld.stack);
	free(ld.last);
	for (i = 0; ld.view_frm && i < m->nmetrics; i++)
		free(ld.view_frm[i]);
	free(ld.view_frm);
	free(file);
	if (ret < 0) {
		model_free(m);
		return NULL;
	}
	/* invariant 7 */
	m->nscopes_all = m->nscopes;
	if (m->data_root != MODEL_NONE)
		m->nscopes = m->data_root;
	dataview_classify(m);
	mark_phases(m);
	compute_totals(m, ld.have_root_vals);
	library_names(m);
	return m;
}

void model_free(struct model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nmetrics; i++) {
		free(m->metrics[i].name);
		free(m->metrics[i].id);
		formula_free(m->metrics[i].view);
	}
	free(m->metrics);
	free(m->total);
	free(m->scopes);
	free(m->vals);
	for (i = 0; i < m->nstrs; i++)
		free(m->strs[i]);
	free(m->strs);
	hmap_free(m->str_index);
	free(m->dbdir);
	free(m->title);
	free(m->lm_library);
	free(m);
}

double model_value(const struct model *m, uint32_t s, size_t met)
{
	const struct scope *sc = &m->scopes[s];
	uint32_t k;

	for (k = 0; k < sc->nval; k++)
		if (m->vals[sc->val_start + k].metric == met)
			return m->vals[sc->val_start + k].v;
	return 0;
}

int model_is_frame(const struct model *m, uint32_t s)
{
	return m->scopes[s].kind == SK_PROC;
}

uint32_t model_caller_frame(const struct model *m, uint32_t s)
{
	uint32_t p = m->scopes[s].parent;

	while (p != MODEL_NONE && !model_is_frame(m, p))
		p = m->scopes[p].parent;
	return p;
}

/* thread-values.tsv, read a line at a time: a regular file of at most
 * this, lines of at most VALUES_MAX_LINE bytes (node, thread, metric and
 * a value take less than 100). */
#define VALUES_MAX_BYTES ((uint64_t)64 << 30)
#define VALUES_MAX_LINE 256

static int count_row(const struct threads_tsv_row *r, void *arg)
{
	(void)r;
	(void)arg;
	return 0;
}

/* The rows of DBDIR/threads.tsv: 0, or -1 with *missing set or
 * hpc_lasterr() naming the file and line. */
static int count_threads(const struct model *m, size_t *n, int *missing)
{
	struct strbuf path = STRBUF_INIT;
	long rows;

	strbuf_addf(&path, "%s/threads.tsv", m->dbdir);
	rows = threads_tsv_read(path.buf, missing, count_row, NULL);
	strbuf_release(&path);
	if (rows < 0 || *missing)
		return -1;
	*n = (size_t)rows;
	return 0;
}

struct name_of {
	size_t thread;
	struct strbuf *out;
	int found;
};

/* Thread t's identity: [program, process P, rank R, thread T]. */
static int name_row(const struct threads_tsv_row *r, void *arg)
{
	static const char *const label[] = {
		"", "process ", "rank ", "thread ",
	};
	struct name_of *want = arg;
	const char *col[4] = { r->program, r->process, r->rank, r->tid };
	int k, first = 1;

	if (r->thread != want->thread)
		return 0;
	want->found = 1;
	if (!r->program)
		strbuf_addstr(want->out, r->identity);
	for (k = 0; r->program && k < 4; k++)
		if (strcmp(col[k], "-")) {
			strbuf_addf(want->out, "%s%s%s", first ? "" : ", ",
				    label[k], col[k]);
			first = 0;
		}
	return 0;
}

int model_thread_name(const struct model *m, size_t thread,
		      struct strbuf *out)
{
	struct strbuf path = STRBUF_INIT;
	struct name_of want = { thread, out, 0 };
	int missing;
	long rows;

	strbuf_addf(&path, "%s/threads.tsv", m->dbdir);
	rows = threads_tsv_read(path.buf, &missing, name_row, &want);
	strbuf_release(&path);
	return rows >= 0 && want.found ? 0 : -1;
}

int model_thread_values(const struct model *m, uint32_t s, size_t met,
			double **out)
{
	return model_thread_sum(m, &s, 1, met, out);
}

int model_thread_sum(const struct model *m, const uint32_t *s, size_t ns,
		     size_t met, double **out)
{
	struct strbuf path = STRBUF_INIT;
	struct hmap *want = hmap_new();
	char line[VALUES_MAX_LINE + 1];
	struct textrec r;
	uint64_t metric, node, thread, id;
	size_t nthreads, i;
	double *vals = NULL, v;
	struct stat st;
	FILE *f = NULL;
	int missing = 1, got;

	*out = NULL;
	for (i = 0; i < ns; i++)	/* the root is node 1 */
		if (!s[i] || m->scopes[s[i]].id)
			hmap_put_u64(want, s[i] ? m->scopes[s[i]].id : 1, want);
	strbuf_addf(&path, "%s/thread-values.tsv", m->dbdir);
	if (hmap_count(want) && count_threads(m, &nthreads, &missing) == 0 &&
	    nthreads) {
		missing = lstat(path.buf, &st) != 0 && errno == ENOENT;
		if (!missing)
			f = infile_fopen(path.buf, VALUES_MAX_BYTES,
					 "a table of thread values");
	}
	if (!f) {
		strbuf_release(&path);
		hmap_free(want);
		return missing ? 0 : -1;
	}
	memset(&r, 0, sizeof(r));
	r.path = path.buf;
	metric = strtoull(m->metrics[met].id, NULL, 10);
	vals = xcalloc(nthreads, sizeof(*vals));
	while ((got = textrec_next(f, line, sizeof(line), '\t', &r)) > 0) {
		char *end;

		if (r.f[0][0] == '#')
			continue;
		if (r.nf != 4) {
			got = textrec_bad(&r, "a value row has 4 fields");
			break;
		}
		if (textrec_u64(&r, 0, &node) || textrec_u64(&r, 1, &thread) ||
		    textrec_u64(&r, 2, &id)) {
			got = -1;
			break;
		}
		if (thread >= nthreads) {
			got = textrec_bad(&r, "names a thread threads.tsv "
					  "does not have");
			break;
		}
		errno = 0;
		v = strtod(r.f[3], &end);
		if (end == r.f[3] || *end || errno || !isfinite(v)) {
			got = textrec_bad(&r, "expected a value");
			break;
		}
		if (id == metric && hmap_get_u64(want, node))
			vals[thread] += v * m->metrics[met].unit.scale;
	}
	fclose(f);
	strbuf_release(&path);
	hmap_free(want);
	if (got < 0) {
		free(vals);
		return -1;
	}
	*out = vals;
	return (int)nthreads;
}
