/* elf-plt.c - see elf-plt.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "addrsearch.h"
#include "elf-plt.h"
#include "error.h"
#include "strbuf.h"

/* A dynamic relocation of a GOT slot a PLT entry may jump through. */
struct slot_reloc {
	uint64_t slot;		/* r_offset; first, for addrsearch */
	const char *sym;	/* libelf's, valid until elf_end */
	int64_t addend;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot_reloc *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * The JUMP_SLOT, GLOB_DAT and IRELATIVE relocations of every RELA section
 * linked to a .dynsym (a static binary's .rela.plt is linked to no
 * .dynsym, and objdump names none of its entries), sorted by slot.
 */
static struct slot_reloc *slot_relocs(Elf *elf, size_t *n)
{
	struct slot_reloc *v = NULL;
	size_t alloc = 0;
	Elf_Scn *scn = NULL;

	*n = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, dynsh;
		Elf_Data *d, *syms;
		Elf_Scn *ds;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !(d = elf_getdata(scn, NULL)) ||
		    !(ds = elf_getscn(elf, sh.sh_link)) ||
		    !gelf_getshdr(ds, &dynsh) || dynsh.sh_type != SHT_DYNSYM ||
		    !(syms = elf_getdata(ds, NULL)))
			continue;
		/* gelf_getrela and gelf_getsym refuse an index past d_size */
		for (int i = 0; (size_t)i < d->d_size / sizeof(Elf64_Rela); i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name = "*ABS*";
			uint64_t type, k;

			if (!gelf_getrela(d, i, &r))
				break;
			type = GELF_R_TYPE(r.r_info);
			k = GELF_R_SYM(r.r_info);
			if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
			    type != R_X86_64_IRELATIVE)
				continue;
			if (k != 0 && (k > INT32_MAX || !gelf_getsym(syms, (int)k, &sym) ||
				       !(name = elf_strptr(elf, dynsh.sh_link,
							   sym.st_name)) || !*name))
				continue;
			HPC_GROW(v, *n + 1, alloc);
			v[(*n)++] = (struct slot_reloc){ r.r_offset, name, r.r_addend };
		}
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), slot_cmp);
	return v;
}

/*
 * The GOT slot the entry of len bytes at q, at address lo, jumps through:
 * [endbr64] [bnd] jmp *disp32(%rip).  Returns 0 when it does not start so.
 */
static int entry_slot(const unsigned char *q, size_t len, uint64_t lo,
		      uint64_t *slot)
{
	size_t i = 0;
	uint32_t disp;

	if (len >= 4 && !memcmp(q, "\xf3\x0f\x1e\xfa", 4))
		i = 4;
	if (i < len && q[i] == 0xf2)
		i++;
	if (len - i < 6 || q[i] != 0xff || q[i + 1] != 0x25)
		return 0;
	memcpy(&disp, q + i + 2, 4);
	*slot = lo + i + 6 + (uint64_t)(int64_t)(int32_t)disp;
	return 1;
}

/* Appends the named entries of one PLT section (its header and bytes). */
static void section_entries(const GElf_Shdr *sh, const Elf_Data *d,
			    int got, const struct slot_reloc *rel, size_t nrel,
			    struct elf_plt_entry **v, size_t *n, size_t *alloc)
{
	const unsigned char *q = d->d_buf;
	size_t size = d->d_size, ent = 16;
	struct strbuf name = STRBUF_INIT;

	if (!q || size > sh->sh_size || sh->sh_addr + size < sh->sh_addr)
		return;
	/* .plt.got: 16-byte entries when they open with endbr64, else 8 */
	if (got && (size < 4 || memcmp(q, "\xf3\x0f\x1e\xfa", 4)))
		ent = 8;
	for (size_t off = 0; size - off >= ent; off += ent) {
		uint64_t lo = sh->sh_addr + off, slot;
		size_t k;

		if (!entry_slot(q + off, ent, lo, &slot))
			continue;
		k = addrsearch_count_le(rel, nrel, sizeof(*rel), slot);
		if (k == 0 || rel[k - 1].slot != slot)
			continue;
		/* several relocations of one slot: the first in the file */
		while (k > 1 && rel[k - 2].slot == slot)
			k--;
		strbuf_reset(&name);
		strbuf_addstr(&name, rel[k - 1].sym);
		if (rel[k - 1].addend)
			strbuf_addf(&name, "+0x%" PRIx64,
				    (uint64_t)rel[k - 1].addend);
		strbuf_addstr(&name, "@plt");
		HPC_GROW(*v, *n + 1, *alloc);
		(*v)[(*n)++] = (struct elf_plt_entry){
			lo, lo + ent, strbuf_detach(&name, NULL)
		};
	}
	strbuf_release(&name);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct elf_plt_entry *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct elf_plt_entry *elf_plt_read(Elf *elf, size_t *n)
{
	static const char *const names[] = {
		".plt", ".plt.sec", ".plt.bnd", ".plt.got"
	};
	struct elf_plt_entry *v = NULL;
	struct slot_reloc *rel;
	size_t nrel, alloc = 0, shstrndx, kept = 0;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	*n = 0;
	if (!gelf_getehdr(elf, &eh) || gelf_getclass(elf) != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	rel = slot_relocs(elf, &nrel);
	while (nrel && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *sname;
		size_t w = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sname = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		while (w < 4 && strcmp(sname, names[w]))
			w++;
		if (w < 4 && (d = elf_getdata(scn, NULL)))
			section_entries(&sh, d, w == 3, rel, nrel, &v, n, &alloc);
	}
	free(rel);
	/* sections may overlap in a malformed file: drop what overlaps */
	if (*n > 1)
		qsort(v, *n, sizeof(*v), entry_cmp);
	for (size_t i = 0; i < *n; i++) {
		if (kept > 0 && v[i].lo < v[kept - 1].hi) {
			free(v[i].name);
			continue;
		}
		v[kept++] = v[i];
	}
	*n = kept;
	return v;
}

void elf_plt_free(struct elf_plt_entry *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}
