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

#include "lines.h"
#include "scopes.h"
#include "xmlw.h"

struct output {
	FILE *f;
	const struct strtab *strs;
	uint64_t next_id;
	uint32_t cur_file;	/* file of the open F, UINT32_MAX = none */
};

/* Starts the document for load module lm_name on f (not closed here). */
struct output *output_new(FILE *f, const char *lm_name,
			  const struct strtab *strs);
/*
 * Renders t's P element into t->xml (freed with t), ids left as
 * placeholders, so any thread can render while one writes.
 */
void output_render(struct proc_tree *t, const struct strtab *strs);
/* Writes a rendered procedure, numbering its ids, opening F as needed. */
void output_proc(struct output *o, const struct proc_tree *t);
/* Closes the document and frees o; 0, or -1 when a write failed. */
int output_finish(struct output *o);

#endif
