/* datatree.c - see datatree.h. */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datatree.h"
#include "error.h"
#include "experiment-wire.h"
#include "hashmap.h"
#include "strbuf.h"

/* An allocation path longer than this is named by its leaf frames. */
#define MAX_PATH_FRAMES 16

static const char *const kind_names[DATA_NKINDS] = {
	[DATA_HEAP] = "heap", [DATA_STATIC] = "static",
	[DATA_STACK] = "stack", [DATA_SMALL] = "small",
	[DATA_UNKNOWN] = "unknown",
};
static const char *const kind_nodes[DATA_NKINDS] = {
	[DATA_HEAP] = "<heap>", [DATA_STATIC] = "<static>",
	[DATA_STACK] = "<stack>", [DATA_SMALL] = "<small heap blocks>",
	[DATA_UNKNOWN] = "<unknown data>",
};
/* The roots' placeholders (8 bytes, blank-padded); ^NoAddr's accesses
 * have no object. */
static const char *const root_names[DATA_NOADDR + 1] = {
	[DATA_HEAP] = "^Heap", [DATA_STATIC] = "^Static",
	[DATA_STACK] = "^Stack", [DATA_SMALL] = "^Small",
	[DATA_UNKNOWN] = "^Unknown", [DATA_NOADDR] = "^NoAddr",
};
static const char *const attr_names[DATTR_COUNT] = {
	[DATTR_BYTES] = "DATA:bytes", [DATTR_BLOCKS] = "DATA:blocks",
	[DATTR_OFFSET_LO] = "DATA:offset-lo",
	[DATTR_OFFSET_HI] = "DATA:offset-hi",
	[DATTR_THREADS] = "DATA:threads",
	[DATTR_SHARING] = "DATA:sharing", [DATTR_REMOTE] = "DATA:remote%",
};

const char *datatree_kind_name(enum data_kind k)
{
	return k < DATA_NKINDS ? kind_names[k] : "?";
}

const char *datatree_attr_name(enum data_attr a)
{
	return a > DATTR_NONE && a < DATTR_COUNT ? attr_names[a] : "?";
}

enum data_attr datatree_attr_of(const char *metric)
{
	int a;

	for (a = DATTR_BYTES; a < DATTR_THREADS; a++)
		if (!strcmp(metric, attr_names[a]))
			return (enum data_attr)a;
	return DATTR_NONE;
}

/* Is addr the placeholder name (8 bytes, blank-padded)? */
static int placeholder_is(uint64_t addr, const char *name)
{
	size_t k, len = strlen(name);

	for (k = 0; k < 8; k++) {
		char ch = k < len ? name[k] : ' ';

		if ((char)(addr >> (56 - 8 * k)) != ch)
			return 0;
	}
	return 1;
}

static enum data_kind root_kind(uint64_t addr)
{
	int k;

	for (k = 0; k <= DATA_NOADDR; k++)
		if (placeholder_is(addr, root_names[k]))
			return (enum data_kind)k;
	return DATA_NONE;
}

static int is_access(const struct hpcrun_node *nd)
{
	return nd->lm == 0 && placeholder_is(nd->addr, "^Access");
}

void datatree_problem(struct experiment *e, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (e->data->problem)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	e->data->problem = strbuf_detach(&sb, NULL);
}

/* The profile's first problem, taken (caller frees), or NULL. */
static char *take_problem(struct experiment *e)
{
	char *s;

	if (!e->data)
		return NULL;
	s = e->data->problem;
	e->data->problem = NULL;
	return s;
}

static struct datatree *tree(struct experiment *e)
{
	if (!e->data) {
		e->data = xcalloc(1, sizeof(*e->data));
		e->data->by_name = hmap_new();
		e->data->by_node = hmap_new();
		e->data->by_var = hmap_new();
		e->data->names = hmap_new();
	}
	return e->data;
}

/* A NODE_DATA child named name (a procedure of the data module). */
static struct node *data_node(struct experiment *e, struct node *parent,
			      uint64_t k1, uint64_t k2, const char *name)
{
	int is_new;
	struct node *n = experiment_child(e, parent, NODE_DATA, k1, k2,
					  &is_new);

	if (is_new) {
		n->proc = name_table_intern(&e->procs, name);
		n->lm = e->shared ? DATA_LM : name_table_intern(&e->lms,
								 "<data>");
		n->file = name_table_intern(&e->files, "");
	}
	return n;
}

/* The data root, made when new. */
struct node *datatree_root(struct experiment *e)
{
	struct datatree *dt = tree(e);

	if (!dt->root)
		dt->root = data_node(e, NULL, 0, 0, "<data objects>");
	return dt->root;
}

/*
 * Object dt->nobjs, of kind, identity key and "KIND\tNAME" shown, at its
 * node (made with that index as its key), in every index of dt.
 */
