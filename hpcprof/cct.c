/* cct.c - see cct.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"
#include "cct.h"
#include "dwarf-fallback.h"
#include "error.h"
#include "hashmap.h"
#include "strbuf.h"

struct child_key {
	uint32_t parent;
	uint32_t kind;
	uint64_t k1, k2;
};

uint32_t name_table_intern(struct name_table *t, const char *name)
{
	uintptr_t v;

	if (!t->index)
		t->index = hmap_new();
	v = (uintptr_t)hmap_get_str(t->index, name);
	if (v)
		return (uint32_t)(v - 1);
	hmap_put_str(t->index, name, (void *)(uintptr_t)(t->n + 1));
	return name_table_add(t, name);
}

uint32_t name_table_add(struct name_table *t, const char *name)
{
	HPC_GROW(t->names, t->n + 1, t->alloc);
	t->names[t->n] = xstrdup(name);
	return (uint32_t)t->n++;
}

static void name_table_release(struct name_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free((char *)t->names[i]);
	free(t->names);
	hmap_free(t->index);
}

static struct node *node_new(struct experiment *e, struct node *parent,
			     enum node_kind kind)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->id = ++e->next_id;
	n->kind = kind;
	n->parent = parent;
	if (parent) {
		if (parent->last)
			parent->last->next = n;
		else
			parent->first = n;
		parent->last = n;
	}
	e->nnodes++;
	return n;
}

struct experiment *experiment_new(void)
{
	struct experiment *e = xcalloc(1, sizeof(*e));

	e->children = hmap_new();
	metrics_init(&e->metrics);
	e->root = node_new(e, NULL, NODE_ROOT);
	e->flat_root = node_new(e, NULL, NODE_FLAT_ROOT);
	e->root->flat = e->flat_root;
	return e;
}

static void free_tree(struct node *n)
{
	while (n) {
		struct node *next = n->next;

		free_tree(n->first);
		free(n->acc);
		free(n);
		n = next;
	}
}

void experiment_free(struct experiment *e)
{
	size_t i;

	if (!e)
		return;
	free_tree(e->root);
	free_tree(e->flat_root);
	hmap_free(e->children);
	name_table_release(&e->lms);
	name_table_release(&e->files);
	name_table_release(&e->procs);
	for (i = 0; i < e->nmodules; i++) {
		struct module *m = e->modules[i];

		if (m->source != MODULE_STRUCTFILE)
			structure_free(m->st);
		fallback_free(m->fb);
		free((char *)m->path);
		free(m->file);
		free(m->measured);
		free(m->on_disk);
		free(m);
	}
	free(e->modules);
	for (i = 0; i < e->nstructs; i++)
		structure_free(e->structs[i]);
	free(e->structs);
	free(e->touched);
	free(e->program);
	metrics_release(&e->metrics);
	free(e);
}

int experiment_add_structfile(struct experiment *e, const char *path)
{
	return structfile_read(path, &e->structs, &e->nstructs,
			       &e->structs_alloc);
}

/* The child of parent with (kind, k1, k2), made by init when new. */
static struct node *child(struct experiment *e, struct node *parent,
			  enum node_kind kind, uint64_t k1, uint64_t k2,
			  int *is_new)
{
	struct child_key key;
	struct node *n;

	memset(&key, 0, sizeof(key));
	key.parent = parent->id;
	key.kind = kind;
	key.k1 = k1;
	key.k2 = k2;
	n = hmap_get(e->children, &key, sizeof(key));
	*is_new = !n;
	if (!n) {
		n = node_new(e, parent, kind);
		hmap_put(e->children, &key, sizeof(key), n);
	}
	return n;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* path, or dir/path when path is relative and names a file there. */
static char *module_file(const char *path, const char *dir)
{
	struct strbuf sb = STRBUF_INIT;

	if (path[0] == '/' || !dir)
		return xstrdup(path);
	strbuf_addf(&sb, "%s/%s", dir, path);
	if (access(sb.buf, F_OK)) {
		strbuf_release(&sb);
		return xstrdup(path);
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * The module of path as built with build ID id (NULL: not recorded): one
 * module per build, so that samples of two builds of one path (profiles
 * of runs before and after a rebuild) are each checked against their own
 * ID.  An unrecorded ID matches any.
 */
static struct module *module_for(struct experiment *e, const char *path,
				 const char *dir, const char *id)
{
	struct module *m;
	size_t i;
	int seen = 0;

	for (i = 0; i < e->nmodules; i++) {
		m = e->modules[i];
		if (strcmp(m->path, path))
			continue;
		if (!id || !m->measured || !strcmp(m->measured, id)) {
			if (id && !m->measured)
				m->measured = xstrdup(id);
			return m;
		}
		seen = 1;
	}
	m = xcalloc(1, sizeof(*m));
	m->path = xstrdup(path);
	m->file = module_file(path, dir);
	m->measured = id ? xstrdup(id) : NULL;
	/* another build of a path seen: a load module of its own */
	m->lm = seen ? name_table_add(&e->lms, path) : name_table_intern(&e->lms, path);
	for (i = 0; i < e->nstructs && !m->st; i++)
		if (!strcmp(e->structs[i]->lm_path, path))
			m->st = e->structs[i];
	for (i = 0; i < e->nstructs && !m->st; i++)
		if (!strcmp(base_name(e->structs[i]->lm_path), base_name(path)))
			m->st = e->structs[i];
	if (m->st) {
		m->source = MODULE_STRUCTFILE;
	} else {
		m->source = MODULE_NOTHING;
		m->st = structure_new(path, "");
		structure_finish(m->st);
	}
	HPC_GROW(e->modules, e->nmodules + 1, e->modules_alloc);
	e->modules[e->nmodules++] = m;
	return m;
}

/*
 * 1 when the binary at bin has a build ID other than the measured one
 * (then kept in m->on_disk); 0 when they agree or either is unknown.
 */
static int differs(struct module *m, const char *bin)
{
	char hex[HPC_BUILDID_HEX_SIZE];

	if (!m->measured || hpc_buildid_file(bin, hex) != 1 ||
	    !strcmp(hex, m->measured))
		return 0;
	free(m->on_disk);
	m->on_disk = xstrdup(hex);
	return 1;
}

/*
 * Sets m's structure file aside when the binary it was made from (the one
 * its LM names; for a file matched by path, the module's file) is not the
 * measured one.
 */
static void check_structure(struct module *m)
{
	const char *bin;

	m->checked = 1;
	if (m->source != MODULE_STRUCTFILE || !m->measured)
		return;
	bin = strcmp(m->st->lm_path, m->path) ? m->st->lm_path : m->file;
	if (!differs(m, bin))
		return;
	m->rejected = m->st->source;
	m->rejected_binary = bin;
	m->source = MODULE_NOTHING;
	m->st = structure_new(m->path, "");
	structure_finish(m->st);
}

static void open_fallback(struct module *m)
{
	if (m->fb)
		return;
	m->mismatch = differs(m, m->file);
	m->fb = fallback_new(m->file, !m->mismatch);
	if (m->source != MODULE_STRUCTFILE)
		m->source = fallback_has_dwarf(m->fb) ? MODULE_DWARF
						      : MODULE_NOTHING;
}

/*
 * The scope for addr in m: from its structure when a statement or
 * procedure there covers it, else from the fallback (always inside a P).
 */
static uint32_t resolve(struct module *m, uint64_t addr)
{
	long s;

	if (!m->checked)
		check_structure(m);
	s = structure_lookup(m->st, addr);
	if (s >= 0 && structure_proc_of(m->st, (size_t)s) > 0)
		return (uint32_t)s;
	open_fallback(m);
	return fallback_lookup(m->fb, m->st, addr);
}

/* Canonical and flat cursors walk down together. */
struct place {
	struct node *c, *f;
};

static void set_info(struct experiment *e, struct node *n,
		     const struct module *m, const struct scope *sc)
{
	n->lm = m->lm;
	n->file = name_table_intern(&e->files, sc->file ? sc->file : "");
	n->line = sc->line;
	n->vma = sc->vma;
	if (sc->kind == SCOPE_PROC || sc->kind == SCOPE_ALIEN)
		n->proc = name_table_intern(&e->procs, sc->name ? sc->name : "");
}

/* One step down both trees for a static scope (PF/PROC, ALIEN, LOOP). */
static void step(struct experiment *e, struct place *at, enum node_kind ck,
		 enum node_kind fk, const struct module *m, uint32_t scope,
		 uint64_t flatk)
{
	const struct scope *sc = &m->st->scopes[scope];
	uint64_t k1 = (uint64_t)(uintptr_t)m->st;
	int is_new;
	struct node *f = child(e, at->f, fk, flatk ? flatk : k1, scope,
			       &is_new);

	if (is_new)
		set_info(e, f, m, sc);
	at->c = child(e, at->c, ck, k1, scope, &is_new);
	if (is_new) {
		set_info(e, at->c, m, sc);
		at->c->flat = f;
	}
	at->f = f;
}

/* The statement or call-site leaf for (file, line) below at. */
static struct node *leaf(struct experiment *e, struct place *at,
			 enum node_kind kind, const struct module *m,
			 const struct scope *sc, uint64_t addr)
{
	uint64_t k1 = (uint64_t)(uintptr_t)(sc->file ? sc->file : "");
	uint32_t line = sc->kind == SCOPE_PROC ? 0 : sc->line;
	int is_new;
	struct node *f = child(e, at->f, kind, k1, line, &is_new);
	struct node *c;

	if (is_new) {
		set_info(e, f, m, sc);
		f->line = line;
		f->proc = 0;
		f->vma = addr;
	}
	c = child(e, at->c, kind, k1, line, &is_new);
	if (is_new) {
		*c = (struct node){ .id = c->id, .kind = kind,
				    .parent = c->parent, .flat = f,
				    .lm = f->lm, .file = f->file,
				    .line = line, .vma = addr };
	}
	return c;
}

/*
 * Places the context of addr in module m below the canonical node x:
 * PF -> aliens and loops -> a STMT (kind NODE_STMT) or CALL leaf.
 */
static struct node *place_addr(struct experiment *e, struct node *x,
			       struct module *m, uint64_t addr,
			       enum node_kind kind)
{
	uint32_t s = resolve(m, addr), chain[256], k, n = 0;
	long p = structure_proc_of(m->st, s);
	const struct scope *proc;
	struct place at;
	int is_new;

	proc = &m->st->scopes[p];
	/* Flat: LM -> FILE -> PROC. */
	at.f = child(e, e->flat_root, NODE_LM, m->lm, 0, &is_new);
	if (is_new)
		at.f->lm = m->lm;
	at.f = child(e, at.f, NODE_FILE,
		     name_table_intern(&e->files, proc->file ? proc->file : ""),
		     0, &is_new);
	if (is_new) {
		at.f->lm = m->lm;
		at.f->file = name_table_intern(&e->files,
					       proc->file ? proc->file : "");
	}
	at.c = x;
	step(e, &at, NODE_PF, NODE_PROC, m, (uint32_t)p, 0);
	for (k = s; k != (uint32_t)p && n < 256; k = m->st->scopes[k].parent)
		chain[n++] = k;
	while (n-- > 0) {
		const struct scope *sc = &m->st->scopes[chain[n]];

		if (sc->kind == SCOPE_LOOP)
			step(e, &at, NODE_LOOP, NODE_LOOP, m, chain[n], 0);
		else if (sc->kind == SCOPE_ALIEN && sc->name && sc->name[0])
			step(e, &at, NODE_ALIEN, NODE_ALIEN, m, chain[n], 0);
	}
	return leaf(e, &at, kind, m, &m->st->scopes[s], addr);
}

static void touch(struct experiment *e, struct node *n)
{
	uint32_t t = (uint32_t)e->nthreads + 1;

	if (!n->acc)
		n->acc = accum_new(&e->metrics);
	if (n->tstamp != t) {
		n->tstamp = t;
		HPC_GROW(e->touched, e->ntouched + 1, e->touched_alloc);
		e->touched[e->ntouched++] = n;
	}
}

/* Flat counterpart of a canonical node (and, for a PF, its FILE and LM). */
static void add_flat(struct experiment *e, struct node *f, size_t raw,
		     double v, int excl, int with_parents)
{
	int up = with_parents ? 3 : 1;

	for (; f && up-- > 0; f = f->parent) {
		if (f->stamp == e->sample_serial)
			continue;
		f->stamp = e->sample_serial;
		touch(e, f);
		accum_add(f->acc, raw, 0, v);
		if (excl)
			accum_add(f->acc, raw, 1, v);
	}
}

static void add_sample(struct experiment *e, struct node *leaf_node,
		       size_t raw, double v)
{
	struct node *c;
	int excl = 1;

	e->sample_serial++;
	for (c = leaf_node; c; c = c->parent) {
		if (c->kind == NODE_CALL)
			excl = 0;
		touch(e, c);
		accum_add(c->acc, raw, 0, v);
		/* The experiment's exclusive total is its total. */
		if (excl || c->kind == NODE_ROOT)
			accum_add(c->acc, raw, 1, v);
		if (c->kind == NODE_ROOT)
			add_flat(e, e->flat_root, raw, v, 1, 0);
		else
			add_flat(e, c->flat, raw, v, excl,
				 c->kind == NODE_PF);
	}
}

struct fold_arg {
	struct experiment *e;
	const struct node *n;
};

static void fold_cb(void *arg, size_t raw, int ie, double v)
{
	struct fold_arg *a = arg;

	a->e->thread_cb(a->e->thread_arg, (uint32_t)a->e->nthreads, a->n, raw,
			ie, v);
}

/* A placeholder root's 8 ASCII bytes, trimmed. */
static void placeholder_name(uint64_t addr, char *out)
{
	int k, n = 0;

	for (k = 0; k < 8; k++) {
		char ch = (char)(addr >> (56 - 8 * k));

		out[n++] = ch >= 0x20 && ch < 0x7f ? ch : '?';
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = 0;
}

/* Values on a placeholder: a PF named for it, holding one statement. */
static struct node *placeholder_leaf(struct experiment *e, struct node *x,
				     uint64_t addr)
{
	char name[16], full[32];
	struct module *m;
	uint32_t p, s;

	placeholder_name(addr, name);
	snprintf(full, sizeof(full), "<%s>", name);
	m = module_for(e, "<placeholders>", NULL, NULL);
	for (p = 1; p < m->st->nscopes; p++)
		if (m->st->scopes[p].kind == SCOPE_PROC &&
		    !strcmp(m->st->scopes[p].name, full))
			break;
	if (p == m->st->nscopes) {
		p = structure_add(m->st, SCOPE_PROC, 0, full, "", 0, 0);
		structure_add(m->st, SCOPE_STMT, p, NULL, "", 0, 0);
	}
	s = p + 1;
	{
		struct place at = { x, NULL };
		int is_new;

		at.f = child(e, e->flat_root, NODE_LM, m->lm, 0, &is_new);
		at.f->lm = m->lm;
		at.f = child(e, at.f, NODE_FILE,
			     name_table_intern(&e->files, ""), 0, &is_new);
		at.f->lm = m->lm;
		step(e, &at, NODE_PF, NODE_PROC, m, p, 0);
		return leaf(e, &at, NODE_STMT, m, &m->st->scopes[s], 0);
	}
}

struct id_index {
	uint32_t id, index;
};

static int cmp_id(const void *a, const void *b)
{
	const struct id_index *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Index of node id in the profile (ids[] sorted), or -1. */
static long node_index(const struct id_index *ids, uint64_t n, uint32_t id)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo].id == id ? (long)ids[lo].index : -1;
}

void experiment_add_profile(struct experiment *e,
			    const struct hpcrun_profile *p,
			    const int *metric_map, const char *dir)
{
	uint64_t i, j, n = p->nnodes;
	struct id_index *ids = xcalloc(n ? n : 1, sizeof(*ids));
	struct node **attach = xcalloc(n ? n : 1, sizeof(*attach));
	struct node **leaves = xcalloc(n ? n : 1, sizeof(*leaves));
	char *has_child = xcalloc(n ? n : 1, 1), *has_values = xcalloc(n ? n : 1, 1);
	struct module **mods = xcalloc(65536, sizeof(*mods));

	if (!e->program && hpcrun_profile_header(p, "program-name"))
		e->program = xstrdup(hpcrun_profile_header(p, "program-name"));
	for (i = 0; i < p->nlms; i++) {
		const char *id = hpc_buildid_measured(p, p->lms[i].id);

		mods[p->lms[i].id] = module_for(e, p->lms[i].path, dir, id);
	}
	for (i = 0; i < n; i++) {
		ids[i].id = p->nodes[i].id;
		ids[i].index = (uint32_t)i;
	}
	if (n)
		qsort(ids, n, sizeof(*ids), cmp_id);
	for (i = 0; i < n; i++) {
		long k = p->nodes[i].parent ?
			 node_index(ids, n, p->nodes[i].parent) : -1;

		if (k >= 0)
			has_child[k] = 1;
	}
	for (i = 0; i < p->nctxs; i++) {
		long k = node_index(ids, n, p->ctxs[i].ctx);

		if (k >= 0)
			has_values[k] = 1;
	}
	for (i = 0; i < n; i++) {
		const struct hpcrun_node *nd = &p->nodes[i];
		long k = nd->parent ? node_index(ids, n, nd->parent) : -1;
		struct node *x = k >= 0 ? attach[k] : NULL;

		if (!x)
			x = e->root;
		if (nd->lm == 0 || !mods[nd->lm]) {
			attach[i] = x;
			if (has_values[i])
				leaves[i] = placeholder_leaf(e, x, nd->addr);
			continue;
		}
		if (has_child[i])
			attach[i] = place_addr(e, x, mods[nd->lm],
					       nd->addr ? nd->addr - 1 : 0,
					       NODE_CALL);
		if (has_values[i])
			leaves[i] = place_addr(e, x, mods[nd->lm], nd->addr,
					       NODE_STMT);
	}
	for (i = 0; i < p->nctxs; i++) {
		long k = node_index(ids, n, p->ctxs[i].ctx);
		struct node *lf = k >= 0 ? leaves[k] : NULL;
		uint64_t end = i + 1 < p->nctxs ? p->ctxs[i + 1].first
						: p->nvalues;

		for (j = p->ctxs[i].first; lf && j < end; j++) {
			const struct hpcrun_value *v = &p->values[j];
			int raw = metric_map[v->metric];
			double d;

			if (raw < 0)
				continue;
			if (p->metrics[v->metric].flags[2] == 1)
				d = (double)v->bits;
			else
				memcpy(&d, &v->bits, sizeof(d));
			if (d != 0 && d == d)
				add_sample(e, lf, (size_t)raw, d);
		}
	}
	for (i = 0; i < e->ntouched; i++) {
		struct fold_arg a = { e, e->touched[i] };

		accum_fold(e->touched[i]->acc, &e->metrics,
			   e->thread_cb ? fold_cb : NULL, &a);
	}
	e->ntouched = 0;
	e->nthreads++;
	e->metrics.nthreads = e->nthreads;
	free(mods);
	free(ids);
	free(attach);
	free(leaves);
	free(has_child);
	free(has_values);
}
