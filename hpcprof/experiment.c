/* experiment.c - see experiment.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"
#include "datatree.h"
#include "dwarf-fallback.h"
#include "error.h"
#include "experiment.h"
#include "hashmap.h"
#include "phases.h"
#include "strbuf.h"

const char cct_no_file[] = "";
#define no_file cct_no_file

struct child_slot {
	uint64_t hash;
	struct node *n;		/* NULL: empty */
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
	HPC_GROW(e->nodes, n->id, e->nodes_alloc);
	e->nodes[n->id - 1] = n;
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

struct node *experiment_node(struct experiment *e, struct node *parent,
			     enum node_kind kind)
{
	return node_new(e, parent, kind);
}

struct experiment *experiment_new(void)
{
	struct experiment *e = xcalloc(1, sizeof(*e));

	e->children_cap = 1024;
	e->children = xcalloc(e->children_cap, sizeof(*e->children));
	e->program_index = hmap_new();
	metrics_init(&e->metrics);
	e->root = node_new(e, NULL, NODE_ROOT);
	e->flat_root = node_new(e, NULL, NODE_FLAT_ROOT);
	e->root->flat = e->flat_root;
	return e;
}

/* Frees n, its siblings after it and their subtrees, with their
 * accumulators but those of e's block. */
static void free_tree(const struct experiment *e, struct node *n)
{
	while (n) {
		struct node *next = n->next;
		const char *a = (const char *)n->acc;

		free_tree(e, n->first);
		if (!e->acc_block || a < e->acc_block ||
		    a >= e->acc_block + e->acc_count * e->acc_stride)
			free(n->acc);
		free(n);
		n = next;
	}
}

void experiment_acc_block(struct experiment *e)
{
	struct accum *one = accum_new(&e->metrics);
	size_t i;

	free(e->acc_block);
	e->acc_stride = sizeof(*one) + one->n * sizeof(one->v[0]);
	e->acc_count = (size_t)e->next_id + 1;
	e->acc_block = xcalloc(e->acc_count, e->acc_stride);
	for (i = 0; i < e->acc_count; i++)
		experiment_acc_of(e, (uint32_t)i)->n = one->n;
	free(one);
}

void experiment_acc_attach(struct experiment *e)
{
	uint32_t id;

	for (id = 1; id < e->acc_count; id++) {
		struct node *n = e->nodes[id - 1];
		struct accum *a = experiment_acc_of(e, id);

		if (!n->acc && !accum_empty(a))
			n->acc = a;
	}
}

static void overlay_free(struct overlay *ov)
{
	if (!ov)
		return;
	structure_free(ov->st);
	fallback_free(ov->fb);
	hmap_free(ov->content);
}

struct experiment *experiment_new_worker(const struct experiment *e)
{
	struct experiment *w = experiment_new();
	size_t c;

	metrics_release(&w->metrics);
	w->metrics = e->metrics;
	hmap_free(w->program_index);
	w->program_index = e->program_index;
	w->programs = e->programs;
	w->nprograms = e->nprograms;
	w->modules = e->modules;
	w->nmodules = e->nmodules;
	w->shared = e;
	for (c = 0; c < NCAPS; c++)
		if (e->cap[c] && prof_capabilities[c]->new_worker)
			w->cap[c] = prof_capabilities[c]->new_worker(e->cap[c]);
	return w;
}

void experiment_free(struct experiment *e)
{
	size_t i;

	if (!e)
		return;
	free_tree(e, e->root);
	free_tree(e, e->flat_root);
	if (e->data)
		free_tree(e, e->data->root);
	free(e->acc_block);
	free(e->scratch);
	thread_names_release(&e->thread_names);
	datatree_free(e->data);
	free(e->nodes);
	free(e->children);
	free(e->places);
	name_table_release(&e->lms);
	name_table_release(&e->files);
	name_table_release(&e->procs);
	for (i = 0; i < e->nov; i++)
		overlay_free(&e->ov[i]);
	free(e->ov);
	overlay_free(e->ph);
	free(e->ph);
	free(e->touched);
	if (e->shared) {
		for (i = NCAPS; i-- > 0;)
			if (e->cap[i])
				prof_capabilities[i]->free(e->cap[i]);
		free(e);
		return;
	}
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
	for (i = 0; i < e->nprograms; i++) {
		free(e->programs[i].name);
		free(e->programs[i].path);
		hmap_free(e->programs[i].pids);
	}
	free(e->programs);
	hmap_free(e->program_index);
	free(e->program);
	metrics_release(&e->metrics);
	free(e);
}

int experiment_add_structfile(struct experiment *e, const char *path)
{
	return structfile_open(path, &e->structs, &e->nstructs,
			       &e->structs_alloc);
}

void experiment_add_structure(struct experiment *e, struct structure *st)
{
	HPC_GROW(e->structs, e->nstructs + 1, e->structs_alloc);
	e->structs[e->nstructs++] = st;
}

