/*
 * structindex.h - the procedure index of a structure file, so that hpcprof
 * parses only the procedures that hold samples (hpcstruct(5), PROCEDURE
 * INDEX).
 *
 * An index is made for a structure file written by this hpcstruct (its LM
 * carries the build-id line, and every element sits on a line of its own,
 * P and F at column 0): one scan over its bytes, far cheaper than parsing
 * it.  It is kept beside the file as FILE.idx (written aside and renamed)
 * and reused while it is valid: hpcstruct writes it with each structure
 * file, hpcprof makes it again when it is missing or stale; when it cannot
 * be written it serves this run from memory.  Any other structure file has no index and is read
 * whole.
 *
 * Invariants:
 *  1. A cached index is used only when its header names this machine's
 *     layout and version, and the structure file's size, modification
 *     time (ns), inode and build ID it was made from; the structure
 *     file's prolog is read again and must end with that build-id line.
 *     Anything else is a stale index: it is made again.
 *  2. procs[] is in document order; ranges[] holds every statement and
 *     call-site range of every procedure (hi > lo), sorted by (lo, hi,
 *     proc); entries[] every procedure's entry address, sorted the same.
 *  3. structindex_select() marks, for an address a, every procedure that
 *     structure_lookup(), structure_insn_class() and
 *     structure_insn_class_ending() of a whole read could consult for a:
 *     the owners of the 16 ranges with the greatest starts at or below a
 *     and of the 4 greatest entries at or below a (ties at the boundary
 *     included), and of every range covering a.  A structure made of any
 *     superset of those procedures, in document order, answers for a as
 *     the whole file does: the lookups' windows see the same elements.
 *     (One exception: two procedures whose statements' instruction mixes
 *     overlap, where structfile.h invariant 4 drops the later run; our
 *     hpcstruct writes no such file.)
 *  4. structindex_document() is a well-formed structure document: the
 *     file's prolog (declaration, DTD, root, LM and build-id line), then
 *     the selected procedures, each inside its own F start tag, copied
 *     byte for byte, then the closing tags; each copied piece is checked
 *     to start and end as a P or F line does.
 */
#ifndef HPC_STRUCTINDEX_H
#define HPC_STRUCTINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

struct structindex;

/*
 * The index of the structure file at path: the cached one when valid,
 * else made now (and cached when possible).  NULL when the file has none
 * (not written by this hpcstruct, or not laid out as it writes); the
 * caller then reads it whole.
 */
struct structindex *structindex_open(const char *path);
void structindex_free(struct structindex *ix);

/* Makes and caches the index of the structure file at path now (hpcstruct,
 * after writing it), so that hpcprof's first read finds it; a file without
 * one, or an index that cannot be written, is left to hpcprof, silently. */
void structindex_write(const char *path);

/* Number of procedures in the file; 1 when a statement has a mix. */
size_t structindex_nprocs(const struct structindex *ix);
int structindex_has_mix(const struct structindex *ix);

/*
 * Marks in mark[] (structindex_nprocs() bytes) the procedures addr
 * needs (invariant 3).
 */
void structindex_select(const struct structindex *ix, uint64_t addr,
			uint8_t *mark);

/*
 * Appends to sb the document of the marked procedures (invariant 4); an
 * empty mark[] (or NULL) gives the prolog and LM alone.  Returns 0, or -1
 * with hpc_lasterr() set when the file no longer matches its index.
 */
int structindex_document(const struct structindex *ix, const uint8_t *mark,
			 struct strbuf *sb);

#endif