static struct data_object *add_object(struct datatree *dt,
				      enum data_kind kind, const char *key,
				      const char *shown, struct node *node)
{
	struct data_object *o;

	HPC_GROW(dt->objs, dt->nobjs + 1, dt->objs_alloc);
	o = &dt->objs[dt->nobjs++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->remote = -1;
	o->key = xstrdup(key);
	o->node = node;
	hmap_put_str(dt->names, shown, (void *)1);
	hmap_put_str(dt->by_name, key, (void *)(uintptr_t)dt->nobjs);
	hmap_put(dt->by_node, &node->id, sizeof(node->id),
		 (void *)(uintptr_t)dt->nobjs);
	return o;
}

/*
 * The object (kind, id), made when new below its kind's node, named name
 * (with " #2", " #3", ... when another object of the kind has that name
 * already: two allocation paths that differ only within a source line);
 * lm, file and line place it (the allocation's call site, the variable's
 * module).  id NULL: the name is the identity.
 */
static int32_t object_id(struct experiment *e, enum data_kind kind,
			 const char *id, const char *name, uint32_t lm,
			 const char *file, uint32_t line)
{
	struct datatree *dt = tree(e);
	struct strbuf key = STRBUF_INIT, shown = STRBUF_INIT;
	uintptr_t v;
	struct node *x;
	int n;

	strbuf_addf(&key, "%d\t%s", (int)kind, id ? id : name);
	v = (uintptr_t)hmap_get_str(dt->by_name, key.buf);
	if (v) {
		strbuf_release(&key);
		return (int32_t)(v - 1);
	}
	strbuf_addf(&shown, "%d\t%s", (int)kind, name);
	for (n = 2; id && hmap_get_str(dt->names, shown.buf); n++) {
		strbuf_reset(&shown);
		strbuf_addf(&shown, "%d\t%s #%d", (int)kind, name, n);
		dt->renamed = 1;
	}
	if (!dt->kinds[kind])
		dt->kinds[kind] = data_node(e, datatree_root(e), 1, kind,
					    kind_nodes[kind]);
	x = data_node(e, dt->kinds[kind], 2, dt->nobjs,
		      strchr(shown.buf, '\t') + 1);
	x->lm = lm;
	x->file = name_table_intern(&e->files, file);
	x->line = line;
	add_object(dt, kind, key.buf, shown.buf, x);
	strbuf_release(&key);
	strbuf_release(&shown);
	return (int32_t)dt->nobjs - 1;
}

static int32_t object(struct experiment *e, enum data_kind kind,
		      const char *name, uint32_t lm, const char *file,
		      uint32_t line)
{
	return object_id(e, kind, NULL, name, lm, file, line);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The unknown-data object (the place of accesses nothing else names). */
static int32_t unknown_object(struct experiment *e)
{
	return object(e, DATA_UNKNOWN, "unknown", 0, "", 0);
}

/*
 * The heap object of the allocation path ending at node idx: its frames
 * named leaf first, "alloc_b prog.c:12 < main prog.c:30".  Memoized in
 * dn[idx].obj.
 */
static int32_t heap_object(struct experiment *e,
			   const struct hpcrun_profile *p, const long *parent,
			   struct module **mods, size_t nmods,
			   struct data_node *dn, long idx)
{
	struct strbuf name = STRBUF_INIT, id = STRBUF_INIT;
	const char *leaf_file = "";
	uint32_t leaf_line = 0, leaf_lm = 0;
	long k;
	int nframes = 0;

	if (dn[idx].obj >= 0)
		return dn[idx].obj;
	for (k = idx; k >= 0 && dn[k].role == DROLE_ALLOC; k = parent[k]) {
		const struct hpcrun_node *nd = &p->nodes[k];
		struct module *m = nd->lm && nd->lm < nmods ? mods[nd->lm]
							    : NULL;
		const char *proc = "?", *file = "";
		uint32_t line = 0;

		if (nframes == MAX_PATH_FRAMES) {
			strbuf_addstr(&name, " < ...");
			break;
		}
		if (m)
			experiment_call_site(e, m, nd->addr ? nd->addr - 1 : 0,
					     &proc, &file, &line);
		strbuf_addf(&id, "%s:%" PRIx64 ";", m ? m->path : "",
			    nd->addr);
		if (nframes++)
			strbuf_addstr(&name, " < ");
		strbuf_addstr(&name, proc);
		if (line)
			strbuf_addf(&name, " %s:%u", base_name(file), line);
		else if (m)
			strbuf_addf(&name, " %s+0x%" PRIx64,
				    base_name(m->path), nd->addr);
		if (k == idx) {
			leaf_file = file;
			leaf_line = line;
			leaf_lm = m ? m->lm : 0;
		}
		if (k <= parent[k])	/* not preorder: stop */
			break;
	}
	dn[idx].obj = object_id(e, DATA_HEAP, id.buf, name.buf, leaf_lm,
				leaf_file, leaf_line);
	strbuf_release(&name);
	strbuf_release(&id);
	return dn[idx].obj;
}

/*
 * How well sym names the variable at its address: a symbol with a size
 * before a size-0 marker (a linker's __TMC_END__ or __bss_start shares
 * the address of the variable that follows it), a typed one before
 * STT_NOTYPE, then global before weak before local.
 */
static int symbol_rank(const GElf_Sym *sym)
{
	int b = GELF_ST_BIND(sym->st_info);

	return (sym->st_size ? 8 : 0) +
	       (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE ? 4 : 0) +
	       (b == STB_GLOBAL ? 2 : b == STB_WEAK ? 1 : 0);
}

/*
 * The name of the data symbol of module m at module-relative addr, from
 * its ELF symbol table (then its dynamic one), the best ranked of those
 * that start there (symbol_rank); NULL when none does.  Caller frees.
 */
static char *symbol_at(const struct module *m, uint64_t addr)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	char *found = NULL;
	int fd = open(m->file, O_RDONLY | O_CLOEXEC), pass, best = -1;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for (pass = 0; elf && pass < 2 && !found; pass++) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB))
				continue;
			d = elf_getdata(scn, NULL);
			n = d ? sh.sh_size / sh.sh_entsize : 0;
			for (i = 0; i < n; i++) {
				GElf_Sym sym;
				const char *s;
				int t;

				if (!gelf_getsym(d, (int)i, &sym))
					break;
				t = GELF_ST_TYPE(sym.st_info);
				if ((t != STT_OBJECT && t != STT_TLS &&
				     t != STT_NOTYPE) || sym.st_value != addr ||
				    sym.st_shndx == SHN_UNDEF ||
				    symbol_rank(&sym) <= best)
					continue;
				s = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (s && s[0]) {
					free(found);
					found = xstrdup(s);
					best = symbol_rank(&sym);
				}
			}
		}
		scn = NULL;
	}
	elf_end(elf);
	close(fd);
	return found;
}

