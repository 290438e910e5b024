/*
 * scopes.h - one procedure's scope tree, built and normalized (scopes.c).
 *
 * A tree procedure -> alien call site -> alien callee -> loop -> statement,
 * in any interleaving of loops and alien pairs (hpcstruct(5) shows it).
 * scopes_build() turns a CFG, its loop nest and the shared debug info into
 * the tree and applies the normalization rules documented in
 * hpcstruct(5):
 *   1. each (file, line) appears at most once per scope: a statement owns
 *      every address range of its line directly in that scope;
 *   2. a loop sits at the deepest inline level shared by all its
 *      instructions, or inside an inlined callee that holds its loop test
 *      and at least 3/4 of its instructions; an inlined call inside a loop
 *      sits inside the loop;
 *   3. a loop's line is the lowest line of its exit tests at its inline
 *      level (the loop condition's line), never past a subloop's line;
 *      sibling loops with the same file and line (split, unrolled or
 *      versioned copies of one source loop) are one loop; loops without
 *      a line (no debug information) are never merged;
 *   4. a statement found both in a scope and in a loop below it (code the
 *      compiler hoisted out of the loop) moves into the innermost such loop,
 *      except the loop's own line (its initialization stays outside);
 *   5. a callee alien's line is the lowest line, in its file, of the
 *      statements, loops and call sites inside it (through loops, not
 *      through deeper aliens): its first statement, not its declaration,
 *      which it keeps only when it has none; one without a file takes the
 *      file of the first of them.
 * Children are ordered: statements by line, then loops and aliens by their
 * lowest address.  The tree owns its memory; strings are strtab indices
 * into the debuginfo that built it.
 */
#ifndef HPCSTRUCT_SCOPES_H
#define HPCSTRUCT_SCOPES_H

#include <stddef.h>
#include <stdint.h>

#include "binary.h"
#include "cfg.h"
#include "debuginfo.h"
#include "loops.h"

enum scope_kind {
	SCOPE_PROC,
	SCOPE_CALLSITE,	/* outer alien: empty name, call site's file/line */
	SCOPE_ALIEN,	/* inner alien: the callee, its file and line */
	SCOPE_LOOP,	/* file/line of the loop, v = header addresses */
	SCOPE_STMT,	/* line, v = address ranges */
};

struct range {
	uint64_t lo, hi;
};

struct scope {
	enum scope_kind kind;
	uint32_t file, line, name;	/* strtab indices (name: aliens) */
	struct scope *parent;
	struct scope **kids;	size_t nkids, kids_alloc;
	struct range *v;	size_t nv, v_alloc;
	uint64_t minaddr;
	uint32_t first_line;	/* aliens: lowest line of their own code, 0 = none yet */
};

struct proc_tree {
	struct scope *root;	/* SCOPE_PROC; file/line of the procedure */
	const char *name;	/* borrowed from the binary */
	const char *linkname;	/* borrowed; NULL when not mangled */
	const char *libname;	/* borrowed scope_ctx's, NULL for executables */
	uint64_t entry;
	struct scope_chunk *chunks;	/* memory of the scopes below root */
	char *xml;		/* the rendered P element (output_render) */
	size_t xml_len;
	int truncated;		/* instruction cap hit: a prefix was analyzed */
	int loops_abandoned;	/* loop work cap hit: no loops */
};

struct scope_ctx {
	const struct binary *b;
	const struct debuginfo *d;
	uint32_t nofile;	/* strtab index of "[basename]" */
	const char *libname;	/* a shared library's basename, else NULL */
};

/* The file and line a procedure is filed under (before analysis). */
void scopes_proc_home(const struct scope_ctx *c, size_t pi, uint32_t *file,
		      uint32_t *line);
/* Builds procedure pi's tree; the caller frees it with proc_tree_free(). */
struct proc_tree *scopes_build(const struct scope_ctx *c, size_t pi,
			       const struct cfg *g, const struct loopnest *ln);
/* Accepts NULL. */
void proc_tree_free(struct proc_tree *t);

#endif
