/* dwarf-fallback.c - see dwarf-fallback.h. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addrsearch.h"
#include "demangle.h"
#include "dwarf-fallback.h"
#include "elf-plt.h"
#include "error.h"
#include "hashmap.h"
#include "hpcpy.h"
#include "infile.h"
#include "kallsyms.h"
#include "strbuf.h"

/* No binary (or debug file) is larger; a bigger file is not opened. */
#define MAX_BINARY_BYTES ((uint64_t)64 << 30)

/*
 * An address range in a table sorted by lo, then order (spans_sort), the
 * first member of each entry: ranges may overlap, and the ones that can
 * hold an address are those before it whose reach passes it.
 */
struct span {
	uint64_t lo, hi;	/* Dwfl addresses, [lo, hi); lo first (addrsearch.h) */
	uint64_t reach;		/* the largest hi of this range and those before */
	size_t order;		/* position in the module's own list */
};

/* One address range of a compilation unit (struct fallback's units). */
struct unit_range {
	struct span s;		/* order: the unit's position in the module */
	Dwarf_Die *cu;		/* libdwfl's, valid until dwfl_end */
	Dwarf_Addr bias;
};

/*
 * A symbol that may name code (struct fallback's syms): named, defined, not
 * a section, file or TLS symbol; or a PLT entry (elf-plt.h), which has none.
 */
struct sym_entry {
	struct span s;		/* order: the index in the symbol table */
	const char *name;	/* libdwfl's, valid until dwfl_end, or plt's */
	int rank;		/* global 2, weak 1, local 0 */
	Elf *elf;		/* sizeless: the file, its section, its bias */
	GElf_Word shndx;
	GElf_Addr bias;
};

struct fallback {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;		/* Dwfl address = module-relative address + bias */
	int has_dwarf;
	struct kallsyms *ks;	/* a kernel symbol list instead of a binary */
	char *error;		/* why the file at path was refused, or NULL */
	char *base;		/* module basename, for unknown procedures */
	int python;		/* HPCPY_MODULE: Python codes, no file */
	struct hmap *by_addr;	/* addr -> S scope + 1 */
	struct hmap *scopes;	/* "parent/kind/name/file/line" -> scope + 1 */
	/* every unit's ranges by lo, read on the first miss of libdw's search */
	struct unit_range *units;
	size_t nunits;
	int units_read;
	/* the symbols with a size and those without, by lo, read on first use */
	struct sym_entry *sized, *sizeless;
	size_t nsized, nsizeless;
	int syms_read;
	struct elf_plt_entry *plt;	/* the NAME@plt of sized entries */
	size_t nplt;
};

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct fallback *fallback_new(const char *path, int use_binary)
{
	struct fallback *fb = xcalloc(1, sizeof(*fb));
	const char *slash = strrchr(path, '/');
	int fd;

	fb->base = xstrdup(slash ? slash + 1 : path);
	fb->by_addr = hmap_new();
	fb->scopes = hmap_new();
	fb->python = !strcmp(fb->base, HPCPY_MODULE);
	if (!use_binary || fb->python || access(path, R_OK))
		return fb;
	/* A load-map path may name a FIFO or a device: never block on it. */
	fd = infile_open(path, MAX_BINARY_BYTES, "a binary or kernel symbol list",
			 NULL);
	if (fd < 0) {
		fb->error = xstrdup(hpc_lasterr());
		return fb;
	}
	if (kallsyms_is_list(path)) {
		close(fd);
		fb->ks = kallsyms_read(path);
		if (!fb->ks)
			fb->error = xstrdup(hpc_lasterr());
		return fb;
	}
	fb->dwfl = dwfl_begin(&offline_callbacks);
	if (!fb->dwfl) {
		close(fd);
		return fb;
	}
	dwfl_report_begin(fb->dwfl);
	/* On success libdwfl owns fd; on failure it is still ours. */
	fb->mod = dwfl_report_offline(fb->dwfl, fb->base, path, fd);
	dwfl_report_end(fb->dwfl, NULL, NULL);
	if (!fb->mod) {
		close(fd);
		dwfl_end(fb->dwfl);
		fb->dwfl = NULL;
		return fb;
	}
	{
		Dwarf_Addr dbias;

		if (!dwfl_module_getelf(fb->mod, &fb->bias))
			fb->bias = 0;
		fb->has_dwarf = dwfl_module_getdwarf(fb->mod, &dbias) != NULL;
	}
	return fb;
}

