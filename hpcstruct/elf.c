/* elf.c - open an ELF binary, find its procedures and its DWARF. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>

#include "addrsearch.h"
#include "binary.h"
#include "demangle.h"
#include "elf-plt.h"
#include "error.h"
#include "hashmap.h"
#include "infile.h"
#include "strbuf.h"

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct procs {
	struct proc *v;
	size_t n, alloc;
	struct binary *b;
	/* every function symbol's name -> its address, (void *)-1 for a
	 * name at several addresses (merge_cold_parts finds parents by it);
	 * empty when no symbol is named NAME.cold */
	struct hmap *symaddr;
};

/* Adds the procedure [lo, hi) named by the first len bytes of name. */
static void add_proc(struct procs *p, uint64_t lo, uint64_t hi,
		     const char *name, size_t len, enum proc_origin origin)
{
	HPC_GROW(p->v, p->n + 1, p->alloc);
	p->v[p->n].lo = lo;
	p->v[p->n].hi = hi;
	p->v[p->n].name = xstrndup(name, len);
	p->v[p->n].linkname = NULL;
	p->v[p->n].origin = origin;
	p->v[p->n].cold_lo = p->v[p->n].cold_hi = 0;
	p->n++;
}

static int section_starts_le(const void *elem, const void *key)
{
	return ((const struct section *)elem)->addr <= *(const uint64_t *)key;
}

static const struct section *section_at(const struct binary *b, uint64_t addr)
{
	/* sections[] is sorted by addr, not empty, no overlaps */
	size_t n = addrsearch_partition(b->sections, b->nsections,
					sizeof(*b->sections), section_starts_le,
					&addr);
	const struct section *s = n ? &b->sections[n - 1] : NULL;

	return s && addr - s->addr < s->size ? s : NULL;
}

const unsigned char *binary_bytes(const struct binary *b, uint64_t addr,
				  size_t len)
{
	const struct section *s = section_at(b, addr);

	if (!s || len > s->size - (addr - s->addr) || !s->data)
		return NULL;
	return s->data + (addr - s->addr);
}

int binary_is_code(const struct binary *b, uint64_t addr)
{
	const struct section *s = section_at(b, addr);

	return s && s->exec && s->data;
}

static int proc_starts_le(const void *elem, const void *key)
{
	return ((const struct proc *)elem)->lo <= *(const uint64_t *)key;
}

const struct proc *binary_find_proc(const struct binary *b, uint64_t addr)
{
	/* procs[] is sorted by lo, each not empty, no overlaps (finish_procs) */
	size_t n = addrsearch_partition(b->procs, b->nprocs, sizeof(*b->procs),
					proc_starts_le, &addr);
	const struct proc *p = n ? &b->procs[n - 1] : NULL;

	return p && addr < p->hi ? p : NULL;
}

static int section_cmp(const void *a, const void *b)
{
	const struct section *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int load_sections(struct binary *b)
{
	Elf_Scn *scn = NULL;
	size_t alloc = 0, kept = 0;

	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		struct section *s;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			continue;	/* outside the file: not usable */
		HPC_GROW(b->sections, b->nsections + 1, alloc);
		s = &b->sections[b->nsections++];
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->data = d->d_buf;
		s->exec = !!(sh.sh_flags & SHF_EXECINSTR);
	}
	if (b->nsections > 1)
		qsort(b->sections, b->nsections, sizeof(*b->sections), section_cmp);
	/* no overlaps, no wrap-around: section_at() searches by address */
	for (size_t i = 0; i < b->nsections; i++) {
		const struct section *s = &b->sections[i];

		if (s->addr + s->size < s->addr || (kept > 0 &&
		    s->addr - b->sections[kept - 1].addr < b->sections[kept - 1].size))
			continue;
		b->sections[kept++] = *s;
	}
	b->nsections = kept;
	for (size_t i = 0; i < b->nsections; i++)
		if (b->sections[i].exec)
			return 0;
	return hpc_seterr("'%s': no code sections", b->path);
}

