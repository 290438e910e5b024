/* dwarf.c - subprograms and inline trees from DWARF, read once (see debuginfo.h). */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "addrsearch.h"
#include "debuginfo.h"
#include "error.h"
#include "hashmap.h"
#include "strbuf.h"

/* An inlined callee's name and declaration, as its abstract origin has them. */
struct callee {
	uint32_t name, file, line;
};

struct walk {
	struct debuginfo *d;
	uint64_t bias;
	Dwarf_Die *cudie;	/* the unit being walked */
	Dwarf_Files *files;	/* its file table */
	size_t nfiles;
	struct hmap *origins;	/* origin DIE address -> callee index + 1 */
	struct callee *callees;	size_t ncallees, callees_alloc;
};

static const char *attr_string(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, name, &a) ? dwarf_formstring(&a) : NULL;
}

static uint32_t attr_udata(Dwarf_Die *die, int name, int integrate)
{
	Dwarf_Attribute a;
	Dwarf_Word w = 0;

	if (!(integrate ? dwarf_attr_integrate(die, name, &a) :
	      dwarf_attr(die, name, &a)))
		return 0;
	if (dwarf_formudata(&a, &w) != 0 || w > UINT32_MAX)
		return 0;
	return (uint32_t)w;
}

static uint32_t file_of(struct walk *w, uint32_t idx)
{
	const char *s;

	if (!w->files || idx >= w->nfiles)
		return 0;
	s = dwarf_filesrc(w->files, idx, NULL, NULL);
	return strtab_intern_src(&w->d->strs, w->cudie, s);
}

/*
 * The file named by the DW_AT_decl_file of die or of its abstract origin
 * or specification.  The index is read in the file table of the unit that
 * holds the attribute (an origin may sit in another unit), where DWARF 5
 * counts the primary source file as 0; before 5, 0 means no file.  (libdw's
 * dwarf_decl_file takes 0 for "none" in every version, so the callees and
 * procedures of clang's DWARF 5 lost their file.)
 */
static uint32_t decl_file(struct walk *w, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Die cudie;
	Dwarf_Half version;
	Dwarf_Files *files;
	size_t nfiles;

	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &a) ||
	    dwarf_formudata(&a, &idx) != 0 ||
	    !dwarf_cu_die(a.cu, &cudie, &version, NULL, NULL, NULL, NULL, NULL) ||
	    (idx == 0 && version < 5) ||
	    dwarf_getsrcfiles(&cudie, &files, &nfiles) != 0 || idx >= nfiles)
		return 0;
	return strtab_intern_src(&w->d->strs, &cudie,
				 dwarf_filesrc(files, idx, NULL, NULL));
}

static void push_subprog(struct walk *w, Dwarf_Addr entry, uint32_t file,
			 uint32_t line, int noreturn)
{
	struct debuginfo *d = w->d;
	struct subprog *s;

	HPC_GROW(d->subs, d->nsubs + 1, d->subs_alloc);
	s = &d->subs[d->nsubs++];
	s->entry = entry + w->bias;
	s->file = file;
	s->line = line;
	s->noreturn = noreturn;
}

/*
 * A subprogram with code: its entry, or, when DWARF names none (gcc's
 * DW_AT_ranges for a function split into NAME and NAME.cold, with neither
 * DW_AT_entry_pc nor DW_AT_low_pc, which is all libdw's dwarf_entrypc
 * reads), the start of each of its ranges, so that a procedure starting at
 * any of its parts finds its declaration.
 */
static void add_subprog(struct walk *w, Dwarf_Die *die)
{
	Dwarf_Addr entry, base, lo, hi;
	Dwarf_Attribute a;
	ptrdiff_t off = 0;
	uint32_t file;
	int line = 0, noreturn, known;

	known = dwarf_entrypc(die, &entry) == 0 || dwarf_lowpc(die, &entry) == 0;
	if (!known && !dwarf_hasattr(die, DW_AT_ranges))
		return;
	file = decl_file(w, die);
	dwarf_decl_line(die, &line);
	if (line < 0)
		line = 0;
	noreturn = dwarf_attr_integrate(die, DW_AT_noreturn, &a) != NULL;
	if (known) {
		push_subprog(w, entry, file, (uint32_t)line, noreturn);
		return;
	}
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (hi > lo)
			push_subprog(w, lo, file, (uint32_t)line, noreturn);
}

/*
 * The callee name and declaration of an inlined instance: what
 * dwarf_attr_integrate finds, through DW_AT_abstract_origin.  An instance
 * with none of these attributes of its own gets them from its origin
 * alone, so they are read once per origin (thousands of instances share a
 * few hundred origins).
 */
static void callee_of(struct walk *w, Dwarf_Die *die, struct inline_node *n)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;
	struct callee *c;
	uintptr_t key = 0;
	void *v;
	int line = 0;

	if (!dwarf_hasattr(die, DW_AT_name) &&
	    !dwarf_hasattr(die, DW_AT_decl_file) &&
	    !dwarf_hasattr(die, DW_AT_decl_line) &&
	    !dwarf_hasattr(die, DW_AT_specification) &&
	    dwarf_attr(die, DW_AT_abstract_origin, &a) &&
	    dwarf_formref_die(&a, &origin))
		key = (uintptr_t)origin.addr;
	if (key && (v = hmap_get_u64(w->origins, key)) != NULL) {
		c = &w->callees[(uintptr_t)v - 1];
		n->callee = c->name;
		n->callee_file = c->file;
		n->callee_line = c->line;
		return;
	}
	n->callee = strtab_intern(&w->d->strs, attr_string(die, DW_AT_name));
	n->callee_file = decl_file(w, die);
	dwarf_decl_line(die, &line);
	n->callee_line = line > 0 ? (uint32_t)line : 0;
	if (!key)
		return;
	HPC_GROW(w->callees, w->ncallees + 1, w->callees_alloc);
	c = &w->callees[w->ncallees++];
	c->name = n->callee;
	c->file = n->callee_file;
	c->line = n->callee_line;
	hmap_put_u64(w->origins, key, (void *)(uintptr_t)w->ncallees);
}