/*
 * The static object of variable node nd: "VAR [module]".  The module's
 * symbol table is read once per variable (by_var), not once per profile.
 */
static int32_t static_object(struct experiment *e, struct module *m,
			     const struct hpcrun_node *nd)
{
	struct strbuf name = STRBUF_INIT;
	struct { const struct module *m; uint64_t addr; } key = { m, nd->addr };
	uintptr_t v = (uintptr_t)hmap_get(tree(e)->by_var, &key, sizeof(key));
	char *sym;
	int32_t obj;

	if (v)
		return (int32_t)(v - 1);
	sym = symbol_at(m, nd->addr);
	if (sym)
		strbuf_addf(&name, "%s [%s]", sym, base_name(m->path));
	else
		strbuf_addf(&name, "0x%" PRIx64 " [%s]", nd->addr,
			    base_name(m->path));
	obj = object(e, DATA_STATIC, name.buf, m->lm, "", 0);
	hmap_put(e->data->by_var, &key, sizeof(key),
		 (void *)(uintptr_t)(obj + 1));
	free(sym);
	strbuf_release(&name);
	return obj;
}

/* The object a data root's own accesses belong to. */
static int32_t root_object(struct experiment *e, enum data_kind kind)
{
	struct strbuf name = STRBUF_INIT;
	int32_t obj;

	switch (kind) {
	case DATA_STACK:
		strbuf_addf(&name, "thread %zu", e->nthreads);
		obj = object(e, DATA_STACK, name.buf, 0, "", 0);
		strbuf_release(&name);
		return obj;
	case DATA_SMALL:
		return object(e, DATA_SMALL, "small heap blocks", 0, "", 0);
	case DATA_UNKNOWN:
		return unknown_object(e);
	default:
		return -1;
	}
}

void datatree_keep_ids(struct experiment *e, int on)
{
	tree(e)->keep_ids = on;
}

const struct data_id *datatree_id(const struct experiment *e, uint32_t id)
{
	uintptr_t v;

	if (!e->data || !e->data->id_index)
		return NULL;
	v = (uintptr_t)hmap_get(e->data->id_index, &id, sizeof(id));
	return v ? &e->data->ids[v - 1] : NULL;
}

/* Keeps the data nodes of p (datatree_keep_ids). */
static void keep_ids(struct datatree *dt, const struct hpcrun_profile *p,
		     const struct data_node *dn, struct module **mods,
		     size_t nmods)
{
	uint64_t i;

	hmap_free(dt->id_index);
	dt->id_index = hmap_new();
	dt->nids = 0;
	for (i = 0; i < p->nnodes; i++) {
		const struct hpcrun_node *nd = &p->nodes[i];
		struct data_id *d;

		if (dn[i].role == DROLE_CODE)
			continue;
		HPC_GROW(dt->ids, dt->nids + 1, dt->ids_alloc);
		d = &dt->ids[dt->nids++];
		d->id = nd->id;
		d->role = dn[i].role;
		d->obj = dn[i].obj;
		d->m = nd->lm && nd->lm < nmods ? mods[nd->lm] : NULL;
		d->addr = nd->addr;
		hmap_put(dt->id_index, &d->id, sizeof(d->id),
			 (void *)(uintptr_t)dt->nids);
	}
}

