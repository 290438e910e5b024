/*
 * elf-plt.h - the names of an x86-64 ELF file's PLT entries, NAME@plt as
 * objdump gives them: PLT stubs have no symbol of their own, so without
 * these names a sample in one would name no procedure.  hpcstruct makes
 * them procedures; hpcprof names addresses by them when it reads a binary
 * without a structure file.
 *
 * An entry is a stub of .plt (lazy binding: 16-byte entries after a
 * 16-byte header), .plt.sec or .plt.bnd (IBT and MPX: the jumps of the
 * lazy entries, which stay in .plt), or .plt.got (8-byte entries, 16 with
 * IBT, for functions bound at load time).  It is named when it starts with
 * "jmp *disp32(%rip)" (ff 25, perhaps after endbr64 f3 0f 1e fa and a bnd
 * prefix f2) and a dynamic relocation (R_X86_64_JUMP_SLOT, GLOB_DAT or
 * IRELATIVE, in a RELA section linked to .dynsym) is at the GOT slot it
 * jumps through.
 *
 * Invariants:
 *  1. The name is the relocation's dynamic symbol's, without a version
 *     (.dynsym names carry none), "*ABS*" for IRELATIVE's null symbol,
 *     then "+0xADDEND" when the addend is not 0, then "@plt": objdump -d
 *     names the same entries the same way.  The lazy header (push; jmp),
 *     the lazy entries .plt.sec or .plt.bnd jump for, and an entry whose
 *     bytes or relocation are not as above get none.
 *  2. Entries are sorted by lo and disjoint; every one lies inside its
 *     section's bytes in the file.  Addresses are the file's own
 *     (link-time) virtual addresses.
 *  3. Every read is bounded by the sizes libelf gives the sections: a
 *     malformed file yields fewer entries or none, never a fault.
 *  4. Only x86-64 (ELFCLASS64, EM_X86_64) files have entries.
 */
#ifndef HPC_ELF_PLT_H
#define HPC_ELF_PLT_H

#include <stddef.h>
#include <stdint.h>

struct Elf;	/* libelf's Elf */

struct elf_plt_entry {
	uint64_t lo, hi;	/* [lo, hi): the whole stub */
	char *name;		/* NAME@plt, owned by the table */
};

/*
 * The named PLT entries of elf, *n of them, in an array the caller frees
 * with elf_plt_free (NULL when there are none).  elf is only read; the
 * names do not point into it.
 */
struct elf_plt_entry *elf_plt_read(struct Elf *elf, size_t *n);

/* Frees the n entries of v and v; accepts NULL. */
void elf_plt_free(struct elf_plt_entry *v, size_t n);

#endif
