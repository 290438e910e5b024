/*
 * loops.h - loop nests of a CFG with Havlak's algorithm (loops.c).
 *
 * Havlak, "Nesting of reducible and irreducible loops", TOPLAS 1997: one
 * DFS, then headers in reverse preorder collapse their bodies with
 * union-find.  Irreducible regions (several entries, e.g. made with goto)
 * become a loop headed by the entry the DFS met first, flagged irreducible.
 * Invariants of a result:
 *   1. every loop has a header block and a parent loop (-1 = outermost);
 *      parent chains are acyclic and a parent's blocks include its
 *      children's;
 *   2. block_loop[b] is the innermost loop containing block b, or -1;
 *      a header's innermost loop is the loop it heads;
 *   3. a loop's parent has a higher index than the loop, so walking the
 *      loops in index order meets every loop before its parent.
 * Work is bounded: past the cap the function gives up and reports no loops.
 */
#ifndef HPCSTRUCT_LOOPS_H
#define HPCSTRUCT_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#include "cfg.h"

struct loop {
	uint32_t header;	/* block index */
	int32_t parent;		/* loop index, -1 = outermost */
	int irreducible;
};

struct loopnest {
	struct loop *loops;	size_t nloops, loops_alloc;
	int32_t *block_loop;	size_t block_alloc;
};

/*
 * Finds the loops of g into ln (reusing its memory).  Returns 0, or -1 when
 * the work cap was exceeded (ln then holds no loops).
 */
int loops_find(struct loopnest *ln, const struct cfg *g, uint64_t work_cap);
void loopnest_release(struct loopnest *ln);

#endif