struct data_node *datatree_classify(struct experiment *e,
				    const struct hpcrun_profile *p,
				    const long *parent, const char *has_values,
				    struct module **mods, size_t nmods)
{
	uint64_t i, n = p->nnodes;
	struct data_node *dn;
	int found = 0;

	if (e->data && e->data->keep_ids) {
		hmap_free(e->data->id_index);
		e->data->id_index = NULL;
	}
	for (i = 0; i < n && !found; i++)
		found = parent[i] < 0 && p->nodes[i].lm == 0 &&
			root_kind(p->nodes[i].addr) != DATA_NONE;
	if (!found)
		return NULL;
	tree(e)->nprofiles++;
	dn = xcalloc(n, sizeof(*dn));
	for (i = 0; i < n; i++) {
		const struct hpcrun_node *nd = &p->nodes[i];
		long k = parent[i];
		const struct data_node *pd = k >= 0 && (uint64_t)k < i ?
					     &dn[k] : NULL;
		struct data_node *d = &dn[i];
		enum data_kind kind;

		d->obj = -1;
		if (!pd || pd->role == DROLE_CODE) {
			kind = k < 0 && nd->lm == 0 ? root_kind(nd->addr)
						    : DATA_NONE;
			if (kind == DATA_NONE)
				continue;
			d->role = DROLE_ROOT;
			d->kind = (uint8_t)kind;
			d->obj = root_object(e, kind);
			continue;
		}
		d->kind = pd->kind;
		switch (pd->role) {
		case DROLE_ROOT:
			if (pd->kind == DATA_NOADDR) {
				d->role = DROLE_ACCESS;
			} else if (pd->kind == DATA_HEAP && !is_access(nd)) {
				d->role = DROLE_ALLOC;
				if (has_values[i])
					heap_object(e, p, parent, mods, nmods, dn,
						    (long)i);
			} else if (pd->kind == DATA_STATIC && !is_access(nd)) {
				d->role = DROLE_VAR;
				if ((nd->flags & HPCRUN_NODE_VARIABLE) &&
				    nd->lm && nd->lm < nmods && mods[nd->lm]) {
					d->obj = static_object(e, mods[nd->lm],
							       nd);
					break;
				}
				datatree_problem(e, "node %" PRIu32 " under "
						 "^Static is no variable of a "
						 "module in the load map",
						 nd->id);
				d->obj = unknown_object(e);
			} else if (is_access(nd)) {
				d->role = DROLE_MARK;
				d->obj = pd->obj >= 0 ? pd->obj
						      : unknown_object(e);
				if (pd->kind == DATA_HEAP ||
				    pd->kind == DATA_STATIC)
					datatree_problem(e, "^Access node %"
							 PRIu32 " right below "
							 "%s", nd->id,
							 root_names[pd->kind]);
			} else {
				datatree_problem(e, "node %" PRIu32 " below "
						 "%s is not ^Access", nd->id,
						 root_names[pd->kind]);
				d->role = DROLE_ACCESS;
				d->obj = pd->obj;
			}
			break;
		case DROLE_ALLOC:
			if (is_access(nd)) {
				d->role = DROLE_MARK;
				d->obj = heap_object(e, p, parent, mods, nmods, dn, k);
			} else {
				d->role = DROLE_ALLOC;
				if (has_values[i])
					heap_object(e, p, parent, mods, nmods, dn,
						    (long)i);
			}
			break;
		case DROLE_VAR:
			d->obj = pd->obj;
			if (is_access(nd)) {
				d->role = DROLE_MARK;
				break;
			}
			datatree_problem(e, "node %" PRIu32 " below a variable "
					 "is not ^Access", nd->id);
			d->role = DROLE_ACCESS;
			break;
		default:	/* MARK, ACCESS */
			d->role = DROLE_ACCESS;
			d->obj = pd->obj;
			break;
		}
	}
	if (e->data->keep_ids)
		keep_ids(e->data, p, dn, mods, nmods);
	return dn;
}

void datatree_set_attr(struct experiment *e, const struct data_node *dn,
		       enum data_attr a, uint64_t v)
{
	struct data_object *o;

	if (!e->data || dn->obj < 0)
		return;
	o = &e->data->objs[dn->obj];
	switch (a) {
	case DATTR_BYTES:	/* a variable's size is in every profile */
		o->bytes = o->kind == DATA_STATIC ? (v > o->bytes ? v : o->bytes)
						  : o->bytes + v;
		break;
	case DATTR_BLOCKS:
		o->blocks = o->kind == DATA_STATIC ? 1 : o->blocks + v;
		break;
	case DATTR_OFFSET_LO:
		if (v && (!o->lo || v < o->lo))
			o->lo = v;
		break;
	case DATTR_OFFSET_HI:
		if (v > o->hi)
			o->hi = v;
		break;
	default:
		break;
	}
}

