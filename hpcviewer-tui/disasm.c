/*
 * disasm.c - decode one procedure of an ELF file (disasm.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "addrsearch.h"
#include "disasm.h"
#include "error.h"

/* The executable section holding addr, or NULL. */
static Elf_Scn *code_section(Elf *elf, uint64_t addr, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == SHT_PROGBITS &&
		    (sh->sh_flags & SHF_EXECINSTR) && addr >= sh->sh_addr &&
		    addr < sh->sh_addr + sh->sh_size)
			return scn;
	return NULL;
}

/* An .eh_frame_hdr table entry's start (section-relative) against addr. */
struct fde_key {
	uint64_t base, addr;
};

static int fde_starts_le(const void *elem, const void *key)
{
	const struct fde_key *k = key;
	int32_t rel;

	memcpy(&rel, elem, 4);
	return k->base + (uint64_t)(int64_t)rel <= k->addr;
}

/* The start of the FDE covering addr from .eh_frame_hdr's sorted table
 * (GNU ld's form: count udata4, table datarel sdata4), and the next FDE's
 * start (or the top of the address space); 0 if found. */
static int fde_start(Elf *elf, uint64_t addr, uint64_t *start, uint64_t *next)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx, lo;
	struct fde_key key;
	const unsigned char *h;
	Elf_Data *data = NULL;
	uint32_t count;
	int32_t rel;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return -1;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && elf_strptr(elf, shstrndx, sh.sh_name) &&
		    !strcmp(elf_strptr(elf, shstrndx, sh.sh_name), ".eh_frame_hdr"))
			break;
	if (!scn || !(data = elf_getdata(scn, NULL)) || !data->d_buf ||
	    data->d_size < 12)
		return -1;
	h = data->d_buf;
	memcpy(&count, h + 8, 4);
	if (h[0] != 1 || (h[1] & 0x0f) != 0x0b || h[2] != 0x03 || h[3] != 0x3b ||
	    count > (data->d_size - 12) / 8)
		return -1;
	key.base = sh.sh_addr;
	key.addr = addr;
	/* the first entry starting past addr */
	lo = addrsearch_partition(h + 12, count, 8, fde_starts_le, &key);
	if (lo == 0)
		return -1;
	memcpy(&rel, h + 12 + 8 * (lo - 1), 4);
	*start = sh.sh_addr + (uint64_t)(int64_t)rel;
	*next = UINT64_MAX;	/* the last FDE: up to the end of its rows */
	if (lo < count) {
		memcpy(&rel, h + 12 + 8 * lo, 4);
		*next = sh.sh_addr + (uint64_t)(int64_t)rel;
	}
	return 0;
}

/* [*start, *end) of the FDE covering addr: from its start, the unwind rows
 * libdw finds one after the other, up to the next FDE; 0 if found. */
static int fde_range(Elf *elf, uint64_t addr, uint64_t *start, uint64_t *end)
{
	Dwarf_CFI *cfi;
	uint64_t next, e;

	if (fde_start(elf, addr, start, &next) < 0)
		return -1;
	cfi = dwarf_getcfi_elf(elf);
	e = *start;
	while (cfi && e < next) {
		Dwarf_Frame *frame = NULL;
		Dwarf_Addr s, e2;
		int ok = dwarf_cfi_addrframe(cfi, e, &frame) == 0 &&
			 dwarf_frame_info(frame, &s, &e2, NULL) >= 0 && e2 > e;

		free(frame);
		if (!ok)
			break;
		e = e2;
	}
	if (cfi)
		dwarf_cfi_end(cfi);
	*end = e < next ? e : next;
	return addr < *end ? 0 : -1;
}

/* [*start, *end) of a function symbol covering addr; 0 if found. */
static int symbol_range(Elf *elf, uint64_t addr, uint64_t *start,
			uint64_t *end)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB &&
						sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;

			if (gelf_getsym(data, (int)i, &sym) &&
			    GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
			    sym.st_size && sym.st_value <= addr &&
			    addr < sym.st_value + sym.st_size) {
				*start = sym.st_value;
				*end = sym.st_value + sym.st_size;
				return 0;
			}
		}
	}
	return -1;
}

static int decode(struct disasm *d, const uint8_t *code, const char *path)
{
	csh cs;
	cs_insn *insn;
	size_t n, i;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return hpc_seterr("'%s': cannot start the disassembler", path);
	cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	n = cs_disasm(cs, code, d->end - d->start, d->start, 0, &insn);
	d->insns = xcalloc(n ? n : 1, sizeof(*d->insns));
	for (i = 0; i < n; i++) {
		struct disasm_insn *di = &d->insns[i];

		di->addr = insn[i].address;
		di->size = insn[i].size;
		snprintf(di->text, sizeof(di->text), "%s%s%s",
			 insn[i].mnemonic, *insn[i].op_str ? " " : "",
			 insn[i].op_str);
	}
	d->ninsns = n;
	if (n)
		cs_free(insn, n);
	cs_close(&cs);
	return 0;
}

struct disasm *disasm_procedure(const char *path, uint64_t addr)
{
	struct disasm *d = NULL;
	Elf *elf = NULL;
	Elf_Scn *scn;
	Elf_Data *data;
	GElf_Shdr sh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		hpc_seterr("'%s': %s", path, strerror(errno));
		return NULL;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		hpc_seterr("'%s': not an ELF file", path);
		goto out;
	}
	scn = code_section(elf, addr, &sh);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !data->d_buf || data->d_size < sh.sh_size) {
		hpc_seterr("'%s': no code at 0x%llx", path,
			   (unsigned long long)addr);
		goto out;
	}
	d = xcalloc(1, sizeof(*d));
	if (fde_range(elf, addr, &d->start, &d->end) == 0) {
		d->extent = "unwind table";
	} else if (symbol_range(elf, addr, &d->start, &d->end) == 0) {
		d->extent = "symbol table";
	} else {
		d->extent = "guessed";
		d->start = addr;
		d->end = addr + DISASM_GUESS;
	}
	if (d->start < sh.sh_addr)
		d->start = sh.sh_addr;
	if (d->end > sh.sh_addr + sh.sh_size)
		d->end = sh.sh_addr + sh.sh_size;
	if (d->end - d->start > DISASM_MAX)
		d->end = d->start + DISASM_MAX;
	if (decode(d, (const uint8_t *)data->d_buf + (d->start - sh.sh_addr),
		   path) < 0) {
		disasm_free(d);
		d = NULL;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return d;
}

void disasm_free(struct disasm *d)
{
	if (!d)
		return;
	free(d->insns);
	free(d);
}

static int insn_starts_le(const void *elem, const void *key)
{
	return ((const struct disasm_insn *)elem)->addr <=
	       *(const uint64_t *)key;
}

size_t disasm_find(const struct disasm *d, uint64_t addr)
{
	/* insns[] are decoded one after the other: sorted and disjoint */
	size_t n = addrsearch_partition(d->insns, d->ninsns, sizeof(*d->insns),
					insn_starts_le, &addr);

	if (n && addr - d->insns[n - 1].addr < d->insns[n - 1].size)
		return n - 1;
	return d->ninsns;
}