void fallback_free(struct fallback *fb)
{
	if (!fb)
		return;
	if (fb->dwfl)
		dwfl_end(fb->dwfl);
	kallsyms_free(fb->ks);
	free(fb->error);
	hmap_free(fb->by_addr);
	hmap_free(fb->scopes);
	free(fb->units);
	free(fb->sized);
	free(fb->sizeless);
	elf_plt_free(fb->plt, fb->nplt);
	free(fb->base);
	free(fb);
}

int fallback_has_binary(const struct fallback *fb)
{
	return fb->mod != NULL;
}

int fallback_has_dwarf(const struct fallback *fb)
{
	return fb->has_dwarf;
}

int fallback_has_kallsyms(const struct fallback *fb)
{
	return fb->ks != NULL;
}

int fallback_is_python(const struct fallback *fb)
{
	return fb->python;
}

const char *fallback_error(const struct fallback *fb)
{
	return fb->error;
}

/* The scope (parent, kind, name, file, line), made when new, a C++ name
 * demangled as hpcstruct does (lib/demangle.h). */
static uint32_t scope_get(struct fallback *fb, struct structure *st,
			  uint32_t parent, enum scope_kind kind,
			  const char *name, const char *file, uint32_t line,
			  uint64_t vma)
{
	struct strbuf key = STRBUF_INIT;
	uintptr_t v;

	strbuf_addf(&key, "%u/%d/%s/%s/%u", parent, (int)kind,
		    name ? name : "", file ? file : "", line);
	if (kind == SCOPE_PROC)
		strbuf_addf(&key, "/%" PRIx64, vma);
	v = (uintptr_t)hmap_get_str(fb->scopes, key.buf);
	if (!v) {
		char *d = hpc_demangle(name);

		v = structure_add(st, kind, parent, d ? d : name, file, line,
				  vma) + 1;
		free(d);
		hmap_put_str(fb->scopes, key.buf, (void *)v);
	}
	strbuf_release(&key);
	return (uint32_t)(v - 1);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	return s ? s : "<inlined>";
}

static const char *call_file(Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t nfiles;
	const char *s;

	if (!dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &idx) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || idx >= nfiles)
		return "";
	s = dwarf_filesrc(files, idx, NULL, NULL);
	return s ? s : "";
}

static uint32_t call_line(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr(die, DW_AT_call_line, &a) || dwarf_formudata(&a, &w))
		return 0;
	return (uint32_t)w;
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts the n entries of v (size bytes each, a struct span first); reach. */
static void spans_sort(void *v, size_t n, size_t size)
{
	uint64_t reach = 0;

	if (n > 1)
		qsort(v, n, size, span_cmp);
	for (size_t k = 0; k < n; k++) {
		struct span *sp = (struct span *)(void *)((char *)v + k * size);

		if (sp->hi > reach)
			reach = sp->hi;
		sp->reach = reach;
	}
}

/*
 * Reads the address ranges of every unit once (each unit's first DIE, not
 * its lines), sorted by lo, so that a lookup is a search, not a walk over
 * the units.
 */
static void read_unit_ranges(struct fallback *fb)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t alloc = 0, order = 0;

	fb->units_read = 1;
	while ((cu = dwfl_module_nextcu(fb->mod, cu, &bias))) {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;

		while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
			if (end <= start)
				continue;
			HPC_GROW(fb->units, fb->nunits + 1, alloc);
			fb->units[fb->nunits++] = (struct unit_range){
				.s = { .lo = start + bias, .hi = end + bias,
				       .order = order },
				.cu = cu, .bias = bias,
			};
		}
		order++;
	}
	spans_sort(fb->units, fb->nunits, sizeof(*fb->units));
}

/*
 * The compilation unit of addr (a module address, bias applied) and its
 * bias.  libdw finds units by .debug_aranges, which clang does not emit:
 * without them, the first unit whose ranges hold addr.
 */
static Dwarf_Die *unit_of(struct fallback *fb, Dwarf_Addr addr,
			  Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(fb->mod, addr, bias);
	const struct unit_range *best = NULL;
	size_t k;

	if (cu || !fb->has_dwarf)
		return cu;
	if (!fb->units_read)
		read_unit_ranges(fb);
	/* ranges may overlap: every one before k that reaches addr */
	k = addrsearch_count_le(fb->units, fb->nunits, sizeof(*fb->units), addr);
	while (k > 0 && fb->units[k - 1].s.reach > addr) {
		const struct unit_range *u = &fb->units[--k];

		if (u->s.hi > addr && (!best || u->s.order < best->s.order))
			best = u;
	}
	if (!best)
		return NULL;
	*bias = best->bias;
	return best->cu;
}