void datatree_add_noaddr(struct experiment *e, size_t raw, double v)
{
	struct datatree *dt = tree(e);

	if (e->shared) {
		HPC_GROW(dt->pending, dt->npending + 1, dt->pending_alloc);
		dt->pending[dt->npending++] = (struct data_value){ raw, v };
		return;
	}
	if (raw >= dt->nnoaddr) {
		size_t n = e->metrics.nraw > raw ? e->metrics.nraw : raw + 1;

		dt->noaddr = xrealloc(dt->noaddr, n * sizeof(*dt->noaddr));
		memset(dt->noaddr + dt->nnoaddr, 0,
		       (n - dt->nnoaddr) * sizeof(*dt->noaddr));
		dt->nnoaddr = n;
	}
	dt->noaddr[raw] += v;
}

void datatree_count_thread(struct experiment *e, int32_t obj)
{
	struct data_object *o = &e->data->objs[obj];
	uint32_t t = (uint32_t)e->nthreads + 1;

	if (o->last_thread != t) {
		o->last_thread = t;
		o->nthreads++;
	}
}

/* The profile being added: its nodes' roles and its metrics' attributes. */
struct data_walk {
	struct data_node *dn;
	enum data_attr *attr;	/* [profile metric] */
};

/* Profiles with a data root. */
static int data_begin(struct profile_walk *w, void **state)
{
	struct data_walk *dw;
	struct data_node *dn;
	size_t j;

	dn = datatree_classify(w->e, w->p, w->parent, w->has_values, w->mods,
			       w->nmods);
	if (!dn)
		return 0;
	dw = xcalloc(1, sizeof(*dw));
	dw->dn = dn;
	dw->attr = xcalloc(w->p->nmetrics ? w->p->nmetrics : 1,
			   sizeof(*dw->attr));
	for (j = 0; j < w->p->nmetrics; j++)
		dw->attr[j] = datatree_attr_of(w->p->metrics[j].name);
	*state = dw;
	return 1;
}

/*
 * Allocation paths, variables and the placeholders stay out of the code
 * tree (invariant 1); an access path of an object is placed below the
 * object as the code tree places it below the program's root, and then in
 * the code tree as well.
 */
static int data_place(void *state, struct profile_walk *w, uint64_t i)
{
	struct data_node *dn = ((struct data_walk *)state)->dn;
	long k = w->parent[i];
	struct node *x;

	if (dn[i].role != DROLE_CODE && dn[i].role != DROLE_ACCESS) {
		w->attach[i] = w->top;
		return 1;
	}
	if (dn[i].role != DROLE_ACCESS || dn[i].obj < 0)
		return 0;
	x = dn[k].role == DROLE_ACCESS ? dn[k].attach
				       : w->e->data->objs[dn[i].obj].node;
	if (x)
		experiment_place_node(w, i, x, &dn[i].attach, &dn[i].leaf);
	return 0;
}

/*
 * A sample at a data access, in the data tree (invariant 2): up from its
 * leaf to the data root, exclusive values stopping at the first call or
 * data node (the root's exclusive value is its total, as the code tree's
 * root's); no flat scope.
 */
static void add_data_sample(struct experiment *e, struct node *leaf_node,
			    size_t raw, double v)
{
	struct node *c;
	int excl = 1;

	for (c = leaf_node; c; c = c->parent) {
		double *row;

		if (c->kind == NODE_CALL || c->kind == NODE_DATA)
			excl = 0;
		row = experiment_row(e, c);
		row[2 * raw] += v;
		/* the data root's exclusive total is its total */
		if (excl || !c->parent)
			row[2 * raw + 1] += v;
	}
}

static void data_sample(void *state, struct profile_walk *w, uint64_t k,
			size_t raw, double d)
{
	struct data_node *dd = &((struct data_walk *)state)->dn[k];

	if (dd->leaf) {
		add_data_sample(w->e, dd->leaf, raw, d);
		datatree_count_thread(w->e, dd->obj);
	} else if (dd->role == DROLE_ACCESS) {
		datatree_add_noaddr(w->e, raw, d);
	} else if (dd->role != DROLE_CODE) {
		datatree_problem(w->e, "sample values on node %" PRIu32
				 ", outside any access path",
				 w->p->nodes[k].id);
	}
}

/* DATA:* values: attributes of the node's object (invariant 4). */
static void data_attribute(void *state, struct profile_walk *w, uint64_t k,
			   size_t m, double d)
{
	struct data_walk *dw = state;

	if (dw->attr[m] != DATTR_NONE)
		datatree_set_attr(w->e, &dw->dn[k], dw->attr[m],
				  d > 0 && d == d ? (uint64_t)d : 0);
}