static uint64_t child_hash(uint32_t parent, uint32_t kind, uint64_t k1,
			   uint64_t k2)
{
	uint64_t h = ((uint64_t)parent << 8 | kind) * 0x9e3779b97f4a7c15ULL;

	h ^= k1 * 0xff51afd7ed558ccdULL;
	h = (h ^ (h >> 29)) * 0xc4ceb9fe1a85ec53ULL;
	h ^= k2 * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* Doubles the children table (it stays at most half full). */
static void grow_children(struct experiment *e)
{
	struct child_slot *old = e->children;
	size_t n = e->children_cap, i;

	e->children_cap *= 2;
	e->children = xcalloc(e->children_cap, sizeof(*e->children));
	for (i = 0; i < n; i++) {
		size_t j = old[i].hash & (e->children_cap - 1);

		if (!old[i].n)
			continue;
		while (e->children[j].n)
			j = (j + 1) & (e->children_cap - 1);
		e->children[j] = old[i];
	}
	free(old);
}

/* The child of parent with (kind, k1, k2), made when new (*is_new). */
static struct node *child(struct experiment *e, struct node *parent,
			  enum node_kind kind, uint64_t k1, uint64_t k2,
			  int *is_new)
{
	uint64_t h = child_hash(parent->id, kind, k1, k2);
	size_t mask = e->children_cap - 1, i = h & mask;
	struct child_slot *s;
	struct node *n;

	for (;; i = (i + 1) & mask) {
		s = &e->children[i];
		if (!s->n)
			break;
		n = s->n;
		if (s->hash == h && n->parent == parent && n->kind == kind &&
		    n->k1 == k1 && n->k2 == k2) {
			*is_new = 0;
			return n;
		}
	}
	*is_new = 1;
	n = node_new(e, parent, kind);
	n->k1 = k1;
	n->k2 = k2;
	s->hash = h;
	s->n = n;
	if (2 * ++e->nchildren > e->children_cap)
		grow_children(e);
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
	m->index = (uint32_t)e->nmodules;
	e->modules[e->nmodules++] = m;
	return m;
}

/*
 * The module experiment_register() made for (path, id), without changing
 * any: the first of path whose measured ID is id or unknown; NULL if none.
 */
static struct module *module_find(const struct experiment *e,
				  const char *path, const char *id)
{
	size_t i;

	for (i = 0; i < e->nmodules; i++) {
		struct module *m = e->modules[i];

		if (!strcmp(m->path, path) &&
		    (!id || !m->measured || !strcmp(m->measured, id)))
			return m;
	}
	return NULL;
}

/* 1 when the binary at bin has a build ID other than m's measured one (its
 * ID then in hex); 0 when they agree or either is unknown. */
static int differs_at(const struct module *m, const char *bin,
		      char hex[HPC_BUILDID_HEX_SIZE])
{
	return m->measured && hpc_buildid_file(bin, hex) == 1 &&
	       strcmp(hex, m->measured);
}

/* differs_at(), keeping the binary's ID in m->on_disk. */
static int differs(struct module *m, const char *bin)
{
	char hex[HPC_BUILDID_HEX_SIZE];

	if (!differs_at(m, bin, hex))
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

void experiment_check_modules(struct experiment *e)
{
	size_t i;

	for (i = 0; i < e->nmodules; i++)
		if (!e->modules[i]->checked)
			check_structure(e->modules[i]);
}

int experiment_partial_structures(const struct experiment *e)
{
	size_t i;

	for (i = 0; i < e->nmodules; i++)
		if (e->modules[i]->source == MODULE_STRUCTFILE &&
		    structure_partial(e->modules[i]->st))
			return 1;
	return 0;
}

void experiment_want_profile(struct experiment *e,
			     const struct hpcrun_profile *p)
{
	struct module **mods;
	size_t n = 1, i;

	for (i = 0; i < p->nlms; i++)
		if (p->lms[i].id >= n)
			n = (size_t)p->lms[i].id + 1;
	mods = xcalloc(n, sizeof(*mods));
	for (i = 0; i < p->nlms; i++)
		mods[p->lms[i].id] = module_find(
			e, p->lms[i].path,
			hpc_buildid_measured(p, p->lms[i].id));
	for (i = 0; i < p->nnodes; i++) {
		const struct hpcrun_node *nd = &p->nodes[i];
		struct module *m = nd->lm && nd->lm < n ? mods[nd->lm] : NULL;

		if (!m || m->source != MODULE_STRUCTFILE)
			continue;
		structure_want(m->st, nd->addr);
		if (nd->addr)
			structure_want(m->st, nd->addr - 1);
	}
	free(mods);
}

int experiment_load_structures(struct experiment *e)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < e->nstructs; i++)
		if (structure_partial(e->structs[i]) &&
		    structure_load(e->structs[i]))
			ret = -1;
	return ret;
}

/* e's overlay of module m (made on first use, with a fallback of its own
 * in a worker). */
static struct overlay *overlay_of(struct experiment *e,
				  const struct module *m)
{
	struct overlay *ov;

	if (m->index >= e->nov) {
		size_t n = m->index + 1;

		e->ov = xrealloc(e->ov, n * sizeof(*e->ov));
		memset(e->ov + e->nov, 0, (n - e->nov) * sizeof(*e->ov));
		e->nov = n;
	}
	ov = &e->ov[m->index];
	if (!ov->st) {
		ov->st = structure_new(m->path, "");
		structure_finish(ov->st);
		ov->content = hmap_new();
	}
	return ov;
}

/*
 * The scope for addr in m, and in *st the structure it is in: m's when a
 * statement or procedure there covers it, else this worker's overlay of
 * m, from the fallback (always inside a P).
 */
static uint32_t resolve(struct experiment *e, const struct module *m,
			uint64_t addr, struct structure **st)
{
	struct overlay *ov;
	long s = structure_lookup(m->st, addr);

	if (s >= 0 && structure_proc_of(m->st, (size_t)s) > 0) {
		*st = m->st;
		return (uint32_t)s;
	}
	ov = overlay_of(e, m);
	if (!ov->fb) {
		char hex[HPC_BUILDID_HEX_SIZE];

		ov->fb = fallback_new(m->file, !differs_at(m, m->file, hex));
	}
	*st = ov->st;
	return fallback_lookup(ov->fb, ov->st, addr);
}

/* Canonical and flat cursors walk down together. */
struct place {
	struct node *c, *f;
};

/*
 * The length of name without the " [LIBNAME]" that HPCToolkit's structure
 * files append to the procedures of a shared library (with ln="NAME"), when
 * LIBNAME is the module's file name: the database names the procedure once
 * and gives its module by lm.  Other names keep their full length, and so
 * do the "<unknown> 0xADDR [module]" names of addresses without a binary.
 */
