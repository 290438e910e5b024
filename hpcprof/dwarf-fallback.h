/*
 * dwarf-fallback.h - structure for addresses no structure file covers, built
 * on demand from the binary itself: procedures from its symbol table, source
 * lines from DWARF line tables, and inlined code from DWARF inline trees
 * (libdw); no loops.  A kernel symbol list (kallsyms.h) stands in for a
 * binary: procedures from its symbols, no lines; kernel addresses are
 * absolute.  When the binary is gone or unreadable, or the list is bad,
 * addresses keep their identity: one "<unknown> 0xADDR [module]" procedure
 * with a statement per address.  The pseudo module of Python frames
 * (HPCPY_MODULE, hpcpy.h) is no file: a procedure "<python code 0xID>"
 * per code id, for the codes whose Python code file is missing
 * (python.c).
 *
 * Scopes are appended to the caller's struct structure (so the canonical
 * CCT treats them like scopes from a structure file); the same address
 * always yields the same scope.  Each binary is opened once; its symbols,
 * and its units' address ranges when it has no .debug_aranges, are read
 * once into sorted tables, and a unit's lines and DIEs only when an
 * address in it is looked up, so the cost follows the addresses, not the
 * size of the binary.
 */
#ifndef HPCPROF_DWARF_FALLBACK_H
#define HPCPROF_DWARF_FALLBACK_H

#include <stdint.h>

#include "structfile.h"

struct fallback;

/*
 * Opens the binary or kernel symbol list at path (unreadable, or use_binary
 * 0: addresses only, procedures named for path's base name).  Never fails.
 * Free with fallback_free() (NULL accepted).
 */
struct fallback *fallback_new(const char *path, int use_binary);
void fallback_free(struct fallback *fb);

/* 1 when the binary was opened (symbols at least), else 0. */
int fallback_has_binary(const struct fallback *fb);
/* 1 when the binary has DWARF line information. */
int fallback_has_dwarf(const struct fallback *fb);
/* 1 when path was read as a kernel symbol list (and so has no lines). */
int fallback_has_kallsyms(const struct fallback *fb);
/* 1 when path is the pseudo module of Python frames (HPCPY_MODULE). */
int fallback_is_python(const struct fallback *fb);
/*
 * Why the file at path was refused ("'PATH': what is wrong"): a kernel
 * symbol list that is bad, or a path that is not a regular file (a FIFO
 * is never opened, infile.h); NULL when it was not.  Valid until
 * fallback_free().
 */
const char *fallback_error(const struct fallback *fb);

/*
 * Index of an S scope in st for addr (module-relative; absolute in a
 * kernel symbol list), made on demand.
 */
uint32_t fallback_lookup(struct fallback *fb, struct structure *st,
			 uint64_t addr);

#endif