/* File and line of addr from the line table ("" and 0 when none). */
static const char *src_line(struct fallback *fb, uint64_t addr,
			    uint32_t *line)
{
	Dwfl_Line *l = fb->mod ? dwfl_module_getsrc(fb->mod, addr + fb->bias)
			       : NULL;
	const char *file = NULL;
	int lineno = 0;

	if (l) {
		file = dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
	} else if (fb->mod) {
		Dwarf_Addr bias;
		Dwarf_Die *cu = unit_of(fb, addr + fb->bias, &bias);
		Dwarf_Line *dl = cu ? dwarf_getsrc_die(cu, addr + fb->bias -
						       bias) : NULL;

		if (dl && dwarf_lineno(dl, &lineno) == 0)
			file = dwarf_linesrc(dl, NULL, NULL);
	}
	*line = lineno > 0 ? (uint32_t)lineno : 0;
	return file ? file : "";
}

/* Inlined frames at addr, outermost first, below the procedure p. */
static uint32_t inline_chain(struct fallback *fb, struct structure *st,
			     uint32_t p, uint64_t addr, const char *file)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = unit_of(fb, addr + fb->bias, &bias);
	Dwarf_Die *scopes = NULL;
	int n, i;
	uint32_t at = p;

	if (!cu)
		return p;
	n = dwarf_getscopes(cu, addr + fb->bias - bias, &scopes);
	for (i = n - 1; i >= 0; i--) {
		Dwarf_Die *d = &scopes[i];
		const char *callee_file;
		uint32_t outer;

		if (dwarf_tag(d) != DW_TAG_inlined_subroutine)
			continue;
		/* The callee's code lives in the next inner call's file, or
		 * in the statement's file for the innermost one. */
		callee_file = file;
		{
			int k;

			for (k = i - 1; k >= 0; k--)
				if (dwarf_tag(&scopes[k]) ==
				    DW_TAG_inlined_subroutine) {
					callee_file = call_file(cu, &scopes[k]);
					break;
				}
		}
		outer = scope_get(fb, st, at, SCOPE_ALIEN, "", call_file(cu, d),
				  call_line(d), 0);
		at = scope_get(fb, st, outer, SCOPE_ALIEN, die_name(d),
			       callee_file, 0, 0);
	}
	free(scopes);
	return at;
}

/*
 * Reads the module's symbols (.symtab, or .dynsym and the debug file's)
 * and its PLT entries, named NAME@plt as hpcstruct names them, once.
 */
static void read_syms(struct fallback *fb)
{
	int n = dwfl_module_getsymtab(fb->mod);
	size_t asized = 0, asizeless = 0;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(fb->mod, &bias);

	fb->syms_read = 1;
	for (int i = 1; i < n; i++) {
		struct sym_entry e = { .s.order = (size_t)i };
		GElf_Sym sym;
		GElf_Addr value;
		const char *name = dwfl_module_getsym_info(fb->mod, i, &sym, &value,
							   &e.shndx, &e.elf,
							   &e.bias);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);

		if (!name || !*name || sym.st_shndx == SHN_UNDEF ||
		    type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		e.s.lo = value;
		e.s.hi = value + sym.st_size;
		e.name = name;
		e.rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK;
		if (sym.st_size) {
			HPC_GROW(fb->sized, fb->nsized + 1, asized);
			fb->sized[fb->nsized++] = e;
		} else {
			HPC_GROW(fb->sizeless, fb->nsizeless + 1, asizeless);
			fb->sizeless[fb->nsizeless++] = e;
		}
	}
	fb->plt = elf ? elf_plt_read(elf, &fb->nplt) : NULL;
	for (size_t k = 0; k < fb->nplt; k++) {
		HPC_GROW(fb->sized, fb->nsized + 1, asized);
		fb->sized[fb->nsized++] = (struct sym_entry){
			.s = { .lo = fb->plt[k].lo + bias,
			       .hi = fb->plt[k].hi + bias,
			       .order = (size_t)(n > 0 ? n : 0) + k },
			.name = fb->plt[k].name, .rank = 2,
		};
	}
	spans_sort(fb->sized, fb->nsized, sizeof(*fb->sized));
	spans_sort(fb->sizeless, fb->nsizeless, sizeof(*fb->sizeless));
}