static size_t bare_name_len(const struct module *m, const char *name)
{
	size_t n = strlen(name), k;
	const char *libs[2] = { base_name(m->path), base_name(m->st->lm_path) };
	int i;

	if (n < 4 || name[n - 1] != ']' || name[0] == '<')
		return n;
	for (i = 0; i < 2; i++) {
		k = strlen(libs[i]);
		if (k && n > k + 3 && !strncmp(name + n - k - 1, libs[i], k) &&
		    !strncmp(name + n - k - 3, " [", 2))
			return n - k - 3;
	}
	return n;
}

static void set_info(struct experiment *e, struct node *n,
		     const struct module *m, const struct scope *sc)
{
	n->lm = m->lm;
	n->file = name_table_intern(&e->files, sc->file ? sc->file : "");
	n->line = sc->line;
	n->vma = sc->vma;
	if (sc->kind == SCOPE_PROC || sc->kind == SCOPE_ALIEN) {
		const char *name = sc->name ? sc->name : "";
		size_t len = bare_name_len(m, name);
		char *bare = len == strlen(name) ? NULL : xstrndup(name, len);

		n->proc = name_table_intern(&e->procs, bare ? bare : name);
		free(bare);
	}
}

/*
 * One step down both trees for scope of st (PF/PROC, ALIEN, LOOP): both
 * keyed by (st, scope).
 */
static void step(struct experiment *e, struct place *at, enum node_kind ck,
		 enum node_kind fk, const struct module *m,
		 const struct structure *st, uint32_t scope)
{
	const struct scope *sc = &st->scopes[scope];
	uint64_t k1 = (uint64_t)(uintptr_t)st;
	int is_new;
	struct node *f = child(e, at->f, fk, k1, scope, &is_new);

	if (is_new) {
		set_info(e, f, m, sc);
		f->st = st;
	}
	at->c = child(e, at->c, ck, k1, scope, &is_new);
	if (is_new) {
		set_info(e, at->c, m, sc);
		at->c->flat = f;
		at->c->st = st;
	}
	at->f = f;
}

/*
 * The statement or call-site leaf for (file, line) below at.  A statement
 * without a source line (line 0 or no file) is one leaf per instruction
 * address instead, keyed apart from lines by the top bit: hpcstruct merges
 * whole address ranges into such statements, and the viewer's disassembly
 * gutter shows a cost per instruction only if each keeps its own.
 */
static struct node *leaf(struct experiment *e, struct place *at,
			 enum node_kind kind, const struct module *m,
			 const struct structure *st, uint32_t scope,
			 uint64_t addr)
{
	const struct scope *sc = &st->scopes[scope];
	uint64_t k1 = (uint64_t)(uintptr_t)(sc->file ? sc->file : no_file);
	uint32_t line = sc->kind == SCOPE_PROC ? 0 : sc->line;
	uint64_t k2 = line;
	int is_new;
	struct node *f, *c;

	if (kind == NODE_STMT && (!line || !sc->file || !sc->file[0]))
		k2 = addr | (UINT64_C(1) << 63);
	f = child(e, at->f, kind, k1, k2, &is_new);

	if (is_new) {
		set_info(e, f, m, sc);
		f->line = line;
		f->proc = 0;
		f->vma = addr;
		f->st = st;
	}
	c = child(e, at->c, kind, k1, k2, &is_new);
	if (is_new) {
		*c = (struct node){ .id = c->id, .kind = kind,
				    .parent = c->parent, .flat = f,
				    .lm = f->lm, .file = f->file,
				    .line = line, .vma = addr, .st = st,
				    .k1 = k1, .k2 = k2 };
	}
	return c;
}

/* A place_addr() already made: (x, m, addr, kind) -> its leaf. */
struct place_slot {
	const struct node *x;
	const struct module *m;
	uint64_t addr;
	enum node_kind kind;
	struct node *leaf;	/* NULL: empty */
};

static uint64_t place_hash(const struct node *x, const struct module *m,
			   uint64_t addr, enum node_kind kind)
{
	return child_hash(x->id, kind, addr, m->index);
}

/* The slot of (x, m, addr, kind) in e's place memo: its own or empty. */
static struct place_slot *place_slot(struct experiment *e,
				     const struct node *x,
				     const struct module *m, uint64_t addr,
				     enum node_kind kind)
{
	size_t mask = e->places_cap - 1;
	size_t i = place_hash(x, m, addr, kind) & mask;

	for (;; i = (i + 1) & mask) {
		struct place_slot *s = &e->places[i];

		if (!s->leaf || (s->x == x && s->addr == addr && s->m == m &&
				 s->kind == kind))
			return s;
	}
}

/* Doubles the place memo (it stays at most half full). */
static void grow_places(struct experiment *e)
{
	struct place_slot *old = e->places;
	size_t n = e->places_cap, i;

	e->places_cap = n ? 2 * n : 1024;
	e->places = xcalloc(e->places_cap, sizeof(*e->places));
	for (i = 0; i < n; i++)
		if (old[i].leaf)
			*place_slot(e, old[i].x, old[i].m, old[i].addr,
				    old[i].kind) = old[i];
	free(old);
}

static struct node *place_addr_new(struct experiment *e, struct node *x,
				   const struct module *m, uint64_t addr,
				   enum node_kind kind);

/*
 * Places the context of addr in module m below the canonical node x:
 * PF -> aliens and loops -> a STMT (kind NODE_STMT) or CALL leaf.  The
 * same arguments always give the same nodes (made by the first call), so
 * later calls find the leaf in e's place memo.
 */
