/*
 * cfg.h - the control-flow graph of one procedure (cfg.c).
 *
 * Built from the decoded instructions of [proc.lo, proc.hi).  Invariants:
 *   1. insns[] is sorted by address and covers the procedure and its cold
 *      part; blocks[] partitions it into maximal runs with one entry (a
 *      leader) and one exit (the last instruction); block entry starts at
 *      the procedure's entry address;
 *   2. a block's successors are the blocks control can reach next inside
 *      the procedure: fall-through, direct jump targets, jump-table targets.
 *      Calls are not edges (the block continues after a call) unless the
 *      callee never returns; jumps leaving the procedure are tail calls and
 *      have no edge; returns and hlt/ud2 end a block with no successor.
 */
#ifndef HPCSTRUCT_CFG_H
#define HPCSTRUCT_CFG_H

#include <stddef.h>
#include <stdint.h>

#include "binary.h"
#include "x86.h"

struct block {
	size_t first, last;		/* insn indices, inclusive */
	size_t succ, nsucc;		/* succs[succ .. succ+nsucc) */
};

struct cfg {
	struct insn *insns;	size_t ninsns, insns_alloc;
	struct block *blocks;	size_t nblocks, blocks_alloc;
	uint32_t *succs;	size_t nsuccs, succs_alloc;
	size_t entry;		/* the block at the procedure's entry */
	int truncated;		/* the instruction cap was reached */
};

/*
 * Builds the CFG of b->procs[pi] into g (which may hold a previous CFG:
 * its memory is reused).  noreturn[k] != 0 marks procedure k as never
 * returning.  At most cap instructions are decoded.
 */
void cfg_build(struct cfg *g, struct decoder *d, const struct binary *b,
	       size_t pi, const unsigned char *noreturn, size_t cap);
void cfg_release(struct cfg *g);
/* Index of the instruction at addr, or -1. */
ptrdiff_t cfg_insn_at(const struct cfg *g, uint64_t addr);

#endif