static void data_end(void *state, struct profile_walk *w)
{
	struct data_walk *dw = state;

	(void)w;
	free(dw->dn);
	free(dw->attr);
	free(dw);
}

const struct profile_hook datatree_profile_hook = {
	.begin = data_begin,
	.place = data_place,
	.sample = data_sample,
	.attribute = data_attribute,
	.end = data_end,
};

int datatree_mergeable(struct experiment *const *ws, size_t n)
{
	struct hmap *seen = hmap_new();	/* "KIND\tNAME" -> key */
	size_t k, i;
	int ok = 1;

	for (k = 0; k < n && ok; k++) {
		const struct experiment *w = ws[k];
		const struct datatree *dt = w->data;

		if (dt && dt->renamed)
			ok = 0;
		for (i = 0; ok && dt && i < dt->nobjs; i++) {
			const struct data_object *o = &dt->objs[i];
			struct strbuf name = STRBUF_INIT;
			const char *key;

			strbuf_addf(&name, "%d\t%s", (int)o->kind,
				    w->procs.names[o->node->proc]);
			key = hmap_get_str(seen, name.buf);
			if (!key)
				hmap_put_str(seen, name.buf, o->key);
			else if (strcmp(key, o->key))
				ok = 0;
			strbuf_release(&name);
		}
	}
	hmap_free(seen);
	return ok;
}

/* w's object at its node n. */
static const struct data_object *object_at(const struct experiment *w,
					   const struct node *n)
{
	return &w->data->objs[(uintptr_t)hmap_get(w->data->by_node, &n->id,
						  sizeof(n->id)) - 1];
}

uint64_t datatree_merge_key(struct experiment *e, const struct experiment *w,
			    const struct node *n)
{
	uintptr_t v = (uintptr_t)hmap_get_str(tree(e)->by_name,
					      object_at(w, n)->key);

	return v ? v - 1 : e->data->nobjs;
}

void datatree_merge_node(struct experiment *e, const struct experiment *w,
			 const struct node *n, struct node *x, int is_new)
{
	struct datatree *dt = e->data;
	const struct data_object *from;
	struct data_object *o;
	struct strbuf shown = STRBUF_INIT;

	if (n->k1 == 1) {
		dt->kinds[n->k2] = x;
		return;
	}
	if (n->k1 != 2)
		return;
	from = object_at(w, n);
	if (is_new) {
		strbuf_addf(&shown, "%d\t%s", (int)from->kind,
			    e->procs.names[x->proc]);
		add_object(dt, from->kind, from->key, shown.buf, x);
		strbuf_release(&shown);
	}
	o = &dt->objs[x->k2];
	if (o->kind == DATA_STATIC) {
		o->bytes = from->bytes > o->bytes ? from->bytes : o->bytes;
		o->blocks = from->blocks > o->blocks ? from->blocks : o->blocks;
	} else {
		o->bytes += from->bytes;
		o->blocks += from->blocks;
	}
	if (from->lo && (!o->lo || from->lo < o->lo))
		o->lo = from->lo;
	if (from->hi > o->hi)
		o->hi = from->hi;
	o->nthreads += from->nthreads;
}

void datatree_merge_end(struct experiment *e, const struct experiment *w)
{
	const struct datatree *from = w->data;
	size_t i;

	tree(e)->nprofiles += from->nprofiles;
	for (i = 0; i < from->npending; i++)
		datatree_add_noaddr(e, from->pending[i].raw,
				    from->pending[i].v);
}

void datatree_wire_write(const struct datatree *dt, struct strbuf *sb)
{
	size_t i;
	int k;

	wire_put32(sb, dt->root ? dt->root->id : 0);
	for (k = 0; k < DATA_NKINDS; k++)
		wire_put32(sb, dt->kinds[k] ? dt->kinds[k]->id : 0);
	wire_put64(sb, dt->nobjs);
	for (i = 0; i < dt->nobjs; i++) {
		const struct data_object *o = &dt->objs[i];

		wire_put32(sb, o->node->id);
		wire_put32(sb, o->kind);
		wire_putstr(sb, o->key);
		wire_put64(sb, o->bytes);
		wire_put64(sb, o->blocks);
		wire_put64(sb, o->lo);
		wire_put64(sb, o->hi);
		wire_put64(sb, o->nthreads);
	}
	wire_put64(sb, dt->nprofiles);
	wire_put_rows(sb, dt->pending, dt->npending, sizeof(*dt->pending));
}

/* w's data node of id with key (k1, k2) below parent, or NULL. */
static struct node *wire_node(const struct experiment *w, uint32_t id,
			      const struct node *parent, uint64_t k1,
			      uint64_t k2)
{
	struct node *n = id && id <= w->next_id ? w->nodes[id - 1] : NULL;

	return n && n->kind == NODE_DATA && n->parent == parent &&
	       n->k1 == k1 && n->k2 == k2 ? n : NULL;
}