static struct node *place_addr(struct experiment *e, struct node *x,
			       const struct module *m, uint64_t addr,
			       enum node_kind kind)
{
	struct place_slot *s;
	struct node *n;

	if (2 * (e->nplaces + 1) > e->places_cap)
		grow_places(e);
	s = place_slot(e, x, m, addr, kind);
	if (s->leaf)
		return s->leaf;
	n = place_addr_new(e, x, m, addr, kind);
	/* place_addr_new() does not touch the memo: s stays valid */
	*s = (struct place_slot){ x, m, addr, kind, n };
	e->nplaces++;
	return n;
}

struct node *experiment_place_call(struct experiment *e, struct node *x,
				   const struct module *m, uint64_t addr)
{
	struct structure *st;
	uint32_t s = resolve(e, m, addr, &st);
	long p = structure_proc_of(st, s);

	if (addr && !(p >= 0 && st->scopes[p].vma == addr))
		addr--;
	return place_addr(e, x, m, addr, NODE_CALL);
}

static struct node *place_addr_new(struct experiment *e, struct node *x,
				   const struct module *m, uint64_t addr,
				   enum node_kind kind)
{
	struct structure *st;
	uint32_t s = resolve(e, m, addr, &st), chain[256], k, n = 0;
	long p = structure_proc_of(st, s);
	const struct scope *proc;
	struct place at;
	int is_new;

	proc = &st->scopes[p];
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
	step(e, &at, NODE_PF, NODE_PROC, m, st, (uint32_t)p);
	for (k = s; k != (uint32_t)p && n < 256; k = st->scopes[k].parent)
		chain[n++] = k;
	while (n-- > 0) {
		const struct scope *sc = &st->scopes[chain[n]];

		if (sc->kind == SCOPE_LOOP)
			step(e, &at, NODE_LOOP, NODE_LOOP, m, st, chain[n]);
		else if (sc->kind == SCOPE_ALIEN && sc->name && sc->name[0])
			step(e, &at, NODE_ALIEN, NODE_ALIEN, m, st, chain[n]);
	}
	return leaf(e, &at, kind, m, st, s, addr);
}

struct node *experiment_child(struct experiment *e, struct node *parent,
			      enum node_kind kind, uint64_t k1, uint64_t k2,
			      int *is_new)
{
	if (!parent) {
		*is_new = 1;
		return node_new(e, NULL, kind);
	}
	return child(e, parent, kind, k1, k2, is_new);
}

void experiment_call_site(struct experiment *e, const struct module *m,
			  uint64_t addr, const char **proc, const char **file,
			  uint32_t *line)
{
	struct structure *st;
	uint32_t s = resolve(e, m, addr, &st);
	long p = structure_proc_of(st, s);
	const struct scope *sc = &st->scopes[s];

	*proc = p >= 0 && st->scopes[p].name ? st->scopes[p].name : "?";
	*file = sc->file ? sc->file : "";
	*line = sc->kind == SCOPE_PROC ? 0 : sc->line;
}

/* Values per (raw metric, ie) of a node's row in e->scratch. */
static size_t row_len(const struct experiment *e)
{
	return 2 * (e->metrics.nraw ? e->metrics.nraw : 1);
}

/*
 * n's row of this thread's values (e->scratch), n listed as touched by
 * this thread.  The rows are by id, side by side: a sample's walk up the
 * tree stays in a small array, not in accumulators beside each node.
 */
static double *touch(struct experiment *e, struct node *n)
{
	uint32_t t = (uint32_t)e->nthreads + 1;
	size_t k = row_len(e);

	if (n->id >= e->scratch_rows) {
		size_t rows = e->scratch_rows ? 2 * e->scratch_rows : 4096;

		while (rows <= n->id)
			rows *= 2;
		e->scratch = xrealloc(e->scratch, rows * k * sizeof(double));
		memset(e->scratch + e->scratch_rows * k, 0,
		       (rows - e->scratch_rows) * k * sizeof(double));
		e->scratch_rows = rows;
	}
	if (n->tstamp != t) {
		n->tstamp = t;
		HPC_GROW(e->touched, e->ntouched + 1, e->touched_alloc);
		e->touched[e->ntouched++] = n;
	}
	return e->scratch + (size_t)n->id * k;
}

double *experiment_row(struct experiment *e, struct node *n)
{
	return touch(e, n);
}

/* Flat counterpart of a canonical node (and, for a PF, its FILE and LM). */
static void add_flat(struct experiment *e, struct node *f, size_t raw,
		     double v, int excl, int with_parents)
{
	int up = with_parents ? 3 : 1;

	for (; f && up-- > 0; f = f->parent) {
		double *row;

		if (f->stamp == e->sample_serial)
			continue;
		f->stamp = e->sample_serial;
		row = touch(e, f);
		row[2 * raw] += v;
		if (excl)
			row[2 * raw + 1] += v;
	}
}

/*
 * Adds v to every node from leaf_node up: to the root and the flat tree,
 * or, for a sample of a per-phase profile (in_phase), up to its PHASE node
 * only (invariant 4).
 */
static void add_sample(struct experiment *e, struct node *leaf_node,
		       size_t raw, double v, int in_phase)
{
	struct node *c;
	int excl = 1;

	e->sample_serial++;
	for (c = leaf_node; c; c = c->parent) {
		double *row;

		if (c->kind == NODE_CALL || c->kind == NODE_PROGRAM ||
		    c->kind == NODE_PHASE)
			excl = 0;
		row = touch(e, c);
		row[2 * raw] += v;
		if (in_phase) {
			if (excl)
				row[2 * raw + 1] += v;
			if (c->kind == NODE_PHASE)
				break;
			continue;
		}
		/* The experiment's exclusive total is its total. */
		if (excl || c->kind == NODE_ROOT)
			row[2 * raw + 1] += v;
		if (c->kind == NODE_ROOT)
			add_flat(e, e->flat_root, raw, v, 1, 0);
		else
			add_flat(e, c->flat, raw, v, excl,
				 c->kind == NODE_PF);
		/* a sample is exclusive to its innermost procedure frame, also
		 * where no call node stands above it (below the partial call
		 * paths' root) */
		if (c->kind == NODE_PF)
			excl = 0;
	}
}

