/*
 * binary.h - an ELF binary opened for structure recovery (elf.c).
 *
 * binary_open() validates the file (ELF64, x86-64, executable or shared
 * object), finds its procedures and opens its DWARF (through libdwfl, so
 * separate debug files found by .gnu_debuglink or build ID and compressed
 * sections work).  Invariants after a successful open:
 *   1. procs[] is sorted by lo, the ranges [lo, hi) do not overlap and
 *      every one lies inside an executable section;
 *   2. every address is the file's own (link-time) virtual address; DWARF
 *      addresses are already corrected by the debug file's bias;
 *   3. binary_bytes() returns pointers into the mapped file that stay
 *      valid until binary_free().
 * Procedures come from .symtab/.dynsym function symbols (without a .symtab,
 * the .symtab of the separate debug file too; names lose any GNU symbol
 * version, @VERSION or @@VERSION), PLT stubs (NAME@plt, lib/elf-plt.h),
 * and .eh_frame FDEs that no symbol covers (stripped binaries).  A
 * symbol NAME.cold (code gcc moved out of NAME) becomes the cold part of
 * the procedure at NAME's address when NAME, the procedure's name or an
 * alias, names one address only;
 * binary_find_proc finds procedures by their main part only.  C++ names
 * are demangled (lib/demangle.h: the C++ runtime's demangler, else they
 * stay mangled), PLT stubs' too (DEMANGLED@plt); linkname
 * keeps the mangled name.  binary_open_mangled() leaves that to
 * binary_demangle(), procedure by procedure.
 */
#ifndef HPCSTRUCT_BINARY_H
#define HPCSTRUCT_BINARY_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libelf.h>

#include "buildid.h"

/* The largest binary opened (libLLVM is a few hundred MB). */
#define BINARY_MAX_BYTES ((uint64_t)64 << 30)

enum proc_origin {
	PROC_SYMBOL,	/* .symtab or .dynsym */
	PROC_PLT,	/* a PLT stub */
	PROC_FDE,	/* an .eh_frame FDE without a symbol */
};

struct proc {
	uint64_t lo, hi;	/* [lo, hi) */
	uint64_t cold_lo, cold_hi;	/* the NAME.cold part gcc split off, or 0 */
	char *name;		/* owned; demangled for C++ */
	char *linkname;		/* owned mangled name, NULL when not mangled */
	enum proc_origin origin;
};

struct section {
	uint64_t addr, size;
	const unsigned char *data;
	int exec;
};

struct binary {
	char *path;
	char *basename;		/* owned; "[basename]" names no-debug files */
	int fd;
	Elf *elf;
	Dwfl *dwfl;
	Dwarf *dwarf;		/* NULL when there is no debug information */
	uint64_t dwarf_bias;	/* DWARF address - bias = file address */
	struct section *sections;	size_t nsections;
	struct proc *procs;		size_t nprocs;
	char buildid[HPC_BUILDID_HEX_SIZE];	/* lowercase hex, "" when absent */
	int shared;		/* a shared library, not an executable (PIE or not) */
};

/* The name the linker knows p by: the mangled one for C++, else its name. */
static inline const char *proc_linkname(const struct proc *p)
{
	return p->linkname ? p->linkname : p->name;
}

/*
 * Opens and indexes path, a regular file (a FIFO or device is refused, not
 * waited on).  Returns NULL with hpc_lasterr() set to a one-line reason
 * ("'x': not an ELF file", "... unsupported architecture").
 */
struct binary *binary_open(const char *path);
/*
 * As binary_open(), with every name left as the symbol table has it (name
 * the mangled one, linkname NULL) until binary_demangle(): a partial
 * analysis demangles the procedures it writes alone.
 */
struct binary *binary_open_mangled(const char *path);
/*
 * Gives procs[i] the name binary_open() gives it: a mangled C++ name
 * demangled, the mangled one kept in linkname.  Once is enough; again does
 * nothing.  Not thread-safe for one b.
 */
void binary_demangle(struct binary *b, size_t i);
/* Accepts NULL. */
void binary_free(struct binary *b);
/* Closes the DWARF (b->dwarf becomes NULL) to free libdw's memory. */
void binary_drop_dwarf(struct binary *b);

/*
 * Returns a pointer to len bytes at address addr in an allocated section,
 * or NULL when the range is not entirely inside one.
 */
const unsigned char *binary_bytes(const struct binary *b, uint64_t addr,
				  size_t len);
/* Returns 1 when addr is inside an executable section. */
int binary_is_code(const struct binary *b, uint64_t addr);
/* The procedure containing addr, or NULL. */
const struct proc *binary_find_proc(const struct binary *b, uint64_t addr);

#endif