int datatree_wire_read(struct experiment *w, struct wire_cursor *c)
{
	struct datatree *dt = tree(w);
	struct strbuf key = STRBUF_INIT, shown = STRBUF_INIT;
	uint32_t root = wire_get32(c), id;
	uint64_t n, i;
	int k;

	if (root != (dt->root ? dt->root->id : 0))
		c->bad = 1;
	for (k = 0; k < DATA_NKINDS && !c->bad; k++) {
		id = wire_get32(c);
		dt->kinds[k] = id ? wire_node(w, id, dt->root, 1, (uint64_t)k)
				  : NULL;
		if (id && !dt->kinds[k])
			c->bad = 1;
	}
	n = wire_get64(c);
	for (i = 0; i < n && !c->bad; i++) {
		uint32_t kind;
		const char *s;
		struct node *x;
		struct data_object *o;

		id = wire_get32(c);
		kind = wire_get32(c);
		s = wire_getstr(c, &key);
		x = kind < DATA_NKINDS ? wire_node(w, id, dt->kinds[kind], 2, i)
				       : NULL;
		if (c->bad || !s || !x || hmap_get_str(dt->by_name, s)) {
			c->bad = 1;
			break;
		}
		strbuf_reset(&shown);
		strbuf_addf(&shown, "%d\t%s", (int)kind, w->procs.names[x->proc]);
		o = add_object(dt, (enum data_kind)kind, s, shown.buf, x);
		o->bytes = wire_get64(c);
		o->blocks = wire_get64(c);
		o->lo = wire_get64(c);
		o->hi = wire_get64(c);
		o->nthreads = (size_t)wire_get64(c);
	}
	dt->nprofiles = (size_t)wire_get64(c);
	dt->pending = wire_get_rows(c, dt->pending, &dt->npending,
				    &dt->pending_alloc, sizeof(*dt->pending));
	for (i = 0; i < dt->npending && !c->bad; i++)
		if (dt->pending[i].raw >= w->metrics.nraw)
			c->bad = 1;
	strbuf_release(&key);
	strbuf_release(&shown);
	return c->bad ? -1 : 0;
}

const struct data_object *datatree_object(const struct experiment *e,
					  const struct node *n)
{
	uintptr_t v;

	if (!e->data || n->kind != NODE_DATA)
		return NULL;
	v = (uintptr_t)hmap_get(e->data->by_node, &n->id, sizeof(n->id));
	return v ? &e->data->objs[v - 1] : NULL;
}

int datatree_attr_value(const struct experiment *e, const struct node *n,
			enum data_attr a, double *v)
{
	const struct data_object *o = datatree_object(e, n);

	if (!o)
		return 0;
	switch (a) {
	case DATTR_BYTES:
		*v = (double)o->bytes;
		return o->bytes != 0;
	case DATTR_BLOCKS:
		*v = (double)o->blocks;
		return o->blocks != 0;
	case DATTR_OFFSET_LO:
		*v = (double)(o->lo - 1);
		return o->lo != 0;
	case DATTR_OFFSET_HI:
		*v = (double)o->hi;
		return o->hi != 0;
	case DATTR_THREADS:
		*v = (double)o->nthreads;
		return o->nthreads != 0;
	case DATTR_SHARING:
		*v = (double)o->sharing;
		return o->sharing != 0;
	case DATTR_REMOTE:
		*v = o->remote;
		return o->remote >= 0;
	default:
		return 0;
	}
}

static double pct(double v, double total)
{
	return total != 0 ? 100.0 * v / total : 0;
}

struct obj_row {
	const struct data_object *o;
	double v;
};

static int cmp_obj(const void *a, const void *b)
{
	const struct obj_row *x = a, *y = b;

	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return x->o->node->id < y->o->node->id ? -1
					       : x->o->node->id > y->o->node->id;
}

/* The coverage paragraph of raw metric m (datatree.h). */
static void coverage(FILE *f, const struct experiment *e, size_t m,
		     const char *label)
{
	const struct datatree *dt = e->data;
	double total = accum_sum(e->root->acc, m, 0);
	double addr = dt->root ? accum_sum(dt->root->acc, m, 0) : 0;
	double noaddr = m < dt->nnoaddr ? dt->noaddr[m] : 0;
	double k[DATA_NKINDS];
	int i;

	for (i = 0; i < DATA_NKINDS; i++)
		k[i] = dt->kinds[i] ? accum_sum(dt->kinds[i]->acc, m, 0) : 0;
	fprintf(f, "\nData coverage of %s: %.2f%% with a data address, "
		"%.2f%% at memory instructions whose address was not "
		"computed, %.2f%% at instructions without a memory operand.\n",
		label, pct(addr, total), pct(noaddr, total),
		pct(total - addr - noaddr, total));
	fprintf(f, "Of the samples with an address: %.2f%% on named objects "
		"(heap %.2f%%, static %.2f%%, stack %.2f%%), %.2f%% on small "
		"heap blocks, %.2f%% unknown.\n",
		pct(k[DATA_HEAP] + k[DATA_STATIC] + k[DATA_STACK], addr),
		pct(k[DATA_HEAP], addr), pct(k[DATA_STATIC], addr),
		pct(k[DATA_STACK], addr), pct(k[DATA_SMALL], addr),
		pct(k[DATA_UNKNOWN], addr));
}