static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, out))
			continue;
		n = elf_strptr(elf, shstrndx, out->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * A function symbol; rank orders the names of one address.  name is len
 * bytes long: a GNU symbol version (NAME@VERSION, NAME@@VERSION in a
 * .symtab) is not part of it, as .dynsym names carry none.
 */
struct cand {
	uint64_t lo, size;
	const char *name;
	size_t len;
	int rank;
};

/* Whether sym is a defined function (the name is looked up after this). */
static int defined_func(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       sym->st_shndx != SHN_UNDEF;
}

/*
 * Adds sym, a defined function symbol at file address lo, to the
 * candidates unless it is nameless or outside the code.
 */
static void add_cand(struct binary *b, const GElf_Sym *sym, uint64_t lo,
		     const char *name, int base_rank, struct cand **v,
		     size_t *n, size_t *alloc)
{
	int bind = GELF_ST_BIND(sym->st_info);

	if (lo == 0 || !name || !*name || !binary_is_code(b, lo))
		return;
	HPC_GROW(*v, *n + 1, *alloc);
	(*v)[*n].lo = lo;
	(*v)[*n].size = sym->st_size;
	(*v)[*n].name = name;
	(*v)[*n].len = name[0] == '@' ? strlen(name) : strcspn(name, "@");
	(*v)[*n].rank = base_rank +
		(bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2);
	(*n)++;
}

static void symtab_cands(struct binary *b, Elf_Scn *scn, const GElf_Shdr *sh,
			 int base_rank, struct cand **v, size_t *n,
			 size_t *alloc)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t count;

	if (!d || sh->sh_entsize == 0)
		return;
	count = d->d_size / sh->sh_entsize;
	for (size_t i = 1; i < count; i++) {
		GElf_Sym sym;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		if (!defined_func(&sym))
			continue;
		add_cand(b, &sym, sym.st_value,
			 elf_strptr(b->elf, sh->sh_link, sym.st_name),
			 base_rank, v, n, alloc);
	}
}

/*
 * Function symbols that libdwfl finds for a binary without a .symtab: the
 * .symtab of its separate debug file (or its MiniDebugInfo), which names
 * the local functions .dynsym lacks.  Ranked as .symtab symbols; the main
 * file's own .dynsym is read by symtab_cands.  The names stay valid until
 * dwfl_end.
 */
static void debug_file_cands(struct binary *b, Dwfl_Module *m,
			     struct cand **v, size_t *n, size_t *alloc)
{
	Dwarf_Addr mainbias;
	Elf *mainelf = m ? dwfl_module_getelf(m, &mainbias) : NULL;
	int count = mainelf ? dwfl_module_getsymtab(m) : -1;

	for (int i = 1; i < count; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *from;
		const char *name = dwfl_module_getsym_info(m, i, &sym, &addr,
							   &shndx, &from, NULL);

		/* shndx is -1 for a symbol outside the allocated sections */
		if (!name || from == mainelf || shndx == (GElf_Word)-1 ||
		    !defined_func(&sym))
			continue;
		/* addr is the symbol's address in the module as dwfl placed it */
		add_cand(b, &sym, addr - mainbias, name, 0, v, n, alloc);
	}
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/*
 * Procedures from function symbols: .symtab, .dynsym and, when the binary
 * has no .symtab, its separate debug file's (m is the binary's module).
 */
static void symbol_procs(struct binary *b, Dwfl_Module *m, struct procs *p)
{
	struct cand *v = NULL;
	size_t n = 0, alloc = 0;
	Elf_Scn *scn = NULL;
	int has_symtab = 0, cold = 0;	/* a NAME.cold symbol: fill symaddr */

	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab_cands(b, scn, &sh, 0, &v, &n, &alloc);
			has_symtab = 1;
		} else if (sh.sh_type == SHT_DYNSYM) {
			symtab_cands(b, scn, &sh, 3, &v, &n, &alloc);
		}
	}
	if (!has_symtab)
		debug_file_cands(b, m, &v, &n, &alloc);
	if (n > 1)
		qsort(v, n, sizeof(*v), cand_cmp);
	for (size_t i = 0; i < n && !cold; i++)
		cold = v[i].len > 5 && !memcmp(v[i].name + v[i].len - 5, ".cold", 5);
	for (size_t i = 0; i < n; i++) {
		uint64_t size = v[i].size;
		void *at = cold ? hmap_get(p->symaddr, v[i].name, v[i].len) : NULL;

		if (!at || at == (void *)(uintptr_t)v[i].lo)
			at = (void *)(uintptr_t)v[i].lo;
		else
			at = (void *)-1;
		if (cold)
			hmap_put(p->symaddr, v[i].name, v[i].len, at);
		if (i > 0 && v[i].lo == v[i - 1].lo)
			continue;
		for (size_t j = i + 1; size == 0 && j < n && v[j].lo == v[i].lo; j++)
			size = v[j].size;
		/* size 0: up to the next symbol (fixed in finish_procs) */
		add_proc(p, v[i].lo, size ? v[i].lo + size : 0, v[i].name,
			 v[i].len, PROC_SYMBOL);
	}
	free(v);
}

