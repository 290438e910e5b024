/*
 * dwarf-fallback.h - structure for addresses no structure file covers, built
 * on demand from the binary itself: procedures from its symbol table, source
 * lines from DWARF line tables, and inlined code from DWARF inline trees
 * (libdw); no loops.  When the binary is gone or unreadable, addresses keep
 * their identity: one "<unknown> [module]" procedure with a statement per
 * address.
 *
 * Scopes are appended to the caller's struct structure (so the canonical
 * CCT treats them like scopes from a structure file); the same address
 * always yields the same scope.  Each binary is opened once.
 */
#ifndef HPCPROF_DWARF_FALLBACK_H
#define HPCPROF_DWARF_FALLBACK_H

#include <stdint.h>

#include "structfile.h"

struct fallback;

/*
 * Opens the binary at path (unreadable, or use_binary 0: addresses only,
 * procedures named for path's base name).  Never fails.  Free with
 * fallback_free().
 */
struct fallback *fallback_new(const char *path, int use_binary);
void fallback_free(struct fallback *fb);

/* 1 when the binary was opened (symbols at least), else 0. */
int fallback_has_binary(const struct fallback *fb);
/* 1 when the binary has DWARF line information. */
int fallback_has_dwarf(const struct fallback *fb);

/* Index of an S scope in st for the module-relative addr, made on demand. */
uint32_t fallback_lookup(struct fallback *fb, struct structure *st,
			 uint64_t addr);

#endif