void experiment_add_sample(struct experiment *e, struct node *leaf_node,
			   size_t raw, double v)
{
	add_sample(e, leaf_node, raw, v, 0);
}

/*
 * The end of a thread: each node it touched reports its values to
 * e->thread_cb and, but in a worker without worker_stats, folds them into
 * its accumulator; the rows are cleared for the next thread.
 */
static void end_thread(struct experiment *e)
{
	size_t i, k, n = row_len(e);
	int fold = !e->shared || e->worker_stats;

	for (i = 0; i < e->ntouched; i++) {
		struct node *x = e->touched[i];
		double *row = e->scratch + (size_t)x->id * n;

		if (fold && !x->acc)
			x->acc = accum_new(&e->metrics);
		for (k = 0; k < n; k++) {
			if (row[k] == 0)
				continue;
			if (e->thread_cb)
				e->thread_cb(e->thread_arg,
					     (uint32_t)e->nthreads, x, k / 2,
					     (int)(k % 2), row[k]);
			if (fold)
				accum_fold_value(x->acc, k, row[k]);
			row[k] = 0;
		}
	}
	e->ntouched = 0;
}

void experiment_placeholder_name(uint64_t addr, char *out)
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

/*
 * A PF named full below x, in the "<placeholders>" module, and its one
 * statement's scope (into *m, *st and *stmt): the place of values on a
 * placeholder, measured at a call (phases.c), or of partial call paths.
 */
static struct place named_proc(struct experiment *e, struct node *x,
			       const char *full, struct module *m,
			       struct structure **stp, uint32_t *stmt)
{
	struct structure *st;
	struct place at = { x, NULL };
	uint32_t p;
	int is_new;

	*m = (struct module){ .path = PLACEHOLDERS_PATH,
			      .lm = PLACEHOLDER_LM };

	/* a worker's placeholders have no module until merged; e's own are
	 * those experiment_merge() gives them */
	if (e->shared) {
		m->st = st = experiment_placeholders(e)->st;
	} else {
		struct module *pm = module_for(e, PLACEHOLDERS_PATH, NULL,
					       NULL);

		m->lm = pm->lm;
		m->st = st = overlay_of(e, pm)->st;
	}
	for (p = 1; p < st->nscopes; p++)
		if (st->scopes[p].kind == SCOPE_PROC &&
		    !strcmp(st->scopes[p].name, full))
			break;
	if (p == st->nscopes) {
		p = structure_add(st, SCOPE_PROC, 0, full, "", 0, 0);
		structure_add(st, SCOPE_STMT, p, NULL, "", 0, 0);
	}
	at.f = child(e, e->flat_root, NODE_LM, m->lm, 0, &is_new);
	at.f->lm = m->lm;
	at.f = child(e, at.f, NODE_FILE, name_table_intern(&e->files, ""), 0,
		     &is_new);
	at.f->lm = m->lm;
	step(e, &at, NODE_PF, NODE_PROC, m, st, p);
	*stp = st;
	*stmt = p + 1;
	return at;
}

struct node *experiment_named_leaf(struct experiment *e, struct node *x,
				   const char *full)
{
	struct module m;
	struct structure *st;
	uint32_t stmt;
	struct place at = named_proc(e, x, full, &m, &st, &stmt);

	return leaf(e, &at, NODE_STMT, &m, st, stmt, 0);
}

struct node *experiment_placeholder_leaf(struct experiment *e,
					 struct node *x, uint64_t addr)
{
	char name[16], full[32];

	experiment_placeholder_name(addr, name);
	snprintf(full, sizeof(full), "<%s>", name);
	return experiment_named_leaf(e, x, full);
}

static const char *program_name(const struct hpcrun_profile *p)
{
	const char *name = hpcrun_profile_header(p, "program-name");

	return name ? name : "";
}

size_t experiment_add_program(struct experiment *e,
			      const struct hpcrun_profile *p)
{
	const char *name = program_name(p);
	const char *path = hpcrun_profile_header(p, "program-path");
	const char *pid = hpcrun_profile_header(p, "process-id");
	const char *host = hpcrun_profile_header(p, "host-id");
	uintptr_t v = (uintptr_t)hmap_get_str(e->program_index, name);
	struct strbuf key = STRBUF_INIT;
	struct program *pr;

	if (!v) {
		HPC_GROW(e->programs, e->nprograms + 1, e->programs_alloc);
		pr = &e->programs[e->nprograms++];
		memset(pr, 0, sizeof(*pr));
		pr->name = xstrdup(name);
		pr->path = xstrdup(path && path[0] ? path : name);
		pr->pids = hmap_new();
		pr->lm = UINT32_MAX;
		v = e->nprograms;
		hmap_put_str(e->program_index, name, (void *)v);
	}
	pr = &e->programs[v - 1];
	pr->nthreads++;
	/* a process is a pid on a host (MPI ranks run on several) */
	strbuf_addf(&key, "%s:%s", host ? host : "", pid ? pid : "");
	if (!pid || !hmap_get_str(pr->pids, key.buf)) {
		pr->nprocs++;
		if (pid)
			hmap_put_str(pr->pids, key.buf, (void *)1);
	}
	strbuf_release(&key);
	return v - 1;
}