void datatree_report(FILE *f, const struct experiment *e, size_t m,
		     const char *label, double scale, size_t top)
{
	const struct datatree *dt = e->data;
	double total = accum_sum(e->root->acc, m, 0), addr;
	struct obj_row *rows;
	size_t i, nrows = 0;

	if (!dt || !dt->nprofiles)
		return;
	coverage(f, e, m, label);
	addr = dt->root ? accum_sum(dt->root->acc, m, 0) : 0;
	rows = xcalloc(dt->nobjs ? dt->nobjs : 1, sizeof(*rows));
	for (i = 0; i < dt->nobjs; i++) {
		double v = accum_sum(dt->objs[i].node->acc, m, 0);

		if (v != 0) {
			rows[nrows].o = &dt->objs[i];
			rows[nrows++].v = v;
		}
	}
	qsort(rows, nrows, sizeof(*rows), cmp_obj);
	fprintf(f, "\nTop data objects by %s:\n", label);
	fprintf(f, "%7s %7s %14s %-7s %12s %7s %7s  %-23s  %s\n", "data%",
		"total%", "inclusive", "kind", "bytes", "blocks", "threads",
		"offsets accessed", "object");
	for (i = 0; i < nrows && i < top; i++) {
		const struct data_object *o = rows[i].o;
		char range[48] = "-";

		if (o->hi)
			snprintf(range, sizeof(range), "[%" PRIu64 ", %" PRIu64
				 ")", o->lo ? o->lo - 1 : 0, o->hi);
		fprintf(f, "%6.2f%% %6.2f%% %14.6g %-7s %12" PRIu64 " %7"
			PRIu64 " %7zu  %-23s  %s\n", pct(rows[i].v, addr),
			pct(rows[i].v, total), rows[i].v * scale,
			kind_names[o->kind], o->bytes, o->blocks, o->nthreads,
			range, e->procs.names[o->node->proc]);
	}
	if (!nrows)
		fprintf(f, "  (none)\n");
	free(rows);
}

void datatree_free(struct datatree *dt)
{
	size_t i;

	if (!dt)
		return;
	for (i = 0; i < dt->nobjs; i++)
		free(dt->objs[i].key);
	free(dt->objs);
	free(dt->pending);
	hmap_free(dt->by_name);
	hmap_free(dt->by_node);
	hmap_free(dt->by_var);
	hmap_free(dt->names);
	free(dt->noaddr);
	free(dt->problem);
	free(dt->ids);
	hmap_free(dt->id_index);
	free(dt);
}

/* The capability (capability.h): the data tree hangs off the experiment
 * itself (e->data), which the database writes with the code tree. */

/* A malformed data subtree of the thread, said in one line naming its
 * profile (invariant 5); the exit status stays. */
static int cap_thread_end(struct experiment *w, size_t t, const void *side,
			  const char *path, const char *proc, char **said)
{
	char *problem = take_problem(w);
	struct strbuf sb = STRBUF_INIT;

	(void)t;
	(void)side;
	(void)proc;
	if (!problem)
		return 0;
	strbuf_addf(&sb, "'%s': data-centric tree: %s; the rest is used", path,
		    problem);
	*said = strbuf_detach(&sb, NULL);
	free(problem);
	return 0;
}

static void cap_merge(struct experiment *e, const struct experiment *w,
		      struct node **map)
{
	(void)map;
	if (w->data)
		datatree_merge_end(e, w);
}

static void cap_wire_write(const struct experiment *w, struct strbuf *sb,
			   int ids_only)
{
	(void)ids_only;
	wire_put32(sb, w->data != NULL);
	if (w->data)
		datatree_wire_write(w->data, sb);
}

/* A data tree made by the nodes read must be on the wire too. */
static int cap_wire_read(struct experiment *w, struct wire_cursor *c)
{
	return (wire_get32(c) ? datatree_wire_read(w, c) : w->data != NULL) ?
	       -1 : 0;
}

/* DATA:* metrics are object attributes, not samples. */
static int cap_attribute(const char *metric)
{
	return datatree_attr_of(metric) != DATTR_NONE;
}

const struct prof_capability data_capability = {
	.name = "data",
	.attribute = cap_attribute,
	.thread_end = cap_thread_end,
	.walk = &datatree_profile_hook,
	.mergeable = datatree_mergeable,
	.merge = cap_merge,
	.wire_write = cap_wire_write,
	.wire_read = cap_wire_read,
	.report_metric = datatree_report,
};