/* Is x a better name for an address both hold than y (NULL: none yet)? */
static int sym_better(const struct sym_entry *x, const struct sym_entry *y)
{
	if (!y || x->s.lo != y->s.lo)
		return !y || x->s.lo > y->s.lo;
	if (x->rank != y->rank)
		return x->rank > y->rank;
	if (x->s.hi != y->s.hi)
		return x->s.hi < y->s.hi;
	return x->s.order < y->s.order;
}

/* Is addr in the section that holds e (a sizeless symbol)? */
static int same_section(const struct sym_entry *e, uint64_t addr)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (e->shndx >= SHN_LORESERVE)
		return e->s.lo == addr;
	scn = elf_getscn(e->elf, e->shndx);
	return scn && gelf_getshdr(scn, &sh) && addr - e->bias >= sh.sh_addr &&
		addr - e->bias < sh.sh_addr + sh.sh_size;
}

/*
 * The symbol naming addr (a Dwfl address), as libdwfl's
 * dwfl_module_addrinfo chooses it for ordinary symbol tables, by a search
 * of the symbols sorted once instead of a pass over all of them per
 * address: of the symbols with a size that hold addr, the one starting
 * last, then global before weak before local, then the smaller, then the
 * first in the table; without one, the last sizeless symbol at or before
 * addr in addr's section that no sized symbol before addr runs past.
 * Returns NULL when none.
 */
static const struct sym_entry *sym_at(struct fallback *fb, uint64_t addr)
{
	const struct sym_entry *best = NULL, *e;
	size_t k, j;
	uint64_t label = 0;

	if (!fb->syms_read)
		read_syms(fb);
	k = addrsearch_count_le(fb->sized, fb->nsized, sizeof(*fb->sized), addr);
	if (k > 0)
		label = fb->sized[k - 1].s.reach;
	for (j = k; j > 0 && fb->sized[j - 1].s.reach > addr; j--) {
		e = &fb->sized[j - 1];
		if (e->s.hi > addr && sym_better(e, best))
			best = e;
	}
	if (best)
		return best;
	k = addrsearch_count_le(fb->sizeless, fb->nsizeless,
				sizeof(*fb->sizeless), addr);
	for (j = k; j > 0 && fb->sizeless[j - 1].s.lo == fb->sizeless[k - 1].s.lo;
	     j--)
		if (sym_better(&fb->sizeless[j - 1], best))
			best = &fb->sizeless[j - 1];
	if (best && (best->s.lo < label || !same_section(best, addr)))
		return NULL;
	return best;
}

uint32_t fallback_lookup(struct fallback *fb, struct structure *st,
			 uint64_t addr)
{
	uintptr_t v = (uintptr_t)hmap_get_u64(fb->by_addr, addr);
	const char *name = NULL, *file;
	const struct sym_entry *sym;
	char unknown[512];
	uint64_t off = 0;
	uint32_t line, pline, p, at;
	uint64_t start;

	if (v)
		return (uint32_t)(v - 1);
	if (fb->mod) {
		if ((sym = sym_at(fb, addr + fb->bias))) {
			name = sym->name;
			off = addr + fb->bias - sym->s.lo;
		}
	} else if (fb->ks &&
		   (name = kallsyms_lookup(fb->ks, addr, &start))) {
		off = addr - start;
	}
	file = src_line(fb, addr, &line);
	if (name) {
		const char *pfile;

		start = addr - off;
		pfile = src_line(fb, start, &pline);
		p = scope_get(fb, st, 0, SCOPE_PROC, name, pfile, pline,
			      start);
	} else if (fb->python) {
		/* A code no .hpcpy holds: its id is all we know. */
		start = hpcpy_addr_id(addr) << HPCPY_OFFSET_BITS;
		snprintf(unknown, sizeof(unknown), "<python code 0x%" PRIx64 ">",
			 hpcpy_addr_id(addr));
		p = scope_get(fb, st, 0, SCOPE_PROC, unknown, NULL, 0, start);
	} else {
		/* No symbol: the address is all we know; keep it. */
		snprintf(unknown, sizeof(unknown), "<unknown> 0x%" PRIx64 " [%s]",
			 addr, fb->base);
		p = scope_get(fb, st, 0, SCOPE_PROC, unknown, file, line, addr);
	}
	at = fb->has_dwarf ? inline_chain(fb, st, p, addr, file) : p;
	at = scope_get(fb, st, at, SCOPE_STMT, NULL, file, line, addr);
	hmap_put_u64(fb->by_addr, addr, (void *)(uintptr_t)(at + 1));
	return at;
}