struct overlay *experiment_placeholders(struct experiment *e)
{
	if (!e->ph) {
		e->ph = xcalloc(1, sizeof(*e->ph));
		e->ph->st = structure_new(PLACEHOLDERS_PATH, "");
		structure_finish(e->ph->st);
		e->ph->content = hmap_new();
	}
	return e->ph;
}

struct overlay *experiment_overlay(struct experiment *e, uint32_t module)
{
	return overlay_of(e, e->modules[module]);
}

/*
 * Where profile p's contexts go: the root, or with several programs the
 * PROGRAM node of p's program ("<program NAME>", in the load module of the
 * program's path), made on first use.
 */
static struct node *program_root(struct experiment *e,
				 const struct hpcrun_profile *p)
{
	uintptr_t v = (uintptr_t)hmap_get_str(e->program_index,
					      program_name(p));
	const struct program *pr;
	struct strbuf sb = STRBUF_INIT;
	struct node *n;
	int is_new;

	if (!v || e->nprograms < 2)
		return e->root;
	pr = &e->programs[v - 1];
	n = child(e, e->root, NODE_PROGRAM, v - 1, 0, &is_new);
	if (!is_new)
		return n;
	if (!e->shared)		/* a worker's is set when merged */
		e->programs[v - 1].node = n;
	strbuf_addf(&sb, "<program %s>", pr->name);
	n->proc = name_table_intern(&e->procs, sb.buf);
	n->lm = pr->lm;
	n->file = name_table_intern(&e->files, "");
	strbuf_release(&sb);
	return n;
}

void experiment_register(struct experiment *e, const struct hpcrun_profile *p,
			 const char *dir)
{
	uintptr_t v = (uintptr_t)hmap_get_str(e->program_index,
					      program_name(p));
	size_t i;

	if (!e->program && hpcrun_profile_header(p, "program-name"))
		e->program = xstrdup(hpcrun_profile_header(p, "program-name"));
	if (v)
		e->programs[v - 1].node = e->root;
	if (v && e->nprograms > 1 && e->programs[v - 1].lm == UINT32_MAX)
		e->programs[v - 1].lm =
			name_table_intern(&e->lms, e->programs[v - 1].path);
	for (i = 0; i < p->nlms; i++)
		module_for(e, p->lms[i].path, dir,
			   hpc_buildid_measured(p, p->lms[i].id));
}

/* The capabilities' walk hooks (capability.h: walk), called in the
 * table's order: the placing hooks before code placement, the sample
 * hooks after the code tree took each sample, so that the nodes a thread
 * touches are reported (thread-values.tsv) in the order code, data. */
#define NHOOKS NCAPS
static const struct profile_hook *hook(size_t h)
{
	return prof_capabilities[h]->walk;
}

/* Is nd hpcrun's root of failed unwinds, "^Partial" (hpcrun(5))? */
static int is_partial_root(const struct hpcrun_node *nd)
{
	char name[16];

	if (nd->lm != 0)
		return 0;
	experiment_placeholder_name(nd->addr, name);
	return !strcmp(name, "^Partial");
}

void experiment_place_node(struct profile_walk *w, uint64_t i,
			   struct node *x, struct node **attach,
			   struct node **leaf)
{
	struct experiment *e = w->e;
	const struct hpcrun_node *nd = &w->p->nodes[i];

	if (nd->lm == 0 || nd->lm >= w->nmods || !w->mods[nd->lm]) {
		*attach = x;
		if (w->has_child[i] && is_partial_root(nd)) {
			struct module m;
			struct structure *st;
			uint32_t stmt;

			*attach = named_proc(e, x, PARTIAL_ROOT_NAME, &m,
					     &st, &stmt).c;
		}
		if (w->has_values[i])
			*leaf = experiment_placeholder_leaf(e, x, nd->addr);
		return;
	}
	if (w->has_child[i])
		*attach = place_addr(e, x, w->mods[nd->lm],
				     nd->addr ? nd->addr - 1 : 0, NODE_CALL);
	if (w->has_values[i])
		*leaf = place_addr(e, x, w->mods[nd->lm], nd->addr,
				   NODE_STMT);
}

/* Code placement, for a node no hook placed: below its parent's attach
 * point, the program's root for a root. */
static void place_code(struct profile_walk *w, uint64_t i)
{
	long k = w->parent[i];
	struct node *x = k >= 0 && w->attach[k] ? w->attach[k] : w->top;

	experiment_place_node(w, i, x, &w->attach[i], &w->leaves[i]);
}

void experiment_add_leaf_sample(struct profile_walk *w, uint64_t k,
				size_t raw, double v)
{
	if (w->leaves[k])
		add_sample(w->e, w->leaves[k], raw, v, w->in_phase[k]);
}

/* The value of profile value v (a count or a double, by its metric). */
static double value_of(const struct hpcrun_profile *p,
		       const struct hpcrun_value *v)
{
	double d;

	if (p->metrics[v->metric].flags[2] == 1)
		return (double)v->bits;
	memcpy(&d, &v->bits, sizeof(d));
	return d;
}

/* The values of node k's context i: each hook's attributes, the code
 * tree's samples, then each hook's. */
static void add_values(struct profile_walk *w, const int *on,
		       void *const *state, const int *metric_map, uint64_t i,
		       uint64_t k)
{
	const struct hpcrun_profile *p = w->p;
	uint64_t j, end = i + 1 < p->nctxs ? p->ctxs[i + 1].first
					   : p->nvalues;
	size_t h;

	for (j = p->ctxs[i].first; j < end; j++) {
		const struct hpcrun_value *v = &p->values[j];
		int raw = metric_map[v->metric];
		double d = value_of(p, v);

		if (raw < 0) {
			for (h = 0; h < NHOOKS; h++)
				if (on[h] && hook(h)->attribute)
					hook(h)->attribute(
						state[h], w, k, v->metric, d);
			continue;
		}
		if (d == 0 || d != d)
			continue;
		experiment_add_leaf_sample(w, k, (size_t)raw, d);
		for (h = 0; h < NHOOKS; h++)
			if (on[h] && hook(h)->sample)
				hook(h)->sample(state[h], w, k,
							 (size_t)raw, d);
	}
}

