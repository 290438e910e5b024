/*
 * structfile.h - program structure (hpcstruct XML, DTD 4.9) in memory, and
 * the address -> innermost scope lookup that correlation needs.
 *
 * One struct structure per load module (LM element).  Scopes live in one
 * array in document order; scopes[0] is the LM itself and every other
 * scope's parent index is smaller than its own.  Kinds follow the DTD: LM,
 * F (file), P (procedure), A (alien = inlined code), L (loop), S
 * (statement), C (call site).  HPCToolkit's conventions are honoured: a P's
 * v is only its entry address and an L's v its header address; S and C
 * elements carry the address ranges.  A procedure's extent is derived from
 * the statements below it.
 *
 * Invariants after structfile_read():
 *  1. ranges[] is sorted by lo; every range names an S or C scope.
 *  2. procs[] is sorted by lo (the entry); hi is the end of the highest
 *     statement below the procedure (at least lo + 1).
 *  3. Strings are interned per structure and live until structure_free().
 *  4. The instruction mix (hpcstruct(5), INSTRUCTION MIX; insn-mix.h) of
 *     the statements that have one is in mixruns[], sorted by lo and not
 *     overlapping: each run is at most MIX_RUN_INSNS consecutive
 *     instructions, whose codes are mixcodes[first ...], so finding an
 *     instruction's class costs a binary search and a short walk.  A mix
 *     whose lengths do not tile its statement's ranges is refused.
 *  5. A structure that structfile_open() read through an index holds its
 *     LM alone until structure_load(); then the procedures the wanted
 *     addresses need, in document order, so that every lookup of those
 *     addresses (and of no others) answers as after structfile_read()
 *     (structindex.h, invariant 3).  has_mix is the whole file's.
 */
#ifndef HPCPROF_STRUCTFILE_H
#define HPCPROF_STRUCTFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hmap;

enum scope_kind {
	SCOPE_LM, SCOPE_FILE, SCOPE_PROC, SCOPE_ALIEN, SCOPE_LOOP, SCOPE_STMT,
	SCOPE_CALL,
};

struct scope {
	enum scope_kind kind;
	uint32_t parent;	/* index into scopes[]; 0 for the LM itself */
	uint32_t line;
	const char *name;	/* LM/F: path; P/A: procedure; else NULL */
	const char *file;	/* source file, inherited from F, A f=, L f= */
	uint64_t vma;		/* P: entry; L: header; S/C: first range start */
};

struct vrange {
	uint64_t lo, hi;	/* [lo, hi) */
	uint32_t scope;
};

/* At most this many instructions per mix run (invariant 4). */
#define MIX_RUN_INSNS 32

struct mixrun {
	uint64_t lo, hi;	/* [lo, hi): whole instructions */
	uint32_t first;		/* index of the first code in mixcodes[] */
};

struct structure {
	const char *lm_path;	/* LM n= */
	const char *source;	/* the structure file it came from */
	struct scope *scopes;	size_t nscopes, scopes_alloc;
	struct vrange *ranges;	size_t nranges, ranges_alloc;
	struct vrange *procs;	size_t nprocs, procs_alloc;
	struct hmap *strings;	/* interned strings */
	struct mixrun *mixruns;	size_t nmixruns, mixruns_alloc;
	uint8_t *mixcodes;	size_t nmixcodes, mixcodes_alloc;
	int has_mix;		/* the file has a mix, parsed or not */
	/* structfile_open() through an index: not parsed yet (invariant 5) */
	struct structindex *index;
	uint64_t *want;		size_t nwant, want_alloc;
};

/*
 * Reads every LM of the structure file at path; returns 0 and appends the
 * new structures (caller frees each with structure_free) to *out, or -1 with
 * hpc_lasterr() naming the file and line.
 */
int structfile_read(const char *path, struct structure ***out, size_t *nout,
		    size_t *alloc);
void structure_free(struct structure *s);

/*
 * As structfile_read(), but a file with a procedure index (structindex.h)
 * gives a structure of its LM alone, parsed only when structure_load()
 * says which addresses will be looked up (invariant 5).  The environment
 * variable HPCPROF_STRUCT_INDEX=0 reads every file whole; =stats says on
 * stderr how many procedures each load parsed.
 */
int structfile_open(const char *path, struct structure ***out, size_t *nout,
		    size_t *alloc);
/* 1 when s waits for structure_load(). */
int structure_partial(const struct structure *s);
/* Notes that addr (module-relative) will be looked up in s. */
void structure_want(struct structure *s, uint64_t addr);
/*
 * Parses the procedures of s's file that the addresses wanted need (the
 * whole file when its index no longer matches it).  Returns 0, or -1 with
 * hpc_lasterr() set, s then empty.
 */
int structure_load(struct structure *s);

/*
 * Index of the innermost scope containing the module-relative addr: an S
 * or C scope when a statement range covers it, else the P whose extent
 * covers it; -1 when none does.
 */
long structure_lookup(const struct structure *s, uint64_t addr);

/*
 * The class (enum insn_class) of the instruction covering the
 * module-relative addr, from the structure file's instruction mix; -1 when
 * no statement with a mix covers it.
 */
int structure_insn_class(const struct structure *s, uint64_t addr);

/*
 * The class of the instruction that ends exactly at addr (the one before
 * it in address order, when a statement with a mix covers it whole); -1
 * when there is none.
 */
int structure_insn_class_ending(const struct structure *s, uint64_t addr);

/* Index of the nearest enclosing P of scope i (i itself if a P), or -1. */
long structure_proc_of(const struct structure *s, size_t i);

/* Interns str in s (for scopes added by others, e.g. DWARF fallback). */
const char *structure_intern(struct structure *s, const char *str);

/* Creates an empty structure for lm_path (scopes[0] = the LM). */
struct structure *structure_new(const char *lm_path, const char *source);
/* Appends a scope, returns its index. */
uint32_t structure_add(struct structure *s, enum scope_kind kind,
		       uint32_t parent, const char *name, const char *file,
		       uint32_t line, uint64_t vma);
/* Adds an address range for scope i. */
void structure_add_range(struct structure *s, uint32_t scope, uint64_t lo,
			 uint64_t hi);
/* Sorts and derives procedure extents (invariants 1 and 2). */
void structure_finish(struct structure *s);

/* Prints the scope tree and ranges as stable text (hpcprof --dump). */
void structure_dump(FILE *f, const struct structure *s);

#endif