static int32_t rd32(const unsigned char *q)
{
	uint32_t v;

	memcpy(&v, q, 4);
	return (int32_t)v;
}

/*
 * PLT stubs, NAME@plt (elf-plt.h), inside the code sections b keeps.
 */
static void plt_procs(struct binary *b, struct procs *p)
{
	size_t n;
	struct elf_plt_entry *v = elf_plt_read(b->elf, &n);

	for (size_t i = 0; i < n; i++)
		if (binary_is_code(b, v[i].lo) &&
		    binary_bytes(b, v[i].lo, v[i].hi - v[i].lo))
			add_proc(p, v[i].lo, v[i].hi, v[i].name,
				 strlen(v[i].name), PROC_PLT);
	elf_plt_free(v, n);
}

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (int)x->origin - (int)y->origin;
}

/*
 * Sorts p->v by proc_cmp.  The symbols, the PLT stubs and the FDEs come
 * each in order: up to four such runs are merged, not sorted again.
 */
static void sort_procs(struct procs *p)
{
	struct proc *v = p->v, *w;
	size_t runs = 1, mid = 1;

	for (size_t i = 1; i < p->n; i++)
		runs += proc_cmp(&v[i - 1], &v[i]) > 0;
	if (runs == 1)
		return;
	if (runs > 4) {
		qsort(v, p->n, sizeof(*v), proc_cmp);
		return;
	}
	w = xmalloc(p->n * sizeof(*w));
	while (proc_cmp(&v[mid - 1], &v[mid]) <= 0)
		mid++;
	while (mid < p->n) {	/* merge v[0, mid), in order, with the next run */
		size_t end = mid + 1, i = 0, j = mid, out = 0;

		while (end < p->n && proc_cmp(&v[end - 1], &v[end]) <= 0)
			end++;
		while (i < mid || j < end)
			if (j == end || (i < mid && proc_cmp(&v[i], &v[j]) <= 0))
				w[out++] = v[i++];
			else
				w[out++] = v[j++];
		memcpy(v, w, end * sizeof(*v));
		mid = end;
	}
	free(w);
}

/* Whether addr is inside one of the first n procedures (sorted by lo). */
static int covered(const struct procs *p, size_t n, uint64_t addr)
{
	size_t lo = addrsearch_partition(p->v, n, sizeof(*p->v),
					 proc_starts_le, &addr);

	return lo > 0 && (p->v[lo - 1].lo == addr || p->v[lo - 1].hi > addr);
}


static uint64_t rd_uleb(const unsigned char **q, const unsigned char *end)
{
	uint64_t v = 0;
	int shift = 0;

	while (*q < end && shift < 64) {
		unsigned char c = *(*q)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80))
			break;
	}
	return v;
}

/* The FDE pointer encoding ('R' augmentation) of the CIE at cie, or -1. */
static int cie_fde_encoding(const unsigned char *cie, const unsigned char *end)
{
	const unsigned char *q = cie + 8, *aug;

	if (q + 1 > end)
		return -1;
	q++;			/* version */
	aug = q;
	while (q < end && *q)
		q++;
	if (q >= end || aug[0] != 'z')
		return 0x00;	/* no augmentation data: absolute pointers */
	q++;
	rd_uleb(&q, end);	/* code alignment */
	rd_uleb(&q, end);	/* data alignment (sleb; only skipped) */
	if (cie[8] == 1)
		q++;		/* return register, one byte in version 1 */
	else
		rd_uleb(&q, end);
	rd_uleb(&q, end);	/* augmentation data length */
	for (const unsigned char *a = aug + 1; *a && q < end; a++) {
		if (*a == 'R')
			return *q;
		if (*a == 'L')
			q++;
		else if (*a == 'P')
			return -1;	/* personality first: rare, not decoded */
		else
			return -1;
	}
	return -1;
}