void experiment_add_profile(struct experiment *e,
			    const struct hpcrun_profile *p,
			    const int *metric_map)
{
	uint64_t i, n = p->nnodes, nn = n ? n : 1;
	uint32_t dup;
	struct hpcrun_node_index *ids = hpcrun_node_index_new(p, &dup);
	long *parent = xcalloc(nn, sizeof(*parent));
	char *has_child = xcalloc(nn, 1), *has_values = xcalloc(nn, 1);
	struct profile_walk w = {
		.e = e, .p = p, .ids = ids, .parent = parent,
		.has_child = has_child, .has_values = has_values, .nmods = 1,
		.top = program_root(e, p),
		.attach = xcalloc(nn, sizeof(*w.attach)),
		.leaves = xcalloc(nn, sizeof(*w.leaves)),
		.in_phase = xcalloc(nn, 1),
	};
	void *state[NHOOKS] = { NULL };
	int on[NHOOKS];
	size_t h;

	for (i = 0; i < p->nlms; i++)
		if (p->lms[i].id >= w.nmods)
			w.nmods = (size_t)p->lms[i].id + 1;
	w.mods = xcalloc(w.nmods, sizeof(*w.mods));
	for (i = 0; i < p->nlms; i++)
		w.mods[p->lms[i].id] = module_find(
			e, p->lms[i].path,
			hpc_buildid_measured(p, p->lms[i].id));
	for (i = 0; i < n; i++) {
		long k = p->nodes[i].parent ?
			 hpcrun_node_position(ids, p->nodes[i].parent) : -1;

		parent[i] = k;
		if (k >= 0)
			has_child[k] = 1;
	}
	for (i = 0; i < p->nctxs; i++) {
		long k = hpcrun_node_position(ids, p->ctxs[i].ctx);

		if (k >= 0)
			has_values[k] = 1;
	}
	for (h = 0; h < NHOOKS; h++)
		on[h] = hook(h) && hook(h)->begin(&w, &state[h]);
	for (i = 0; i < n; i++) {
		w.in_phase[i] = parent[i] >= 0 && w.in_phase[parent[i]];
		for (h = 0; h < NHOOKS; h++)
			if (on[h] && hook(h)->place &&
			    hook(h)->place(state[h], &w, i))
				break;
		if (h == NHOOKS)
			place_code(&w, i);
	}
	for (i = 0; i < p->nctxs; i++) {
		long k = hpcrun_node_position(ids, p->ctxs[i].ctx);

		if (k >= 0)
			add_values(&w, on, state, metric_map, i, (uint64_t)k);
	}
	for (h = 0; h < NHOOKS; h++)
		if (on[h] && hook(h)->end)
			hook(h)->end(state[h], &w);
	end_thread(e);
	e->nthreads++;
	e->metrics.nthreads = e->nthreads;
	free(w.mods);
	hpcrun_node_index_free(ids);
	free(w.attach);
	free(w.leaves);
	free(w.in_phase);
	free(has_child);
	free(has_values);
	free(parent);
}

/* Index of w's name i of t in e's table u (interned in w's order). */
static uint32_t *name_map(struct name_table *u, const struct name_table *t)
{
	uint32_t *map = xcalloc(t->n ? t->n : 1, sizeof(*map));
	size_t i;

	for (i = 0; i < t->n; i++)
		map[i] = name_table_intern(u, t->names[i]);
	return map;
}

/*
 * Scope i of a worker's overlay src, in e's overlay ov: found by its
 * content (as the fallback keys its scopes) or added; memo[i] = index + 1.
 */
static uint32_t import_scope(struct overlay *ov, const struct structure *src,
			     uint32_t i, uint32_t *memo)
{
	const struct scope *sc = &src->scopes[i];
	struct strbuf key = STRBUF_INIT;
	uint32_t parent;
	uintptr_t v;

	if (i == 0)
		return 0;
	if (memo[i])
		return memo[i] - 1;
	parent = import_scope(ov, src, sc->parent, memo);
	strbuf_addf(&key, "%u/%d/%s/%s/%u", parent, (int)sc->kind,
		    sc->name ? sc->name : "", sc->file ? sc->file : "",
		    sc->line);
	if (sc->kind == SCOPE_PROC)
		strbuf_addf(&key, "/%" PRIx64, sc->vma);
	v = (uintptr_t)hmap_get_str(ov->content, key.buf);
	if (!v) {
		v = structure_add(ov->st, sc->kind, parent, sc->name,
				  sc->file, sc->line, sc->vma) + 1;
		hmap_put_str(ov->content, key.buf, (void *)v);
	}
	strbuf_release(&key);
	memo[i] = (uint32_t)v;
	return (uint32_t)(v - 1);
}

/* What merging one worker needs: its name maps and its overlays'. */
struct merge {
	struct experiment *e;
	const struct experiment *w;
	uint32_t *files, *procs;
	struct hmap *ovs;	/* w's overlay structure -> its overlay + 1 */
	uint32_t **memo;	/* per w overlay (the last: placeholders) */
	struct module *ph;	/* e's placeholders module, once needed */
};

/* e's load-module index of w's lm: the placeholders' and the data
 * tree's made when first needed, as adding the profiles makes them. */
static uint32_t merge_lm(struct merge *mg, uint32_t lm)
{
	if (mg->e->shared)
		return lm;
	if (lm == DATA_LM)
		return name_table_intern(&mg->e->lms, "<data>");
	if (lm == PHASES_LM)
		return name_table_intern(&mg->e->lms, "<phases>");
	if (lm != PLACEHOLDER_LM)
		return lm;
	if (!mg->ph)
		mg->ph = module_for(mg->e, PLACEHOLDERS_PATH, NULL, NULL);
	return mg->ph->lm;
}

