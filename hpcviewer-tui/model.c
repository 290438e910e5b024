/*
 * model.c - stream experiment.xml (libxml2 xmlTextReader) into the compact
 * scope tree of model.h.
 *
 * The reader runs with XML_PARSE_NONET and without XML_PARSE_NOENT or
 * DTD loading, so no entity is expanded and nothing is fetched; the first
 * parser error stops the load with "'FILE': line N: message".  Only the
 * first profile section is loaded (a SecCallPathProfile when present before
 * any other); later sections are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/xmlreader.h>

#include "error.h"
#include "hashmap.h"
#include "model.h"
#include "strbuf.h"

struct loader {
	struct model *m;
	xmlTextReaderPtr r;
	const char *file;
	struct strbuf err;		/* first parser error */
	struct hmap *metric_ids;	/* Metric i -> index + 1 */
	struct hmap *lm_tab, *file_tab, *proc_tab;	/* i -> strs index + 1 */
	uint32_t *stack;		/* open scopes */
	uint32_t *last;			/* last child of each open scope */
	uint32_t root_last;
	size_t depth, stack_alloc;
	int loaded;			/* a data section has been read */
	int have_root_vals;		/* <M> directly in the data section */
};

static void reader_error(void *arg, xmlErrorPtr e)
{
	struct loader *ld = arg;
	size_t n;

	if (ld->err.len || !e || !e->message)
		return;
	strbuf_addf(&ld->err, "line %d: %s", e->line, e->message);
	n = ld->err.len;
	while (n && (ld->err.buf[n - 1] == '\n' || ld->err.buf[n - 1] == ' '))
		n--;
	ld->err.buf[n] = '\0';
	ld->err.len = n;
}

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
	const char *v = NULL;

	if (xmlTextReaderMoveToAttribute(ld->r, (const xmlChar *)name) == 1)
		v = (const char *)xmlTextReaderConstValue(ld->r);
	xmlTextReaderMoveToElement(ld->r);
	return v;
}

static int loader_err(struct loader *ld, const char *fmt, const char *arg)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "line %ld: ",
		    xmlGetLineNo(xmlTextReaderCurrentNode(ld->r)));
	strbuf_addf(&sb, fmt, arg);
	hpc_seterr("'%s': %s", ld->file, sb.buf);
	strbuf_release(&sb);
	return -1;
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
	v = attr(ld, "partner");
	/* partner holds an id for now; resolved after the table. */
	mm->partner = v ? -2 - atoi(v) : -1;
	v = attr(ld, "show");
	mm->show = v ? atoi(v) : 1;
	v = attr(ld, "show-percent");
	mm->show_percent = v ? atoi(v) : 1;
	/* Statistics (v="final", "derived") are not sums of their parts. */
	v = attr(ld, "v");
	mm->additive = !v || !strcmp(v, "raw") || !strcmp(v, "derived-incr");
	hmap_put_str(ld->metric_ids, i, (void *)(uintptr_t)(m->nmetrics + 1));
	m->nmetrics++;
	return 0;
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
	if (attr(ld, "i"))
		s->id = (uint32_t)strtoul(attr(ld, "i"), NULL, 10);
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
	if (!strcmp(el, "LoadModule"))
		return table_entry(ld, ld->lm_tab);
	if (!strcmp(el, "File"))
		return table_entry(ld, ld->file_tab);
	if (!strcmp(el, "Procedure"))
		return table_entry(ld, ld->proc_tab);
	return 0;
}

enum lstate { L_START, L_DOC, L_SECTION, L_DATA };