/* Reads a value of the size the encoding's low nibble gives, or -1. */
static int rd_encoded(const unsigned char *q, const unsigned char *end, int enc,
		      int64_t *out)
{
	int32_t s4;
	int16_t s2;

	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c:
		if (q + 8 > end)
			return -1;
		memcpy(out, q, 8);
		return 8;
	case 0x03: case 0x0b:
		if (q + 4 > end)
			return -1;
		memcpy(&s4, q, 4);
		*out = (enc & 0x0f) == 0x03 ? (int64_t)(uint32_t)s4 : s4;
		return 4;
	case 0x02: case 0x0a:
		if (q + 2 > end)
			return -1;
		memcpy(&s2, q, 2);
		*out = (enc & 0x0f) == 0x02 ? (int64_t)(uint16_t)s2 : s2;
		return 2;
	default:
		return -1;
	}
}

/* The address range length of the FDE at fde in .eh_frame, or 0. */
static uint64_t fde_range(const struct binary *b, uint64_t fde)
{
	const struct section *s = section_at(b, fde);
	const unsigned char *base, *end, *q, *cie;
	uint32_t len, cie_off;
	int64_t v;
	int enc, n;

	if (!s || !s->data)
		return 0;
	base = s->data;
	end = s->data + s->size;
	q = base + (fde - s->addr);
	if (q + 8 > end)
		return 0;
	memcpy(&len, q, 4);
	memcpy(&cie_off, q + 4, 4);
	if (len == 0 || len == 0xffffffffu || (size_t)(end - q) < (size_t)len + 4 ||
	    cie_off == 0 || cie_off > (size_t)(q + 4 - base))
		return 0;
	end = q + 4 + len;
	cie = q + 4 - cie_off;
	enc = cie_fde_encoding(cie, s->data + s->size);
	if (enc < 0)
		return 0;
	n = rd_encoded(q + 8, end, enc, &v);	/* pc_begin */
	if (n < 0 || rd_encoded(q + 8 + n, end, enc & 0x0f, &v) < 0)
		return 0;
	return (uint64_t)v;
}

/*
 * Writes "targ" and lo in lowercase hex, as "targ%" PRIx64 does, to buf;
 * returns the length.  A stripped library names 100,000 procedures so,
 * where snprintf would cost a tenth of opening it.
 */
static size_t targ_name(char buf[24], uint64_t lo)
{
	char hex[16];
	size_t n = 0, len = 4;

	do {
		hex[n++] = "0123456789abcdef"[lo & 15];
		lo >>= 4;
	} while (lo);
	memcpy(buf, "targ", 4);
	while (n > 0)
		buf[len++] = hex[--n];
	buf[len] = '\0';
	return len;
}

/*
 * Procedures from .eh_frame_hdr's sorted FDE table for code no symbol
 * covers; each one's end comes from its FDE's address range.
 */
static void fde_procs(struct binary *b, struct procs *p)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(b->elf, ".eh_frame_hdr", &sh);
	const unsigned char *hdr;
	uint32_t count;
	size_t nsym = p->n;
	char name[24];

	if (!scn || sh.sh_size < 12)
		return;
	hdr = binary_bytes(b, sh.sh_addr, sh.sh_size);
	/* version 1, eh_frame_ptr any 4-byte form, count udata4, table datarel sdata4 */
	if (!hdr || hdr[0] != 1 || (hdr[1] & 0x0f) != 0x0b || hdr[2] != 0x03 ||
	    hdr[3] != 0x3b)
		return;
	memcpy(&count, hdr + 8, 4);
	if (count > (sh.sh_size - 12) / 8)
		return;
	sort_procs(p);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t lo = sh.sh_addr + (uint64_t)(int64_t)rd32(hdr + 12 + 8 * i);
		uint64_t fde = sh.sh_addr + (uint64_t)(int64_t)rd32(hdr + 16 + 8 * i);
		uint64_t len;

		if (!binary_is_code(b, lo))
			continue;
		if (covered(p, nsym, lo))
			continue;
		len = fde_range(b, fde);
		if (len == 0 || len > (1ULL << 32))
			continue;
		add_proc(p, lo, lo + len, name, targ_name(name, lo), PROC_FDE);
	}
}

