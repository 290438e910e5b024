/*
 * debuginfo.h - what hpcstruct needs from DWARF, read once up front (dwarf.c; named so
 * as not to shadow <dwarf.h>).
 *
 * struct debuginfo is built in one thread by debuginfo_load() and is then
 * read-only, so any number of analysis threads may share it (libdw itself
 * is never called after loading).  Contents:
 *   - the line map (lines.h) and one string table for file and function
 *     names (strtab indices below);
 *   - subprograms with code, sorted by entry address; one given by
 *     DW_AT_ranges alone (a function split into NAME and NAME.cold) is
 *     there once per range, each range's start standing for its entry;
 *   - the inlining forest: one node per DW_TAG_inlined_subroutine, its
 *     parent node (-1 at the top of a procedure), and its address ranges
 *     sorted by lo.  Ranges of a node lie inside its parent's ranges.
 * All addresses are file addresses (the debug file's bias applied).
 * debuginfo_load_at() reads only the compilation units whose address
 * ranges meet the wanted ranges (the line table and DIEs of those units
 * alone), so for an address of a wanted range it gives the same rows,
 * subprogram and inline ranges as debuginfo_load(), unless another unit
 * claims that address too (never so for a linker's output).
 */
#ifndef HPCSTRUCT_DEBUGINFO_H
#define HPCSTRUCT_DEBUGINFO_H

#include <stdint.h>

#include "binary.h"
#include "lines.h"

struct subprog {
	uint64_t entry;
	uint32_t file, line;		/* declaration */
	int noreturn;
};

struct inline_node {
	int32_t parent;			/* -1: directly in the procedure */
	uint32_t depth;			/* 1 for a top-level inline */
	uint32_t callee;		/* strtab: callee name */
	uint32_t callee_file, callee_line;	/* callee's declaration */
	uint32_t call_file, call_line;	/* the call site */
};

struct inline_range {
	uint64_t lo, hi;
	int32_t node;
};

struct debuginfo {
	struct strtab strs;
	struct linemap lines;
	struct subprog *subs;		size_t nsubs, subs_alloc;
	struct inline_node *nodes;	size_t nnodes, nodes_alloc;
	struct inline_range *ranges;	size_t nranges, ranges_alloc;
};

struct addr_range {
	uint64_t lo, hi;	/* [lo, hi); lo first (addrsearch.h) */
};

/* Loads b's debug information; an empty one when b has none. Never NULL. */
struct debuginfo *debuginfo_load(const struct binary *b);
/*
 * As debuginfo_load(), of the units whose ranges meet one of want[n] (file
 * addresses, sorted by lo, not overlapping); want NULL reads every unit.
 */
struct debuginfo *debuginfo_load_at(const struct binary *b,
				    const struct addr_range *want, size_t n);
/* Accepts NULL. */
void debuginfo_free(struct debuginfo *d);
/* The subprogram whose entry is addr, or NULL. */
const struct subprog *debuginfo_subprog(const struct debuginfo *d,
					uint64_t addr);
/* Index of the first inline range with lo >= addr (nranges if none). */
size_t debuginfo_first_range(const struct debuginfo *d, uint64_t addr);

#endif