static int run_reader(struct loader *ld)
{
	enum lstate st = L_START;
	int ret;
	size_t data_depth = 0;

	while ((ret = xmlTextReaderRead(ld->r)) == 1) {
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
					if (xmlTextReaderNext(ld->r) < 0)
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
				t += model_value(m, c, i);
		} else {
			for (s = 1; s < m->nscopes; s++)
				if (model_is_frame(m, (uint32_t)s))
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

struct model *model_load(const char *path)
{
	struct loader ld;
	struct model *m;
	char *file;
	int ret;

	m = xcalloc(1, sizeof(*m));
	file = experiment_path(path, &m->dbdir);
	if (!file) {
		free(m);
		return NULL;
	}
	memset(&ld, 0, sizeof(ld));
	strbuf_init(&ld.err);
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
	ld.r = xmlReaderForFile(file, NULL, XML_PARSE_NONET | XML_PARSE_HUGE |
				XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!ld.r) {
		hpc_seterr("'%s': cannot open", file);
		ret = -1;
	} else {
		xmlTextReaderSetStructuredErrorHandler(ld.r, reader_error, &ld);
		ret = run_reader(&ld);
		if (ret < 0 && ld.err.len)
			hpc_seterr("'%s': %s", file, ld.err.buf);
		else if (ret < 0 && !*hpc_lasterr())
			hpc_seterr("'%s': cannot parse", file);
		xmlFreeTextReader(ld.r);
	}
	hmap_free(ld.metric_ids);
	hmap_free(ld.lm_tab);
	hmap_free(ld.file_tab);
	hmap_free(ld.proc_tab);
	free(ld.stack);
	free(ld.last);
	strbuf_release(&ld.err);
	free(file);
	if (ret < 0) {
		model_free(m);
		return NULL;
	}
	compute_totals(m, ld.have_root_vals);
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

int model_find_metric(const struct model *m, const char *name)
{
	size_t i, len = strlen(name);
	int found = -1;

	for (i = 0; i < m->nmetrics; i++)
		if (!strcmp(m->metrics[i].name, name))
			return (int)i;
	for (i = 0; i < m->nmetrics; i++)
		if (!strcmp(m->metrics[i].id, name))
			return (int)i;
	for (i = 0; i < m->nmetrics; i++) {
		if (strncmp(m->metrics[i].name, name, len))
			continue;
		if (found >= 0) {
			hpc_seterr("'%s': ambiguous metric name", name);
			return -1;
		}
		found = (int)i;
	}
	if (found < 0)
		hpc_seterr("'%s': no such metric", name);
	return found;
}

/* Counts the lines of DBDIR/threads.tsv that are not comments. */
static int count_threads(const struct model *m, size_t *n)
{
	struct strbuf path = STRBUF_INIT;
	FILE *f;
	char line[4096];

	strbuf_addf(&path, "%s/threads.tsv", m->dbdir);
	f = fopen(path.buf, "r");
	strbuf_release(&path);
	if (!f)
		return -1;
	*n = 0;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && line[0] != '\n')
			(*n)++;
	fclose(f);
	return 0;
}

int model_thread_values(const struct model *m, uint32_t s, size_t met,
			double **out)
{
	struct strbuf path = STRBUF_INIT;
	unsigned long node = s ? m->scopes[s].id : 1, metric;
	size_t nthreads, lineno = 0;
	char line[256];
	double *vals;
	FILE *f;

	*out = NULL;
	if (count_threads(m, &nthreads) < 0 || !nthreads || (s && !node))
		return 0;
	strbuf_addf(&path, "%s/thread-values.tsv", m->dbdir);
	f = fopen(path.buf, "r");
	if (!f) {
		strbuf_release(&path);
		return 0;
	}
	metric = strtoul(m->metrics[met].id, NULL, 10);
	vals = xcalloc(nthreads, sizeof(*vals));
	while (fgets(line, sizeof(line), f)) {
		unsigned long ln_node, ln_thread, ln_metric;
		double v;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%lu %lu %lu %lf", &ln_node, &ln_thread,
			   &ln_metric, &v) != 4 || ln_thread >= nthreads) {
			hpc_seterr("'%s': line %zu: malformed", path.buf, lineno);
			free(vals);
			fclose(f);
			strbuf_release(&path);
			return -1;
		}
		if (ln_node == node && ln_metric == metric)
			vals[ln_thread] = v;
	}
	fclose(f);
	strbuf_release(&path);
	*out = vals;
	return (int)nthreads;
}