/*
 * e's key and structure for w's node n: a shared structure's keys stand;
 * an overlay's scopes and file names are found in e's overlay of it.
 */
static const struct structure *merge_key(struct merge *mg,
					 const struct node *n, uint64_t *k1,
					 uint64_t *k2)
{
	uintptr_t o = n->st ? (uintptr_t)hmap_get_u64(mg->ovs,
					(uint64_t)(uintptr_t)n->st) : 0;
	struct overlay *ov;

	*k1 = n->k1;
	*k2 = n->k2;
	if (n->kind == NODE_LM)
		*k1 = merge_lm(mg, (uint32_t)n->k1);
	else if (n->kind == NODE_FILE)
		*k1 = mg->files[n->k1];
	if (!o)
		return n->st;
	if (o - 1 != mg->w->nov) {
		ov = overlay_of(mg->e, mg->e->modules[o - 1]);
	} else if (mg->e->shared) {
		ov = experiment_placeholders(mg->e);
	} else {
		merge_lm(mg, PLACEHOLDER_LM);
		ov = overlay_of(mg->e, mg->ph);
	}
	if (!mg->memo[o - 1])
		mg->memo[o - 1] = xcalloc(n->st->nscopes, sizeof(uint32_t));
	if (n->kind == NODE_STMT || n->kind == NODE_CALL) {
		if (n->k1 != (uint64_t)(uintptr_t)no_file)
			*k1 = (uint64_t)(uintptr_t)structure_intern(
				ov->st, (const char *)(uintptr_t)n->k1);
	} else {
		*k2 = import_scope(ov, n->st, (uint32_t)n->k2,
				   mg->memo[o - 1]);
		*k1 = (uint64_t)(uintptr_t)ov->st;
	}
	return ov->st;
}

struct node **experiment_merge(struct experiment *e,
			       const struct experiment *w)
{
	struct merge mg = { e, w, NULL, NULL, hmap_new(), NULL, NULL };
	struct node **map = xcalloc(w->next_id + 1, sizeof(*map));
	size_t i;

	mg.files = name_map(&e->files, &w->files);
	mg.procs = name_map(&e->procs, &w->procs);
	mg.memo = xcalloc(w->nov + 1, sizeof(*mg.memo));
	for (i = 0; i < w->nov; i++)
		if (w->ov[i].st)
			hmap_put_u64(mg.ovs, (uint64_t)(uintptr_t)w->ov[i].st,
				     (void *)(uintptr_t)(i + 1));
	if (w->ph)
		hmap_put_u64(mg.ovs, (uint64_t)(uintptr_t)w->ph->st,
			     (void *)(uintptr_t)(w->nov + 1));
	map[w->root->id] = e->root;
	map[w->flat_root->id] = e->flat_root;
	for (i = 0; i < NCAPS; i++)
		if (prof_capabilities[i]->merge_begin)
			prof_capabilities[i]->merge_begin(e, w);
	for (i = 0; i < w->next_id; i++) {
		const struct node *n = w->nodes[i];
		struct node *x;
		const struct structure *st;
		uint64_t k1, k2;
		int is_new;

		if (!n->parent) {	/* the roots; w's data root is made
					 * where w made it (datatree.h) */
			if (n->kind == NODE_DATA)
				map[n->id] = datatree_root(e);
			continue;
		}
		st = merge_key(&mg, n, &k1, &k2);
		if (n->kind == NODE_DATA && k1 == 2)
			k2 = datatree_merge_key(e, w, n);
		if (n->kind == NODE_PHASE) {
			k1 = phases_merge_key(w->cap[CAP_PHASES],
					      (uint32_t)k1);
			if (k2)		/* an end key + 1 */
				k2 = (uint64_t)phases_merge_key(
					w->cap[CAP_PHASES],
					(uint32_t)k2 - 1) + 1;
		}
		x = child(e, map[n->parent->id], n->kind, k1, k2, &is_new);
		map[n->id] = x;
		if (is_new) {
			x->st = st;
			x->flat = n->flat ? map[n->flat->id] : NULL;
			x->lm = merge_lm(&mg, n->lm);
			x->file = n->kind == NODE_LM ? 0 : mg.files[n->file];
			x->proc = n->kind == NODE_PF ||
				  n->kind == NODE_ALIEN ||
				  n->kind == NODE_PROC ||
				  n->kind == NODE_PROGRAM ||
				  n->kind == NODE_PHASE ||
				  n->kind == NODE_DATA ? mg.procs[n->proc] : 0;
			x->line = n->line;
			x->vma = n->vma;
			if (n->kind == NODE_PROGRAM && !e->shared)
				e->programs[n->k1].node = x;
		}
		if (n->kind == NODE_DATA)
			datatree_merge_node(e, w, n, x, is_new);
	}
	for (i = 0; i < NCAPS; i++)
		if (prof_capabilities[i]->merge)
			prof_capabilities[i]->merge(e, w, map);
	for (i = 0; i <= w->nov; i++)
		free(mg.memo[i]);
	free(mg.memo);
	free(mg.files);
	free(mg.procs);
	hmap_free(mg.ovs);
	return map;
}

void experiment_merge_fallbacks(struct experiment *e,
				const struct experiment *w)
{
	size_t i;

	for (i = 0; i < w->nov; i++)	/* e's own placeholders have an
					 * overlay, and no binary */
		if (w->ov[i].st && strcmp(e->modules[i]->path,
					  PLACEHOLDERS_PATH))
			open_fallback(e->modules[i]);
}