/*
 * Makes each NAME.cold symbol the cold part of the procedure at NAME's
 * address, when NAME is a symbol at one address only.  NAME may be an alias
 * that did not name the procedure (glibc's .cold parts are named after
 * internal aliases such as __GI_NAME).
 */
static int is_cold_name(const struct proc *c)
{
	size_t len = strlen(c->name);

	return c->origin == PROC_SYMBOL && len > 5 &&
		!strcmp(c->name + len - 5, ".cold");
}

static void merge_cold_parts(struct procs *p)
{
	struct hmap *bylo;	/* lo -> index + 1 (one per lo) */
	size_t out = 0, first = 0;

	while (first < p->n && !is_cold_name(&p->v[first]))
		first++;
	if (first == p->n)	/* none: a stripped library has .dynsym alone */
		return;
	bylo = hmap_new();
	for (size_t i = 0; i < p->n; i++)
		hmap_put_u64(bylo, p->v[i].lo, (void *)(uintptr_t)(i + 1));
	for (size_t i = 0; i < p->n; i++) {
		struct proc *c = &p->v[i], *parent = NULL;
		size_t len = strlen(c->name);
		void *at, *k;

		if (is_cold_name(c) &&
		    (at = hmap_get(p->symaddr, c->name, len - 5)) &&
		    at != (void *)-1 && (k = hmap_get_u64(bylo, (uintptr_t)at)))
			parent = &p->v[(uintptr_t)k - 1];
		if (parent && parent != c && parent->name &&
		    parent->origin == PROC_SYMBOL && !parent->cold_hi) {
			parent->cold_lo = c->lo;
			parent->cold_hi = c->hi;
			free(c->name);
			c->name = NULL;
		}
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].name)
			p->v[out++] = p->v[i];
	p->n = out;
	hmap_free(bylo);
}

void binary_demangle(struct binary *b, size_t i)
{
	struct proc *p = &b->procs[i];
	char *d;

	if (p->linkname || !(d = hpc_demangle(p->name)))
		return;
	p->linkname = p->name;
	p->name = d;
}

/*
 * Whether an ET_DYN file is a shared library rather than a position-
 * independent executable, which the linker marks DF_1_PIE in DT_FLAGS_1
 * (as Dyninst, and so HPCToolkit's hpcstruct, tell them apart; libc,
 * runnable with a PT_INTERP of its own, is a library).
 */
static int is_shared_library(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Dyn dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    sh.sh_entsize == 0 || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < d->d_size / sh.sh_entsize &&
		     gelf_getdyn(d, (int)i, &dyn) && dyn.d_tag != DT_NULL; i++)
			if (dyn.d_tag == DT_FLAGS_1)
				return !(dyn.d_un.d_val & DF_1_PIE);
	}
	return 1;
}

/* Sorts, drops duplicates, gives size-0 symbols an end, removes overlaps. */
static void finish_procs(struct binary *b, struct procs *p)
{
	size_t out = 0;

	sort_procs(p);
	for (size_t i = 0; i < p->n; i++) {
		if (out > 0 && p->v[out - 1].lo == p->v[i].lo) {
			free(p->v[i].name);
			continue;
		}
		p->v[out++] = p->v[i];
	}
	p->n = out;
	for (size_t i = 0; i < p->n; i++) {
		const struct section *s = section_at(b, p->v[i].lo);
		uint64_t end = s->addr + s->size;

		if (i + 1 < p->n && p->v[i + 1].lo < end)
			end = p->v[i + 1].lo;
		if (p->v[i].hi <= p->v[i].lo || p->v[i].hi > end)
			p->v[i].hi = end;
	}
	merge_cold_parts(p);
	hmap_free(p->symaddr);
	p->symaddr = NULL;
	b->procs = p->v;
	b->nprocs = p->n;
}