static int32_t add_inline(struct walk *w, Dwarf_Die *die, int32_t parent)
{
	struct debuginfo *d = w->d;
	struct inline_node *n;
	int32_t id = (int32_t)d->nnodes;
	ptrdiff_t off = 0;
	Dwarf_Addr base, lo, hi;

	HPC_GROW(d->nodes, d->nnodes + 1, d->nodes_alloc);
	n = &d->nodes[d->nnodes++];
	n->parent = parent;
	n->depth = parent < 0 ? 1 : d->nodes[parent].depth + 1;
	callee_of(w, die, n);
	n->call_file = file_of(w, attr_udata(die, DW_AT_call_file, 0));
	n->call_line = attr_udata(die, DW_AT_call_line, 0);
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		struct inline_range *r;

		if (hi <= lo)
			continue;
		HPC_GROW(d->ranges, d->nranges + 1, d->ranges_alloc);
		r = &d->ranges[d->nranges++];
		r->lo = lo + w->bias;
		r->hi = hi + w->bias;
		r->node = id;
	}
	return id;
}

/* Visits the code-bearing DIEs under die; depth bounds hostile nesting. */
static void walk_children(struct walk *w, Dwarf_Die *die, int32_t parent,
			  int depth)
{
	Dwarf_Die child;

	if (depth > 256 || dwarf_child(die, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			add_subprog(w, &child);
			walk_children(w, &child, -1, depth + 1);
			break;
		case DW_TAG_inlined_subroutine:
			walk_children(w, &child, add_inline(w, &child, parent),
				      depth + 1);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
		case DW_TAG_namespace:
		case DW_TAG_module:
			walk_children(w, &child, parent, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int sub_cmp(const void *a, const void *b)
{
	const struct subprog *x = a, *y = b;

	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static int range_cmp(const void *a, const void *b)
{
	const struct inline_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->node - y->node;
}

/*
 * The unit DIE offsets of the units whose address ranges meet one of
 * want[n] (file addresses, sorted by lo, not overlapping).  A unit that
 * gives no ranges holds no code and is left out.
 */
static struct hmap *units_meeting(Dwarf *dw, uint64_t bias,
				  const struct addr_range *want, size_t n)
{
	struct hmap *units = hmap_new();
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;

	while (dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			size_t k;

			if (hi <= lo)
				continue;
			/* the last wanted range starting below the unit's end */
			k = addrsearch_count_le(want, n, sizeof(*want),
						hi + bias - 1);
			if (k > 0 && want[k - 1].hi > lo + bias) {
				hmap_put_u64(units, dwarf_dieoffset(&cudie),
					     (void *)1);
				break;
			}
		}
	}
	return units;
}

struct debuginfo *debuginfo_load_at(const struct binary *b,
				    const struct addr_range *want, size_t n)
{
	struct debuginfo *d = xcalloc(1, sizeof(*d));
	struct walk w = { d, b->dwarf_bias, NULL, NULL, 0, NULL, NULL, 0, 0 };
	struct hmap *units = NULL;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;

	strtab_init(&d->strs);
	if (!b->dwarf)
		return d;
	if (want)
		units = units_meeting(b->dwarf, b->dwarf_bias, want, n);
	linemap_load(&d->lines, b->dwarf, b->dwarf_bias, &d->strs, units);
	w.origins = hmap_new();
	w.cudie = &cudie;
	while (dwarf_get_units(b->dwarf, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		if (units && !hmap_get_u64(units, dwarf_dieoffset(&cudie)))
			continue;
		if (dwarf_getsrcfiles(&cudie, &w.files, &w.nfiles) != 0) {
			w.files = NULL;
			w.nfiles = 0;
		}
		walk_children(&w, &cudie, -1, 0);
	}
	hmap_free(units);
	hmap_free(w.origins);
	free(w.callees);
	if (d->nsubs > 1)
		qsort(d->subs, d->nsubs, sizeof(*d->subs), sub_cmp);
	if (d->nranges > 1)
		qsort(d->ranges, d->nranges, sizeof(*d->ranges), range_cmp);
	return d;
}

struct debuginfo *debuginfo_load(const struct binary *b)
{
	return debuginfo_load_at(b, NULL, 0);
}

void debuginfo_free(struct debuginfo *d)
{
	if (!d)
		return;
	strtab_release(&d->strs);
	linemap_release(&d->lines);
	free(d->subs);
	free(d->nodes);
	free(d->ranges);
	free(d);
}

static int entry_lt(const void *elem, const void *key)
{
	return ((const struct subprog *)elem)->entry < *(const uint64_t *)key;
}

const struct subprog *debuginfo_subprog(const struct debuginfo *d,
					uint64_t addr)
{
	size_t lo = addrsearch_partition(d->subs, d->nsubs, sizeof(*d->subs),
					 entry_lt, &addr);

	return lo < d->nsubs && d->subs[lo].entry == addr ? &d->subs[lo] : NULL;
}

static int range_starts_lt(const void *elem, const void *key)
{
	return ((const struct inline_range *)elem)->lo < *(const uint64_t *)key;
}

size_t debuginfo_first_range(const struct debuginfo *d, uint64_t addr)
{
	return addrsearch_partition(d->ranges, d->nranges, sizeof(*d->ranges),
				    range_starts_lt, &addr);
}
