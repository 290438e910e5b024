/*
 * output.h - streams scope trees as a structure file (output.c).
 *
 * Writes HPCToolkit's structure format 4.9 (hpcstruct(5)): the DTD inline,
 * one LM, then F elements grouping consecutive procedures of one file (so
 * callers pass procedures ordered by file), P, A, L, S.  Each procedure is
 * rendered on its own (output_render, into memory, by the thread that
 * analyzed it, formatted and escaped as xmlw does) with placeholder ids;
 * output_proc numbers the ids so they are unique and increase in document
 * order.  Memory does not grow with the document.
 */
#ifndef HPCSTRUCT_OUTPUT_H
#define HPCSTRUCT_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "cfg.h"
#include "debuginfo.h"
#include "lines.h"
#include "scopes.h"
#include "xmlw.h"

struct output {
	FILE *f;
	const struct strtab *strs;
	uint64_t next_id;
	uint32_t cur_file;	/* file of the open F, UINT32_MAX = none */
	int err;		/* errno of the first failed write, 0 = none */
};

/*
 * The line after the LM start tag, when the binary has a build ID: an
 * extension in a comment, which HPCToolkit's readers and the DTD ignore
 * (hpcstruct(5)), so a structure file can be matched to one build.
 */
#define OUTPUT_BUILDID_OPEN "<!-- build-id: "
#define OUTPUT_BUILDID_CLOSE " -->\n"

/*
 * A partial structure file (analyze.h) says so on the line before the LM
 * start tag (so the LM and build-ID lines stay as structindex.h reads
 * them): a processing instruction, which
 * HPCToolkit's readers and the DTD ignore, OPEN then the covered address
 * ranges as in v= ("{[0x1130-0x1190) [0x11a0-0x11a1)}", sorted by lo),
 * then CLOSE.  An address of a covered range is one the file answers for:
 * the procedure holding it is in the file, or no procedure holds it.
 */
#define OUTPUT_PARTIAL_OPEN "<?partial covers=\""
#define OUTPUT_PARTIAL_CLOSE "\"?>\n"

/*
 * Starts the document for load module lm_name, whose build ID is buildid
 * (lowercase hex, "" for none), on f (not closed here); a partial one
 * covering cover[ncover] (OUTPUT_PARTIAL_OPEN) unless cover is NULL.
 */
struct output *output_new(FILE *f, const char *lm_name, const char *buildid,
			  const struct strtab *strs,
			  const struct addr_range *cover, size_t ncover);
/*
 * Renders t's P element into t->xml (freed with t), ids left as
 * placeholders, so any thread can render while one writes.  g holds the
 * procedure's instructions (the CFG t was built from): each statement is
 * followed by its instruction mix (hpcstruct(5), INSTRUCTION MIX).
 */
void output_render(struct proc_tree *t, const struct cfg *g,
		   const struct strtab *strs);
/* Writes a rendered procedure, numbering its ids, opening F as needed. */
void output_proc(struct output *o, const struct proc_tree *t);
/*
 * Closes the document, flushes f and frees o.  Returns 0, or the negative
 * errno of the first write that failed (stdio keeps no errno, so each
 * procedure's writes are checked as they go).
 */
int output_finish(struct output *o);
/*
 * Closes f, written by the caller; returns err (0 or a negative errno)
 * when set, else the negative errno of a write that failed (ferror) or of
 * fclose itself, else 0.
 */
int output_close(FILE *f, int err);

#endif