/*
 * Opens b's DWARF, in b or in a separate debug file.  Returns b's module,
 * valid until binary_drop_dwarf, or NULL.
 */
static Dwfl_Module *open_dwarf(struct binary *b)
{
	Dwfl_Module *m;
	Dwarf_Addr mainbias = 0, dbias = 0;

	b->dwfl = dwfl_begin(&offline_callbacks);
	if (!b->dwfl)
		return NULL;
	m = dwfl_report_offline(b->dwfl, b->basename, b->path, -1);
	dwfl_report_end(b->dwfl, NULL, NULL);
	if (!m || !dwfl_module_getelf(m, &mainbias))
		return NULL;
	b->dwarf = dwfl_module_getdwarf(m, &dbias);
	/* file address = dwarf address + dbias - mainbias */
	b->dwarf_bias = mainbias - dbias;
	return m;
}

struct binary *binary_open(const char *path)
{
	struct binary *b = binary_open_mangled(path);

	for (size_t i = 0; b && i < b->nprocs; i++)
		binary_demangle(b, i);
	return b;
}

struct binary *binary_open_mangled(const char *path)
{
	struct binary *b = xcalloc(1, sizeof(*b));
	struct procs p = { NULL, 0, 0, b, hmap_new() };
	const char *slash = strrchr(path, '/');
	uint64_t size;
	GElf_Ehdr eh;

	b->path = xstrdup(path);
	b->basename = xstrdup(slash ? slash + 1 : path);
	/* a regular file only: a FIFO would block, a device never end */
	b->fd = infile_open(path, BINARY_MAX_BYTES, "an ELF file", &size);
	if (b->fd < 0)
		goto fail;
	if (size == 0) {
		hpc_seterr("'%s': empty file", path);
		goto fail;
	}
	elf_version(EV_CURRENT);
	b->elf = elf_begin(b->fd, ELF_C_READ_MMAP, NULL);
	if (!b->elf || elf_kind(b->elf) != ELF_K_ELF || !gelf_getehdr(b->elf, &eh)) {
		hpc_seterr("'%s': not an ELF file", path);
		goto fail;
	}
	if (gelf_getclass(b->elf) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		hpc_seterr("'%s': unsupported architecture (ELF machine %u, class %d); only x86-64 is supported",
			   path, eh.e_machine, gelf_getclass(b->elf));
		goto fail;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		hpc_seterr("'%s': not an executable or shared library (ELF type %u)",
			   path, eh.e_type);
		goto fail;
	}
	if (eh.e_shnum && (eh.e_shoff > size ||
			   (uint64_t)eh.e_shnum * eh.e_shentsize > size - eh.e_shoff)) {
		hpc_seterr("'%s': truncated: its section headers end at byte %llu, the file at byte %llu",
			   path, (unsigned long long)eh.e_shoff +
			   (unsigned long long)eh.e_shnum * eh.e_shentsize,
			   (unsigned long long)size);
		goto fail;
	}
	if (load_sections(b) < 0)
		goto fail;
	b->shared = eh.e_type == ET_DYN && is_shared_library(b->elf);
	hpc_buildid_elf(b->elf, b->buildid);
	symbol_procs(b, open_dwarf(b), &p);
	plt_procs(b, &p);
	fde_procs(b, &p);
	finish_procs(b, &p);
	return b;
fail:
	for (size_t i = 0; i < p.n; i++)
		free(p.v[i].name);
	free(p.v);
	hmap_free(p.symaddr);
	binary_free(b);
	return NULL;
}

void binary_drop_dwarf(struct binary *b)
{
	if (b->dwfl)
		dwfl_end(b->dwfl);
	b->dwfl = NULL;
	b->dwarf = NULL;
}

void binary_free(struct binary *b)
{
	if (!b)
		return;
	if (b->dwfl)
		dwfl_end(b->dwfl);
	if (b->elf)
		elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
	for (size_t i = 0; i < b->nprocs; i++) {
		free(b->procs[i].name);
		free(b->procs[i].linkname);
	}
	free(b->procs);
	free(b->sections);
	free(b->basename);
	free(b->path);
	free(b);
}
